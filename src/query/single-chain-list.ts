/**
 * Single-chain lists and searches (api-extended.md §8) as pure functions of
 * the token index: the chain's instances that pass the §3.1 thresholds (no
 * grouping, no other cut), in the chain's precomputed TVL order (ties by
 * address ascending in both directions); a search keeps the matching ones,
 * ordered by TVL or by relevance tier, then TVL desc, then address.
 */
import { sortByFloatKey } from "../util/float-key-sort.js";
import type { SearchMatch } from "./search-match.js";
import { FLAG_WRAPPED_NATIVE, type TokenIndexData } from "./token-index.js";
import { SUPPORTED_CHAIN_IDS } from "../chains/chains.js";
import type { SingleChainQuery, TokenFilters } from "./token-query.js";

/** The full ordered list of one single-chain query; pages are slices of it. */
export interface SingleChainResult {
  readonly count: number;
  /** Instances, in list order. */
  readonly instances: Uint32Array;
  /** Relevance tier of each entry (searches ordered by relevance); null otherwise. */
  readonly tier: Uint8Array | null;
}

/** One instance passes the thresholds (strictly greater, wrapped native left out on request). */
export function isEligible(ix: TokenIndexData, i: number, f: TokenFilters): boolean {
  return ix.tvl[i] > f.minTvl && ix.swaps[i] > f.minSwaps && ix.volume[i] > f.minVolume && !(f.ignoreWrappedNative && (ix.flags[i] & FLAG_WRAPPED_NATIVE) !== 0);
}

/** @param match the search's matches on this chain; null for the plain list */
export function evaluateSingleChain(ix: TokenIndexData, q: SingleChainQuery, match: SearchMatch | null): SingleChainResult {
  return match === null ? chainList(ix, q) : chainSearch(ix, q, match);
}

function chainList(ix: TokenIndexData, q: SingleChainQuery): SingleChainResult {
  const c = SUPPORTED_CHAIN_IDS.indexOf(q.chainId);
  const from = ix.chainStart[c];
  const to = ix.chainStart[c + 1];
  const order = q.direction === "desc" ? ix.chainByTvlDesc : ix.chainByTvlAsc;
  const out = new Uint32Array(to - from);
  let count = 0;
  if (q.direction === "desc") {
    for (let k = from; k < to; k++) {
      const i = order[k];
      // TVL desc: nothing after this one passes the TVL threshold either.
      if (!(ix.tvl[i] > q.minTvl)) break;
      if (isEligible(ix, i, q)) out[count++] = i;
    }
  } else {
    // TVL asc: skip (by binary search) the instances at or under the TVL threshold.
    let lo = from;
    let hi = to;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (ix.tvl[order[mid]] > q.minTvl) hi = mid;
      else lo = mid + 1;
    }
    for (let k = lo; k < to; k++) {
      const i = order[k];
      if (isEligible(ix, i, q)) out[count++] = i;
    }
  }
  return { count, instances: out.slice(0, count), tier: null };
}

function chainSearch(ix: TokenIndexData, q: SingleChainQuery, match: SearchMatch): SingleChainResult {
  const candidates = new Uint32Array(match.count);
  let n = 0;
  for (let m = 0; m < match.count; m++) {
    const i = match.instances[m];
    if (ix.chainId[i] === q.chainId && isEligible(ix, i, q)) candidates[n++] = i;
  }
  // One exact key per instance: rank in the chain's TVL order (which breaks ties by address), tier first for relevance.
  const relevance = q.orderBy === "relevance";
  const rank = q.direction === "asc" && !relevance ? ix.chainRankAsc : ix.chainRankDesc;
  const keys = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    const i = candidates[k];
    keys[k] = relevance ? match.tier[i] * 0x1_0000_0000 + rank[i] : rank[i];
  }
  const sorted = sortByFloatKey(keys, n, false);
  const instances = new Uint32Array(n);
  const tier = relevance ? new Uint8Array(n) : null;
  for (let k = 0; k < n; k++) {
    const i = candidates[sorted[k]];
    instances[k] = i;
    if (tier !== null) tier[k] = match.tier[i];
  }
  return { count: n, instances, tier };
}
