/**
 * Bearer authentication (api-decisions.md §1 and §5): `Authorization: Bearer <key>`,
 * exactly the word `Bearer` (case-sensitive), one space, then the key.
 *
 * The header is taken as the bytes the client sent (uWS gives header values
 * one character per byte), so a key is the SHA-256 of exactly those bytes:
 * a UTF-8 key sent as UTF-8 matches the keys file's hash of its UTF-8 text.
 *
 * The success path allocates only the key string and its hash; everything that
 * builds a diagnosis runs only when the request is being refused. The presented
 * key is never echoed: API_KEY_NOT_FOUND carries a masked form only.
 */
import { ApiError } from "../api/errors.js";
import type { KeyEntry, KeyStore } from "./key-store.js";

const PREFIX = "Bearer ";
const EXAMPLE = "Bearer <api-key>";

/**
 * Returns the entry of the active, unexpired key the header presents, or
 * throws ApiError: API_KEY_MISSING, API_KEY_INVALID, API_KEY_NOT_FOUND,
 * API_KEY_DISABLED or API_KEY_EXPIRED. `authorizationHeader` is the raw header
 * value, one character per byte ("" or undefined when absent); `now` is epoch
 * milliseconds.
 */
export function authenticate(authorizationHeader: string | undefined, store: KeyStore, now: number): KeyEntry {
  const header = authorizationHeader ?? "";
  // Leading and trailing SP/HTAB are not part of an HTTP field value (RFC 9110 §5.5).
  let start = 0;
  let end = header.length;
  while (start < end && isOws(header.charCodeAt(start))) start++;
  while (end > start && isOws(header.charCodeAt(end - 1))) end--;

  if (start === end) {
    throw new ApiError(
      "API_KEY_MISSING",
      `Send your API key in the Authorization header as "${EXAMPLE}".`,
      "The request has no Authorization header (or it is empty); every /v1 data route requires HTTP bearer authentication.",
      { example: EXAMPLE },
    );
  }

  const keyStart = start + PREFIX.length;
  if (end <= keyStart || !header.startsWith(PREFIX, start)) throw invalid(diagnoseScheme(header.slice(start, end)));
  for (let i = keyStart; i < end; i++) {
    if (isSpaceOrControl(header.charCodeAt(i))) {
      throw invalid(
        i === keyStart
          ? `"Bearer" must be followed by exactly one space and then the key`
          : "the key contains whitespace or control characters, or characters that are not bytes",
      );
    }
  }
  const key = header.slice(keyStart, end);

  const entry = store.find(key, "latin1");
  if (entry === undefined) throw keyNotFound(maskKey(key));
  assertKeyUsable(entry, now);
  return entry;
}

/** API_KEY_NOT_FOUND for a presented key no record matches (`maskedKey`: maskKey of what was presented). */
export function keyNotFound(maskedKey: string): ApiError {
  return new ApiError(
    "API_KEY_NOT_FOUND",
    "The API key is not recognized; check that you are sending the complete key you were issued.",
    "No key record matches the SHA-256 of the presented key; metadata.receivedKey shows a masked form of what was received.",
    { receivedKey: maskedKey },
  );
}

/** Throws API_KEY_DISABLED or API_KEY_EXPIRED unless the key is active and unexpired at `now` (epoch ms). */
export function assertKeyUsable(entry: KeyEntry, now: number): void {
  if (!entry.active) {
    throw new ApiError(
      "API_KEY_DISABLED",
      "This API key has been disabled; ask the gateway operator to re-enable it or issue you a new key.",
      `Key id "${entry.id}" has status "disabled" in the gateway's keys file.`,
    );
  }
  if (entry.expiresAtMs <= now) {
    const expiredAt = entry.record.expiresAt!;
    throw new ApiError(
      "API_KEY_EXPIRED",
      `This API key expired at ${expiredAt}; ask the gateway operator to extend it or issue you a new key.`,
      `Key id "${entry.id}" has expiresAt ${expiredAt}, which is not after the server time ${new Date(now).toISOString()}.`,
      { expiredAt },
    );
  }
}

/**
 * The masked form (maskKey) of the key an Authorization header presents, for
 * what outlives the request (an open stream keeps this, never the key);
 * "***" when the header presents none.
 */
export function maskedKeyOf(authorizationHeader: string): string {
  const value = authorizationHeader.trim();
  return value.startsWith(PREFIX) ? maskKey(value.slice(PREFIX.length)) : "***";
}

/**
 * The entry of a key this store has already confirmed (a request presented it
 * and its hash matched), when the header is exactly `Bearer <key>` and the key
 * is active and unexpired; null otherwise (the caller takes the full path,
 * `authenticate`). One map look-up: no hashing, and the caller needs nothing
 * else of the request (not even the client's address).
 */
export function knownKey(authorizationHeader: string, store: KeyStore, now: number): KeyEntry | null {
  if (!authorizationHeader.startsWith(PREFIX)) return null;
  const entry = store.confirmedBytes(authorizationHeader.slice(PREFIX.length));
  return entry !== undefined && entry.active && entry.expiresAtMs > now ? entry : null;
}

/**
 * The form of a key that error metadata may carry: the first 4 and last 3
 * characters around "..." when the key is longer than 10 characters, else "***".
 */
export function maskKey(key: string): string {
  return key.length > 10 ? `${key.slice(0, 4)}...${key.slice(-3)}` : "***";
}

function invalid(reason: string): ApiError {
  return new ApiError(
    "API_KEY_INVALID",
    `Send the Authorization header as "${EXAMPLE}": the word Bearer, one space, then your key.`,
    `Malformed Authorization header: ${reason}.`,
    { reason },
  );
}

/**
 * Why a trimmed, non-empty header that does not start with "Bearer " plus a
 * key is malformed. Never quotes the header: it may be the key itself.
 */
function diagnoseScheme(value: string): string {
  const space = value.search(/[ \t]/);
  const scheme = space === -1 ? value : value.slice(0, space);
  if (scheme === "Bearer") {
    return space === -1 ? `no key after "Bearer"` : `"Bearer" must be followed by exactly one space and then the key`;
  }
  if (value.startsWith("Bearer")) return `"Bearer" must be followed by exactly one space and then the key`;
  if (scheme.toLowerCase() === "bearer") {
    return `the scheme is case-sensitive: write "Bearer" (capital B, then lowercase), as in "${EXAMPLE}"`;
  }
  if (space === -1) return `missing the "Bearer " prefix; expected "${EXAMPLE}"`;
  return `unsupported authentication scheme; expected "${EXAMPLE}"`;
}

/** SP or HTAB. */
function isOws(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

/**
 * Space, a C0 control or DEL; or a character above 0xFF, which no HTTP header
 * byte can be. Bytes 0x80-0xFF are parts of UTF-8 characters and allowed.
 */
function isSpaceOrControl(code: number): boolean {
  return code <= 0x20 || code === 0x7f || code > 0xff;
}
