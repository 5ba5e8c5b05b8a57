/**
 * The pair lists of the pool-search index (PoolSearchIndexData.pairKeys / pairStart / pairPools): for every
 * unordered pair of token rows two positions of a pool hold, the pools holding it, ascending. A full build sorts
 * every pool's pairs (pairIndex); an incremental one (mergedPairIndex) maps the previous file's pairs to the new rows
 * and pools and merges in the decoded pools' pairs, sorted alone.
 */
import type { PoolSearchIndexData } from "../tables/pool-search-index.js";
import { sharedArray } from "../tables/shared-columns.js";
import { sortByFloatKey } from "../util/float-key-sort.js";
import { mapKept } from "./pool-order-merge.js";

type Pairs = Pick<PoolSearchIndexData, "pairKeys" | "pairStart" | "pairPools">;

/** The distinct pairs of each of `pools` (ascending), keyed lo * tokenCount + hi, with their pool (`owner`). */
function poolPairs(
  poolTokens: Uint32Array,
  poolTokenStart: Uint32Array,
  pools: Uint32Array | null,
  poolCount: number,
  tokenCount: number,
): { composite: Float64Array; owner: Uint32Array; n: number } {
  const count = pools === null ? poolCount : pools.length;
  // Room for every pair of positions of every pool (typed arrays: no growing lists of numbers).
  let room = 0;
  for (let x = 0; x < count; x++) {
    const p = pools === null ? x : pools[x];
    const size = poolTokenStart[p + 1] - poolTokenStart[p];
    room += (size * (size - 1)) / 2;
  }
  const composite = new Float64Array(room);
  const owner = new Uint32Array(room);
  let n = 0;
  for (let x = 0; x < count; x++) {
    const p = pools === null ? x : pools[x];
    const from = poolTokenStart[p];
    const to = poolTokenStart[p + 1];
    const first = n;
    for (let i = from; i < to; i++) {
      for (let j = i + 1; j < to; j++) {
        const a = poolTokens[i];
        const b = poolTokens[j];
        const key = a <= b ? a * tokenCount + b : b * tokenCount + a;
        let seen = false;
        for (let q = first; q < n && !seen; q++) seen = composite[q] === key;
        if (seen) continue;
        composite[n] = key;
        owner[n++] = p;
      }
    }
  }
  return { composite, owner, n };
}

/** The pools of every unordered pair of token positions, grouped by pair (every pool sorted). */
export function pairIndex(poolTokens: Uint32Array, poolTokenStart: Uint32Array, poolCount: number, tokenCount: number): Pairs {
  const { composite, owner, n } = poolPairs(poolTokens, poolTokenStart, null, poolCount, tokenCount);
  const order = sortByFloatKey(composite, n, false);
  let distinct = 0;
  for (let j = 0; j < n; j++) if (j === 0 || composite[order[j]] !== composite[order[j - 1]]) distinct++;
  const pairKeys = sharedArray(Float64Array, distinct);
  const pairStart = sharedArray(Uint32Array, distinct + 1);
  const pairPools = sharedArray(Uint32Array, n);
  let d = -1;
  for (let j = 0; j < n; j++) {
    const key = composite[order[j]];
    if (d < 0 || pairKeys[d] !== key) {
      pairKeys[++d] = key;
      pairStart[d] = j;
    }
    pairPools[j] = owner[order[j]];
  }
  pairStart[distinct] = n;
  return { pairKeys, pairStart, pairPools };
}

/** What mergedPairIndex maps and merges from. */
export interface PreviousPairs {
  readonly index: Pick<PoolSearchIndexData, "tokenCount" | "pairKeys" | "pairStart" | "pairPools">;
  /** Per previous token row: its row now, or -1. */
  readonly rowOf: Int32Array;
  /** Per previous pool: the new pool that copied it (the same tokens, renumbered), or -1. */
  readonly newOf: Int32Array;
  /** The pools decoded (changed or new), ascending. */
  readonly decoded: Uint32Array;
}

/**
 * The pairs of an incremental build, or null when the previous ones cannot be merged in order: the kept token rows
 * or the kept pools changed their relative order (then every pool is sorted, pairIndex). Each previous pair's kept
 * pools, mapped, keep its place and their order; the decoded pools' pairs (few) are sorted and merged in.
 */
export function mergedPairIndex(
  previous: PreviousPairs,
  poolTokens: Uint32Array,
  poolTokenStart: Uint32Array,
  poolCount: number,
  tokenCount: number,
): Pairs | null {
  const { index, rowOf, newOf, decoded } = previous;
  if (rowOf.length !== index.tokenCount || !ascendingWhereKept(rowOf, tokenCount) || !ascendingWhereKept(newOf, poolCount)) return null;
  const fresh = poolPairs(poolTokens, poolTokenStart, decoded, poolCount, tokenCount);
  const order = sortByFloatKey(fresh.composite, fresh.n, false);
  const { pairKeys: previousKeys, pairStart: previousStart, pairPools: previousPools } = index;
  const previousTokens = index.tokenCount;
  const groups = previousKeys.length;
  // Room: every previous membership and every decoded one (those not kept are left out: the lists are cut to size).
  const keys = new Float64Array(groups + fresh.n);
  const starts = new Uint32Array(groups + fresh.n + 1);
  const pools = new Uint32Array(previousPools.length + fresh.n);
  let g = 0;
  let at = 0;
  let f = 0;
  for (let x = 0; x <= groups; x++) {
    let key = Infinity;
    let from = 0;
    let to = 0;
    if (x < groups) {
      const before = previousKeys[x];
      const lo = Math.floor(before / previousTokens);
      const a = rowOf[lo];
      const b = rowOf[before - lo * previousTokens];
      // A pair with a token gone has no kept pool (a kept pool holds the same tokens).
      if (a < 0 || b < 0) continue;
      key = a * tokenCount + b;
      from = previousStart[x];
      to = previousStart[x + 1];
    }
    // The decoded pools' pairs before this one, each its own group.
    while (f < fresh.n && fresh.composite[order[f]] < key) {
      const k = fresh.composite[order[f]];
      keys[g] = k;
      starts[g] = at;
      while (f < fresh.n && fresh.composite[order[f]] === k) pools[at++] = fresh.owner[order[f++]];
      g++;
    }
    if (x === groups) break;
    keys[g] = key;
    starts[g] = at;
    // This pair's kept pools (ascending) and its decoded pools (ascending), merged by pool.
    let q = from;
    while (f < fresh.n && fresh.composite[order[f]] === key) {
      const e = fresh.owner[order[f++]];
      for (; q < to; q++) {
        const i = newOf[previousPools[q]];
        if (i < 0) continue;
        if (i > e) break;
        pools[at++] = i;
      }
      pools[at++] = e;
    }
    at = mapKept(newOf, previousPools, q, to, pools, at);
    if (at > starts[g]) g++;
  }
  const pairKeys = sharedArray(Float64Array, g);
  pairKeys.set(keys.subarray(0, g));
  const pairStart = sharedArray(Uint32Array, g + 1);
  pairStart.set(starts.subarray(0, g));
  pairStart[g] = at;
  const pairPools = sharedArray(Uint32Array, at);
  pairPools.set(pools.subarray(0, at));
  return { pairKeys, pairStart, pairPools };
}

/** Whether the values not below 0 ascend strictly, below `bound`. */
function ascendingWhereKept(map: Int32Array, bound: number): boolean {
  let last = -1;
  for (let j = 0; j < map.length; j++) {
    const v = map[j];
    if (v < 0) continue;
    if (v <= last) return false;
    last = v;
  }
  return last < bound;
}
