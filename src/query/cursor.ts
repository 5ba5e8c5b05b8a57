/**
 * Pagination cursors (api-decisions.md §3.7, api-extended.md §7): opaque
 * base64url strings that bind a list position to its scope (the route and the
 * effective query, everything in the request but `limit`) and to the snapshot
 * version the walk started on, authenticated with an HMAC so that a tampered or
 * foreign cursor is detected. Each list writes its own position fields.
 *
 * Layout: [1 format][6 snapshot version][8 scope hash][position] + [12 HMAC-SHA256].
 */
import { createHash, createHmac, createSecretKey, timingSafeEqual, type KeyObject } from "node:crypto";
import { VERSION_BYTES } from "../api/snapshot-version.js";

const FORMAT = 2;
const SCOPE_BYTES = 8;
const HEADER_BYTES = 1 + VERSION_BYTES + SCOPE_BYTES;
const MAC_BYTES = 12;
/** Longest cursor accepted for decoding (characters). */
const MAX_CURSOR_CHARS = 4096;
/** Longest string a position may carry (UTF-8 bytes; longer ones are cut). */
const MAX_STRING_BYTES = 1024;
const SCOPES_MAX = 4096;

/** Writes a position's fields in order. */
export class PositionWriter {
  private readonly parts: Buffer[] = [];

  u32(value: number): this {
    const b = Buffer.allocUnsafe(4);
    b.writeUInt32BE(value >>> 0, 0);
    this.parts.push(b);
    return this;
  }

  f64(value: number): this {
    const b = Buffer.allocUnsafe(8);
    b.writeDoubleBE(value, 0);
    this.parts.push(b);
    return this;
  }

  string(value: string): this {
    const text = Buffer.from(value, "utf8").subarray(0, MAX_STRING_BYTES);
    const b = Buffer.allocUnsafe(2 + text.length);
    b.writeUInt16BE(text.length, 0);
    text.copy(b, 2);
    this.parts.push(b);
    return this;
  }

  bytes(): Buffer {
    return Buffer.concat(this.parts);
  }
}

/** Reads a position's fields in the order they were written; null once anything is out of place. */
export class PositionReader {
  private at = 0;
  private broken = false;

  constructor(private readonly bytes: Buffer) {}

  private take(length: number): number {
    if (this.broken || this.at + length > this.bytes.length) {
      this.broken = true;
      return -1;
    }
    const start = this.at;
    this.at += length;
    return start;
  }

  u32(): number {
    const at = this.take(4);
    return at < 0 ? 0 : this.bytes.readUInt32BE(at);
  }

  f64(): number {
    const at = this.take(8);
    return at < 0 ? 0 : this.bytes.readDoubleBE(at);
  }

  string(): string {
    const lengthAt = this.take(2);
    if (lengthAt < 0) return "";
    const at = this.take(this.bytes.readUInt16BE(lengthAt));
    return at < 0 ? "" : this.bytes.toString("utf8", at, this.at);
  }

  /** True when every field read was present and nothing is left over. */
  complete(): boolean {
    return !this.broken && this.at === this.bytes.length;
  }
}

export interface DecodedCursor {
  /** Snapshot version the walk started on. */
  readonly version: number;
  readonly position: PositionReader;
}

export class CursorCodec {
  /** The HMAC key, imported once (importing it per call costs more than the HMAC). */
  private readonly key: KeyObject;
  private readonly scopes = new Map<string, Buffer>();

  constructor(secret: Uint8Array) {
    this.key = createSecretKey(secret);
  }

  /**
   * The scope digest of a route and its canonical effective query: cursors of
   * one scope are foreign to every other (remembered, queries repeat).
   */
  scope(route: string, queryKey: string): Buffer {
    const text = `${route}\n${queryKey}`;
    let hash = this.scopes.get(text);
    if (hash === undefined) {
      if (this.scopes.size >= SCOPES_MAX) this.scopes.clear();
      hash = createHash("sha256").update(text).digest().subarray(0, SCOPE_BYTES);
      this.scopes.set(text, hash);
    }
    return hash;
  }

  encode(scope: Buffer, version: number, position: Buffer): string {
    const body = Buffer.allocUnsafe(HEADER_BYTES + position.length);
    body.writeUInt8(FORMAT, 0);
    body.writeUIntBE(version, 1, VERSION_BYTES);
    scope.copy(body, 1 + VERSION_BYTES, 0, SCOPE_BYTES);
    position.copy(body, HEADER_BYTES);
    return Buffer.concat([body, this.mac(body)]).toString("base64url");
  }

  /**
   * The cursor's version and position when it was issued for this scope, or
   * why not: `garbage` (not ours, altered, or of another format) or `scope`
   * (issued for another route or query).
   */
  decode(cursor: string, scope: Buffer): DecodedCursor | "garbage" | "scope" {
    if (cursor.length > MAX_CURSOR_CHARS || !/^[A-Za-z0-9_-]+$/.test(cursor)) return "garbage";
    const raw = Buffer.from(cursor, "base64url");
    if (raw.length < HEADER_BYTES + MAC_BYTES || raw.toString("base64url") !== cursor) return "garbage";
    const body = raw.subarray(0, raw.length - MAC_BYTES);
    if (!timingSafeEqual(raw.subarray(raw.length - MAC_BYTES), this.mac(body))) return "garbage";
    if (body.readUInt8(0) !== FORMAT) return "garbage";
    if (!body.subarray(1 + VERSION_BYTES, HEADER_BYTES).equals(scope)) return "scope";
    return { version: body.readUIntBE(1, VERSION_BYTES), position: new PositionReader(body.subarray(HEADER_BYTES)) };
  }

  private mac(body: Buffer): Buffer {
    return createHmac("sha256", this.key).update(body).digest().subarray(0, MAC_BYTES);
  }
}
