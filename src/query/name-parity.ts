/**
 * Metadata parity of api-decisions.md §3.3, split into what can be computed
 * once per token (at build time) and the pairwise test run per query.
 */

/** Lowercased, everything but [a-z0-9 ] removed, trimmed. */
export function cleanName(normalizedName: string): string {
  return normalizedName.toLowerCase().replace(/[^a-z0-9 ]/g, "").trim();
}

export interface NameFeatures {
  readonly cleaned: string;
  readonly words: readonly string[];
  /** The cleaned name contains the lowercased symbol. */
  readonly containsSymbol: boolean;
  /** The initials of the name's words equal the lowercased symbol. */
  readonly initialsMatchSymbol: boolean;
}

export function nameFeatures(normalizedName: string, normalizedSymbol: string): NameFeatures {
  const cleaned = cleanName(normalizedName);
  const symbol = normalizedSymbol.toLowerCase();
  const words = cleaned.split(" ").filter((w) => w.length > 0);
  let initials = "";
  for (const w of words) initials += w[0];
  return {
    cleaned,
    words,
    containsSymbol: cleaned.includes(symbol),
    initialsMatchSymbol: initials === symbol,
  };
}

/** Jaccard index of two sorted, duplicate-free id lists. */
export function jaccardSorted(a: ArrayLike<number>, aStart: number, aEnd: number, b: ArrayLike<number>, bStart: number, bEnd: number): number {
  let i = aStart;
  let j = bStart;
  let shared = 0;
  while (i < aEnd && j < bEnd) {
    const x = a[i];
    const y = b[j];
    if (x === y) {
      shared++;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  const union = aEnd - aStart + (bEnd - bStart) - shared;
  return union === 0 ? 1 : shared / union;
}
