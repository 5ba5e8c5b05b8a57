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
import type { StageClock } from "./stage-clock.js";
import { compareAddress, findEntryOf, type AddressTableData } from "../tables/address-hash-table.js";

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
    if (merge !== null) merge.orders(poolAddresses, keys, addressRank, orders);
    else sortOrders(poolAddresses, keys, addressRank, orders);
    this.orders = orders;
    clock?.mark("orders");

    // Each pool once per distinct token it holds.
    const tokenPoolStart = sharedArray(Uint32Array, tokenCount + 1);
    if (merge === null || !merge.countTokenPools(poolTokenStart, poolTokens, tokenPoolStart)) {
      for (let p = 0; p < poolCount; p++) {
        const from = poolTokenStart[p];
        const to = poolTokenStart[p + 1];
        for (let j = from; j < to; j++) if (isFirstOccurrence(poolTokens, from, j)) tokenPoolStart[poolTokens[j] + 1]++;
      }
    }
    for (let t = 0; t < tokenCount; t++) tokenPoolStart[t + 1] += tokenPoolStart[t];
    const membershipCount = tokenPoolStart[tokenCount];
    const tokenPools = sharedArray(Uint32Array, POOL_SORT_KEY_COUNT * membershipCount);
    if (merge === null || !merge.tokenPools(keys, poolTokenStart, poolTokens, tokenPoolStart, tokenPools))
      distributeTokenPools(orders, poolCount, poolTokenStart, poolTokens, tokenPoolStart, tokenPools);
    clock?.mark("token-pools");
    const pairs = pairIndex(poolTokens, poolTokenStart, poolCount, tokenCount);
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

/** What an incremental build's orders are merged from (PoolSearchIndexBuilder.finish). */
export interface PreviousPoolOrders {
  /** The previous file's index. */
  readonly index: Pick<
    PoolSearchIndexData,
    | "poolCount"
    | "tokenCount"
    | "addressRank"
    | "keys"
    | "membershipCount"
    | "tokenPoolStart"
    | "tokenPools"
    | "poolTokenStart"
    | "poolTokens"
  >;
  /** The previous file's pool addresses (its pool table). */
  readonly pools: AddressTableData;
  /** Per previous token row: its row in the new file, or -1 (gone). */
  readonly rowOf: Int32Array;
  /** The new file's pool table (built already: a decoded pool's previous pool of the same address is found in it), or absent. */
  readonly table?: AddressTableData | null;
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

/** The token lists are merged when at most one pool in this many was decoded (else distributed from the orders). */
const MERGE_LISTS_UP_TO = 10;

/**
 * The orders and per-token lists of an incremental build. A kept pool has its previous pool's address and keys, so
 * the kept pools keep their previous relative order in every key and in every token's lists; the decoded pools
 * (changed or new: few, sorted) are put in at the places a binary search over the previous sequence finds (with the
 * previous keys and addresses: the previous pools not kept are still in it, in order), and the runs between those
 * places are the previous sequence's pools mapped to their new indices, those not kept left out. So each output is
 * one pass of plain copying plus a search per decoded pool, never a comparison per kept pool.
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
    if (previous.pools.count !== m) return null;
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

  /** Sorted decoded pools of every key (key-major, `decoded.length` each): the token lists take theirs from them. */
  private sortedDecoded: Uint32Array | null = null;
  /** Per decoded pool: how many previous pools have an address up to its own. */
  private insertRank: Uint32Array | null = null;
  /** The decoded pools in address order. */
  private decodedByAddress: Uint32Array | null = null;
  /** As sortedDecoded, each pool as its place in decodedByAddress. */
  private sortedSlots: Uint32Array | null = null;

