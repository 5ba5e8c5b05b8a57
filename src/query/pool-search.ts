/**
 * Pool search (api-extended.md §10) as a pure function of the chains' pool
 * search indexes and a resolved query: the pools of the named tokens only,
 * filtered, in exact order (key, then chainId ascending, then address
 * ascending), starting after a position, one page plus whether more follow.
 *
 * Per chain, the pools come from one of two sources, whichever touches fewer
 * pools:
 * - lists: each side-A token's pools, already ordered by the sort key
 *   (pool-search-index.ts), merged lazily across tokens and chains with a
 *   heap; with a side B, the smaller side's lists are merged and each pool is
 *   checked against the pair rule. A page reads about `limit` pools per list
 *   when the filters pass most pools.
 * - pairs: with a side B, the pools of each (a, b) token pair, looked up in
 *   the pair table, filtered, sorted (a pair has few pools).
 * Nothing here scans a chain's pools.
 */
import { compareAddress } from "../tables/address-hash-table.js";
import type { PoolTableData } from "../tables/pool-table.js";
import { TVL_KEY, type PoolSearchIndexData } from "../tables/pool-search-index.js";

/** Token rows of one chain (a basket's are resolved once per baskets file and snapshot: a typed array). */
export type TokenRows = readonly number[] | Uint32Array;

/** One chain of a search: its index, pools and the token rows of each side there. */
export interface SearchChain {
  readonly chainId: number;
  readonly index: PoolSearchIndexData;
  readonly pools: PoolTableData;
  /** Side A's token rows on this chain (unique). */
  readonly a: TokenRows;
  /** Side B's token rows on this chain (unique); null when the search has no side B. */
  readonly b: TokenRows | null;
  /** 1 for each protocol (index in index.protocolIds) the filters allow. */
  readonly protocolAllowed: Uint8Array;
}

export interface PoolSearchQuery {
  /** The sort key (pool-search-index.ts sortKeyIndex). */
  readonly key: number;
  readonly descending: boolean;
  /** Inclusive minimum pool TVL. */
  readonly minTvl: number;
  /** Bit i set: pool type POOL_TYPES[i] allowed. */
  readonly typeMask: number;
}

/** The last pool of a page: the next page starts strictly after it. */
export interface SearchPosition {
  readonly key: number;
  readonly chainId: number;
  /** Lowercase pool address. */
  readonly address: string;
}

export interface PoolSearchPage {
  /** Index in `chains` of each pool of the page, in order. */
  readonly chain: number[];
  /** Pool index (in its chain's pool table) of each pool of the page. */
  readonly pool: number[];
  /** True when at least one more pool follows the page. */
  readonly more: boolean;
}

/** How many pools the lists of these tokens hold together. */
function totalListLength(index: PoolSearchIndexData, rows: TokenRows): number {
  let n = 0;
  for (const t of rows) n += index.tokenPoolStart[t + 1] - index.tokenPoolStart[t];
  return n;
}

/** Where a chain with a side B takes its pools from: whichever touches fewer (tests force each). */
export type PairSource = "cheaper" | "lists" | "pairs";

