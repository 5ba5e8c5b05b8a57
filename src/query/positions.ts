/**
 * Positions (live.md §12): for each chain, the id of the last change set a
 * client has seen, written as an opaque base64url string (no padding). Derived
 * from file contents only (a change-set id is `<generatedAt>.<12 hex of the
 * file's SHA-256>`), so every instance that served the same files writes and
 * accepts the same positions.
 *
 * Binary layout: byte 0 = format 1; then per chain, by ascending chain id,
 * 16 bytes: chain id (u32 BE), generatedAt (u48 BE), the 6 bytes of the id's
 * 12 hex digits. Decoding is strict: only the text encodePosition writes for
 * some position is accepted (charset, length 1 + 16k bytes with k <= 7,
 * canonical base64url, format 1, supported chain ids strictly ascending);
 * anything else is null (the routes answer 400 INVALID_POSITION).
 */
import { ApiError } from "../api/errors.js";
import { isSupportedChainId, SUPPORTED_CHAIN_IDS, type ChainId } from "../chains/chains.js";

/** A position: chain id → the id of the last change set seen on it. */
export type Position = ReadonlyMap<ChainId, string>;

const FORMAT = 1;
const ENTRY_BYTES = 16;
const HASH_BYTES = 6;
const MAX_CHAINS = SUPPORTED_CHAIN_IDS.length;
/** Characters of the longest position (1 + 16 * 7 bytes in base64url). */
export const MAX_POSITION_CHARS = Math.ceil(((1 + ENTRY_BYTES * MAX_CHAINS) * 4) / 3);
/** Largest generatedAt a position holds (u48). */
const MAX_GENERATED_AT = 2 ** 48 - 1;

const ID_PATTERN = /^(0|[1-9][0-9]{0,14})\.([0-9a-f]{12})$/;
const CHARSET = /^[A-Za-z0-9_-]+$/;

/** The generatedAt and hash hex of a change-set id, or null when it is not one a position can hold. */
export function parseChangeSetId(id: string): { generatedAt: number; hash: string } | null {
  const m = ID_PATTERN.exec(id);
  if (m === null) return null;
  const generatedAt = Number(m[1]);
  return generatedAt <= MAX_GENERATED_AT ? { generatedAt, hash: m[2] } : null;
}

/** generatedAt of a well-formed change-set id (the part before the dot). */
export function generatedAtOfId(id: string): number {
  return Number(id.slice(0, id.indexOf(".")));
}

/** The text of a position. Throws on an id that no position can hold (generatedAt outside 0..2^48-1, or not an id). */
export function encodePosition(position: Position): string {
  const chains = [...position.keys()].sort((a, b) => a - b);
  const out = Buffer.alloc(1 + ENTRY_BYTES * chains.length);
  out[0] = FORMAT;
  let at = 1;
  for (const chainId of chains) {
    const id = position.get(chainId)!;
    const parsed = parseChangeSetId(id);
    if (parsed === null) throw new RangeError(`not a change-set id a position can hold: ${JSON.stringify(id)}`);
    out.writeUInt32BE(chainId, at);
    out.writeUIntBE(parsed.generatedAt, at + 4, 6);
    out.write(parsed.hash, at + 10, HASH_BYTES, "hex");
    at += ENTRY_BYTES;
  }
  return out.toString("base64url");
}

/** The position a text names, or null when the text is not exactly what encodePosition writes. */
export function decodePosition(text: string): Position | null {
  if (typeof text !== "string" || text.length < 2 || text.length > MAX_POSITION_CHARS || !CHARSET.test(text)) return null;
  const bytes = Buffer.from(text, "base64url");
  if (bytes.length < 1 || (bytes.length - 1) % ENTRY_BYTES !== 0 || bytes[0] !== FORMAT) return null;
  if (bytes.toString("base64url") !== text) return null; // not canonical (stray bits in the last character)
  const count = (bytes.length - 1) / ENTRY_BYTES;
  if (count > MAX_CHAINS) return null;
  const position = new Map<ChainId, string>();
  let previous = -1;
  for (let k = 0, at = 1; k < count; k++, at += ENTRY_BYTES) {
    const chainId = bytes.readUInt32BE(at);
    if (!isSupportedChainId(chainId) || chainId <= previous) return null;
    previous = chainId;
    position.set(chainId, `${bytes.readUIntBE(at + 4, 6)}.${bytes.toString("hex", at + 10, at + 10 + HASH_BYTES)}`);
  }
  return position;
}

/** `position` with `chainId`'s entry set to `id` (a new map). */
export function positionWith(position: Position, chainId: ChainId, id: string): Position {
  const next = new Map(position);
  next.set(chainId, id);
  return next;
}

/** 400 INVALID_POSITION for a position text the gateway did not write (`since`, or an SSE `Last-Event-ID`). */
export function invalidPosition(position: string): ApiError {
  return new ApiError(
    "INVALID_POSITION",
    "The position is not valid; use a `position` this API answered (GET /v1/status, a stream's events) without changing it.",
    "A position is base64url of a format byte and, per chain by ascending chain id, its change-set id (chain id, generatedAt, 6 bytes of the file's SHA-256).",
    { position },
  );
}

/** The position a text names; throws INVALID_POSITION (metadata `{position}`: the text as sent). */
export function parsePosition(text: string): Position {
  const position = decodePosition(text);
  if (position === null) throw invalidPosition(text);
  return position;
}