  orders(poolAddresses: readonly string[], keys: Float64Array, addressRank: Uint32Array, orders: Uint32Array): void {
    const { previous, poolCount, newOf, decoded } = this;
    const m = previous.index.poolCount;
    const c = decoded.length;
    const previousPools = previous.pools;
    // Address order: the previous address order with the decoded pools (sorted) put in, each at its insertion rank
    // (how many previous pools have an address up to its own): what a previous pool's rank is compared with on ties.
    const previousByAddress = new Uint32Array(m);
    const previousRank = previous.index.addressRank;
    for (let j = 0; j < m; j++) previousByAddress[previousRank[j]] = j;
    const decodedAddresses = new Array<string>(c);
    for (let t = 0; t < c; t++) decodedAddresses[t] = poolAddresses[decoded[t]];
    const decodedByAddress = addressOrder(decodedAddresses);
    for (let t = 0; t < c; t++) decodedByAddress[t] = decoded[decodedByAddress[t]];
    const insertRank = new Uint32Array(poolCount);
    const table = previous.table ?? null;
    let lo = 0;
    for (let t = 0; t < c; t++) {
      // A pool at a previous pool's address (changed, most decoded pools) follows it: no search.
      const same = table === null ? -1 : findEntryOf(previousPools, table, decodedByAddress[t]);
      if (same >= 0) {
        lo = previousRank[same] + 1;
        insertRank[decodedByAddress[t]] = lo;
        continue;
      }
      const address = poolAddresses[decodedByAddress[t]];
      let hi = m;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (compareAddress(previousPools, previousByAddress[mid], address) > 0) hi = mid;
        else lo = mid + 1;
      }
      insertRank[decodedByAddress[t]] = lo;
    }
    let r = 0;
    let d = 0;
    for (let q = 0; q < m; q++) {
      while (d < c && insertRank[decodedByAddress[d]] === q) addressRank[decodedByAddress[d++]] = r++;
      const i = newOf[previousByAddress[q]];
      if (i >= 0) addressRank[i] = r++;
    }
    while (d < c) addressRank[decodedByAddress[d++]] = r++;
    this.insertRank = insertRank;

