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
import type { ByteSource } from "./byte-source.js";
import { decodeSnapshotRecord } from "./decode-snapshot.js";
import type { SnapshotPool } from "../api/snapshot-format.js";
import { arrayHeader, mapHeader, valueEnd, valueEndWithin } from "./msgpack-layout.js";
import type { SnapshotChecker } from "./validate-snapshot.js";
import { writeDigest } from "./record-digests.js";
import { sharedArray } from "../tables/shared-columns.js";

/**
 * A pool as taken: decoded and validated, or, in an incremental build, the index of the previous file's pool whose
 * compiled data it keeps (its bytes unchanged: reuse-pools.ts).
 */
export type PoolItem = SnapshotPool | number;

/** Pools in file order, each validated when taken. */
export interface PoolSource {
  readonly count: number;
  /** The next pool (call `count` times). */
  next(): PoolItem;
}

/** Pools already decoded and validated (a whole-file decode). */
export function poolArray(pools: readonly SnapshotPool[]): PoolSource {
  let i = 0;
  return { count: pools.length, next: () => pools[i++] };
}

export interface SplitSnapshot {
  /**
   * The file's top-level map with its `pools` value replaced by an empty array, in shared memory: the helper thread
   * of a chain reads it too, and it is not copied there (38.7 MB on the large set's chain 8453).
   */
  readonly header: Uint8Array;
  /** Offset of the first pool's bytes in the file. */
  readonly poolsAt: number;
  readonly poolCount: number;
  /** Where each pool's bytes end (framed once here, so the pools are not walked again as they are taken). */
  readonly poolEnds: Float64Array;
}

const POOLS_KEY = "pools";
const EMPTY_ARRAY = 0x90;

/** Bytes framed from one window of the file (within the reader's own window: byte-source.ts). */
const FRAME_WINDOW_BYTES = 2 << 20;

/** Most bytes a header piece is copied in at once (a file's window stays small). */
const COPY_CHUNK_BYTES = 1 << 20;

export function splitPools(bytes: ByteSource): SplitSnapshot | null {
  const split = splitArray(bytes, POOLS_KEY);
  return split === null ? null : { header: split.rest, poolsAt: split.at, poolCount: split.count, poolEnds: split.ends };
}

/** A top-level array of a MessagePack map framed item by item, and the map without it. */
export interface SplitArray {
  /** The map with the array's value replaced by an empty array (in shared memory: posted to another thread, not copied). */
  readonly rest: Uint8Array;
  /** Offset of the first item's bytes. */
  readonly at: number;
  readonly count: number;
  /** Where each item's bytes end. */
  readonly ends: Float64Array;
}

/**
 * Frames the array under the top-level key `key` (a string key, any width) of the map in `bytes`, item by
 * item. Null when the bytes are not one map that frames to their end, hold no such key or hold it twice, or
 * its value is not an array (the caller then decodes the whole map, and reports what is wrong as before).
 */
export function splitArray(bytes: ByteSource, key: string): SplitArray | null {
  const map = mapHeader(bytes, 0);
  if (map === null) return null;
  let at = map.body;
  let found: { valueAt: number; valueEnd: number; count: number; body: number; ends: Float64Array } | null = null;
  for (let e = 0; e < map.count; e++) {
    const keyEnd = valueEnd(bytes, at);
    if (keyEnd < 0) return null;
    let end: number;
    if (isKey(bytes, at, keyEnd, key)) {
      const array = arrayHeader(bytes, keyEnd);
      // Every item takes at least one byte: a larger count does not frame (nor allocates its ends).
      if (found !== null || array === null || array.count > bytes.length - array.body) return null;
      const ends = new Float64Array(array.count);
      end = frameItems(bytes, array.body, ends);
      if (end < 0) return null;
      found = { valueAt: keyEnd, valueEnd: end, count: array.count, body: array.body, ends };
    } else {
      end = valueEnd(bytes, keyEnd);
      if (end < 0) return null;
    }
    at = end;
  }
  if (found === null || at !== bytes.length) return null;
  const rest = sharedArray(Uint8Array, bytes.length - (found.valueEnd - found.valueAt) + 1);
  copyInto(rest, 0, bytes, 0, found.valueAt);
  rest[found.valueAt] = EMPTY_ARRAY;
  copyInto(rest, found.valueAt + 1, bytes, found.valueEnd, bytes.length);
  return { rest, at: found.body, count: found.count, ends: found.ends };
}

