/**
 * The pool-search orders and per-token lists of an incremental build (PoolSearchIndexBuilder.finish with the
 * previous file's orders), merged instead of sorted. A kept pool has its previous pool's address and keys, so the
 * kept pools keep their previous relative order in every key and in every token's lists; the decoded pools (changed
 * or new: few, sorted) are put in at the places a search over the previous sequence finds (with the previous keys and
 * addresses: the previous pools not kept are still in it, in order), and the runs between those places are the
 * previous sequence's pools mapped to their new indices, those not kept left out. So each output is one pass of plain
 * copying plus a search per decoded pool, never a comparison per kept pool.
 *
 * In steps: OrderMerge.of (does the previous build fit), OrderMerge.orders (the orders; an OrderPlan), then
 * TokenListMerge.of (do the token rows map one to one, few pools decoded), TokenListMerge.count and .write.
 */
import { POOL_SORT_KEY_COUNT, type PoolSearchIndexData } from "../tables/pool-search-index.js";
import { compareAddress, findEntryOf, type AddressTableData } from "../tables/address-hash-table.js";
import { addressOrder, isFirstOccurrence, sortByKey, sortScratch } from "./pool-order-sort.js";

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
    | "pairKeys"
    | "pairStart"
    | "pairPools"
  >;
  /** The previous file's pool addresses (its pool table). */
  readonly pools: AddressTableData;
  /** Per previous token row: its row in the new file, or -1 (gone). */
  readonly rowOf: Int32Array;
  /**
   * The new file's pool table (built already: a decoded pool's address is read from it, to find the previous pool of
   * the same address in `pools`), or absent.
   */
  readonly table?: AddressTableData | null;
  /** The previous file's orders (RecordDigests.poolOrders). */
  readonly orders: Uint32Array;
  /** Per pool of the new file: 1 + the previous pool whose compiled data it copied, or 0 (decoded: changed or new). */
  readonly keptFrom: Int32Array;
}

/** The token lists are merged when at most one pool in this many was decoded (else distributed from the orders). */
const MERGE_LISTS_UP_TO = 10;

/** Which previous pool each new pool is, and the other way round (OrderMerge.of). */
interface PoolMapping {
  readonly previous: PreviousPoolOrders;
  readonly poolCount: number;
  /** Per previous pool: the new pool that copied it, or -1. */
  readonly newOf: Int32Array;
  /** The decoded pools, ascending. */
  readonly decoded: Uint32Array;
}

/** The merged orders' placement of the decoded pools (OrderMerge.orders): what the token lists are merged with. */
export interface OrderPlan extends PoolMapping {
  /** Per decoded pool: how many previous pools have an address up to its own. */
  readonly insertRank: Uint32Array;
  /** The decoded pools in address order. */
  readonly decodedByAddress: Uint32Array;
  /** Per key, the decoded pools sorted, each as its place in decodedByAddress (key-major, `decoded.length` each). */
  readonly sortedSlots: Uint32Array;
}

/** Merges the orders of an incremental build (see the file's comment). */
export class OrderMerge {
  private constructor(private readonly mapping: PoolMapping) {}

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
    return new OrderMerge({ previous, poolCount, newOf, decoded });
  }

  /** Writes the address ranks and every key's order; the plan the token lists are merged with. */
  orders(poolAddresses: readonly string[], keys: Float64Array, addressRank: Uint32Array, orders: Uint32Array): OrderPlan {
    const { previous, poolCount, newOf, decoded } = this.mapping;
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
    return { ...this.mapping, insertRank, decodedByAddress, sortedSlots };
  }
}

/**
 * Merges every token's lists of an incremental build: the previous list of the token's previous row with the decoded
 * pools that hold the token put in (after OrderMerge.orders).
 */
