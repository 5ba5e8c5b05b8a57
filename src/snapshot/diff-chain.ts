/**
 * A chain's change set (live.md §12), computed once per accepted file in the
 * build worker, from the tables of the chain's last accepted file and the new
 * ones:
 * - pools: a pool is upserted when it is new or when its pool-details JSON
 *   (the pre-encoded `data.pool` bytes) differs; removed when its address is
 *   no longer in the file. The JSON slices are compared natively (memcmp).
 * - tokens: the same over the single-chain token JSON's fields (decimals,
 *   name, symbol, logoUrl, tracked TVL) and the tracked USD price.
 * Every list is lowercase and sorted ascending. Without previous tables (the
 * chain's first load) every address is upserted and nothing removed.
 *
 * Both files' records are walked in address order, which each compiled chain already keeps (its pool-search
 * `addressRank`, its token run's `byAddress`): one merge finds the pairs, the new and the gone addresses, already
 * sorted, and writes the lists from the tables' address bytes (no strings, no map, no sort). An order that is not
 * ascending by the stored bytes (never for validated files) falls back to lookups and a sort, the same answer.
 */
import type { ChangeCounts, ChainDiff } from "../tables/change-sets.js";
import type { ChainTokenColumns } from "../tables/compiled-chain.js";
import { addressAt, findEntryOf, type AddressTableData } from "../tables/address-hash-table.js";
import type { PoolTableData } from "../tables/pool-table.js";
import { columnStrings, compareBytes, encodeStringColumn, StringColumnBuilder, type StringColumn } from "../tables/shared-columns.js";

/** The tables the diff reads of one file (a compiled chain, or the chain's previous tables). */
export interface DiffTables {
  readonly pools: PoolTableData;
  readonly tokens: ChainTokenColumns;
  /** The pools' address order: each pool's rank (PoolSearchIndexData.addressRank). */
  readonly poolSearch: { readonly addressRank: Uint32Array };
  /** The token rows in address order (TokenRunData.byAddress). */
  readonly tokenRun: { readonly byAddress: Uint32Array };
}

export function diffChain(previous: DiffTables | null, next: DiffTables): ChainDiff {
  const started = performance.now();
  const pools = mergePools(previous, next) ?? sortedLists(diffPools(previous?.pools ?? null, next.pools));
  const tokens = mergeTokens(previous, next) ?? sortedLists(diffTokens(previous?.tokens ?? null, next.tokens));
  return changeSetOf(pools, tokens, started);
}

/** A change's address lists, in any order (each sorted here). */
export interface Lists {
  readonly upserted: string[];
  readonly removed: string[];
}

/** A change's address lists as sorted columns. */
interface Columns {
  readonly upserted: StringColumn;
  readonly removed: StringColumn;
}

/**
 * The change set of these lists (sorted in place), its `ms` counted from `started` (a performance.now()): what an
 * incremental build, which finds the lists as it compares records (reuse-pools.ts, reuse-tokens.ts), answers.
 */
export function changeSet(pools: Lists, tokens: Lists, started: number): ChainDiff {
  return changeSetOf(sortedLists(pools), sortedLists(tokens), started);
}

function changeSetOf(pools: Columns, tokens: Columns, started: number): ChainDiff {
  const counts: ChangeCounts = {
    poolsUpserted: count(pools.upserted),
    poolsRemoved: count(pools.removed),
    tokensUpserted: count(tokens.upserted),
    tokensRemoved: count(tokens.removed),
  };
  return {
    poolsUpserted: pools.upserted,
    poolsRemoved: pools.removed,
    tokensUpserted: tokens.upserted,
    tokensRemoved: tokens.removed,
    counts,
    ms: performance.now() - started,
  };
}

const count = (column: StringColumn) => column.offsets.length - 1;

function sortedLists(lists: Lists): Columns {
  return { upserted: sortedColumn(lists.upserted), removed: sortedColumn(lists.removed) };
}

/**
 * The pools' lists by one merge of both files' pools in address order, or null when an order is not strictly
 * ascending by the stored address bytes (then diffPools answers).
 */
function mergePools(previous: DiffTables | null, next: DiffTables): Columns | null {
  const nextPools = next.pools;
  const nextOrder = poolOrder(nextPools, next.poolSearch.addressRank);
  if (nextOrder === null) return null;
  if (previous === null) return mergeAddressLists(POOL_ADDRESSES, poolsIn(nextPools, nextOrder), null);
  const oldPools = previous.pools;
  const oldOrder = poolOrder(oldPools, previous.poolSearch.addressRank);
  if (oldOrder === null) return null;
  const samePoolJson = poolJsonEquality(nextPools, oldPools);
  const differs = (i: number, j: number) => !samePoolJson(i, j);
  return mergeAddressLists(POOL_ADDRESSES, poolsIn(nextPools, nextOrder), { ...poolsIn(oldPools, oldOrder), differs });
}

