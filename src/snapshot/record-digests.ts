/**
 * The identity of a snapshot file's records: the SHA-256 of each pool's and each token's MessagePack bytes, as
 * the framing pass finds them (pool-stream.ts). A build keeps its file's digests beside the compiled chain; the
 * next build of the chain compares each record's digest with them, and a record whose bytes are unchanged
 * reuses what was compiled for it instead of being decoded again (reuse-pools.ts, reuse-tokens.ts;
 * docs/decisions/013-incremental-builds.md). SHA-256 in full: two records are taken for the same bytes only
 * when their digests are equal, and no practical collision of SHA-256 is known.
 */
import { hash } from "node:crypto";
import { sharedArray } from "../tables/shared-columns.js";

/** Bytes of one digest. */
export const DIGEST_BYTES = 32;

/** What the next build of a chain compares its records with: kept beside the chain's compiled data. */
export interface RecordDigests {
  /** DIGEST_BYTES per pool, in the file's pool order. */
  readonly pools: Uint8Array;
  /** DIGEST_BYTES per token, in the file's token order. */
  readonly tokens: Uint8Array;
  /** The token logo URL template the records were compiled with (a token's logoUrl may come from it). */
  readonly logoTemplate: string;
  /**
   * The file's pools in the order of every pool-search sort key (POOL_SORT_KEY_COUNT runs of pool indices, key
   * by descending, ties by address ascending), which the next build merges its changed pools into instead of
   * sorting every pool again (pool-order-merge.ts, PreviousPoolOrders). Absent or null: it sorts.
   */
  readonly poolOrders?: Uint32Array | null;
}

/** A column of `count` digests in shared memory (both build threads of a chain write their pools' digests into it). */
export function digestColumn(count: number): Uint8Array {
  return sharedArray(Uint8Array, count * DIGEST_BYTES);
}

/**
 * Writes the SHA-256 of `bytes` as digest `index` of `column`, and returns it as a string of 32 characters, one per
 * byte (what DigestIndex.find takes: a digest as a one-byte-per-character string costs less per call than as a Buffer).
 */
export function writeDigest(bytes: Uint8Array, column: Uint8Array, index: number): string {
  const digest = hash("sha256", bytes, "binary"); // latin1: one character per byte
  const at = index * DIGEST_BYTES;
  for (let k = 0; k < DIGEST_BYTES; k++) column[at + k] = digest.charCodeAt(k);
  return digest;
}

/** Finds a digest among a column's: an open-addressing table over the first 32 bits of each (SHA-256 is uniform). */
export class DigestIndex {
  private readonly slots: Int32Array;
  private readonly mask: number;

  constructor(
    private readonly column: Uint8Array,
    count: number = column.length / DIGEST_BYTES,
  ) {
    let size = 2;
    while (size < count * 2) size <<= 1;
    this.slots = new Int32Array(size);
    this.mask = size - 1;
    // Entry i + 1, 0 for none. A digest seen twice keeps its first entry.
    for (let i = 0; i < count; i++) {
      let slot = this.hashAt(column, i * DIGEST_BYTES) & this.mask;
      let duplicate = false;
      for (let entry = this.slots[slot]; entry !== 0 && !duplicate; entry = this.slots[slot]) {
        duplicate = sameDigest(column, (entry - 1) * DIGEST_BYTES, column, i * DIGEST_BYTES);
        if (!duplicate) slot = (slot + 1) & this.mask;
      }
      if (!duplicate) this.slots[slot] = i + 1;
    }
  }

  /** Index of a digest (as writeDigest returns it) in the column, or -1. */
  find(digest: string): number {
    const column = this.column;
    const h = ((digest.charCodeAt(0) << 24) | (digest.charCodeAt(1) << 16) | (digest.charCodeAt(2) << 8) | digest.charCodeAt(3)) >>> 0;
    let slot = h & this.mask;
    for (;;) {
      const entry = this.slots[slot];
      if (entry === 0) return -1;
      const at = (entry - 1) * DIGEST_BYTES;
      let k = 0;
      while (k < DIGEST_BYTES && column[at + k] === digest.charCodeAt(k)) k++;
      if (k === DIGEST_BYTES) return entry - 1;
      slot = (slot + 1) & this.mask;
    }
  }

  private hashAt(bytes: Uint8Array, at: number): number {
    return ((bytes[at] << 24) | (bytes[at + 1] << 16) | (bytes[at + 2] << 8) | bytes[at + 3]) >>> 0;
  }
}

function sameDigest(a: Uint8Array, aAt: number, b: Uint8Array, bAt: number): boolean {
  for (let k = 0; k < DIGEST_BYTES; k++) if (a[aAt + k] !== b[bAt + k]) return false;
  return true;
}
