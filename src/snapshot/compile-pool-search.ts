/**
 * Builds a chain's pool-search index (src/tables/pool-search-index.ts) while
 * the chain compiles, in the build worker: one `add` per pool as its JSON is
 * encoded, then `finish`. The orders are stable radix sorts over the keys in
 * address order (so ties are by address), distributed into per-token lists by
 * a counting pass; no comparator runs over pools except the one address sort.
 */
import type { ChainId } from "../chains/chains.js";
import { POOL_SORT_KEY_COUNT, POOL_TIMEFRAMES, POOL_TYPES, TVL_KEY, type PoolSearchIndexData } from "../tables/pool-search-index.js";
import { sortByFloatKey } from "../util/float-key-sort.js";
import { sharedArray } from "../tables/shared-columns.js";
import type { PeriodStats, PoolType, SnapshotPool } from "../api/snapshot-format.js";

const TYPE_INDEX = new Map<PoolType, number>(POOL_TYPES.map((t, i) => [t, i]));

/** A Uint32Array that grows by doubling (plain memory until copied out). */
class GrowingU32 {
  data = new Uint32Array(1024);
  length = 0;

  push(value: number): void {
    if (this.length === this.data.length) {
      const grown = new Uint32Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = value;
  }

  shared(): Uint32Array {
    const out = sharedArray(Uint32Array, this.length);
    out.set(this.data.subarray(0, this.length));
    return out;
  }
}

export interface PoolSearchChainFacts {
  readonly chainId: ChainId;
  /** Tokens of the chain's snapshot (the rows). */
  readonly tokenCount: number;
  /** Every protocol id of the snapshot. */
  readonly protocolIds: readonly string[];
  readonly poolCount: number;
  /** Row of the wrapped native token, or -1. */
  readonly wrappedRow: number;
  readonly wrappedJsonBytes: number;
  readonly nativeTokenJson: Uint8Array;
}

/**
 * The per-pool columns of the index, in shared memory, written at each pool's index: the pools of one chain can
 * be written by two threads, each its own range (PoolSearchRange), into the same columns.
 */
export interface PoolSearchColumns {
  /** POOL_SORT_KEY_COUNT keys per pool, key-major. */
  readonly keys: Float64Array;
  readonly poolType: Uint8Array;
  readonly poolProtocol: Uint32Array;
  /** Where each pool's token rows start in its range's list (made absolute when the ranges are joined). */
  readonly poolTokenStart: Uint32Array;
  /** As poolTokenStart, for the wrapped native token's offsets. */
  readonly wrappedStart: Uint32Array;
}

/** A range of pools' token rows and wrapped-token offsets (their ends are in the columns). */
export interface PoolSearchRangePart {
  readonly poolTokens: Uint32Array;
  readonly wrappedAt: Uint32Array;
}

/** Writes pools `from`, `from + 1`, ... of a chain into its search columns (see PoolSearchColumns). */
export class PoolSearchRange {
  private readonly protocolIndex = new Map<string, number>();
  private readonly poolTokens = new GrowingU32();
  private readonly wrappedAt = new GrowingU32();
  private added: number;

  /** @param protocolIds the snapshot's protocol ids, sorted and distinct (a protocol's index is its position) */
  constructor(
    private readonly columns: PoolSearchColumns,
    private readonly poolCount: number,
    protocolIds: readonly string[],
    from: number,
  ) {
    protocolIds.forEach((id, i) => this.protocolIndex.set(id, i));
    this.added = from;
  }

  /** The next pool: its record, its token rows in token order, and where its JSON holds the wrapped native token. */
  add(pool: SnapshotPool, tokenRows: Uint32Array, wrappedOffsets: readonly number[]): void {
    const i = this.added++;
    const n = this.poolCount;
    const { keys, poolType, poolProtocol, poolTokenStart, wrappedStart } = this.columns;
    // + 0 turns -0 into 0: equal keys tie by address.
    keys[TVL_KEY * n + i] = (pool.trackedTotalValueLockedUsd ?? pool.totalValueLockedUsd) + 0;
    const stats = pool.stats;
    writePeriod(keys, n, i, 0, stats.stats24h);
    writePeriod(keys, n, i, 1, stats.stats7d);
    writePeriod(keys, n, i, 2, stats.stats30d);
    writePeriod(keys, n, i, 3, stats.stats90d);
    poolType[i] = TYPE_INDEX.get(pool.type)!;
    poolProtocol[i] = this.protocolIndex.get(pool.protocolId)!;
    for (let j = 0; j < tokenRows.length; j++) this.poolTokens.push(tokenRows[j]);
    poolTokenStart[i + 1] = this.poolTokens.length;
    for (let j = 0; j < wrappedOffsets.length; j++) this.wrappedAt.push(wrappedOffsets[j]);
    wrappedStart[i + 1] = this.wrappedAt.length;
  }

