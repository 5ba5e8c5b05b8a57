/**
 * What a serving thread holds of history: the store opened for reading (on the first history request, so
 * the history thread has created it), the retention the answers are bounded by, the shared status cells,
 * and the answers it keeps (answer-cache.ts). Reads take no lock (LMDB's read transactions); nothing here
 * writes to the store.
 */
import { HistoryAnswerCache } from "./answer-cache.js";
import { HistoryReads, type HistoryRetention } from "./history-reader.js";
import { openHistoryDbs, type HistoryDbs } from "./history-store.js";
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

  /** The store's reads (opening it the first time). */
  reads(): HistoryReads {
    if (this.opened === null) {
      const dbs = openHistoryDbs(this.init.dir);
      this.opened = { dbs, reads: new HistoryReads(dbs, this.init.retention) };
    }
    return this.opened.reads;
  }

  close(): void {
    // lmdb's close settles once pending asynchronous writes are done; this store writes only synchronously.
    if (this.opened !== null) void this.opened.dbs.env.close();
    this.opened = null;
  }
}
