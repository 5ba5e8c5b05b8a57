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
import { crc32Continue } from "../../util/crc32.js";

/** A weak validator of `data` as served from snapshot `version`. */
export function dataEtag(version: string, crc: number, length: number): string {
  // Decimal: number-to-string in base 10 is several times cheaper than in base 16.
  return `W/"${version}-${crc >>> 0}-${length}"`;
}

/** A strong validator of exactly these body bytes in this coding (`crc`: their CRC-32, when known beforehand). */
export function bodyEtag(body: Uint8Array, coding: ContentCoding, crc = crc32Continue(body, 0)): string {
  const tag = `${(crc >>> 0).toString(16)}-${body.length.toString(16)}`;
  return coding === "identity" ? `"${tag}"` : `"${tag}-${coding}"`;
}

const SPACE = 0x20;
const TAB = 0x09;
const QUOTE = 0x22;

interface Range {
  from: number;
  to: number;
}

/**
 * Narrows `range` (a list member of `text`) to its opaque part: blanks trimmed,
 * `W/` and the quotes dropped, then a `-gzip` or `-br` suffix.
 */
function narrowToOpaque(text: string, range: Range): void {
  let { from, to } = range;
  while (from < to && (text.charCodeAt(from) === SPACE || text.charCodeAt(from) === TAB)) from++;
  while (to > from && (text.charCodeAt(to - 1) === SPACE || text.charCodeAt(to - 1) === TAB)) to--;
  if (to - from >= 2 && text.startsWith("W/", from)) from += 2;
  if (to - from >= 2 && text.charCodeAt(from) === QUOTE && text.charCodeAt(to - 1) === QUOTE) {
    from++;
    to--;
  }
  if (to - from >= 5 && text.startsWith("-gzip", to - 5)) to -= 5;
  else if (to - from >= 3 && text.startsWith("-br", to - 3)) to -= 3;
  range.from = from;
  range.to = to;
}

/**
 * True when If-None-Match (a list of tags, or `*`) matches `etag` by weak
 * comparison. The whole header is read (uWS bounds it by MAX_HEADER_BYTES), in
 * one pass that allocates nothing per list member.
 */
export function ifNoneMatchHits(ifNoneMatch: string, etag: string): boolean {
  if (ifNoneMatch === "") return false;
  if (ifNoneMatch.trim() === "*") return true;
  const range: Range = { from: 0, to: etag.length };
  narrowToOpaque(etag, range);
  const wanted = etag.slice(range.from, range.to);
  let start = 0;
  while (start <= ifNoneMatch.length) {
    let end = ifNoneMatch.indexOf(",", start);
    if (end < 0) end = ifNoneMatch.length;
    range.from = start;
    range.to = end;
    narrowToOpaque(ifNoneMatch, range);
    if (range.to - range.from === wanted.length && ifNoneMatch.startsWith(wanted, range.from)) return true;
    start = end + 1;
  }
  return false;
}
