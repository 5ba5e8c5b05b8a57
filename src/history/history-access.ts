/**
 * What a serving thread holds of history: the store opened for reading (on the first history request, so
 * the history thread has created it), the retention the answers are bounded by, the shared status cells,
 * and the answers it keeps (answer-cache.ts). Reads take no lock (LMDB's read transactions); nothing here
 * writes to the store.
 */
import { HistoryAnswerCache } from "./answer-cache.js";
import { HistoryReads, type HistoryRetention } from "./history-reader.js";
import { openHistoryForReading, type HistoryDbs } from "./history-store.js";
import { HistoryStatusCells } from "./history-status.js";

/** What the supervisor hands each serving thread (null in its init: HISTORY=off). */
export interface HistoryInit {
  readonly dir: string;
  readonly retention: HistoryRetention;
  readonly status: SharedArrayBuffer;
  /** Bytes of answers each serving thread keeps (HISTORY_ANSWER_CACHE_MB); absent: DEFAULT_ANSWER_CACHE_BYTES. */
  readonly answerCacheBytes?: number;
}

/** HISTORY_ANSWER_CACHE_MB's default, in bytes. */
export const DEFAULT_ANSWER_CACHE_BYTES = 32 * 1024 * 1024;

export class HistoryAccess {
  readonly status: HistoryStatusCells;
  /** The bucket answers this thread keeps. */
  readonly answers: HistoryAnswerCache;
  private opened: { dbs: HistoryDbs; reads: HistoryReads } | null = null;
  /** The environment opened before the store could be read, and when to look again (at most once a second). */
  private pending: { env: HistoryDbs["env"] | null; problem: string; retryAt: number } | null = null;

  /** @param counted told of each look-up in `answers`: a hit or a miss (the thread's metrics) */
  constructor(
    private readonly init: HistoryInit,
    counted?: (hit: boolean) => void,
  ) {
    this.status = new HistoryStatusCells(init.status);
    this.answers = new HistoryAnswerCache(init.answerCacheBytes ?? DEFAULT_ANSWER_CACHE_BYTES, counted);
  }

  get retention(): HistoryRetention {
    return this.init.retention;
  }

  /**
   * The store's reads (opening it the first time), or why the store cannot be read yet: the history thread
   * has not created it, or it is of another format (a serving thread never creates nor stamps it).
   */
  reads(): HistoryReads | string {
    if (this.opened !== null) return this.opened.reads;
    const now = Date.now();
    if (this.pending !== null && now < this.pending.retryAt) return this.pending.problem;
    try {
      const { env, dbs, problem } = openHistoryForReading(this.init.dir, this.pending?.env ?? null);
      if (dbs !== null) {
        this.pending = null;
        this.opened = { dbs, reads: new HistoryReads(dbs, this.init.retention) };
        return this.opened.reads;
      }
      this.pending = { env, problem: problem ?? "unknown", retryAt: now + 1000 };
    } catch (error) {
      this.pending = { env: this.pending?.env ?? null, problem: (error as Error).message, retryAt: now + 1000 };
    }
    return this.pending.problem;
  }

  close(): void {
    // lmdb's close settles once pending asynchronous writes are done; this store writes only synchronously.
    if (this.opened !== null) void this.opened.dbs.env.close();
    else if (this.pending?.env) void this.pending.env.close();
    this.opened = null;
    this.pending = null;
  }
}
