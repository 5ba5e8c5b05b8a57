/**
 * An open-addressing hash table over lowercase ASCII addresses (pool addresses,
 * token addresses), in shared memory. Lookups compare the request string in
 * place, case-insensitively, so they allocate nothing.
 */
import { sharedArray } from "./shared-columns.js";

export interface AddressTableData {
  readonly count: number;
  /** Bytes reserved per address in `keys`. */
  readonly width: number;
  /** Lowercase ASCII address of each entry, `width` bytes per entry, length in keyLength. */
  readonly keys: Uint8Array;
  readonly keyLength: Uint8Array;
  /** Hash slots holding entry index + 1 (0 = empty); length is a power of two. */
  readonly slots: Uint32Array;
}

/** Characters hashed: the length and the last 16 (64 bits of a random hex address; the table is built from snapshot data, not from requests). */
const HASHED_CHARS = 16;

/** FNV-1a over the length and the lowercased char codes of the address's last HASHED_CHARS characters. */
function hashAddress(address: string): number {
  let h = Math.imul(0x811c9dc5 ^ address.length, 0x01000193);
  for (let i = Math.max(0, address.length - HASHED_CHARS); i < address.length; i++) {
    let c = address.charCodeAt(i);
    if (c >= 65 && c <= 90) c += 32;
    h = Math.imul(h ^ c, 0x01000193);
  }
  return h >>> 0;
}

/** hashAddress of entry i of a table, from its stored (lowercase) bytes. */
function hashEntry(table: AddressTableData, i: number): number {
  const { keys, keyLength, width } = table;
  const length = keyLength[i];
  const base = i * width;
  let h = Math.imul(0x811c9dc5 ^ length, 0x01000193);
  for (let j = Math.max(0, length - HASHED_CHARS); j < length; j++) h = Math.imul(h ^ keys[base + j], 0x01000193);
  return h >>> 0;
}

/**
 * Index in `table` of the address of entry i of `other` (another table of the same width, e.g. the same
 * chain's previous pool table), or -1. Allocation-free: compares the stored bytes.
 */
export function findEntryOf(table: AddressTableData, other: AddressTableData, i: number): number {
  const { slots, keys, keyLength, width } = table;
  const mask = slots.length - 1;
  const length = other.keyLength[i];
  const otherBase = i * other.width;
  const otherKeys = other.keys;
  let slot = hashEntry(other, i) & mask;
  for (;;) {
    const entry = slots[slot];
    if (entry === 0) return -1;
    const e = entry - 1;
    if (keyLength[e] === length) {
      const base = e * width;
      let j = 0;
      while (j < length && keys[base + j] === otherKeys[otherBase + j]) j++;
      if (j === length) return e;
    }
    slot = (slot + 1) & mask;
  }
}

/** @param addresses lowercase ASCII, at most `width` characters each; entry i is addresses[i]. */
export function buildAddressTable(addresses: readonly string[], width: number): AddressTableData {
  const count = addresses.length;
  const keys = sharedArray(Uint8Array, count * width);
  const keyLength = sharedArray(Uint8Array, count);
  const slots = slotsFor(count);
  for (let i = 0; i < count; i++) {
    const address = addresses[i];
    writeKey(keys, keyLength, width, i, address);
    insertEntry(slots, hashAddress(address), i);
  }
  return { count, width, keys, keyLength, slots };
}

/** Entry i's key: `address`'s code units as bytes, and its length. */
function writeKey(keys: Uint8Array, keyLength: Uint8Array, width: number, i: number, address: string): void {
  if (address.length > width) throw new RangeError(`address ${address} is longer than ${width} characters`);
  for (let j = 0; j < address.length; j++) keys[i * width + j] = address.charCodeAt(j);
  keyLength[i] = address.length;
}

/** Empty slots for `count` entries (a power of two, at least twice as many). */
function slotsFor(count: number): Uint32Array {
  let size = 2;
  while (size < count * 2) size <<= 1;
  return sharedArray(Uint32Array, size);
}

/** Entry i into the first free slot from its hash's (linear probing; slot value i + 1, 0 for free). */
function insertEntry(slots: Uint32Array, hash: number, i: number): void {
  const mask = slots.length - 1;
  let slot = hash & mask;
  while (slots[slot] !== 0) slot = (slot + 1) & mask;
  slots[slot] = i + 1;
}

/**
 * buildAddressTable(addresses, width) of a table whose entries are mostly another table's (the same chain's previous
 * pool table, of the same width): entry i with `keptFrom[i] > 0` has entry `keptFrom[i] - 1` of `previous`'s address
 * (then `addresses[i]` is not read: its bytes are copied, a run of entries that follow each other in both tables in
 * one piece), the others `addresses[i]`. The same table to the byte as buildAddressTable's: the same keys, inserted
 * in the same order with the same hashes.
 */
export function buildAddressTableKeeping(
  addresses: readonly string[],
  width: number,
  previous: AddressTableData,
  keptFrom: Int32Array,
): AddressTableData {
  const count = addresses.length;
  if (previous.width !== width) throw new RangeError(`previous table of width ${previous.width}, not ${width}`);
  if (keptFrom.length < count) throw new RangeError(`${keptFrom.length} kept entries for ${count} addresses`);
  const keys = sharedArray(Uint8Array, count * width);
  const keyLength = sharedArray(Uint8Array, count);
  const table: AddressTableData = { count, width, keys, keyLength, slots: new Uint32Array(0) };
  // Keys first: runs of kept entries copied in one piece (entries i.. from previous entries j..).
  const previousKeys = previous.keys;
  const previousLength = previous.keyLength;
  for (let i = 0; i < count;) {
    const j = keptFrom[i] - 1;
    if (j < 0) {
      writeKey(keys, keyLength, width, i, addresses[i]);
      i++;
      continue;
    }
    if (j >= previous.count) throw new RangeError(`entry ${i} kept from entry ${j} of ${previous.count}`);
    let n = 1;
    while (i + n < count && keptFrom[i + n] === j + n + 1 && j + n < previous.count) n++;
    keys.set(previousKeys.subarray(j * width, (j + n) * width), i * width);
    keyLength.set(previousLength.subarray(j, j + n), i);
    i += n;
  }
  const slots = slotsFor(count);
  for (let i = 0; i < count; i++) insertEntry(slots, keptFrom[i] > 0 ? hashEntry(table, i) : hashAddress(addresses[i]), i);
  return { count, width, keys, keyLength, slots };
}

/** Index of the entry with this address (any letter case), or -1. */
export function findAddress(table: AddressTableData, address: string): number {
  const { slots, keys, keyLength, width } = table;
  const mask = slots.length - 1;
  const length = address.length;
  let slot = hashAddress(address) & mask;
  for (;;) {
    const entry = slots[slot];
    if (entry === 0) return -1;
    const i = entry - 1;
    if (keyLength[i] === length) {
      const base = i * width;
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

/**
 * Compares entry i's address with a lowercase `address` in code-unit order
 * (negative: the entry sorts first).
 */
export function compareAddress(table: AddressTableData, i: number, address: string): number {
  const { keys, keyLength, width } = table;
  const base = i * width;
  const length = keyLength[i];
  const common = Math.min(length, address.length);
  for (let j = 0; j < common; j++) {
    const d = keys[base + j] - address.charCodeAt(j);
    if (d !== 0) return d;
  }
  return length - address.length;
}

/** Entry i's address. */
export function addressAt(table: AddressTableData, i: number): string {
  const base = i * table.width;
  return latin1.decode(table.keys.subarray(base, base + table.keyLength[i]));
}

const latin1 = new TextDecoder("latin1");
