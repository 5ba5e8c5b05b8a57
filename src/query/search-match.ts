/**
 * Which token instances a search term matches (api-extended.md §8, §11) and
 * how relevant each match is. The term (trimmed, lowercased) matches an
 * instance when it is a literal substring of its lowercased symbol, name,
 * normalizedSymbol or normalizedName, or when it is a `0x` + 40 hex address
 * equal to the instance's address.
 *
 * The scan runs over the index's distinct search strings (each once, however
 * many instances share it) with the engine's substring search, then hands
 * the matches to the instances through the postings. Relevance tiers:
 * 1 a symbol equals the term, 2 a symbol starts with it, 3 a name starts with
 * it or has a word (a maximal run of letters and digits) starting with it,
 * 4 any other match.
 */
import { FIELD_NAME, FIELD_SYMBOL, type TokenIndexData } from "../tables/token-index.js";
import { instancesWithAddress, parseAddress } from "../tables/token-lookup.js";

export interface SearchTerm {
  /** Trimmed and lowercased. */
  readonly text: string;
  /** The term's address bytes when it is `0x` + 40 hex digits. */
  readonly address: Uint8Array | null;
  /** Only letters and digits: a word of a name can start with it. */
  readonly wordLike: boolean;
}

const WORD_CHAR = /^[\p{L}\p{N}]$/u;
const WORD_LIKE = /^[\p{L}\p{N}]+$/u;

/** @param trimmed the request's term, already trimmed (1..MAX_SEARCH_TERM_LENGTH code units) */
export function searchTerm(trimmed: string): SearchTerm {
  const text = trimmed.toLowerCase();
  return { text, address: parseAddress(trimmed), wordLike: WORD_LIKE.test(text) };
}

export interface SearchMatch {
  /** Tier (1-4) of each matching instance in scope; 0 for every other instance. */
  readonly tier: Uint8Array;
  /** The matching instances in scope (each once, in no particular order). */
  readonly instances: Uint32Array;
  readonly count: number;
}

/**
 * @param text the decoded search text of the index (see ServingSnapshot.searchText)
 * @param scopeMask chains (bits of SUPPORTED_CHAIN_IDS positions) whose instances may match
 * @param withTiers false: every match gets tier 4 (orders that do not use relevance skip the classification)
 */
export function matchSearchTerm(ix: TokenIndexData, text: string, term: SearchTerm, scopeMask: number, withTiers: boolean): SearchMatch {
  const { chainBit, postingStart, postings, searchOffsets: offsets } = ix;
  const tier = new Uint8Array(ix.instanceCount);
  let instances = new Uint32Array(256);
  let count = 0;

  if (term.address !== null) {
    for (const instance of instancesWithAddress(ix, term.address)) {
      if ((chainBit[instance] & scopeMask) === 0) continue;
      tier[instance] = 4;
      instances[count++] = instance;
    }
  }

  const needle = term.text;
  const length = needle.length;
  const strings = offsets.length - 1;
  let k = 0;
  let from = 0;
  for (;;) {
    const p = text.indexOf(needle, from);
    if (p < 0) break;
    k = stringAt(offsets, strings, p, k);
    const start = offsets[k];
    const end = offsets[k + 1];
    // Whether or not it matches, no later occurrence inside string k can fit in it.
    from = end;
    if (p + length > end) continue;
    let symbolTier = 4;
    let nameTier = 4;
    if (withTiers) {
      const prefix = p === start;
      symbolTier = prefix ? (end - start === length ? 1 : 2) : 4;
      nameTier = prefix || (term.wordLike && startsWord(text, needle, start, end, p)) ? 3 : 4;
    }
    const bothTier = symbolTier < nameTier ? symbolTier : nameTier;
    for (let e = postingStart[k], stop = postingStart[k + 1]; e < stop; e++) {
      const posting = postings[e];
      const instance = posting >>> 2;
      if ((chainBit[instance] & scopeMask) === 0) continue;
      const fields = posting & 3;
      const t = fields === FIELD_SYMBOL ? symbolTier : fields === FIELD_NAME ? nameTier : bothTier;
      const seen = tier[instance];
      if (seen === 0) {
        if (count === instances.length) {
          const grown = new Uint32Array(instances.length * 2);
          grown.set(instances);
          instances = grown;
        }
        instances[count++] = instance;
        tier[instance] = t;
      } else if (t < seen) tier[instance] = t;
    }
  }
  return { tier, instances, count };
}

/** The string holding text position p: the largest k >= from with offsets[k] <= p (galloping forward). */
function stringAt(offsets: Uint32Array, strings: number, p: number, from: number): number {
  if (offsets[from + 1] > p) return from;
  let step = 1;
  while (from + step < strings && offsets[from + step] <= p) step *= 2;
  let lo = from + (step >> 1);
  let hi = Math.min(from + step, strings);
  // offsets[lo] <= p < offsets[hi] (or hi = strings)
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (offsets[mid] <= p) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** Some occurrence of the (word-like) needle in text[start, end) at or after `first` starts a word. */
function startsWord(text: string, needle: string, start: number, end: number, first: number): boolean {
  for (let q = first; q >= 0 && q + needle.length <= end; q = text.indexOf(needle, q + 1)) {
    if (q === start || !isWordCharBefore(text, q)) return true;
  }
  return false;
}

/** The character before position q is a letter or digit (a surrogate pair read as one character). */
function isWordCharBefore(text: string, q: number): boolean {
  const unit = text.charCodeAt(q - 1);
  if (unit < 0x80) return (unit >= 0x30 && unit <= 0x39) || (unit >= 0x61 && unit <= 0x7a) || (unit >= 0x41 && unit <= 0x5a);
  const char = unit >= 0xdc00 && unit <= 0xdfff && q >= 2 ? text.slice(q - 2, q) : text[q - 1];
  return WORD_CHAR.test(char);
}

/** The groups holding a matching instance, ascending (the only groups a multi-chain search evaluates). */
export function matchedGroups(ix: TokenIndexData, match: SearchMatch): { groups: Uint32Array; groupCount: number } {
  const marked = new Uint8Array(ix.groupCount);
  let groupCount = 0;
  for (let m = 0; m < match.count; m++) {
    const g = ix.groupOf[match.instances[m]];
    if (marked[g] === 0) {
      marked[g] = 1;
      groupCount++;
    }
  }
  const groups = new Uint32Array(groupCount);
  let at = 0;
  for (let g = 0; g < ix.groupCount && at < groupCount; g++) if (marked[g] !== 0) groups[at++] = g;
  return { groups, groupCount };
}
