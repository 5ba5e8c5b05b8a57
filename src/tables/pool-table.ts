/**
 * Pool records of one chain: pre-encoded `data.pool` JSON, addressed by a hash
 * table over the lowercase pool address (address-hash-table.ts). A pool's JSON
 * is read through `poolJson` only: it lies in one of a few shared blocks, so an
 * incremental build keeps its unchanged pools' JSON where the previous build
 * wrote it instead of copying it (keptPoolJson; docs/decisions/013-incremental-builds.md).
 */
import { crc32Continue } from "../util/crc32.js";
import { encodeByteColumn, sharedArray, sharedCopy, type StringColumn } from "./shared-columns.js";
import { buildAddressTable, buildAddressTableKeeping, findAddress, type AddressTableData } from "./address-hash-table.js";

/** "0x" + 64 hex, the longest pool address (a V4 pool id). */
export const POOL_ADDRESS_WIDTH = 66;

/**
 * Pool JSON, one object per pool: pool i's bytes are `blocks[blockOf[i]]` from `starts[i]` to `ends[i]`. A full
 * build writes one block; an incremental build adds one block for the pools it encoded and keeps the previous
 * build's blocks its unchanged pools lie in (shared memory, never written again once served).
 */
export interface PoolJsonColumn {
  readonly blocks: readonly Uint8Array[];
  readonly blockOf: Uint8Array;
  readonly starts: Uint32Array;
  readonly ends: Uint32Array;
}

export interface PoolTableData extends AddressTableData {
  /** Pool JSON, one object per pool (read it with `poolJson`). */
  readonly json: PoolJsonColumn;
  /** CRC-32 of each pool's JSON (the ETag of its details answer, computed once per snapshot). */
  readonly jsonCrc: Uint32Array;
}

/**
 * @param poolJson JSON of pool i, as one column or one byte string per pool.
 * @param jsonCrc each pool's poolJsonCrc, when computed already (as the pools were encoded).
 */
export function buildPoolTable(
  addresses: readonly string[],
  poolJson: PoolJsonColumn | StringColumn | readonly Uint8Array[],
  jsonCrc?: Uint32Array,
): PoolTableData {
  const count = addresses.length;
  const json = "blocks" in poolJson ? poolJson : poolJsonColumn(isColumn(poolJson) ? poolJson : encodeByteColumn(poolJson));
  checkPoolCount(count, json, jsonCrc);
  let crc = jsonCrc;
  if (crc === undefined) {
    crc = sharedArray(Uint32Array, count);
    for (let i = 0; i < count; i++) crc[i] = poolJsonCrc(poolJsonOf(json, i));
  }
  return { ...buildAddressTable(addresses, POOL_ADDRESS_WIDTH), json, jsonCrc: crc };
}

/**
 * buildPoolTable of an incremental build: pool i with `keptFrom[i] > 0` has pool `keptFrom[i] - 1` of `previous`'s
 * address, whose bytes are copied (buildAddressTableKeeping); the same table as buildPoolTable's.
 */
export function buildPoolTableKeeping(
  addresses: readonly string[],
  json: PoolJsonColumn,
  jsonCrc: Uint32Array,
  previous: AddressTableData,
  keptFrom: Int32Array,
): PoolTableData {
  checkPoolCount(addresses.length, json, jsonCrc);
  return { ...buildAddressTableKeeping(addresses, POOL_ADDRESS_WIDTH, previous, keptFrom), json, jsonCrc };
}

/** That the pools' JSON (and checksums, when given) are `count` values, as their addresses. */
function checkPoolCount(count: number, json: PoolJsonColumn, jsonCrc?: Uint32Array): void {
  if (json.starts.length !== count) throw new RangeError(`${count} pool addresses but ${json.starts.length} pool JSON values`);
  if (jsonCrc !== undefined && jsonCrc.length !== count)
    throw new RangeError(`${count} pool addresses but ${jsonCrc.length} JSON checksums`);
}

/** Pool i's JSON (a view of shared memory). */
export function poolJson(table: PoolTableData, i: number): Uint8Array {
  return poolJsonOf(table.json, i);
}

/** Value i of a pool JSON column. */
export function poolJsonOf(json: PoolJsonColumn, i: number): Uint8Array {
  return json.blocks[json.blockOf[i]].subarray(json.starts[i], json.ends[i]);
}

/** A column of values in one block (a StringColumn's bytes, not copied). */
export function poolJsonColumn(column: StringColumn): PoolJsonColumn {
  const n = column.offsets.length - 1;
  return {
    blocks: [column.bytes],
    blockOf: sharedArray(Uint8Array, n),
    starts: sharedCopy(Uint32Array, column.offsets.subarray(0, n)),
    ends: sharedCopy(Uint32Array, column.offsets.subarray(1)),
  };
}

/** The CRC-32 of one pool's JSON (its `jsonCrc`). */
export function poolJsonCrc(json: Uint8Array): number {
  return crc32Continue(json, 0);
}

function isColumn(value: StringColumn | readonly Uint8Array[]): value is StringColumn {
  return !Array.isArray(value);
}

/** Index of the pool with this address (any letter case), or -1. */
export function findPool(table: PoolTableData, address: string): number {
  return findAddress(table, address);
}
