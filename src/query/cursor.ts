/**
 * Pagination cursors (api-decisions.md §3.7): opaque base64url strings that
 * bind a page position to the query and to the snapshot version it came from,
 * authenticated with an HMAC so that a tampered cursor is detected.
 *
 * Layout: [1 format][6 snapshot version][8 query hash][4 next offset]
 *         [8 last group TVL][2 symbol length][symbol utf8] + [12 HMAC-SHA256].
 * Format 2: the version is 48 bits (snapshot-version.ts); format 1 (a 32-bit
 * version) is no longer issued and reads as garbage.
 */
import { createHash, createHmac, createSecretKey, timingSafeEqual, type KeyObject } from "node:crypto";
import { VERSION_BYTES } from "../snapshot/snapshot-version.js";

const FORMAT = 2;
const MAC_BYTES = 12;
const QUERY_HASH_AT = 1 + VERSION_BYTES;
const OFFSET_AT = QUERY_HASH_AT + 8;
const TVL_AT = OFFSET_AT + 4;
const FIXED_BYTES = TVL_AT + 8 + 2;
const MAX_SYMBOL_BYTES = 1024;

export interface CursorPosition {
  /** Snapshot version the walk started on. */
  readonly version: number;
  /** Index of the next entry in that snapshot's list. */
  readonly offset: number;
  /** Sort key of the last entry served: group TVL and normalizedSymbol. */
  readonly lastTvl: number;
  readonly lastSymbol: string;
}

const QUERY_HASHES_MAX = 4096;
const queryHashes = new Map<string, Buffer>();

export class CursorCodec {
  /** The HMAC key, imported once (importing it per call costs more than the HMAC). */
  private readonly key: KeyObject;

  constructor(secret: Uint8Array) {
    this.key = createSecretKey(secret);
  }

  /** Short digest of a canonical query key (see tokenQueryKey); remembered, queries repeat. */
  static queryHash(queryKey: string): Buffer {
    let hash = queryHashes.get(queryKey);
    if (hash === undefined) {
      if (queryHashes.size >= QUERY_HASHES_MAX) queryHashes.clear();
      hash = createHash("sha256").update(queryKey).digest().subarray(0, 8);
      queryHashes.set(queryKey, hash);
    }
    return hash;
  }

  encode(queryHash: Buffer, p: CursorPosition): string {
    const symbol = Buffer.from(p.lastSymbol, "utf8").subarray(0, MAX_SYMBOL_BYTES);
    const body = Buffer.allocUnsafe(FIXED_BYTES + symbol.length);
    let at = body.writeUInt8(FORMAT, 0);
    at = body.writeUIntBE(p.version, at, VERSION_BYTES);
    at += queryHash.copy(body, at, 0, 8);
    at = body.writeUInt32BE(p.offset, at);
    at = body.writeDoubleBE(p.lastTvl, at);
    at = body.writeUInt16BE(symbol.length, at);
    symbol.copy(body, at);
    return Buffer.concat([body, this.mac(body)]).toString("base64url");
  }

  /**
   * The position of a cursor issued for this query, or a reason it is not one:
   * `garbage` (not ours or tampered) or `query` (issued for another query).
   */
  decode(cursor: string, queryHash: Buffer): CursorPosition | "garbage" | "query" {
    if (cursor.length > 4096 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return "garbage";
    const raw = Buffer.from(cursor, "base64url");
    if (raw.length < FIXED_BYTES + MAC_BYTES || raw.toString("base64url") !== cursor) return "garbage";
    const body = raw.subarray(0, raw.length - MAC_BYTES);
    if (!timingSafeEqual(raw.subarray(raw.length - MAC_BYTES), this.mac(body))) return "garbage";
    if (body.readUInt8(0) !== FORMAT) return "garbage";
    const symbolLength = body.readUInt16BE(FIXED_BYTES - 2);
    if (body.length !== FIXED_BYTES + symbolLength) return "garbage";
    if (!body.subarray(QUERY_HASH_AT, OFFSET_AT).equals(queryHash)) return "query";
    return {
      version: body.readUIntBE(1, VERSION_BYTES),
      offset: body.readUInt32BE(OFFSET_AT),
      lastTvl: body.readDoubleBE(TVL_AT),
      lastSymbol: body.subarray(FIXED_BYTES).toString("utf8"),
    };
  }

  private mac(body: Buffer): Buffer {
    return createHmac("sha256", this.key).update(body).digest().subarray(0, MAC_BYTES);
  }
}