export function searchPools(
  chains: readonly SearchChain[],
  q: PoolSearchQuery,
  after: SearchPosition | null,
  limit: number,
  pairSource: PairSource = "cheaper",
): PoolSearchPage {
  const cursors: ListCursor[] = [];
  for (let s = 0; s < chains.length; s++) {
    const c = chains[s];
    if (c.a.length === 0 || (c.b !== null && c.b.length === 0)) continue;
    if (c.b === null) {
      for (const t of c.a) pushList(cursors, new SortedList(c, s, t, q, after, null));
      continue;
    }
    const lengthA = totalListLength(c.index, c.a);
    const lengthB = totalListLength(c.index, c.b);
    const scan = Math.min(lengthA, lengthB);
    if (pairSource === "pairs" || (pairSource === "cheaper" && c.a.length * c.b.length <= scan)) {
      pushList(cursors, pairList(c, s, q, after));
    } else {
      const rule = new PairRule(c.a, c.b);
      for (const t of lengthA <= lengthB ? c.a : c.b) pushList(cursors, new SortedList(c, s, t, q, after, rule));
    }
  }

  const heap = new CursorHeap(cursors, q.descending);
  const page = { chain: [] as number[], pool: [] as number[], more: false };
  let lastSlot = -1;
  let lastPool = -1;
  while (heap.size > 0) {
    const top = heap.top();
    const slot = top.slot;
    const pool = top.pool;
    // A pool held by two listed tokens comes out of both lists, one after the other.
    if (slot !== lastSlot || pool !== lastPool) {
      lastSlot = slot;
      lastPool = pool;
      if (top.accepts(pool)) {
        if (page.pool.length === limit) {
          page.more = true;
          break;
        }
        page.chain.push(slot);
        page.pool.push(pool);
      }
    }
    top.advance();
    if (top.done) heap.pop();
    else heap.fixTop();
  }
  return page;
}

function pushList(cursors: ListCursor[], list: ListCursor): void {
  if (!list.done) cursors.push(list);
}

/** The pair rule of §10: some position holds an A token and another position a B token. */
class PairRule {
  private readonly a: Set<number>;
  private readonly b: Set<number>;

  constructor(a: TokenRows, b: TokenRows) {
    this.a = new Set(a);
    this.b = new Set(b);
  }

  matches(rows: Uint32Array, from: number, to: number): boolean {
    let countA = 0;
    let countB = 0;
    let firstA = -1;
    let firstB = -1;
    for (let j = from; j < to; j++) {
      const row = rows[j];
      if (this.a.has(row)) {
        if (countA++ === 0) firstA = j;
      }
      if (this.b.has(row)) {
        if (countB++ === 0) firstB = j;
      }
    }
    return countA > 0 && countB > 0 && !(countA === 1 && countB === 1 && firstA === firstB);
  }
}

/** Filters every source applies: minimum TVL, pool types, protocols. */
function passesFilters(c: SearchChain, q: PoolSearchQuery, pool: number): boolean {
  const ix = c.index;
  return (
    ix.keys[TVL_KEY * ix.poolCount + pool] >= q.minTvl &&
    ((q.typeMask >>> ix.poolType[pool]) & 1) === 1 &&
    c.protocolAllowed[ix.poolProtocol[pool]] === 1
  );
}

/**
 * Order of (key, chainId, address) against a position, in the query's
 * direction: negative when the pool comes first.
 */
function comparePosition(c: SearchChain, q: PoolSearchQuery, pool: number, at: SearchPosition): number {
  const key = c.index.keys[q.key * c.index.poolCount + pool];
  if (key !== at.key) return key < at.key === q.descending ? 1 : -1;
  if (c.chainId !== at.chainId) return c.chainId - at.chainId;
  return compareAddress(c.pools, pool, at.address);
}

/** A source of pools of one chain, in the query's order. */
abstract class ListCursor {
  /** The current pool (valid while !done). */
  pool = -1;
  /** Its sort key and address rank, read once per pool for the heap. */
  key = 0;
  rank = 0;
  done = false;

  constructor(
    protected readonly c: SearchChain,
    /** Index of the chain in the search. */
    readonly slot: number,
    protected readonly q: PoolSearchQuery,
  ) {}

  get chainId(): number {
    return this.c.chainId;
  }

  abstract advance(): void;

  /** Whether the current pool belongs in the result (filters, pair rule). */
  abstract accepts(pool: number): boolean;

  protected load(pool: number): void {
    const ix = this.c.index;
    this.pool = pool;
    this.key = ix.keys[this.q.key * ix.poolCount + pool];
    this.rank = ix.addressRank[pool];
  }
}

/**
 * One token's pools on one chain, stored by key descending, ties by address
 * ascending. Descending queries read it forwards; ascending ones read runs of
 * equal keys from the last run to the first, each run forwards (ties stay by
 * address ascending).
 */
