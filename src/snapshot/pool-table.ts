/**
 * Pool records of one chain: pre-encoded `data.pool` JSON, addressed by an
 * open-addressing hash table over the lowercase pool address. Lookups compare
 * the request string in place (case-insensitively), so they allocate nothing.
 */
import { crc32Continue } from "../http/transport/gzip-member.js";
import { encodeByteColumn, sharedArray, type StringColumn } from "../util/shared-columns.js";

const KEY_WIDTH = 66; // "0x" + 64 hex, the longest pool address

export interface PoolTableData {
  readonly count: number;
  /** Pool JSON, one object per pool. */
  readonly json: StringColumn;
  /** CRC-32 of each pool's JSON (the ETag of its details answer, computed once per snapshot). */
  readonly jsonCrc: Uint32Array;
  /** Lowercase ASCII address of each pool, KEY_WIDTH bytes per pool, length in keyLength. */
  readonly keys: Uint8Array;
  readonly keyLength: Uint8Array;
  /** Hash slots holding pool index + 1 (0 = empty); length is a power of two. */
  readonly slots: Uint32Array;
}

/** FNV-1a over the lowercased char codes of an ASCII address. */
function hashAddress(address: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < address.length; i++) {
    let c = address.charCodeAt(i);
    if (c >= 65 && c <= 90) c += 32;
    h = Math.imul(h ^ c, 0x01000193);
  }
  return h >>> 0;
}

/** @param poolJson JSON of pool i, as one column or one byte string per pool. */
export function buildPoolTable(addresses: readonly string[], poolJson: StringColumn | readonly Uint8Array[]): PoolTableData {
  const count = addresses.length;
  const json = isColumn(poolJson) ? poolJson : encodeByteColumn(poolJson);
  if (json.offsets.length !== count + 1) throw new RangeError(`${count} pool addresses but ${json.offsets.length - 1} pool JSON values`);
  const keys = sharedArray(Uint8Array, count * KEY_WIDTH);
  const keyLength = sharedArray(Uint8Array, count);
  let size = 2;
  while (size < count * 2) size <<= 1;
  const slots = sharedArray(Uint32Array, size);
  const jsonCrc = sharedArray(Uint32Array, count);
  const mask = size - 1;
  for (let i = 0; i < count; i++) {
    const address = addresses[i];
    for (let j = 0; j < address.length; j++) keys[i * KEY_WIDTH + j] = address.charCodeAt(j);
    keyLength[i] = address.length;
    jsonCrc[i] = crc32Continue(json.bytes.subarray(json.offsets[i], json.offsets[i + 1]), 0);
    let slot = hashAddress(address) & mask;
    while (slots[slot] !== 0) slot = (slot + 1) & mask;
    slots[slot] = i + 1;
  }
  return { count, json, jsonCrc, keys, keyLength, slots };
}

function isColumn(value: StringColumn | readonly Uint8Array[]): value is StringColumn {
  return !Array.isArray(value);
}

/** Index of the pool with this address (any letter case), or -1. */
export function findPool(table: PoolTableData, address: string): number {
  const { slots, keys, keyLength } = table;
  const mask = slots.length - 1;
  const length = address.length;
  let slot = hashAddress(address) & mask;
  for (;;) {
    const entry = slots[slot];
    if (entry === 0) return -1;
    const i = entry - 1;
    if (keyLength[i] === length) {
      const base = i * KEY_WIDTH;
      let j = 0;
      for (; j < length; j++) {
        let c = address.charCodeAt(j);
        if (c >= 65 && c <= 90) c += 32;
        if (keys[base + j] !== c) break;
      }
      if (j === length) return i;
    }
    slot = (slot + 1) & mask;
  }
}