  /**
   * The next pool as pool j of an earlier build's index (the same record: reuse-pools.ts): its keys and type
   * copied, its protocol at `protocol` now, its token rows mapped through `rowOf`, its wrapped-token offsets
   * copied (its JSON is the same bytes).
   */
  copy(previous: PoolSearchIndexData, j: number, rowOf: Int32Array, protocol: number): void {
    const i = this.added++;
    const n = this.poolCount;
    const m = previous.poolCount;
    const { keys, poolType, poolProtocol, poolTokenStart, wrappedStart } = this.columns;
    const before = previous.keys;
    for (let k = 0; k < POOL_SORT_KEY_COUNT; k++) keys[k * n + i] = before[k * m + j];
    poolType[i] = previous.poolType[j];
    poolProtocol[i] = protocol;
    const tokens = previous.poolTokens;
    for (let t = previous.poolTokenStart[j]; t < previous.poolTokenStart[j + 1]; t++) this.poolTokens.push(rowOf[tokens[t]]);
    poolTokenStart[i + 1] = this.poolTokens.length;
    const wrapped = previous.wrappedAt;
    for (let w = previous.wrappedStart[j]; w < previous.wrappedStart[j + 1]; w++) this.wrappedAt.push(wrapped[w]);
    wrappedStart[i + 1] = this.wrappedAt.length;
  }

  /** Pools written so far, counted from pool 0 (the index of the next pool). */
  get next(): number {
    return this.added;
  }

  part(): PoolSearchRangePart {
    return {
      poolTokens: this.poolTokens.data.slice(0, this.poolTokens.length),
      wrappedAt: this.wrappedAt.data.slice(0, this.wrappedAt.length),
    };
  }

  /** Appends another range's part, whose pools follow this range's (`to` is the index after its last pool). */
  join(part: PoolSearchRangePart, to: number): void {
    const { poolTokenStart, wrappedStart } = this.columns;
    const tokenBase = this.poolTokens.length;
    const wrappedBase = this.wrappedAt.length;
    for (let i = this.added + 1; i <= to; i++) {
      poolTokenStart[i] += tokenBase;
      wrappedStart[i] += wrappedBase;
    }
    for (let j = 0; j < part.poolTokens.length; j++) this.poolTokens.push(part.poolTokens[j]);
    for (let j = 0; j < part.wrappedAt.length; j++) this.wrappedAt.push(part.wrappedAt[j]);
    this.added = to;
  }

  /** The lists, in shared memory (after every range is joined). */
  shared(): PoolSearchRangePart {
    return { poolTokens: this.poolTokens.shared(), wrappedAt: this.wrappedAt.shared() };
  }
}

/** The columns of a chain of `poolCount` pools, in new shared memory. */
export function poolSearchColumns(poolCount: number): PoolSearchColumns {
  return {
    keys: sharedArray(Float64Array, POOL_SORT_KEY_COUNT * poolCount),
    poolType: sharedArray(Uint8Array, poolCount),
    poolProtocol: sharedArray(Uint32Array, poolCount),
    poolTokenStart: sharedArray(Uint32Array, poolCount + 1),
    wrappedStart: sharedArray(Uint32Array, poolCount + 1),
  };
}

/** A snapshot's protocol ids as the index numbers them: distinct, sorted. */
export function indexedProtocolIds(protocolIds: readonly string[]): string[] {
  return [...new Set(protocolIds)].sort();
}

export class PoolSearchIndexBuilder {
  /** The shared per-pool columns (a helper thread writes its range of pools into them). */
  readonly columns: PoolSearchColumns;
  private readonly protocolIds: string[];
  /** The pools written here, from pool 0; another range's pools are joined onto it. */
  private readonly range: PoolSearchRange;