    // Per key: the decoded pools by key descending, ties by address (a stable sort over their address order), put in.
    const scratch = sortScratch(c);
    const sortedDecoded = new Uint32Array(POOL_SORT_KEY_COUNT * c);
    const sortedSlots = new Uint32Array(POOL_SORT_KEY_COUNT * c);
    const previousKeys = previous.index.keys;
    for (let k = 0; k < POOL_SORT_KEY_COUNT; k++) {
      const base = k * poolCount;
      sortByKey(decodedByAddress, c, keys, base, scratch, sortedDecoded, k * c);
      sortedSlots.set(scratch.order.subarray(0, c), k * c);
      const merge: KeyMerge = { previousKeys, previousBase: k * m, previousRank, keys, base, insertRank, newOf };
      const at = mergeInto(merge, previous.orders, k * m, (k + 1) * m, sortedDecoded, k * c, (k + 1) * c, orders, base);
      if (at !== base + poolCount) throw new Error(`pool-search orders: key ${k} has ${at - base} of ${poolCount} pools`);
    }
    this.sortedDecoded = sortedDecoded;
    this.sortedSlots = sortedSlots;
    this.decodedByAddress = decodedByAddress;
  }

  /** Per token row: its previous row, or -1; null when the token lists are not merged (set by previousRows). */
  private previousRow: Int32Array | null = null;

  /**
   * Per token row of the new file: its previous row, or -1. Null when the token lists are not merged: the token rows
   * do not map one to one, or many pools were decoded (then the lists are counted and distributed from the orders).
   */
  private previousRows(tokenCount: number): Int32Array | null {
    if (this.previousRow !== null && this.previousRow.length === tokenCount) return this.previousRow;
    const { previous, poolCount, decoded } = this;
    const rowOf = previous.rowOf;
    if (rowOf.length !== previous.index.tokenCount) return null;
    // Past a tenth of the pools decoded, distributing every pool from the orders is as fast (measured on the large set).
    if (decoded.length * MERGE_LISTS_UP_TO > poolCount) return null;
    const previousRow = new Int32Array(tokenCount).fill(-1);
    for (let r = 0; r < rowOf.length; r++) {
      const t = rowOf[r];
      if (t < 0) continue;
      if (t >= tokenCount || previousRow[t] >= 0) return null;
      previousRow[t] = r;
    }
    this.previousRow = previousRow;
    return previousRow;
  }

  /**
   * How many pools each token's lists hold, at `counts[t + 1]` (zeroed before), when the lists are merged: the
   * previous list's count less the previous pools not kept that held it, plus the decoded pools that hold it (a
   * kept pool holds the same tokens, renumbered). False (nothing written) when the lists are not merged.
   */
  countTokenPools(poolTokenStart: Uint32Array, poolTokens: Uint32Array, counts: Uint32Array): boolean {
    const tokenCount = counts.length - 1;
    const previousRow = this.previousRows(tokenCount);
    if (previousRow === null) return false;
    const { previous, newOf, decoded } = this;
    const index = previous.index;
    const rowOf = previous.rowOf;
    const previousStart = index.tokenPoolStart;
    for (let t = 0; t < tokenCount; t++) {
      const r = previousRow[t];
      if (r >= 0) counts[t + 1] = previousStart[r + 1] - previousStart[r];
    }
    const previousPoolStart = index.poolTokenStart;
    const previousPoolTokens = index.poolTokens;
    for (let j = 0; j < newOf.length; j++) {
      if (newOf[j] >= 0) continue;
      const from = previousPoolStart[j];
      const to = previousPoolStart[j + 1];
      for (let x = from; x < to; x++) {
        if (!isFirstOccurrence(previousPoolTokens, from, x)) continue;
        const t = rowOf[previousPoolTokens[x]];
        if (t >= 0) counts[t + 1]--;
      }
    }
    for (let d = 0; d < decoded.length; d++) {
      const p = decoded[d];
      const from = poolTokenStart[p];
      const to = poolTokenStart[p + 1];
      for (let x = from; x < to; x++) if (isFirstOccurrence(poolTokens, from, x)) counts[poolTokens[x] + 1]++;
    }
    return true;
  }

  /**
   * Every key's list of every token (after `orders`): the previous list of the token's previous row with the
   * decoded pools that hold the token put in. False (nothing written) when the token rows do not map one to one
   * or many pools were decoded: then the lists are distributed from the orders.
   */
  tokenPools(
    keys: Float64Array,
    poolTokenStart: Uint32Array,
    poolTokens: Uint32Array,
    tokenPoolStart: Uint32Array,
    tokenPools: Uint32Array,
  ): boolean {
    const { previous, poolCount, newOf, decoded, sortedDecoded, insertRank, sortedSlots, decodedByAddress } = this;
    const tokenCount = tokenPoolStart.length - 1;
    const previousRow = this.previousRows(tokenCount);
    if (previousRow === null || sortedDecoded === null || insertRank === null || sortedSlots === null || decodedByAddress === null)
      return false;
    const index = previous.index;
    const m = index.poolCount;
    const c = decoded.length;
    // The decoded pools' distinct tokens, once (slot a: the pool decodedByAddress[a], its tokens slotTokens[slotStart[a]..]),
    // and their memberships counted by token (bucket t: decodedStart[t] .. decodedStart[t + 1]).
    const slotStart = new Uint32Array(c + 1);
    for (let a = 0; a < c; a++) {
      const p = decodedByAddress[a];
      const from = poolTokenStart[p];
      const to = poolTokenStart[p + 1];
      let distinct = 0;
      for (let j = from; j < to; j++) if (isFirstOccurrence(poolTokens, from, j)) distinct++;
      slotStart[a + 1] = slotStart[a] + distinct;
    }
    const slotTokens = new Uint32Array(slotStart[c]);
    const decodedStart = new Uint32Array(tokenCount + 1);
    for (let a = 0, x = 0; a < c; a++) {
      const p = decodedByAddress[a];
      const from = poolTokenStart[p];
      const to = poolTokenStart[p + 1];
      for (let j = from; j < to; j++) {
        if (!isFirstOccurrence(poolTokens, from, j)) continue;
        slotTokens[x++] = poolTokens[j];
        decodedStart[poolTokens[j] + 1]++;
      }
    }
    for (let t = 0; t < tokenCount; t++) decodedStart[t + 1] += decodedStart[t];
    const buckets = new Uint32Array(decodedStart[tokenCount]);
    const next = new Uint32Array(tokenCount);
    const previousRank = index.addressRank;
    const previousKeys = index.keys;
    const previousStart = index.tokenPoolStart;
    const previousLists = index.tokenPools;
    const previousMembership = index.membershipCount;
    const membershipCount = tokenPoolStart[tokenCount];
    for (let k = 0; k < POOL_SORT_KEY_COUNT; k++) {
      const base = k * poolCount;
      const previousBase = k * m;
      next.set(decodedStart.subarray(0, tokenCount));
      for (let d = k * c; d < (k + 1) * c; d++) {
        const a = sortedSlots[d];
        const p = decodedByAddress[a];
        for (let x = slotStart[a]; x < slotStart[a + 1]; x++) buckets[next[slotTokens[x]]++] = p;
      }
      const merge: KeyMerge = { previousKeys, previousBase, previousRank, keys, base, insertRank, newOf };
      const listBase = k * membershipCount;
      const previousListBase = k * previousMembership;
      for (let t = 0; t < tokenCount;) {
        const r = previousRow[t];
        const at = listBase + tokenPoolStart[t];
        if (r >= 0 && decodedStart[t] === decodedStart[t + 1]) {
          // Tokens t..u-1 hold no decoded pool and had consecutive previous rows: their lists are the previous ones
          // mapped to the new pools (those not kept left out), in one pass.
          let u = t + 1;
          while (u < tokenCount && previousRow[u] === r + (u - t) && decodedStart[u] === decodedStart[u + 1]) u++;
          const end = mapKept(
            newOf,
            previousLists,
            previousListBase + previousStart[r],
            previousListBase + previousStart[r + (u - t)],
            tokenPools,
            at,
          );
          if (end !== listBase + tokenPoolStart[u])
            throw new Error(
              `pool-search lists: tokens ${t}..${u - 1} have ${end - at} pools, not ${tokenPoolStart[u] - tokenPoolStart[t]}`,
            );
          t = u;
          continue;
        }
        const from = r < 0 ? 0 : previousListBase + previousStart[r];
        const to = r < 0 ? 0 : previousListBase + previousStart[r + 1];
        const end = mergeInto(merge, previousLists, from, to, buckets, decodedStart[t], decodedStart[t + 1], tokenPools, at);
        if (end !== listBase + tokenPoolStart[t + 1])
          throw new Error(`pool-search lists: token ${t} has ${end - at} pools, not ${tokenPoolStart[t + 1] - tokenPoolStart[t]}`);
        t++;
      }
    }
    return true;
  }
}

