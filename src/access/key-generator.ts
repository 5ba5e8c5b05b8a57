/**
 * New API keys: `lgw_` followed by 32 bytes (256 bits) from the operating
 * system's CSPRNG, base64url-encoded (43 characters of `[A-Za-z0-9_-]`), so a
 * key fits an `Authorization: Bearer` header as is and says where it belongs.
 */
import { randomBytes } from "node:crypto";

export const API_KEY_PREFIX = "lgw_";
export const API_KEY_RANDOM_BYTES = 32;

/** A fresh random API key. Only its SHA-256 may be stored. */
export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(API_KEY_RANDOM_BYTES).toString("base64url");
}