  /**
   * @param columns, range where the pools were written already (by PoolSearchRange, over these columns, from
   *   pool 0: see compile-chain.ts); absent, new columns that `add` writes
   */
  constructor(
    private readonly facts: PoolSearchChainFacts,
    columns?: PoolSearchColumns,
    range?: PoolSearchRange,
  ) {
    this.columns = columns ?? poolSearchColumns(facts.poolCount);
    this.protocolIds = indexedProtocolIds(facts.protocolIds);
    this.range = range ?? new PoolSearchRange(this.columns, facts.poolCount, this.protocolIds, 0);
  }

  /**
   * Pool `i` (the pools are added in index order): its record, its token rows
   * in token order, and where its JSON holds the wrapped native token.
   */
  add(pool: SnapshotPool, tokenRows: Uint32Array, wrappedOffsets: readonly number[]): void {
    this.range.add(pool, tokenRows, wrappedOffsets);
  }

  /**
   * The index, once every pool is written.
   * @param poolAddresses lowercase address of each pool, by index.
   * @param previous the previous file's orders and which of its pools each pool was copied from (an incremental
   *   build): the orders are then the previous ones with the pools not kept taken out and the others (decoded:
   *   changed or new, few) merged in, instead of a sort of every pool by every key. The same orders either way.
   */
  finish(poolAddresses: readonly string[], previous: PreviousPoolOrders | null = null): PoolSearchIndexData {
    const { facts } = this;
    const poolCount = facts.poolCount;
    if (this.range.next !== poolCount) throw new Error(`pool-search index: ${this.range.next} of ${poolCount} pools added`);
    const tokenCount = facts.tokenCount;
    const { keys, poolType, poolProtocol, poolTokenStart, wrappedStart } = this.columns;
    const { poolTokens, wrappedAt } = this.range.shared();

    // Every key's order of pool indices (ties by address), key-major: merged from the previous file's, or sorted.
    const addressRank = sharedArray(Uint32Array, poolCount);
    const orders = sharedArray(Uint32Array, POOL_SORT_KEY_COUNT * poolCount);
    const merge = previous === null ? null : OrderMerge.of(previous, poolCount);
    if (merge !== null) merge.orders(poolAddresses, keys, addressRank, orders);
    else sortOrders(poolAddresses, keys, addressRank, orders);
    this.orders = orders;

    // Each pool once per distinct token it holds.
    const tokenPoolStart = sharedArray(Uint32Array, tokenCount + 1);
    for (let p = 0; p < poolCount; p++) {
      const from = poolTokenStart[p];
      const to = poolTokenStart[p + 1];
      for (let j = from; j < to; j++) if (isFirstOccurrence(poolTokens, from, j)) tokenPoolStart[poolTokens[j] + 1]++;
    }
    for (let t = 0; t < tokenCount; t++) tokenPoolStart[t + 1] += tokenPoolStart[t];
    const membershipCount = tokenPoolStart[tokenCount];
    const tokenPools = sharedArray(Uint32Array, POOL_SORT_KEY_COUNT * membershipCount);
    const next = new Uint32Array(tokenCount);
    for (let k = 0; k < POOL_SORT_KEY_COUNT; k++) {
      const orderBase = k * poolCount;
      const listBase = k * membershipCount;
      next.set(tokenPoolStart.subarray(0, tokenCount));
      for (let j = 0; j < poolCount; j++) {
        const p = orders[orderBase + j];
        const from = poolTokenStart[p];
        const to = poolTokenStart[p + 1];
        for (let m = from; m < to; m++) if (isFirstOccurrence(poolTokens, from, m)) tokenPools[listBase + next[poolTokens[m]]++] = p;
      }
    }

    return {
      poolCount,
      tokenCount,
      keys,
      addressRank,
      poolType,
      poolProtocol,
      protocolIds: this.protocolIds,
      poolTokenStart,
      poolTokens,
      membershipCount,
      tokenPoolStart,
      tokenPools,
      ...pairIndex(poolTokens, poolTokenStart, poolCount, tokenCount),
      wrappedRow: facts.wrappedRow,
      wrappedStart,
      wrappedAt,
      wrappedJsonBytes: facts.wrappedJsonBytes,
      nativeTokenJson: facts.nativeTokenJson,
    };
  }