/** How a key's sequence of previous pools and decoded pools compare (OrderMerge). */
interface KeyMerge {
  readonly previousKeys: Float64Array;
  /** Where the key's previous keys start. */
  readonly previousBase: number;
  readonly previousRank: Uint32Array;
  readonly keys: Float64Array;
  /** Where the key's keys start. */
  readonly base: number;
  /** Per decoded pool: how many previous pools have an address up to its own (OrderMerge.insertRank). */
  readonly insertRank: Uint32Array;
  /** Per previous pool: the new pool that copied it, or -1. */
  readonly newOf: Int32Array;
}

/**
 * Writes `sequence[from..to)` (previous pools, by a key descending, ties by address) mapped to their new pools
 * (those not kept left out), with `inserted[insertFrom..insertTo)` (decoded pools, in the same order) put in: each
 * before the first previous pool that follows it (a galloping search: the sequence is in order, the previous pools
 * not kept too, with their previous keys), to `out` from `at`. The index after the last written.
 */
function mergeInto(
  merge: KeyMerge,
  sequence: Uint32Array,
  from: number,
  to: number,
  inserted: Uint32Array,
  insertFrom: number,
  insertTo: number,
  out: Uint32Array,
  at: number,
): number {
  const { previousKeys, previousBase, previousRank, keys, base, insertRank, newOf } = merge;
  let q = from;
  for (let d = insertFrom; d < insertTo; d++) {
    const e = inserted[d];
    const key = keys[base + e];
    const rank = insertRank[e];
    // The first previous pool after e, galloping from q (the decoded pools are spread: most gaps are short).
    let lo = q;
    let hi = q;
    for (let step = 1; hi < to; step <<= 1) {
      const j = sequence[hi];
      const before = previousKeys[previousBase + j];
      if (before < key || (before === key && previousRank[j] >= rank)) break;
      lo = hi + 1;
      hi = lo + step;
    }
    if (hi > to) hi = to;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const j = sequence[mid];
      const before = previousKeys[previousBase + j];
      if (before < key || (before === key && previousRank[j] >= rank)) hi = mid;
      else lo = mid + 1;
    }
    at = mapKept(newOf, sequence, q, lo, out, at);
    q = lo;
    out[at++] = e;
  }
  return mapKept(newOf, sequence, q, to, out, at);
}

/** Writes the previous pools `sequence[from..to)` mapped to their new pools (those not kept left out) to `out` from `at`; the index after the last. */
function mapKept(newOf: Int32Array, sequence: Uint32Array, from: number, to: number, out: Uint32Array, at: number): number {
  for (let q = from; q < to; q++) {
    const i = newOf[sequence[q]];
    if (i >= 0) out[at++] = i;
  }
  return at;
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
  // Room for every pair of positions of every pool (typed arrays: no growing lists of numbers).
  let room = 0;
  for (let p = 0; p < poolCount; p++) {
    const size = poolTokenStart[p + 1] - poolTokenStart[p];
    room += (size * (size - 1)) / 2;
  }
  const composite = new Float64Array(room);
  const owner = new Uint32Array(room);
  let n = 0;
  for (let p = 0; p < poolCount; p++) {
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
