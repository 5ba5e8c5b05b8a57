/**
 * Metadata parity of api-decisions.md §3.3, split into what can be computed
 * once per token name (at build time) and the pairwise test run per query.
 */

const SPACE = 0x20;

/** What each ASCII code becomes in a cleaned name: [a-z0-9 ] itself, A-Z lowercased, anything else 0 (removed). */
const CLEANED = Uint8Array.from({ length: 0x80 }, (_, c) =>
  c >= 0x41 && c <= 0x5a ? c | 0x20 : (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === SPACE ? c : 0,
);

/**
 * The cleaned name (api-decisions.md §3.3: lowercased, everything but [a-z0-9 ] removed, trimmed) of the UTF-8 text
 * bytes[from, to), written as ASCII bytes to `out` from 0; returns its length. This is the one place of the rule:
 * the token index cleans the names it interns from their bytes, cleanName and nameWords go through it too.
 *
 * A character above U+007F is lowercased as `toLowerCase` lowercases it (two become ASCII letters: U+0130 "İ" → "i"
 * and a combining dot, U+212A Kelvin → "k"; the context-dependent lowercase of Σ is never ASCII); bytes that are no
 * UTF-8 character are U+FFFD, removed. Every character gives at most one byte: `out` needs room for to - from.
 */
export function cleanNameBytes(bytes: Uint8Array, from: number, to: number, out: Uint8Array): number {
  let length = 0;
  for (let b = from; b < to;) {
    const c = bytes[b];
    if (c < 0x80) {
      length = keep(out, length, CLEANED[c]);
      b++;
      continue;
    }
    const end = characterEnd(bytes, b, to);
    if (end > b + 1) {
      const lower = String.fromCodePoint(codePoint(bytes, b, end)).toLowerCase();
      for (let k = 0; k < lower.length; k++) {
        const u = lower.charCodeAt(k);
        if (u < 0x80) length = keep(out, length, CLEANED[u]);
      }
    }
    b = end;
  }
  while (length > 0 && out[length - 1] === SPACE) length--;
  return length;
}

/** Appends a cleaned byte (0: none; a space only after a kept byte: the name's leading spaces are trimmed). */
function keep(out: Uint8Array, length: number, c: number): number {
  if (c === 0 || (c === SPACE && length === 0)) return length;
  out[length] = c;
  return length + 1;
}

/** The end of the UTF-8 character starting at bytes[at] (>= 0x80), or at + 1 when none starts there (U+FFFD). */
function characterEnd(bytes: Uint8Array, at: number, to: number): number {
  const c = bytes[at];
  // The sequence's length and the range of its second byte (which rules out overlong forms, surrogates, > U+10FFFF).
  let n: number;
  let low = 0x80;
  let high = 0xbf;
  if (c >= 0xc2 && c <= 0xdf) n = 2;
  else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    if (c === 0xe0) low = 0xa0;
    else if (c === 0xed) high = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    if (c === 0xf0) low = 0x90;
    else if (c === 0xf4) high = 0x8f;
  } else return at + 1;
  if (at + n > to || bytes[at + 1] < low || bytes[at + 1] > high) return at + 1;
  for (let k = 2; k < n; k++) if ((bytes[at + k] & 0xc0) !== 0x80) return at + 1;
  return at + n;
}

/** The code point of the (valid) UTF-8 character bytes[at, end). */
function codePoint(bytes: Uint8Array, at: number, end: number): number {
  let cp = bytes[at] & (0xff >> (end - at + 1));
  for (let k = at + 1; k < end; k++) cp = (cp << 6) | (bytes[k] & 0x3f);
  return cp;
}

/** The words of a cleaned name (ASCII bytes cleaned[0, length)): its runs of bytes other than spaces, in order. */
export function forEachWord(cleaned: Uint8Array, length: number, word: (start: number, end: number) => void): void {
  for (let at = 0; at < length;) {
    if (cleaned[at] === SPACE) {
      at++;
      continue;
    }
    const start = at;
    while (at < length && cleaned[at] !== SPACE) at++;
    word(start, at);
  }
}

/** Lowercased, everything but [a-z0-9 ] removed, trimmed (cleanNameBytes). */
export function cleanName(normalizedName: string): string {
  return cleanedString(cleanInScratch(normalizedName));
}

/**
 * A string's UTF-8 bytes and its cleaned name's: scratch of this thread, used by one call at a time (a UTF-16 code
 * unit takes at most three UTF-8 bytes, and every byte gives at most one cleaned byte).
 */
const encoder = new TextEncoder();
let utf8Scratch = new Uint8Array(256);
let cleanedScratch = Buffer.alloc(256);

/** Cleans `name` into cleanedScratch; returns the cleaned length. */
function cleanInScratch(name: string): number {
  if (utf8Scratch.length < name.length * 3) {
    utf8Scratch = new Uint8Array(name.length * 3);
    cleanedScratch = Buffer.alloc(name.length * 3);
  }
  const { written } = encoder.encodeInto(name, utf8Scratch);
  return cleanNameBytes(utf8Scratch, 0, written, cleanedScratch);
}

function cleanedString(length: number): string {
  return cleanedScratch.toString("latin1", 0, length);
}

/** What parity needs of a name alone (shared by every token with that name). */
export interface NameWords {
  readonly cleaned: string;
  readonly words: readonly string[];
  /** First letters of the words. */
  readonly initials: string;
}

export function nameWords(normalizedName: string): NameWords {
  const length = cleanInScratch(normalizedName);
  const cleaned = cleanedString(length);
  const words: string[] = [];
  let initials = "";
  forEachWord(cleanedScratch, length, (start, end) => {
    words.push(cleaned.slice(start, end));
    initials += cleaned[start];
  });
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