  /** After `finish`: the pools in every key's order (RecordDigests.poolOrders: what the next build merges into). */
  orders: Uint32Array | null = null;
}

/** What an incremental build's orders are merged from (PoolSearchIndexBuilder.finish). */
export interface PreviousPoolOrders {
  /** The previous file's index (its pool count and address ranks). */
  readonly index: Pick<PoolSearchIndexData, "poolCount" | "addressRank">;
  /** The previous file's orders (RecordDigests.poolOrders). */
  readonly orders: Uint32Array;
  /** Per pool of the new file: 1 + the previous pool whose compiled data it copied, or 0 (decoded: changed or new). */
  readonly keptFrom: Int32Array;
}

/** Orders by sorting every pool: address order by a radix sort, then a stable radix sort per key over it. */
function sortOrders(poolAddresses: readonly string[], keys: Float64Array, addressRank: Uint32Array, orders: Uint32Array): void {
  const poolCount = poolAddresses.length;
  const byAddress = addressOrder(poolAddresses);
  for (let r = 0; r < poolCount; r++) addressRank[byAddress[r]] = r;
  const scratch = sortScratch(poolCount);
  for (let k = 0; k < POOL_SORT_KEY_COUNT; k++) {
    const base = k * poolCount;
    sortByKey(byAddress, poolCount, keys, base, scratch, orders, base);
  }
}

/** Scratch arrays of sortByKey for lists of up to `n` pools. */
const sortScratch = (n: number) => ({ keys: new Float64Array(n), order: new Uint32Array(n) });

/**
 * The first `count` pools of `byAddress` (in address order) by their key at `keys[base + pool]`, descending, ties by
 * address (a stable radix sort over the address order), written to `out` from `outAt`.
 */
function sortByKey(
  byAddress: Uint32Array,
  count: number,
  keys: Float64Array,
  base: number,
  scratch: ReturnType<typeof sortScratch>,
  out: Uint32Array,
  outAt: number,
): void {
  for (let r = 0; r < count; r++) scratch.keys[r] = keys[base + byAddress[r]];
  sortByFloatKey(scratch.keys, count, true, scratch.order);
  for (let j = 0; j < count; j++) out[outAt + j] = byAddress[scratch.order[j]];
}

/**
 * The orders of an incremental build: a kept pool has its previous pool's address and keys, so the kept pools keep
 * their previous relative order in every key; the decoded pools (sorted: they are few) are merged into it.
 */
class OrderMerge {
  private constructor(
    private readonly previous: PreviousPoolOrders,
    private readonly poolCount: number,
    /** Per previous pool: the new pool that copied it, or -1. */
    private readonly newOf: Int32Array,
    /** The decoded pools, ascending. */
    private readonly decoded: Uint32Array,
  ) {}

  /** The merge, or null when the previous orders do not fit its index (then every pool is sorted). */
  static of(previous: PreviousPoolOrders, poolCount: number): OrderMerge | null {
    const m = previous.index.poolCount;
    if (previous.orders.length !== POOL_SORT_KEY_COUNT * m || previous.keptFrom.length < poolCount) return null;
    const newOf = new Int32Array(m).fill(-1);
    let decodedCount = 0;
    for (let i = 0; i < poolCount; i++) {
      const j = previous.keptFrom[i] - 1;
      if (j < 0) decodedCount++;
      else if (j >= m || newOf[j] >= 0) return null;
      else newOf[j] = i;
    }
    const decoded = new Uint32Array(decodedCount);
    for (let i = 0, d = 0; i < poolCount; i++) if (previous.keptFrom[i] === 0) decoded[d++] = i;
    return new OrderMerge(previous, poolCount, newOf, decoded);
  }

