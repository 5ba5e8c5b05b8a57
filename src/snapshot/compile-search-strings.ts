/**
 * The search strings of the token index (runs in a build worker): every
 * distinct lowercased symbol, name, normalizedSymbol and normalizedName once,
 * with the instances that hold it, so that a search scans each distinct
 * string once instead of four strings per instance. Each chain's token run
 * (compile-token-run.ts) pairs its rows with chain-local strings; the merge
 * maps them to index-wide ids (ByteStrings, by their UTF-8 bytes: nothing is
 * decoded) and this lays them out.
 */
import { sharedArray, type StringColumn } from "../tables/shared-columns.js";
import { fnv1a } from "../util/fnv1a.js";
import type { SavedStrings } from "../tables/token-index.js";

export interface SearchStrings {
  readonly searchText: Uint8Array;
  readonly searchOffsets: Uint32Array;
  readonly postingStart: Uint32Array;
  readonly postings: Uint32Array;
}

/**
 * Distinct byte strings, each with an id handed out in order of first use (0, 1, ...), found by their bytes
 * in an open-addressing table: what a Map<string> did, without decoding a string or hashing one per lookup.
 * Values come from columns of valid UTF-8 (every column is encoded from strings), so `units` counts what
 * the decoded text of each holds.
 */
export class ByteStrings {
  /** Two values a slot: id + 1 (0: empty) and the string's hash (compared before its bytes are). */
  private slots: Uint32Array;
  private mask: number;
  private bytes: Uint8Array;
  private at = 0;
  /** ends[k]: end of string k in `bytes` (its start is ends[k - 1], or 0). */
  private ends: Uint32Array;
  /** UTF-16 code units of the decoded strings, end to end, like `ends`. */
  private units: Uint32Array;
  private hashes: Uint32Array;
  private count = 0;

  /** @param expected an upper bound on the number of distinct strings (the table never grows past twice it) */
  constructor(expected: number, expectedBytes = expected * 16) {
    let size = 16;
    while (size < expected * 2) size <<= 1;
    this.slots = new Uint32Array(size * 2);
    this.mask = size - 1;
    this.bytes = new Uint8Array(Math.max(64, expectedBytes));
    this.ends = new Uint32Array(Math.max(16, expected));
    this.units = new Uint32Array(Math.max(16, expected));
    this.hashes = new Uint32Array(Math.max(16, expected));
  }

  get size(): number {
    return this.count;
  }

  /** Id of value k of the column, added when new. */
  idOf(column: StringColumn, k: number): number {
    const source = column.bytes;
    const from = column.offsets[k];
    const to = column.offsets[k + 1];
    const hash = fnv1a(source, from, to);
    const length = to - from;
    for (let slot = hash & this.mask; ; slot = (slot + 1) & this.mask) {
      const entry = this.slots[slot * 2];
      if (entry === 0) {
        const id = this.add(source, from, to, hash);
        this.slots[slot * 2] = id + 1;
        this.slots[slot * 2 + 1] = hash;
        if (this.count * 4 > this.slots.length) this.grow();
        return id;
      }
      if (this.slots[slot * 2 + 1] !== hash) continue;
      const id = entry - 1;
      const start = id === 0 ? 0 : this.ends[id - 1];
      if (this.ends[id] - start !== length) continue;
      let same = true;
      for (let b = 0; b < length; b++) {
        if (this.bytes[start + b] !== source[from + b]) {
          same = false;
          break;
        }
      }
      if (same) return id;
    }
  }

  /**
   * The strings of a table saved earlier (`save`), with their ids, and room for `more` new ones; the saved
   * arrays are copied, never written.
   */
  static restore(saved: SavedStrings, more: number): ByteStrings {
    const strings = new ByteStrings(saved.count + more, saved.bytes.length + more * 16);
    strings.bytes.set(saved.bytes);
    strings.ends.set(saved.ends.subarray(0, saved.count));
    strings.units.set(saved.units.subarray(0, saved.count));
    strings.hashes.set(saved.hashes.subarray(0, saved.count));
    strings.at = saved.bytes.length;
    strings.count = saved.count;
    strings.rehash(strings.slots.length / 2);
    return strings;
  }

