/**
 * The token list of api-decisions.md §3 as a pure function of the index and
 * the query: eligibility, grouping with price and name parity, canonical vs
 * matchAllSymbols, then the exact order (group TVL, ties by normalizedSymbol).
 */
import { jaccardSorted } from "./name-parity.js";
import {
  FLAG_INITIALS_MATCH_SYMBOL,
  FLAG_NAME_CONTAINS_SYMBOL,
  FLAG_WRAPPED_NATIVE,
  type TokenIndexData,
} from "./token-index.js";
import type { TokenQuery } from "./token-query.js";

/** The full ordered list of one query; pages are slices of it. */
export interface TokenListResult {
  readonly count: number;
  /** Group index (into the token index) of each entry, in list order. */
  readonly group: Uint32Array;
  /** Group TVL of each entry, in list order. */
  readonly tvl: Float64Array;
  /** Members of entry e: members[memberStart[e]..memberStart[e+1]], in rank order. */
  readonly memberStart: Uint32Array;
  readonly members: Uint32Array;
}

const PRICE_TOLERANCE = 0.2;
const JACCARD_THRESHOLD = 0.5;

function metadataParity(ix: TokenIndexData, i: number, a: number): boolean {
  if (ix.nameId[i] === ix.nameId[a]) return true;
  const either = ix.flags[i] | ix.flags[a];
  if (either & (FLAG_NAME_CONTAINS_SYMBOL | FLAG_INITIALS_MATCH_SYMBOL)) return true;
  const first = ix.firstWordId[i];
  if (first === 0 || first !== ix.firstWordId[a]) return false;
  const w = ix.wordStart;
  return jaccardSorted(ix.words, w[i], w[i + 1], ix.words, w[a], w[a + 1]) >= JACCARD_THRESHOLD;
}

function priceParity(ix: TokenIndexData, i: number, a: number): boolean {
  const anchorPrice = ix.price[a];
  if (anchorPrice === 0) return true;
  return Math.abs(ix.price[i] - anchorPrice) / anchorPrice <= PRICE_TOLERANCE;
}

/**
 * @param loadedMask chains present in the index that the query may use
 *   (the query's chains, or all loaded ones when it names none).
 */
export function evaluateTokenList(ix: TokenIndexData, q: TokenQuery, loadedMask: number): TokenListResult {
  const { groupStart, chainBit, tvl, swaps, volume, flags } = ix;
  const excluded = q.ignoreWrappedNative ? FLAG_WRAPPED_NATIVE : 0;
  const { minTvl, minSwaps, minVolume, matchAllSymbols } = q;

  const members: number[] = [];
  const memberStart: number[] = [];
  const groups: number[] = [];
  const sums: number[] = [];

  for (let g = 0; g < ix.groupCount; g++) {
    const end = groupStart[g + 1];
    let anchor = -1;
    let chosenChains = 0;
    let sum = 0;
    for (let i = groupStart[g]; i < end; i++) {
      const bit = chainBit[i];
      if ((loadedMask & bit) === 0) continue;
      if (!(tvl[i] > minTvl) || !(swaps[i] > minSwaps) || !(volume[i] > minVolume)) continue;
      if (flags[i] & excluded) continue;
      if (anchor < 0) {
        anchor = i;
        memberStart.push(members.length);
      } else {
        if (!matchAllSymbols && (chosenChains & bit) !== 0) continue;
        if (!priceParity(ix, i, anchor) || !metadataParity(ix, i, anchor)) continue;
      }
      chosenChains |= bit;
      members.push(i);
      sum += tvl[i];
    }
    if (anchor >= 0) {
      groups.push(g);
      sums.push(sum);
    }
  }
  return orderResult(groups, sums, memberStart, members, q.direction);
}

/**
 * Orders entries by group TVL; entries arrive in normalizedSymbol order, so a
 * stable sort on TVL alone gives the symbol tie-break in both directions.
 */
function orderResult(groups: number[], sums: number[], memberStart: number[], members: number[], direction: "desc" | "asc"): TokenListResult {
  const count = groups.length;
  const order = Array.from({ length: count }, (_, e) => e);
  if (direction === "desc") order.sort((x, y) => sums[y] - sums[x]);
  else order.sort((x, y) => sums[x] - sums[y]);

  const group = new Uint32Array(count);
  const tvl = new Float64Array(count);
  const outStart = new Uint32Array(count + 1);
  const outMembers = new Uint32Array(members.length);
  let at = 0;
  for (let e = 0; e < count; e++) {
    const src = order[e];
    group[e] = groups[src];
    tvl[e] = sums[src];
    outStart[e] = at;
    const from = memberStart[src];
    const to = src + 1 < count ? memberStart[src + 1] : members.length;
    for (let m = from; m < to; m++) outMembers[at++] = members[m];
  }
  outStart[count] = at;
  return { count, group, tvl, memberStart: outStart, members: outMembers };
}