  orders(poolAddresses: readonly string[], keys: Float64Array, addressRank: Uint32Array, orders: Uint32Array): void {
    const { previous, poolCount, newOf, decoded } = this;
    const m = previous.index.poolCount;
    const c = decoded.length;
    // Address order: the kept pools in their previous address order, the decoded ones sorted and merged in.
    const byAddress = new Uint32Array(poolCount);
    const previousRank = previous.index.addressRank;
    const keptByAddress = new Int32Array(m).fill(-1);
    for (let j = 0; j < m; j++) keptByAddress[previousRank[j]] = newOf[j];
    const decodedAddresses = new Array<string>(c);
    for (let t = 0; t < c; t++) decodedAddresses[t] = poolAddresses[decoded[t]];
    const decodedByAddress = addressOrder(decodedAddresses);
    for (let t = 0; t < c; t++) decodedByAddress[t] = decoded[decodedByAddress[t]];
    let r = 0;
    let d = 0;
    for (let q = 0; q < m; q++) {
      const i = keptByAddress[q];
      if (i < 0) continue;
      const address = poolAddresses[i];
      while (d < c && poolAddresses[decodedByAddress[d]] < address) byAddress[r++] = decodedByAddress[d++];
      byAddress[r++] = i;
    }
    while (d < c) byAddress[r++] = decodedByAddress[d++];
    for (let q = 0; q < poolCount; q++) addressRank[byAddress[q]] = q;

    // Per key: the decoded pools by key descending, ties by address (a stable sort over their address order), merged.
    const scratch = sortScratch(c);
    const sortedDecoded = new Uint32Array(c);
    for (let k = 0; k < POOL_SORT_KEY_COUNT; k++) {
      const base = k * poolCount;
      sortByKey(decodedByAddress, c, keys, base, scratch, sortedDecoded, 0);
      const from = k * m;
      let at = base;
      d = 0;
      for (let q = 0; q < m; q++) {
        const i = newOf[previous.orders[from + q]];
        if (i < 0) continue;
        const key = keys[base + i];
        while (d < c) {
          const e = sortedDecoded[d];
          const other = keys[base + e];
          if (other > key || (other === key && addressRank[e] < addressRank[i])) {
            orders[at++] = e;
            d++;
          } else break;
        }
        orders[at++] = i;
      }
      while (d < c) orders[at++] = sortedDecoded[d++];
    }
  }
}

function writePeriod(keys: Float64Array, n: number, pool: number, timeframe: number, p: PeriodStats): void {
  keys[(1 + timeframe) * n + pool] = p.yield + 0;
  keys[(1 + POOL_TIMEFRAMES.length + timeframe) * n + pool] = p.swapVolumeUsd + 0;
  keys[(1 + 2 * POOL_TIMEFRAMES.length + timeframe) * n + pool] = p.feesUsd + 0;
}

/** Whether rows[j] is the first of its value in rows[from..j] (pools hold a handful of tokens). */
function isFirstOccurrence(rows: Uint32Array, from: number, j: number): boolean {
  const row = rows[j];
  for (let i = from; i < j; i++) if (rows[i] === row) return false;
  return true;
}

/**
 * Pool indices in code-unit order of their addresses: a radix sort on the
 * first 13 hex digits (52 bits: exact as a double; hex digits sort like their
 * lowercase characters), then runs with equal digits by the whole string.
 */
function addressOrder(addresses: readonly string[]): Uint32Array {
  const n = addresses.length;
  const prefix = new Float64Array(n);
  for (let i = 0; i < n; i++) prefix[i] = parseInt(addresses[i].slice(2, 15), 16);
  const order = sortByFloatKey(prefix, n, false);
  for (let start = 0; start < n;) {
    let end = start + 1;
    while (end < n && prefix[order[end]] === prefix[order[start]]) end++;
    if (end - start > 1) {
      const run = Array.from(order.subarray(start, end)).sort((a, b) =>
        addresses[a] < addresses[b] ? -1 : addresses[a] > addresses[b] ? 1 : 0,
      );
      order.set(run, start);
    }
    start = end;
  }
  return order;
}

/** The pools of every unordered pair of token positions, grouped by pair. */
function pairIndex(
  poolTokens: Uint32Array,
  poolTokenStart: Uint32Array,
  poolCount: number,
  tokenCount: number,
): Pick<PoolSearchIndexData, "pairKeys" | "pairStart" | "pairPools"> {
  const composite: number[] = [];
  const owner: number[] = [];
  for (let p = 0; p < poolCount; p++) {
    const from = poolTokenStart[p];
    const to = poolTokenStart[p + 1];
    const first = composite.length;
    for (let i = from; i < to; i++) {
      for (let j = i + 1; j < to; j++) {
        const a = poolTokens[i];
        const b = poolTokens[j];
        const key = a <= b ? a * tokenCount + b : b * tokenCount + a;
        let seen = false;
        for (let q = first; q < composite.length && !seen; q++) seen = composite[q] === key;
        if (seen) continue;
        composite.push(key);
        owner.push(p);
      }
    }
  }
  const n = composite.length;
  const order = sortByFloatKey(Float64Array.from(composite), n, false);
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
