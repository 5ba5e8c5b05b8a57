/**
 * The search strings of the token index (runs in a build worker): every
 * distinct lowercased symbol, name, normalizedSymbol and normalizedName once,
 * with the instances that hold it, so that a search scans each distinct
 * string once instead of four strings per instance. Each chain's token run
 * (compile-token-run.ts) pairs its rows with chain-local strings; the merge
 * maps them to index-wide ids and this lays them out.
 */
import { sharedArray } from "../tables/shared-columns.js";

export interface SearchStrings {
  readonly searchText: Uint8Array;
  readonly searchOffsets: Uint32Array;
  readonly postingStart: Uint32Array;
  readonly postings: Uint32Array;
}

/**
 * @param texts the distinct strings, by id
 * @param pairString up to four string ids per instance: pairString[at * 4 + k], k < pairCount[at]
 * @param pairFields the FIELD_* bits of each pair
 */
export function searchStringsFromPairs(
  texts: readonly string[],
  pairString: Uint32Array,
  pairFields: Uint8Array,
  pairCount: Uint8Array,
  instances: number,
): SearchStrings {
  const strings = texts.length;
  const searchOffsets = sharedArray(Uint32Array, strings + 1);
  for (let k = 0; k < strings; k++) searchOffsets[k + 1] = searchOffsets[k] + texts[k].length;
  const text = texts.join("");
  // A lone surrogate becomes U+FFFD (one code unit for one), so the offsets hold for the decoded text.
  const encoded = Buffer.from(text, "utf8");
  const searchText = sharedArray(Uint8Array, encoded.length);
  searchText.set(encoded);

  const postingStart = sharedArray(Uint32Array, strings + 1);
  for (let at = 0; at < instances; at++) for (let k = 0; k < pairCount[at]; k++) postingStart[pairString[at * 4 + k] + 1]++;
  for (let k = 0; k < strings; k++) postingStart[k + 1] += postingStart[k];
  const fill = postingStart.slice(0, strings);
  const postings = sharedArray(Uint32Array, postingStart[strings]);
  for (let at = 0; at < instances; at++) {
    for (let k = 0; k < pairCount[at]; k++) {
      const id = pairString[at * 4 + k];
      postings[fill[id]++] = (at << 2) | pairFields[at * 4 + k];
    }
  }
  return { searchText, searchOffsets, postingStart, postings };
}