/** The pools in address order (from each pool's rank), or null when that order is not strictly ascending by their bytes. */
function poolOrder(table: AddressTableData, rank: Uint32Array): Uint32Array | null {
  const n = table.count;
  if (rank.length < n) return null;
  const order = new Uint32Array(n);
  for (let p = 0; p < n; p++) {
    const r = rank[p];
    if (r >= n) return null;
    order[r] = p;
  }
  // Strictly ascending also proves the ranks a permutation (addresses are distinct entries).
  for (let r = 1; r < n; r++) if (compareEntries(table, order[r - 1], table, order[r]) >= 0) return null;
  return order;
}

/** Entry i of `a` against entry j of `b` by their stored bytes (negative: i sorts first). */
function compareEntries(a: AddressTableData, i: number, b: AddressTableData, j: number): number {
  const aBase = i * a.width;
  const bBase = j * b.width;
  return compareBytes(a.keys, aBase, aBase + a.keyLength[i], b.keys, bBase, bBase + b.keyLength[j]);
}

function writeEntry(out: StringColumnBuilder, table: AddressTableData, i: number): void {
  const base = i * table.width;
  out.writeBytes(table.keys, base, base + table.keyLength[i]);
  out.endValue();
}

/** The tokens' lists by one merge of both files' tokens in address order, or null as mergePools. */
function mergeTokens(previous: DiffTables | null, next: DiffTables): Columns | null {
  const nextTokens = next.tokens;
  const nextOrder = next.tokenRun.byAddress;
  const n = nextTokens.count;
  if (!ascendingRows(nextTokens.address, nextOrder, n)) return null;
  if (previous === null) return mergeAddressLists(TOKEN_ADDRESSES, tokensIn(nextTokens, nextOrder), null);
  const oldTokens = previous.tokens;
  const oldOrder = previous.tokenRun.byAddress;
  const m = oldTokens.count;
  if (!ascendingRows(oldTokens.address, oldOrder, m)) return null;
  const differs = (i: number, j: number) => tokenDiffers(oldTokens, j, nextTokens, i);
  return mergeAddressLists(TOKEN_ADDRESSES, tokensIn(nextTokens, nextOrder), { ...tokensIn(oldTokens, oldOrder), differs });
}

/** One file's records (pools or tokens) in address order, as mergeAddressLists reads them. */
interface AddressOrder<T> {
  readonly table: T;
  /** Its first `count` values: every record once, strictly ascending by address bytes. */
  readonly order: Uint32Array;
  readonly count: number;
  /** The first size of a list of its addresses (a guess: lists grow). */
  readonly addressBytes: number;
}

/** How mergeAddressLists reads the addresses of a table of records. */
interface AddressKeys<T> {
  /** Record i of `a` against record j of `b` by their address bytes (negative: i sorts first). */
  compare(a: T, i: number, b: T, j: number): number;
  /** Writes record i's address as the next value of `out`. */
  write(out: StringColumnBuilder, table: T, i: number): void;
}

const POOL_ADDRESSES: AddressKeys<AddressTableData> = { compare: compareEntries, write: writeEntry };
const TOKEN_ADDRESSES: AddressKeys<StringColumn> = { compare: compareValues, write: writeValue };

function poolsIn(pools: AddressTableData, order: Uint32Array): AddressOrder<AddressTableData> {
  return { table: pools, order, count: pools.count, addressBytes: pools.count * pools.width };
}

function tokensIn(tokens: ChainTokenColumns, order: Uint32Array): AddressOrder<StringColumn> {
  return { table: tokens.address, order, count: tokens.count, addressBytes: tokens.address.bytes.length };
}

/**
 * The lists of one merge of both files' records in address order: a next record without a previous one of its
 * address is upserted, so is one that `previous.differs(i, j)` from it (i next, j previous), and a previous record
 * without a next one is removed; each list comes out sorted. Without previous records every next record is upserted.
 */
function mergeAddressLists<T>(
  keys: AddressKeys<T>,
  next: AddressOrder<T>,
  previous: (AddressOrder<T> & { differs(i: number, j: number): boolean }) | null,
): Columns {
  const { table: nextTable, order: nextOrder, count: n } = next;
  const upserted = new StringColumnBuilder(n, next.addressBytes);
  if (previous === null) {
    for (let r = 0; r < n; r++) keys.write(upserted, nextTable, nextOrder[r]);
    return { upserted: upserted.finish(), removed: new StringColumnBuilder(0, 0).finish() };
  }
  const { table: oldTable, order: oldOrder, count: m } = previous;
  const removed = new StringColumnBuilder(m, previous.addressBytes);
  let r = 0;
  let s = 0;
  while (r < n || s < m) {
    const i = r < n ? nextOrder[r] : -1;
    const j = s < m ? oldOrder[s] : -1;
    const order = i < 0 ? 1 : j < 0 ? -1 : keys.compare(nextTable, i, oldTable, j);
    if (order < 0) {
      keys.write(upserted, nextTable, i);
      r++;
    } else if (order > 0) {
      keys.write(removed, oldTable, j);
      s++;
    } else {
      if (previous.differs(i, j)) keys.write(upserted, nextTable, i);
      r++;
      s++;
    }
  }
  return { upserted: upserted.finish(), removed: removed.finish() };
}

