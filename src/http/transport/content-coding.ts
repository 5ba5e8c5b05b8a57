/**
 * Content negotiation of the response coding (RFC 9110 §12.5.3): the
 * Accept-Encoding header's codings and q-values, `identity` and `*`. The
 * gateway codes with `gzip` or `br`; among equally preferred codings it picks
 * gzip (its compressed bodies are mostly precomputed; brotli is compressed per
 * response). When nothing acceptable remains the body is sent as is
 * (identity), as RFC 9110 allows.
 */
export type ContentCoding = "gzip" | "br" | "identity";

/** Longest header value looked at (the rest is ignored): a bound on per-request work. */
const MAX_HEADER_CHARS = 512;

/** Server preference among compressions of equal q. */
const PREFERENCE = ["gzip", "br"] as const;

/** @param allowBrotli false when the body is too large to compress with brotli per response */
export function chooseContentCoding(acceptEncoding: string, allowBrotli = true): ContentCoding {
  if (acceptEncoding === "") return "identity";
  const q: Record<ContentCoding, number> = { gzip: -1, br: -1, identity: -1 };
  let star = -1;
  for (const item of acceptEncoding.slice(0, MAX_HEADER_CHARS).split(",")) {
    const [rawName, ...params] = item.split(";");
    const name = rawName.trim().toLowerCase();
    if (name === "") continue;
    let weight = 1;
    for (const param of params) {
      const [key, value] = param.split("=");
      if (key.trim().toLowerCase() !== "q" || value === undefined) continue;
      const parsed = Number(value.trim());
      weight = Number.isFinite(parsed) && parsed >= 0 && parsed <= 1 ? parsed : 0;
    }
    if (name === "*") star = Math.max(star, weight);
    else if (name === "gzip" || name === "x-gzip") q.gzip = Math.max(q.gzip, weight);
    else if (name === "br") q.br = Math.max(q.br, weight);
    else if (name === "identity") q.identity = Math.max(q.identity, weight);
  }
  // Codings not named take `*`'s weight. identity is acceptable unless excluded (by name, or by `*;q=0`),
  // but only an explicit higher q makes it preferred over an accepted compression.
  if (q.gzip < 0) q.gzip = star < 0 ? 0 : star;
  if (q.br < 0) q.br = star < 0 ? 0 : star;
  if (!allowBrotli) q.br = 0;
  let best: ContentCoding = "identity";
  let bestQ = 0;
  for (const coding of PREFERENCE) {
    if (q[coding] > bestQ) {
      best = coding;
      bestQ = q[coding];
    }
  }
  if (q.identity > bestQ) return "identity";
  return best;
}
