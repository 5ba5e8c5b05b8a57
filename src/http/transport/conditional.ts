/**
 * Entity tags and If-None-Match (RFC 9110 §8.8.3, §13.1.2).
 *
 * Enveloped answers (`{statusCode, timestamp, path, traceId, data}`) differ on
 * every request in `timestamp` and `traceId`, so no validator of theirs can be
 * strong; their ETag covers `data` and the snapshot that answered, and is weak:
 * `W/"<snapshot version>-<checksum of data>-<length of data>"` (decimal; the checksum
 * is a CRC-32 of the data or of what the data is made from). Bodies
 * sent as they are (the OpenAPI document, /health) get a strong ETag of their
 * bytes, with the content coding appended for a compressed variant. If-None-Match
 * compares weakly, as RFC 9110 requires, so both kinds yield 304.
 */
import type { ContentCoding } from "./content-coding.js";
import { crc32Continue } from "./gzip-member.js";

/** A weak validator of `data` as served from snapshot `version`. */
export function dataEtag(version: string, crc: number, length: number): string {
  // Decimal: number-to-string in base 10 is several times cheaper than in base 16.
  return `W/"${version}-${crc >>> 0}-${length}"`;
}

/** A strong validator of exactly these body bytes in this coding. */
export function bodyEtag(body: Uint8Array, coding: ContentCoding): string {
  const tag = `${(crc32Continue(body, 0) >>> 0).toString(16)}-${body.length.toString(16)}`;
  return coding === "identity" ? `"${tag}"` : `"${tag}-${coding}"`;
}

/** The opaque part of a tag without W/ and quotes, and without a coding suffix. */
function opaque(tag: string): string {
  let t = tag.trim();
  if (t.startsWith("W/")) t = t.slice(2);
  if (t.length >= 2 && t.startsWith('"') && t.endsWith('"')) t = t.slice(1, -1);
  return t.replace(/-(gzip|br)$/, "");
}

/** Longest If-None-Match value looked at (a bound on per-request work). */
const MAX_HEADER_CHARS = 4096;

/** True when If-None-Match (a list of tags, or `*`) matches `etag` by weak comparison. */
export function ifNoneMatchHits(ifNoneMatch: string, etag: string): boolean {
  if (ifNoneMatch === "") return false;
  const value = ifNoneMatch.slice(0, MAX_HEADER_CHARS).trim();
  if (value === "*") return true;
  const wanted = opaque(etag);
  for (const tag of value.split(",")) if (opaque(tag) === wanted) return true;
  return false;
}