class SortedList extends ListCursor {
  private readonly ids: Uint32Array;
  private readonly keys: Float64Array;
  private readonly keyBase: number;
  /** First index of the list. */
  private readonly lo: number;
  private pos = 0;
  /** Forwards: the end. Backwards: the end of the current run. */
  private end = 0;
  /** Backwards: the start of the current run (where the next run ends). */
  private runFloor = 0;

  constructor(
    c: SearchChain,
    slot: number,
    token: number,
    q: PoolSearchQuery,
    after: SearchPosition | null,
    private readonly rule: PairRule | null,
  ) {
    super(c, slot, q);
    const ix = c.index;
    this.ids = ix.tokenPools;
    this.keys = ix.keys;
    this.keyBase = q.key * ix.poolCount;
    const listBase = q.key * ix.membershipCount;
    const lo = listBase + ix.tokenPoolStart[token];
    let hi = listBase + ix.tokenPoolStart[token + 1];
    this.lo = lo;
    // Ordered by TVL, pools under the minimum are one tail of the list.
    if (q.key === TVL_KEY) hi = this.firstBelow(lo, hi, q.minTvl, false);

    if (q.descending) {
      this.pos = after === null ? lo : this.startAfterDescending(lo, hi, after);
      this.end = hi;
      this.settleForwards();
    } else {
      if (after === null) {
        this.end = hi;
        this.runFloor = this.runStart(hi);
        this.pos = this.runFloor;
      } else {
        // Keys above the position's key are [lo, equalFrom); equal keys [equalFrom, equalTo).
        const equalFrom = this.firstBelow(lo, hi, after.key, true);
        const equalTo = this.firstBelow(equalFrom, hi, after.key, false);
        this.pos = this.equalRunStart(equalFrom, equalTo, after);
        this.end = equalTo;
        this.runFloor = equalFrom;
      }
      this.settleBackwards();
    }
  }

  accepts(pool: number): boolean {
    if (!passesFilters(this.c, this.q, pool)) return false;
    if (this.rule === null) return true;
    const ix = this.c.index;
    return this.rule.matches(ix.poolTokens, ix.poolTokenStart[pool], ix.poolTokenStart[pool + 1]);
  }

  advance(): void {
    this.pos++;
    if (this.q.descending) this.settleForwards();
    else this.settleBackwards();
  }

  private settleForwards(): void {
    if (this.pos >= this.end) this.done = true;
    else this.load(this.ids[this.pos]);
  }

  private settleBackwards(): void {
    while (this.pos >= this.end) {
      if (this.runFloor <= this.lo) {
        this.done = true;
        return;
      }
      this.end = this.runFloor;
      this.runFloor = this.runStart(this.end);
      this.pos = this.runFloor;
    }
    this.load(this.ids[this.pos]);
  }

  private keyAt(i: number): number {
    return this.keys[this.keyBase + this.ids[i]];
  }

  /** The start of the run of equal keys that ends at `end` (exclusive). */
  private runStart(end: number): number {
    if (end <= this.lo) return this.lo;
    const key = this.keyAt(end - 1);
    let i = end - 1;
    while (i > this.lo && this.keyAt(i - 1) === key) i--;
    return i;
  }

  /** First index in [from, to) whose key is below `key` (orEqual: at or below). Keys descend. */
  private firstBelow(from: number, to: number, key: number, orEqual: boolean): number {
    let a = from;
    let b = to;
    while (a < b) {
      const m = (a + b) >>> 1;
      const k = this.keyAt(m);
      if (orEqual ? k > key : k >= key) a = m + 1;
      else b = m;
    }
    return a;
  }

  /** Within the run [from, to) of keys equal to the position's: the first pool after it. */
  private equalRunStart(from: number, to: number, after: SearchPosition): number {
    if (this.c.chainId < after.chainId) return to;
    if (this.c.chainId > after.chainId) return from;
    let a = from;
    let b = to;
    while (a < b) {
      const m = (a + b) >>> 1;
      if (compareAddress(this.c.pools, this.ids[m], after.address) <= 0) a = m + 1;
      else b = m;
    }
    return a;
  }

