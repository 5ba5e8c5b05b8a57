/**
 * The token list of api-decisions.md §3 as a pure function of the index and
 * the query: eligibility, grouping with price and name parity, canonical vs
 * matchAllSymbols, then the exact order (group TVL, ties by normalizedSymbol).
 * A search (api-extended.md §8) is the same list restricted by a match: only
 * the groups holding a matching instance are evaluated, and a group is listed
 * when one of its listed members matches; ordered by relevance, the group's
 * best member tier comes before its TVL.
 *
 * One pass over the index writes into per-thread scratch typed arrays sized by
 * the index; the order is a radix sort of the group TVLs; the result is copied
 * into exact-size arrays that nobody else holds (immutable once returned).
 */
import { sortByFloatKey } from "../util/float-key-sort.js";
import { jaccardSorted } from "../tables/name-parity.js";
import {
  FLAG_INITIALS_MATCH_SYMBOL,
  FLAG_NAME_CONTAINS_SYMBOL,
  FLAG_WRAPPED_NATIVE,
  type TokenIndexColumns,
  type TokenListData,
} from "../tables/token-index.js";
import type { TokenQuery } from "./token-query.js";

/** What a search matched (see search-match.ts). */
export interface TokenListMatch {
  /** Tier (1-4) of each matching instance; 0 for the others. */
  readonly tier: Uint8Array;
  /** The groups holding a matching instance, ascending (groups[0..groupCount)). */
  readonly groups: Uint32Array;
  readonly groupCount: number;
  /** Order by the entries' relevance tier first (then TVL desc, then normalizedSymbol). */
  readonly byRelevance: boolean;
}

/** The full ordered list of one query; pages are slices of it. */
export type TokenListResult = TokenListData;

const PRICE_TOLERANCE = 0.2;
const JACCARD_THRESHOLD = 0.5;
const NAME_FLAGS = FLAG_NAME_CONTAINS_SYMBOL | FLAG_INITIALS_MATCH_SYMBOL;

/** Per-thread scratch, grown to the largest index seen. */
let entryGroup = new Uint32Array(0);
let entrySum = new Float64Array(0);
let entryTier = new Uint8Array(0);
/** entryStart[0] is always 0; entryStart[e + 1] ends entry e. */
let entryStart = new Uint32Array(1);
let entryOrder = new Uint32Array(0);
let memberScratch = new Uint32Array(0);

function reserve(groupCount: number, instanceCount: number): void {
  if (entryGroup.length < groupCount + 1) {
    entryGroup = new Uint32Array(groupCount + 1);
    entrySum = new Float64Array(groupCount + 1);
    entryTier = new Uint8Array(groupCount + 1);
    entryStart = new Uint32Array(groupCount + 1);
    entryOrder = new Uint32Array(groupCount + 1);
  }
  if (memberScratch.length < instanceCount) memberScratch = new Uint32Array(instanceCount);
}

/**
 * @param loadedMask chains present in the index that the query may use
 *   (the query's chains, or all loaded ones when it names none).
 */
export function evaluateTokenList(
  ix: TokenIndexColumns,
  q: TokenQuery,
  loadedMask: number,
  match: TokenListMatch | null = null,
): TokenListResult {
  reserve(ix.groupCount, ix.instanceCount);
  const count = collectEntries(ix, q, loadedMask, match);
  return orderResult(count, match?.byRelevance === true ? "relevance" : q.direction);
}

/**
 * Steps 1-4 into the scratch arrays, entries in group (normalizedSymbol)
 * order; returns the entry count. Entry e's members are
 * memberScratch[entryStart[e]..entryStart[e+1]].
 */
function collectEntries(ix: TokenIndexColumns, q: TokenQuery, loadedMask: number, match: TokenListMatch | null): number {
  const { groupCount, groupStart, chainBit, tvl, swaps, volume, flags, price, nameId, firstWordId, wordStart, words } = ix;
  const excluded = q.ignoreWrappedNative ? FLAG_WRAPPED_NATIVE : 0;
  const { minTvl, minSwaps, minVolume, matchAllSymbols } = q;
  const groups = entryGroup;
  const sums = entrySum;
  const starts = entryStart;
  const members = memberScratch;
  const tiers = entryTier;
  const matchTier = match?.tier;
  const candidates = match === null ? groupCount : match.groupCount;

  let count = 0;
  let memberCount = 0;
  for (let c = 0; c < candidates; c++) {
    const g = match === null ? c : match.groups[c];
    const from = groupStart[g];
    const end = groupStart[g + 1];
    const groupMembersStart = memberCount;
    let best = 0;
    let anchor = -1;
    let chosenChains = 0;
    let sum = 0;
    // Anchor features, read once per group.
    let anchorPrice = 0;
    let anchorName = 0;
    let anchorFlags = 0;
    let anchorFirstWord = 0;
    for (let i = from; i < end; i++) {
      const t = tvl[i];
      // Instances are ranked by TVL desc: none after this one passes either.
      if (!(t > minTvl)) break;
      const bit = chainBit[i];
      if ((loadedMask & bit) === 0) continue;
      if (!(swaps[i] > minSwaps) || !(volume[i] > minVolume)) continue;
      const f = flags[i];
      if (f & excluded) continue;
      if (anchor < 0) {
        anchor = i;
        anchorPrice = price[i];
        anchorName = nameId[i];
        anchorFlags = f;
        anchorFirstWord = firstWordId[i];
      } else {
        if (!matchAllSymbols && (chosenChains & bit) !== 0) continue;
        // Price parity (an anchor price of 0 passes all).
        if (anchorPrice !== 0 && !(Math.abs(price[i] - anchorPrice) / anchorPrice <= PRICE_TOLERANCE)) continue;
        // Metadata parity.
        if (nameId[i] !== anchorName && ((f | anchorFlags) & NAME_FLAGS) === 0) {
          const first = firstWordId[i];
          if (first === 0 || first !== anchorFirstWord) continue;
          if (jaccardSorted(words, wordStart[i], wordStart[i + 1], words, wordStart[anchor], wordStart[anchor + 1]) < JACCARD_THRESHOLD)
            continue;
        }
      }
      chosenChains |= bit;
      members[memberCount++] = i;
      sum += t;
      if (matchTier !== undefined) {
        const tier = matchTier[i];
        if (tier !== 0 && (best === 0 || tier < best)) best = tier;
      }
    }
    if (anchor < 0) continue;
    if (matchTier !== undefined && best === 0) {
      // No listed member matches: the group is not listed.
      memberCount = groupMembersStart;
      continue;
    }
    groups[count] = g;
    sums[count] = sum;
    tiers[count] = best;
    count++;
    starts[count] = memberCount;
  }
  return count;
}