export class TokenListMerge {
  private constructor(
    private readonly plan: OrderPlan,
    /** Per token row of the new file: its previous row, or -1. */
    private readonly previousRow: Int32Array,
    /** Decoded pool decodedByAddress[a]'s distinct tokens: slotTokens[slotStart[a]..slotStart[a + 1]]. */
    private readonly slotStart: Uint32Array,
    private readonly slotTokens: Uint32Array,
    /** The decoded pools holding token t: decodedStart[t + 1] - decodedStart[t] of them (bucket t of `write`). */
    private readonly decodedStart: Uint32Array,
  ) {}

  /**
   * The merge of the lists of `tokenCount` tokens, or null when they are not merged: the token rows do not map one to
   * one, or many pools were decoded (then the lists are counted and distributed from the orders).
   */
  static of(plan: OrderPlan, poolTokenStart: Uint32Array, poolTokens: Uint32Array, tokenCount: number): TokenListMerge | null {
    const { previous, poolCount, decoded, decodedByAddress } = plan;
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
    // The decoded pools' distinct tokens, in one walk, and their memberships counted by token.
    const c = decoded.length;
    let room = 0;
    for (let d = 0; d < c; d++) room += poolTokenStart[decoded[d] + 1] - poolTokenStart[decoded[d]];
    const slotStart = new Uint32Array(c + 1);
    const slotTokens = new Uint32Array(room);
    const decodedStart = new Uint32Array(tokenCount + 1);
    let x = 0;
    for (let a = 0; a < c; a++) {
      const p = decodedByAddress[a];
      const from = poolTokenStart[p];
      const to = poolTokenStart[p + 1];
      for (let j = from; j < to; j++) {
        if (!isFirstOccurrence(poolTokens, from, j)) continue;
        slotTokens[x++] = poolTokens[j];
        decodedStart[poolTokens[j] + 1]++;
      }
      slotStart[a + 1] = x;
    }
    for (let t = 0; t < tokenCount; t++) decodedStart[t + 1] += decodedStart[t];
    return new TokenListMerge(plan, previousRow, slotStart, slotTokens, decodedStart);
  }

  /**
   * How many pools each token's lists hold, at `counts[t + 1]` (zeroed before): the previous list's count less the
   * previous pools not kept that held it, plus the decoded pools that hold it (a kept pool holds the same tokens,
   * renumbered).
   */
  count(counts: Uint32Array): void {
    const { previousRow, decodedStart } = this;
    const { previous, newOf } = this.plan;
    const tokenCount = counts.length - 1;
    const index = previous.index;
    const rowOf = previous.rowOf;
    const previousStart = index.tokenPoolStart;
    for (let t = 0; t < tokenCount; t++) {
      const r = previousRow[t];
      counts[t + 1] = (r >= 0 ? previousStart[r + 1] - previousStart[r] : 0) + (decodedStart[t + 1] - decodedStart[t]);
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
  }

  /** Every key's list of every token (`tokenPoolStart`: the running sums of `count`). */
  write(keys: Float64Array, tokenPoolStart: Uint32Array, tokenPools: Uint32Array): void {
    const { previousRow, slotStart, slotTokens, decodedStart } = this;
    const { previous, poolCount, newOf, decoded, insertRank, sortedSlots, decodedByAddress } = this.plan;
    const tokenCount = tokenPoolStart.length - 1;
    const index = previous.index;
    const m = index.poolCount;
    const c = decoded.length;
    // Bucket t (decodedStart[t] .. decodedStart[t + 1]): the decoded pools holding token t, in the key's order.
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
  }
}

/** How a key's sequence of previous pools and decoded pools compare (mergeInto). */
interface KeyMerge {
  readonly previousKeys: Float64Array;
  /** Where the key's previous keys start. */
  readonly previousBase: number;
  readonly previousRank: Uint32Array;
  readonly keys: Float64Array;
  /** Where the key's keys start. */
  readonly base: number;
  /** Per decoded pool: how many previous pools have an address up to its own (OrderPlan.insertRank). */
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
export function mapKept(newOf: Int32Array, sequence: Uint32Array, from: number, to: number, out: Uint32Array, at: number): number {
  for (let q = from; q < to; q++) {
    const i = newOf[sequence[q]];
    if (i >= 0) out[at++] = i;
  }
  return at;
}