  /** Descending: the first index after the position. */
  private startAfterDescending(lo: number, hi: number, after: SearchPosition): number {
    const equalFrom = this.firstBelow(lo, hi, after.key, true);
    const equalTo = this.firstBelow(equalFrom, hi, after.key, false);
    return this.equalRunStart(equalFrom, equalTo, after);
  }
}

/** Pools of an array already in the query's order. */
class ArrayList extends ListCursor {
  private pos = 0;

  constructor(
    c: SearchChain,
    slot: number,
    q: PoolSearchQuery,
    private readonly ids: readonly number[],
  ) {
    super(c, slot, q);
    this.settle();
  }

  accepts(): boolean {
    return true; // filtered when gathered
  }

  advance(): void {
    this.pos++;
    this.settle();
  }

  private settle(): void {
    if (this.pos >= this.ids.length) this.done = true;
    else this.load(this.ids[this.pos]);
  }
}

/** Side B given, few pairs: the pools of each (a, b) pair, filtered and sorted. */
function pairList(c: SearchChain, slot: number, q: PoolSearchQuery, after: SearchPosition | null): ArrayList {
  const ix = c.index;
  const n = ix.tokenCount;
  const looked = new Set<number>();
  const found = new Set<number>();
  for (const a of c.a) {
    for (const b of c.b!) {
      const pair = a <= b ? a * n + b : b * n + a;
      if (looked.has(pair)) continue;
      looked.add(pair);
      const at = findPair(ix.pairKeys, pair);
      if (at < 0) continue;
      for (let j = ix.pairStart[at]; j < ix.pairStart[at + 1]; j++) {
        const pool = ix.pairPools[j];
        if (found.has(pool) || !passesFilters(c, q, pool)) continue;
        if (after !== null && comparePosition(c, q, pool, after) <= 0) continue;
        found.add(pool);
      }
    }
  }
  const keys = ix.keys;
  const base = q.key * ix.poolCount;
  const rank = ix.addressRank;
  const ids = [...found].sort((x, y) => {
    const kx = keys[base + x];
    const ky = keys[base + y];
    if (kx !== ky) return kx < ky === q.descending ? 1 : -1;
    return rank[x] - rank[y];
  });
  return new ArrayList(c, slot, q, ids);
}

function findPair(keys: Float64Array, pair: number): number {
  let a = 0;
  let b = keys.length;
  while (a < b) {
    const m = (a + b) >>> 1;
    if (keys[m] < pair) a = m + 1;
    else b = m;
  }
  return a < keys.length && keys[a] === pair ? a : -1;
}

/** A binary heap of list cursors by their current pool, in the query's order. */
class CursorHeap {
  private readonly items: ListCursor[];

  constructor(
    items: ListCursor[],
    private readonly descending: boolean,
  ) {
    this.items = items;
    for (let i = (items.length >> 1) - 1; i >= 0; i--) this.down(i);
  }

  get size(): number {
    return this.items.length;
  }

  top(): ListCursor {
    return this.items[0];
  }

  pop(): void {
    const last = this.items.pop()!;
    if (this.items.length > 0) {
      this.items[0] = last;
      this.down(0);
    }
  }

  /** The top's pool changed. */
  fixTop(): void {
    this.down(0);
  }

  private before(x: ListCursor, y: ListCursor): boolean {
    if (x.key !== y.key) return x.key > y.key === this.descending;
    if (x.chainId !== y.chainId) return x.chainId < y.chainId;
    return x.rank < y.rank;
  }

  private down(i: number): void {
    const items = this.items;
    const n = items.length;
    const item = items[i];
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && this.before(items[child + 1], items[child])) child++;
      if (!this.before(items[child], item)) break;
      items[i] = items[child];
      i = child;
    }
    items[i] = item;
  }
}
