/**
 * Pool records of one chain: pre-encoded `data.pool` JSON, addressed by a hash
 * table over the lowercase pool address (address-hash-table.ts).
 */
import { crc32Continue } from "../util/crc32.js";
import { encodeByteColumn, sharedArray, type StringColumn } from "./shared-columns.js";
import { buildAddressTable, findAddress, type AddressTableData } from "./address-hash-table.js";

/** "0x" + 64 hex, the longest pool address (a V4 pool id). */
export const POOL_ADDRESS_WIDTH = 66;

export interface PoolTableData extends AddressTableData {
  /** Pool JSON, one object per pool. */
  readonly json: StringColumn;
  /** CRC-32 of each pool's JSON (the ETag of its details answer, computed once per snapshot). */
  readonly jsonCrc: Uint32Array;
}

/**
 * @param poolJson JSON of pool i, as one column or one byte string per pool.
 * @param jsonCrc each pool's poolJsonCrc, when computed already (as the pools were encoded).
 */
export function buildPoolTable(
  addresses: readonly string[],
  poolJson: StringColumn | readonly Uint8Array[],
  jsonCrc?: Uint32Array,
): PoolTableData {
  const count = addresses.length;
  const json = isColumn(poolJson) ? poolJson : encodeByteColumn(poolJson);
  if (json.offsets.length !== count + 1) throw new RangeError(`${count} pool addresses but ${json.offsets.length - 1} pool JSON values`);
  let crc = jsonCrc;
  if (crc === undefined) {
    crc = sharedArray(Uint32Array, count);
    for (let i = 0; i < count; i++) crc[i] = poolJsonCrc(json.bytes.subarray(json.offsets[i], json.offsets[i + 1]));
  } else if (crc.length !== count) throw new RangeError(`${count} pool addresses but ${crc.length} JSON checksums`);
  return { ...buildAddressTable(addresses, POOL_ADDRESS_WIDTH), json, jsonCrc: crc };
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