/**
 * Copies the scratch entries into exact-size arrays ordered by group TVL
 * (relevance: by tier, then TVL desc). Entries arrive in normalizedSymbol
 * order and the sorts are stable, so ties keep the symbol order.
 */
function orderResult(count: number, order: "desc" | "asc" | "relevance"): TokenListResult {
  const sorted = sortByFloatKey(entrySum, count, order !== "asc", entryOrder);
  if (order === "relevance") stableSortByTier(sorted, count);
  const groups = entryGroup;
  const sums = entrySum;
  const starts = entryStart;
  const scratchMembers = memberScratch;
  const group = new Uint32Array(count);
  const tvl = new Float64Array(count);
  const memberStart = new Uint32Array(count + 1);
  const members = new Uint32Array(starts[count]);
  const tier = order === "relevance" ? new Uint8Array(count) : null;
  let at = 0;
  for (let e = 0; e < count; e++) {
    const src = sorted[e];
    group[e] = groups[src];
    tvl[e] = sums[src];
    if (tier !== null) tier[e] = entryTier[src];
    memberStart[e] = at;
    const to = starts[src + 1];
    for (let m = starts[src]; m < to; m++) members[at++] = scratchMembers[m];
  }
  memberStart[count] = at;
  return { count, group, tvl, memberStart, members, tier };
}

/** Reorders entry indices sorted[0..count) by entryTier (1-4), keeping the order within a tier. */
function stableSortByTier(sorted: Uint32Array, count: number): void {
  const copy = sorted.slice(0, count);
  const starts = [0, 0, 0, 0, 0, 0];
  for (let e = 0; e < count; e++) starts[entryTier[copy[e]] + 1]++;
  for (let t = 1; t < starts.length; t++) starts[t] += starts[t - 1];
  for (let e = 0; e < count; e++) sorted[starts[entryTier[copy[e]]]++] = copy[e];
}

/**
 * A search's list from the list of its filters (the same groups over the same
 * eligible instances): the entries with a matching listed member, in the
 * list's order, or by their best member's tier first (stable, so TVL desc then
 * symbol within a tier) when `byRelevance` (the list must then be TVL desc).
 * For matches that touch most groups this is cheaper than evaluating them.
 */
export function restrictTokenList(list: TokenListResult, tier: Uint8Array, byRelevance: boolean): TokenListResult {
  const { count, memberStart, members } = list;
  const kept = new Uint32Array(count);
  const keptTier = new Uint8Array(count);
  let n = 0;
  let memberTotal = 0;
  for (let e = 0; e < count; e++) {
    let best = 0;
    for (let m = memberStart[e]; m < memberStart[e + 1]; m++) {
      const t = tier[members[m]];
      if (t !== 0 && (best === 0 || t < best)) best = t;
    }
    if (best === 0) continue;
    kept[n] = e;
    keptTier[n++] = best;
    memberTotal += memberStart[e + 1] - memberStart[e];
  }
  // Entry positions in output order: by tier (stable) for relevance, else as listed.
  const order = new Uint32Array(n);
  if (byRelevance) {
    const next = [0, 0, 0, 0, 0, 0];
    for (let k = 0; k < n; k++) next[keptTier[k] + 1]++;
    for (let t = 1; t < next.length; t++) next[t] += next[t - 1];
    for (let k = 0; k < n; k++) order[next[keptTier[k]]++] = k;
  } else for (let k = 0; k < n; k++) order[k] = k;
  const group = new Uint32Array(n);
  const tvl = new Float64Array(n);
  const outStart = new Uint32Array(n + 1);
  const outMembers = new Uint32Array(memberTotal);
  const outTier = byRelevance ? new Uint8Array(n) : null;
  let at = 0;
  for (let k = 0; k < n; k++) {
    const src = order[k];
    const e = kept[src];
    group[k] = list.group[e];
    tvl[k] = list.tvl[e];
    if (outTier !== null) outTier[k] = keptTier[src];
    outStart[k] = at;
    for (let m = memberStart[e]; m < memberStart[e + 1]; m++) outMembers[at++] = members[m];
  }
  outStart[n] = at;
  return { count: n, group, tvl, memberStart: outStart, members: outMembers, tier: outTier };
}