/** Frames `ends.length` values from `at` (their ends into `ends`), a window of the bytes at a time; the end of the last, or -1. */
function frameItems(bytes: ByteSource, at: number, ends: Float64Array): number {
  let end = at;
  let windowAt = at;
  let window = bytes.view(at, Math.min(bytes.length, at + FRAME_WINDOW_BYTES));
  for (let i = 0; i < ends.length; i++) {
    let next = valueEndWithin(window, windowAt, end);
    if (next < 0) {
      // Past the window (or not a value): the next window starts here; a value larger than a window is framed by valueEnd.
      windowAt = end;
      window = bytes.view(end, Math.min(bytes.length, end + FRAME_WINDOW_BYTES));
      next = valueEndWithin(window, windowAt, end);
      if (next < 0) {
        next = valueEnd(bytes, end);
        if (next < 0) return -1;
        windowAt = next;
        window = bytes.view(next, Math.min(bytes.length, next + FRAME_WINDOW_BYTES));
      }
    }
    ends[i] = end = next;
  }
  return end;
}

function copyInto(target: Uint8Array, at: number, bytes: ByteSource, from: number, to: number): void {
  for (let p = from; p < to; p += COPY_CHUNK_BYTES) {
    const end = Math.min(to, p + COPY_CHUNK_BYTES);
    target.set(bytes.view(p, end), at + (p - from));
  }
}

/** True when the key at [start, end) is the string `key` (any string width). */
function isKey(bytes: ByteSource, start: number, end: number, key: string): boolean {
  const b = bytes.byte(start);
  const isString = (b >= 0xa0 && b <= 0xbf) || b === 0xd9 || b === 0xda || b === 0xdb;
  if (!isString || end - start > 16) return false;
  return decodeSnapshotRecord(bytes.view(start, end), "(top-level key)") === key;
}

/** Where pools `from` to `from + poolEnds.length - 1` of a split file lie. */
export interface PoolRange {
  readonly from: number;
  /** Offset of pool `from`'s bytes in the file. */
  readonly at: number;
  /** Where each pool of the range ends. */
  readonly poolEnds: Float64Array;
}

/** Pools [from, to) of a split file (what a helper thread is handed to build them). */
export function poolRange(split: SplitSnapshot, from: number, to: number): PoolRange {
  return { from, at: from === 0 ? split.poolsAt : split.poolEnds[from - 1], poolEnds: split.poolEnds.slice(from, to) };
}

/** Which pools of the previous file a pool keeps (reuse-pools.ts). */
export interface PoolMatcher {
  /** The previous pool whose compiled data the pool with this digest (record-digests.ts) keeps, or -1 (decode it). */
  match(digest: string): number;
  /** Previous pool j's address. */
  address(j: number): string;
}

/** What a PoolStream does besides decoding: each pool's digest, and the previous file's pools to keep. */
export interface PoolStreamOptions {
  /** Where pool i's digest is written (DIGEST_BYTES at i * DIGEST_BYTES), or null. */
  readonly digests: Uint8Array | null;
  /** The previous file's pools (with `digests`): a pool it matches is not decoded. */
  readonly reuse: PoolMatcher | null;
}

/**
 * The pools of a split file (or of one range of them), decoded and validated one at a time; with a reuse, a pool
 * whose bytes are a previous pool's comes as that pool's index instead, its address checked unique.
 */
export class PoolStream implements PoolSource {
  readonly count: number;
  private at: number;
  private index = 0;
  private readonly from: number;
  private readonly ends: Float64Array;
  private readonly digests: Uint8Array | null;
  private readonly reuse: PoolMatcher | null;

  constructor(
    private readonly bytes: ByteSource,
    range: SplitSnapshot | PoolRange,
    private readonly checker: SnapshotChecker,
    options: PoolStreamOptions = { digests: null, reuse: null },
  ) {
    if ("poolsAt" in range) {
      this.from = 0;
      this.at = range.poolsAt;
    } else {
      this.from = range.from;
      this.at = range.at;
    }
    this.ends = range.poolEnds;
    this.count = this.ends.length;
    this.digests = options.digests;
    this.reuse = options.digests === null ? null : options.reuse;
  }

  /** Index in the file of the next pool. */
  get nextIndex(): number {
    return this.from + this.index;
  }

  next(): PoolItem {
    const local = this.index++;
    const i = this.from + local;
    // splitPools framed the whole array: every pool's end is known.
    const end = this.ends[local];
    const bytes = this.bytes.view(this.at, end);
    this.at = end;
    const digests = this.digests;
    if (digests !== null) {
      const digest = writeDigest(bytes, digests, i);
      const reuse = this.reuse;
      const j = reuse === null ? -1 : reuse.match(digest);
      if (j >= 0) {
        this.checker.knownPreviousPool(i, j);
        return j;
      }
    }
    return this.checker.pool(i, decodeSnapshotRecord(bytes, `pools[${i}]`));
  }
}
