/**
 * Single-chain lists and searches (api-extended.md §8) as pure functions of
 * the token index: the chain's instances that pass the §3.1 thresholds (no
 * grouping, no other cut), in the chain's precomputed TVL order (ties by
 * address ascending in both directions); a search keeps the matching ones,
 * ordered by TVL or by relevance tier, then TVL desc, then address.
 */
import type { SearchMatch } from "./search-match.js";
import { FLAG_WRAPPED_NATIVE, type TokenIndexData } from "../tables/token-index.js";
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

/** @param match the search's matches on this chain; null for the plain list */
export function evaluateSingleChain(ix: TokenIndexData, q: SingleChainQuery, match: SearchMatch | null): SingleChainResult {
  return match === null ? chainList(ix, q) : chainSearch(ix, q, match);
}

/** Writes the instances of `candidates[from..to)` that pass the thresholds to `out`; returns how many. */
function eligible(
  ix: TokenIndexData,
  q: TokenFilters,
  candidates: Uint32Array,
  from: number,
  to: number,
  out: Uint32Array,
  stopAtTvl: boolean,
): number {
  const { tvl, swaps, volume, flags } = ix;
  const { minTvl, minSwaps, minVolume } = q;
  const excluded = q.ignoreWrappedNative ? FLAG_WRAPPED_NATIVE : 0;
  let count = 0;
  for (let k = from; k < to; k++) {
    const i = candidates[k];
    if (!(tvl[i] > minTvl)) {
      // TVL desc: nothing after this one passes the TVL threshold either.
      if (stopAtTvl) break;
      continue;
    }
    if (swaps[i] > minSwaps && volume[i] > minVolume && (flags[i] & excluded) === 0) out[count++] = i;
  }
  return count;
}

function chainList(ix: TokenIndexData, q: SingleChainQuery): SingleChainResult {
  const c = SUPPORTED_CHAIN_IDS.indexOf(q.chainId);
  const from = ix.chainStart[c];
  const to = ix.chainStart[c + 1];
  const out = new Uint32Array(to - from);
  let count: number;
  if (q.direction === "desc") {
    count = eligible(ix, q, ix.chainByTvlDesc, from, to, out, true);
  } else {
    // TVL asc: skip (by binary search) the instances at or under the TVL threshold.
    const order = ix.chainByTvlAsc;
    const tvl = ix.tvl;
    let lo = from;
    let hi = to;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (tvl[order[mid]] > q.minTvl) hi = mid;
      else lo = mid + 1;
    }
    count = eligible(ix, q, order, lo, to, out, false);
  }
  return { count, instances: out.slice(0, count), tier: null };
}

function chainSearch(ix: TokenIndexData, q: SingleChainQuery, match: SearchMatch): SingleChainResult {
  // The match is scoped to the chain: every matching instance is on it.
  const candidates = new Uint32Array(match.count);
  const n = eligible(ix, q, match.instances, 0, match.count, candidates, false);
  // The chain's TVL order (ties by address) is precomputed as a rank per instance: bucket the
  // candidates by rank, then read them out in rank order (by tier first for relevance). No sort.
  const c = SUPPORTED_CHAIN_IDS.indexOf(q.chainId);
  const relevance = q.orderBy === "relevance";
  const rank = q.direction === "asc" && !relevance ? ix.chainRankAsc : ix.chainRankDesc;
  const byRank = new Uint32Array(ix.chainStart[c + 1] - ix.chainStart[c]);
  const tiers = match.tier;
  const next = [0, 0, 0, 0, 0, 0];
  for (let k = 0; k < n; k++) {
    const i = candidates[k];
    byRank[rank[i]] = i + 1;
    if (relevance) next[tiers[i] + 1]++;
  }
  for (let t = 1; t < next.length; t++) next[t] += next[t - 1];
  const instances = new Uint32Array(n);
  const tier = relevance ? new Uint8Array(n) : null;
  let at = 0;
  for (let r = 0; r < byRank.length; r++) {
    const entry = byRank[r];
    if (entry === 0) continue;
    const i = entry - 1;
    if (tier === null) instances[at++] = i;
    else {
      const t = tiers[i];
      const position = next[t]++;
      instances[position] = i;
      tier[position] = t;
    }
  }
  return { count: n, instances, tier };
}
