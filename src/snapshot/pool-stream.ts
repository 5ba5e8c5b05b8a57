/**
 * A snapshot file's pools, one at a time.
 *
 * `splitPools` finds the top-level `pools` array in the file's bytes and
 * gives the rest of the file (with `pools` as an empty array) to be decoded
 * as usual; `PoolStream` then decodes, validates and hands out one pool at a
 * time, so a build holds one decoded pool instead of the whole decoded file
 * (which is several times the file's size). Files the split cannot read
 * (not a map at the top, no `pools` array, `pools` twice, bytes that do not
 * frame as MessagePack, extension values such as msgpackr's records, whose
 * meaning depends on earlier bytes) are decoded whole, as they always were:
 * they are served the same, and what is wrong with them is reported the same.
 */
import { decodeSnapshotRecord } from "./decode-snapshot.js";
import type { SnapshotPool } from "./format.js";
import { arrayHeader, mapHeader, valueEnd } from "./msgpack-layout.js";
import type { SnapshotChecker } from "./validate-snapshot.js";

/** Pools in file order, each validated when taken. */
export interface PoolSource {
  readonly count: number;
  /** The next pool (call `count` times). */
  next(): SnapshotPool;
}

/** Pools already decoded and validated (a whole-file decode). */
export function poolArray(pools: readonly SnapshotPool[]): PoolSource {
  let i = 0;
  return { count: pools.length, next: () => pools[i++] };
}

export interface SplitSnapshot {
  /** The file's top-level map with its `pools` value replaced by an empty array. */
  readonly header: Uint8Array;
  /** Offset of the first pool's bytes in the file. */
  readonly poolsAt: number;
  readonly poolCount: number;
}

const POOLS_KEY = "pools";
const EMPTY_ARRAY = 0x90;

export function splitPools(bytes: Uint8Array): SplitSnapshot | null {
  const map = mapHeader(bytes, 0);
  if (map === null) return null;
  let at = map.body;
  let pools: { valueAt: number; valueEnd: number; count: number; body: number } | null = null;
  for (let e = 0; e < map.count; e++) {
    const keyEnd = valueEnd(bytes, at);
    if (keyEnd < 0) return null;
    const end = valueEnd(bytes, keyEnd);
    if (end < 0) return null;
    if (isPoolsKey(bytes, at, keyEnd)) {
      const array = arrayHeader(bytes, keyEnd);
      if (pools !== null || array === null) return null;
      pools = { valueAt: keyEnd, valueEnd: end, count: array.count, body: array.body };
    }
    at = end;
  }
  if (pools === null || at !== bytes.length) return null;
  const header = new Uint8Array(bytes.length - (pools.valueEnd - pools.valueAt) + 1);
  header.set(bytes.subarray(0, pools.valueAt), 0);
  header[pools.valueAt] = EMPTY_ARRAY;
  header.set(bytes.subarray(pools.valueEnd), pools.valueAt + 1);
  return { header, poolsAt: pools.body, poolCount: pools.count };
}

/** True when the key at [start, end) is the string "pools" (any string width). */
function isPoolsKey(bytes: Uint8Array, start: number, end: number): boolean {
  const b = bytes[start];
  const isString = (b >= 0xa0 && b <= 0xbf) || b === 0xd9 || b === 0xda || b === 0xdb;
  if (!isString || end - start > 16) return false;
  return decodeSnapshotRecord(bytes.subarray(start, end), "(top-level key)") === POOLS_KEY;
}

/** The pools of a split file, decoded and validated one at a time. */
export class PoolStream implements PoolSource {
  readonly count: number;
  private at: number;
  private index = 0;

  constructor(
    private readonly bytes: Uint8Array,
    split: SplitSnapshot,
    private readonly checker: SnapshotChecker,
  ) {
    this.count = split.poolCount;
    this.at = split.poolsAt;
  }

  next(): SnapshotPool {
    const i = this.index++;
    // splitPools framed the whole array: every pool's end is found.
    const end = valueEnd(this.bytes, this.at);
    const value = decodeSnapshotRecord(this.bytes.subarray(this.at, end), `pools[${i}]`);
    this.at = end;
    return this.checker.pool(i, value);
  }
}