  /**
   * The strings `order[0]`, `order[1]`, ... (`count` of them), in that order, as shared arrays: what a table
   * that met them in that order would hold (`restore` takes it back).
   */
  save(order: Uint32Array, count: number): SavedStrings {
    let total = 0;
    for (let k = 0; k < count; k++) total += this.length(order[k]);
    const bytes = sharedArray(Uint8Array, total);
    const ends = sharedArray(Uint32Array, count);
    const units = sharedArray(Uint32Array, count);
    const hashes = sharedArray(Uint32Array, count);
    let at = 0;
    let unitsSoFar = 0;
    for (let k = 0; k < count; k++) {
      const id = order[k];
      const start = id === 0 ? 0 : this.ends[id - 1];
      const end = this.ends[id];
      bytes.set(this.bytes.subarray(start, end), at);
      at += end - start;
      ends[k] = at;
      unitsSoFar += this.units[id] - (id === 0 ? 0 : this.units[id - 1]);
      units[k] = unitsSoFar;
      hashes[k] = this.hashes[id];
    }
    return { count, bytes, ends, units, hashes };
  }

  /** Byte length of string `id`. */
  private length(id: number): number {
    return this.ends[id] - (id === 0 ? 0 : this.ends[id - 1]);
  }

  /** The strings as one shared UTF-8 text with the code-unit offsets of each (searchText, searchOffsets). */
  text(): { readonly searchText: Uint8Array; readonly searchOffsets: Uint32Array } {
    const searchText = sharedArray(Uint8Array, this.at);
    searchText.set(this.bytes.subarray(0, this.at));
    const searchOffsets = sharedArray(Uint32Array, this.count + 1);
    searchOffsets.set(this.units.subarray(0, this.count), 1);
    return { searchText, searchOffsets };
  }

  private add(source: Uint8Array, from: number, to: number, hash: number): number {
    const id = this.count++;
    if (id === this.ends.length) {
      this.ends = grownCopy(this.ends, id * 2);
      this.units = grownCopy(this.units, id * 2);
      this.hashes = grownCopy(this.hashes, id * 2);
    }
    const length = to - from;
    if (this.at + length > this.bytes.length) {
      const grown = new Uint8Array(Math.max(this.at + length, this.bytes.length * 2));
      grown.set(this.bytes.subarray(0, this.at));
      this.bytes = grown;
    }
    let units = 0;
    for (let b = from; b < to; b++) {
      const byte = source[b];
      this.bytes[this.at++] = byte;
      // A lead byte is one code unit, a four-byte sequence's lead two (a surrogate pair); continuation bytes none.
      if ((byte & 0xc0) !== 0x80) units += byte >= 0xf0 ? 2 : 1;
    }
    this.ends[id] = this.at;
    this.units[id] = (id === 0 ? 0 : this.units[id - 1]) + units;
    this.hashes[id] = hash;
    return id;
  }

  private grow(): void {
    this.rehash(this.slots.length);
  }

  /** Lays the strings out anew in a table of `size` slots (a power of two). */
  private rehash(size: number): void {
    const slots = new Uint32Array(size * 2);
    const mask = size - 1;
    for (let id = 0; id < this.count; id++) {
      let slot = this.hashes[id] & mask;
      while (slots[slot * 2] !== 0) slot = (slot + 1) & mask;
      slots[slot * 2] = id + 1;
      slots[slot * 2 + 1] = this.hashes[id];
    }
    this.slots = slots;
    this.mask = mask;
  }
}

export function grownCopy(values: Uint32Array, length: number): Uint32Array {
  const grown = new Uint32Array(length);
  grown.set(values);
  return grown;
}

/**
 * @param strings the distinct strings, by id (ByteStrings `save`): `searchText` is their bytes
 * @param pairString up to four string ids per instance: pairString[at * 4 + k], k < pairCount[at]
 * @param pairFields the FIELD_* bits of each pair
 */
export function searchStringsFromPairs(
  strings: SavedStrings,
  pairString: Uint32Array,
  pairFields: Uint8Array,
  pairCount: Uint8Array,
  instances: number,
): SearchStrings {
  const count = strings.count;
  const postingStart = sharedArray(Uint32Array, count + 1);
  for (let at = 0; at < instances; at++) for (let k = 0; k < pairCount[at]; k++) postingStart[pairString[at * 4 + k] + 1]++;
  for (let k = 0; k < count; k++) postingStart[k + 1] += postingStart[k];
  const fill = postingStart.slice(0, count);
  const postings = sharedArray(Uint32Array, postingStart[count]);
  for (let at = 0; at < instances; at++) {
    for (let k = 0; k < pairCount[at]; k++) {
      const id = pairString[at * 4 + k];
      postings[fill[id]++] = (at << 2) | pairFields[at * 4 + k];
    }
  }
  const searchOffsets = sharedArray(Uint32Array, count + 1);
  searchOffsets.set(strings.units, 1);
  return { searchText: strings.bytes, searchOffsets, postingStart, postings };
}
