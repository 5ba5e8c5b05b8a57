/**
 * The answers a serving thread keeps (docs/history.md, "What a serving thread keeps"; decision 015): the
 * `data` bytes of a bucket answer (a token's candles, a pool's rows), made once per observation of its chain
 * and sent as they are to every request that asks the same thing until then. Each entry is stamped with what
 * the answer depends on, read from the chain's meta record at each request (ChainHistoryInfo):
 *
 * - an open answer (its newest bucket can still change) is good while the chain's epoch (its observation
 *   count) and the answer's floor (where its tier's kept data starts) are those it was made with: until the
 *   chain's next observation, or a retention step that moves the floor;
 * - a closed answer (every bucket closed: shared/spec/history.md §23) is good while its floor is the same:
 *   later observations never change its buckets, but retention moving the floor up to them does (and a
 *   floor moves with the chain's latest hour or day), so it is made again then, as a fresh gateway would.
 *
 * Compaction does not change answers (the property test holds them equal at any compaction progress), so it
 * invalidates nothing. A least-recently-used map bounded by bytes (util/lru-cache.ts): each entry counts its
 * data, its key and ENTRY_OVERHEAD_BYTES (which bounds the entries too); one entry takes at most an eighth of
 * the budget; a budget of 0 keeps nothing. Nothing here reads or writes the store.
 */
import { LruCache } from "../util/lru-cache.js";

/** What an entry costs besides its data and key (the entry object, the map's slot). */
export const ENTRY_OVERHEAD_BYTES = 160;

export interface CachedAnswer {
  /** The answer's `data` JSON, exactly the bytes a miss would make. */
  readonly data: Buffer;
  /** CRC-32 of `data` (the ETag's input). */
  readonly crc: number;
  /** Every bucket closed: `Cache-Control: immutable`. */
  readonly closed: boolean;
  /** The chain's epoch (ChainHistoryInfo.epoch) it was made at. */
  readonly epoch: number;
  /** The first bucket start its tier and width could answer then (bucketFloor). */
  readonly floor: number;
  /** Names exactly these bytes (the response writer keeps their compressed forms under it). */
  readonly name: string;
}

export interface AnswerCacheFigures {
  readonly entries: number;
  readonly bytes: number;
  /** Look-ups answered from a kept entry, and the others, since the thread started. */
  readonly hits: number;
  readonly misses: number;
}

interface Entry {
  readonly answer: CachedAnswer;
  /** What the entry counts against the budget: its data, its key and ENTRY_OVERHEAD_BYTES. */
  readonly bytes: number;
}

export class HistoryAnswerCache {
  private readonly entries: LruCache<string, Entry>;
  private hits = 0;
  private misses = 0;

  /**
   * @param maxBytes bytes the entries may take together (0: none kept)
   * @param counted told of each look-up: a hit, or a miss (absent or no longer good)
   */
  constructor(
    private readonly maxBytes: number,
    private readonly counted: (hit: boolean) => void = () => {},
  ) {
    this.entries = new LruCache<string, Entry>(Number.POSITIVE_INFINITY, maxBytes, (e) => e.bytes);
  }

  /** The answer kept for `key`, when it is still what the chain answers at `epoch` with `floor`. */
  get(key: string, epoch: number, floor: number): CachedAnswer | undefined {
    const a = this.entries.get(key)?.answer;
    if (a === undefined || a.floor !== floor || (!a.closed && a.epoch !== epoch)) {
      if (a !== undefined) this.entries.delete(key);
      this.misses++;
      this.counted(false);
      return undefined;
    }
    this.hits++;
    this.counted(true);
    return a;
  }

  set(key: string, answer: CachedAnswer): void {
    const bytes = answer.data.length + key.length * 2 + ENTRY_OVERHEAD_BYTES;
    if (bytes > this.maxBytes / 8) return; // one entry never crowds out the rest (and a budget of 0 keeps none)
    this.entries.set(key, { answer, bytes });
  }

  figures(): AnswerCacheFigures {
    return { entries: this.entries.size, bytes: this.entries.totalWeight, hits: this.hits, misses: this.misses };
  }
}
