/**
 * Builds a chain's pool-search index (src/tables/pool-search-index.ts) while
 * the chain compiles, in the build worker: one `add` per pool as its JSON is
 * encoded, then `finish`. The orders are stable radix sorts over the keys in
 * address order (so ties are by address), distributed into per-token lists by
 * a counting pass; no comparator runs over pools except the one address sort.
 */
import type { ChainId } from "../chains/chains.js";
import { POOL_SORT_KEY_COUNT, POOL_TIMEFRAMES, POOL_TYPES, TVL_KEY, type PoolSearchIndexData } from "../tables/pool-search-index.js";
import { sharedArray } from "../tables/shared-columns.js";
import { addressAt } from "../tables/address-hash-table.js";
import type { PeriodStats, PoolType, SnapshotPool } from "../api/snapshot-format.js";
import type { StageClock } from "./stage-clock.js";
import { addressOrder, isFirstOccurrence, sortByKey, sortScratch } from "./pool-order-sort.js";
import { OrderMerge, TokenListMerge, type PreviousPoolOrders } from "./pool-order-merge.js";
import { mergedPairIndex, pairIndex } from "./pool-pairs.js";

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
  finish(
    poolAddresses: readonly string[],
    previous: PreviousPoolOrders | null = null,
    clock: StageClock | null = null,
  ): PoolSearchIndexData {
    const { facts } = this;
    const poolCount = facts.poolCount;
    if (this.range.next !== poolCount) throw new Error(`pool-search index: ${this.range.next} of ${poolCount} pools added`);
    const tokenCount = facts.tokenCount;
    const { keys, poolType, poolProtocol, poolTokenStart, wrappedStart } = this.columns;
    const { poolTokens, wrappedAt } = this.range.shared();
    clock?.mark("search-lists");

    // Every key's order of pool indices (ties by address), key-major: merged from the previous file's, or sorted.
    const addressRank = sharedArray(Uint32Array, poolCount);
    const orders = sharedArray(Uint32Array, POOL_SORT_KEY_COUNT * poolCount);
    const merge = previous === null ? null : OrderMerge.of(previous, poolCount);
    const plan = merge === null ? null : merge.orders(poolAddresses, keys, addressRank, orders);
    if (plan === null)
      sortOrders(previous === null ? poolAddresses : withKeptAddresses(poolAddresses, previous), keys, addressRank, orders);
    this.orders = orders;
    clock?.mark("orders");

    // Each pool once per distinct token it holds.
    const tokenPoolStart = sharedArray(Uint32Array, tokenCount + 1);
    const lists = plan === null ? null : TokenListMerge.of(plan, poolTokenStart, poolTokens, tokenCount);
    if (lists !== null) lists.count(tokenPoolStart);
    else {
      for (let p = 0; p < poolCount; p++) {
        const from = poolTokenStart[p];
        const to = poolTokenStart[p + 1];
        for (let j = from; j < to; j++) if (isFirstOccurrence(poolTokens, from, j)) tokenPoolStart[poolTokens[j] + 1]++;
      }
    }
    for (let t = 0; t < tokenCount; t++) tokenPoolStart[t + 1] += tokenPoolStart[t];
    const membershipCount = tokenPoolStart[tokenCount];
    const tokenPools = sharedArray(Uint32Array, POOL_SORT_KEY_COUNT * membershipCount);
    if (lists !== null) lists.write(keys, tokenPoolStart, tokenPools);
    else distributeTokenPools(orders, poolCount, poolTokenStart, poolTokens, tokenPoolStart, tokenPools);
    clock?.mark("token-pools");
    // An incremental build's pairs: the previous ones mapped, the decoded pools' merged in (when the order allows).
    const merged =
      plan === null
        ? null
        : mergedPairIndex(
            { index: previous!.index, rowOf: previous!.rowOf, newOf: plan.newOf, decoded: plan.decoded },
            poolTokens,
            poolTokenStart,
            poolCount,
            tokenCount,
          );
    const pairs = merged ?? pairIndex(poolTokens, poolTokenStart, poolCount, tokenCount);
    clock?.mark("pairs");

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
      ...pairs,
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

/** Every key's list of every token, distributed from the orders (a full build). */
function distributeTokenPools(
  orders: Uint32Array,
  poolCount: number,
  poolTokenStart: Uint32Array,
  poolTokens: Uint32Array,
  tokenPoolStart: Uint32Array,
  tokenPools: Uint32Array,
): void {
  const tokenCount = tokenPoolStart.length - 1;
  const membershipCount = tokenPoolStart[tokenCount];
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
}

function writePeriod(keys: Float64Array, n: number, pool: number, timeframe: number, p: PeriodStats): void {
  keys[(1 + timeframe) * n + pool] = p.yield + 0;
  keys[(1 + POOL_TIMEFRAMES.length + timeframe) * n + pool] = p.swapVolumeUsd + 0;
  keys[(1 + 2 * POOL_TIMEFRAMES.length + timeframe) * n + pool] = p.feesUsd + 0;
}

/**
 * The pools' addresses, a kept pool's read from the previous pool table where the writer left it blank: it does when
 * the previous orders are there to merge (compile-chain.ts, PoolRangeWriter.addresses), and OrderMerge.of may still
 * refuse them (then every pool is sorted, by address on ties).
 */
function withKeptAddresses(poolAddresses: readonly string[], previous: PreviousPoolOrders): readonly string[] {
  if (!poolAddresses.includes("")) return poolAddresses;
  return poolAddresses.map((address, i) =>
    address !== "" || previous.keptFrom[i] === 0 ? address : addressAt(previous.pools, previous.keptFrom[i] - 1),
  );
}