/** Whether rows `order[0..count)` are every row of `column` once, strictly ascending by their bytes. */
function ascendingRows(column: StringColumn, order: Uint32Array, count: number): boolean {
  if (order.length < count || column.offsets.length - 1 !== count) return false;
  for (let r = 0; r < count; r++) if (order[r] >= count) return false;
  for (let r = 1; r < count; r++) if (compareValues(column, order[r - 1], column, order[r]) >= 0) return false;
  return true;
}

/** Value i of `a` against value j of `b` by their bytes (negative: i sorts first). */
function compareValues(a: StringColumn, i: number, b: StringColumn, j: number): number {
  return compareBytes(a.bytes, a.offsets[i], a.offsets[i + 1], b.bytes, b.offsets[j], b.offsets[j + 1]);
}

function writeValue(out: StringColumnBuilder, column: StringColumn, i: number): void {
  out.writeBytes(column.bytes, column.offsets[i], column.offsets[i + 1]);
  out.endValue();
}

/** Whether pool i of `next` shows the JSON of pool j of `previous` (byte for byte). */
function poolJsonEquality(next: PoolTableData, previous: PoolTableData): (i: number, j: number) => boolean {
  const nextBlocks = next.json.blocks.map(asBuffer);
  const oldBlocks = previous.json.blocks.map(asBuffer);
  const { blockOf: nextBlockOf, starts: nextStarts, ends: nextEnds } = next.json;
  const { blockOf: oldBlockOf, starts: oldStarts, ends: oldEnds } = previous.json;
  return (i, j) => {
    const start = nextStarts[i];
    const end = nextEnds[i];
    const oldStart = oldStarts[j];
    const oldEnd = oldEnds[j];
    return (
      end - start === oldEnd - oldStart && nextBlocks[nextBlockOf[i]].compare(oldBlocks[oldBlockOf[j]], oldStart, oldEnd, start, end) === 0
    );
  };
}

function diffPools(previous: PoolTableData | null, next: PoolTableData): Lists {
  const upserted: string[] = [];
  const removed: string[] = [];
  if (previous === null) {
    for (let i = 0; i < next.count; i++) upserted.push(addressAt(next, i));
    return { upserted, removed };
  }
  const samePoolJson = poolJsonEquality(next, previous);
  // Addresses are made into strings only for the lists; lookups compare the tables' stored bytes.
  for (let i = 0; i < next.count; i++) {
    const j = findEntryOf(previous, next, i);
    if (j < 0 || !samePoolJson(i, j)) upserted.push(addressAt(next, i));
  }
  for (let j = 0; j < previous.count; j++) if (findEntryOf(next, previous, j) < 0) removed.push(addressAt(previous, j));
  return { upserted, removed };
}

function diffTokens(previous: ChainTokenColumns | null, next: ChainTokenColumns): Lists {
  const upserted: string[] = [];
  const removed: string[] = [];
  const nextAddresses = columnStrings(next.address);
  if (previous === null) return { upserted: nextAddresses, removed };
  const oldAddresses = columnStrings(previous.address);
  const oldRow = new Map<string, number>();
  for (let j = 0; j < oldAddresses.length; j++) oldRow.set(oldAddresses[j], j);
  const nextRows = new Set<string>();
  for (let i = 0; i < nextAddresses.length; i++) {
    const address = nextAddresses[i];
    nextRows.add(address);
    const j = oldRow.get(address);
    if (j === undefined || tokenDiffers(previous, j, next, i)) upserted.push(address);
  }
  for (const address of oldAddresses) if (!nextRows.has(address)) removed.push(address);
  return { upserted, removed };
}

/** Whether row j of `a` and row i of `b` answer different single-chain JSON or price. */
export function tokenDiffers(a: ChainTokenColumns, j: number, b: ChainTokenColumns, i: number): boolean {
  return (
    a.decimals[j] !== b.decimals[i] ||
    a.tvl[j] !== b.tvl[i] ||
    a.price[j] !== b.price[i] ||
    !sameValue(a.symbol, j, b.symbol, i) ||
    !sameValue(a.name, j, b.name, i) ||
    !sameValue(a.logoUrl, j, b.logoUrl, i)
  );
}

function sameValue(a: StringColumn, j: number, b: StringColumn, i: number): boolean {
  const aStart = a.offsets[j];
  const aEnd = a.offsets[j + 1];
  const bStart = b.offsets[i];
  const bEnd = b.offsets[i + 1];
  if (aEnd - aStart !== bEnd - bStart) return false;
  for (let k = 0; k < aEnd - aStart; k++) if (a.bytes[aStart + k] !== b.bytes[bStart + k]) return false;
  return true;
}

/** Lowercase ASCII addresses: the default sort (code-unit order) is byte order. */
function sortedColumn(addresses: string[]): StringColumn {
  addresses.sort();
  return encodeStringColumn(addresses);
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
