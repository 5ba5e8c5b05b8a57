/**
 * What one served chain file makes history observe (shared/spec/history.md §22), read off the compiled
 * tables the serving threads serve: the candidates (the addresses its change sets name, or every record
 * when the file's change set is not relative to the last file history observed), each with its values in
 * the file, or null when the file no longer holds it.
 *
 * - token: `trackedUsdPrice` (the price served) and `trackedTotalValuePooledUsd` (the single-chain route's
 *   `totalValuePooledUsd`), from the token columns;
 * - pool: `balance.totalValueLockedUsd`, and `stats.stats24h`'s `swapVolumeUsd`, `feesUsd` and `yield`, read
 *   out of the pool's pre-encoded details JSON (the bytes GET /v1/pools answers).
 * The work is per candidate: a binary search (tokens) or a hash lookup (pools) each.
 */
import { findPool, poolJson, type PoolTableData } from "../tables/pool-table.js";
import type { ChainTokenColumns } from "../tables/compiled-chain.js";
import type { ChangeLists } from "../tables/change-sets.js";
import { findSortedRow, type StringColumn } from "../tables/shared-columns.js";
import { addressAt } from "../tables/address-hash-table.js";

/** The candidates of one kind: addresses (bytes) and their values in the file (null: not in it). */
export interface KindObservations {
  readonly addresses: Uint8Array[];
  readonly values: (number[] | null)[];
}

export interface FileObservations {
  readonly tokens: KindObservations;
  readonly pools: KindObservations;
  /** True: every record of the file is a candidate (the writer also records the departure of what it no longer holds). */
  readonly full: boolean;
}

/** The tables one file's observations are read from. */
export interface ObservedTables {
  readonly pools: PoolTableData;
  readonly tokens: ChainTokenColumns;
  /** Token rows in address order (the token run's `byAddress`). */
  readonly tokenByAddress: Uint32Array;
}

/** @param lists the change sets of the file (since the file history observed last), or null: every record. */
export function observeFile(tables: ObservedTables, lists: readonly ChangeLists[] | null): FileObservations {
  if (lists === null) return { tokens: allTokens(tables), pools: allPools(tables.pools), full: true };
  const tokens: KindObservations = { addresses: [], values: [] };
  const pools: KindObservations = { addresses: [], values: [] };
  const seenTokens = new Set<string>();
  const seenPools = new Set<string>();
  for (const l of lists) {
    for (const column of [l.tokensUpserted, l.tokensRemoved]) eachAddress(column, (a) => addToken(tables, tokens, seenTokens, a));
    for (const column of [l.poolsUpserted, l.poolsRemoved]) eachAddress(column, (a) => addPool(tables.pools, pools, seenPools, a));
  }
  return { tokens, pools, full: false };
}

function eachAddress(column: StringColumn, each: (address: string) => void): void {
  const n = column.offsets.length - 1;
  for (let i = 0; i < n; i++) each(latin1.decode(column.bytes.subarray(column.offsets[i], column.offsets[i + 1])));
}

const latin1 = new TextDecoder("latin1");

function addToken(tables: ObservedTables, out: KindObservations, seen: Set<string>, address: string): void {
  if (seen.has(address)) return;
  seen.add(address);
  const row = findSortedRow(tables.tokens.address, address, tables.tokenByAddress);
  out.addresses.push(hexBytes(address));
  out.values.push(row < 0 ? null : [tables.tokens.price[row], tables.tokens.tvl[row]]);
}

function addPool(table: PoolTableData, out: KindObservations, seen: Set<string>, address: string): void {
  if (seen.has(address)) return;
  seen.add(address);
  const i = findPool(table, address);
  out.addresses.push(hexBytes(address));
  out.values.push(i < 0 ? null : poolValues(table, i));
}

function allTokens(tables: ObservedTables): KindObservations {
  const { tokens } = tables;
  const out: KindObservations = { addresses: [], values: [] };
  for (let row = 0; row < tokens.count; row++) {
    out.addresses.push(hexBytes(columnText(tokens.address, row)));
    out.values.push([tokens.price[row], tokens.tvl[row]]);
  }
  return out;
}

function allPools(table: PoolTableData): KindObservations {
  const out: KindObservations = { addresses: [], values: [] };
  for (let i = 0; i < table.count; i++) {
    out.addresses.push(hexBytes(addressAt(table, i)));
    out.values.push(poolValues(table, i));
  }
  return out;
}

function columnText(column: StringColumn, i: number): string {
  return latin1.decode(column.bytes.subarray(column.offsets[i], column.offsets[i + 1]));
}

/** The bytes of a lowercase `0x` hex address. */
export function hexBytes(address: string): Uint8Array {
  const n = (address.length - 2) >> 1;
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (hexDigit(address.charCodeAt(2 + 2 * i)) << 4) | hexDigit(address.charCodeAt(3 + 2 * i));
  return out;
}

function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return 0;
}

const STATS_24H = Buffer.from('"stats":{"stats24h":{"feesUsd":');
const VOLUME = Buffer.from(',"swapVolumeUsd":');
const YIELD = Buffer.from(',"yield":');
const BALANCE = Buffer.from('"balance":{"totalValueLockedUsd":');

/**
 * A pool's observed values from its details JSON: [totalValueLockedUsd, volume24h, fees24h, yield24h]. The
 * markers hold quotes and colons, which a JSON string never holds unescaped: only the structure matches.
 */
export function poolValues(table: PoolTableData, i: number): number[] {
  const bytes = poolJson(table, i);
  const json = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const stats = json.indexOf(STATS_24H);
  const balance = json.indexOf(BALANCE, stats);
  if (stats < 0 || balance < 0) throw new Error(`pool ${addressAt(table, i)}: its JSON has no stats24h or balance`);
  const fees = numberAt(json, stats + STATS_24H.length);
  const volume = numberAt(json, fees.end + VOLUME.length);
  const yield24h = numberAt(json, volume.end + YIELD.length);
  const tvl = numberAt(json, balance + BALANCE.length);
  return [tvl.value, volume.value, fees.value, yield24h.value];
}

function numberAt(json: Buffer, at: number): { value: number; end: number } {
  let end = at;
  while (end < json.length && json[end] !== 0x2c && json[end] !== 0x7d) end++;
  return { value: Number(json.toString("latin1", at, end)), end };
}
