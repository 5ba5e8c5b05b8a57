/**
 * Metadata parity of api-decisions.md §3.3, split into what can be computed
 * once per token name (at build time) and the pairwise test run per query.
 */

/** Lowercased, everything but [a-z0-9 ] removed, trimmed. */
export function cleanName(normalizedName: string): string {
  return normalizedName
    .toLowerCase()
    .replace(/[^a-z0-9 ]/g, "")
    .trim();
}

/** What parity needs of a name alone (shared by every token with that name). */
export interface NameWords {
  readonly cleaned: string;
  readonly words: readonly string[];
  /** First letters of the words. */
  readonly initials: string;
}

export function nameWords(normalizedName: string): NameWords {
  const cleaned = cleanName(normalizedName);
  const words = cleaned.split(" ").filter((w) => w.length > 0);
  let initials = "";
  for (const w of words) initials += w[0];
  return { cleaned, words, initials };
}

/** The cleaned name contains the symbol (`lowerSymbol`: already lowercased). */
export function containsSymbol(name: NameWords, lowerSymbol: string): boolean {
  return name.cleaned.includes(lowerSymbol);
}

/** The initials of the name's words equal the symbol (`lowerSymbol`: already lowercased). */
export function initialsMatchSymbol(name: NameWords, lowerSymbol: string): boolean {
  return name.initials === lowerSymbol;
}

/** Jaccard index of two sorted, duplicate-free id lists. */
export function jaccardSorted(
  a: ArrayLike<number>,
  aStart: number,
  aEnd: number,
  b: ArrayLike<number>,
  bStart: number,
  bEnd: number,
): number {
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
