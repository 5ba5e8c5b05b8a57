/**
 * What a serving thread holds of history: the store opened for reading (on the first history request, so
 * the history thread has created it), the retention the answers are bounded by, and the shared status
 * cells. Reads take no lock (LMDB's read transactions); nothing here writes.
 */
import { HistoryReads, type HistoryRetention } from "./history-reader.js";
import { openHistoryDbs, type HistoryDbs } from "./history-store.js";
import { HistoryStatusCells } from "./history-status.js";

/** What the supervisor hands each serving thread (null in its init: HISTORY=off). */
export interface HistoryInit {
  readonly dir: string;
  readonly retention: HistoryRetention;
  readonly status: SharedArrayBuffer;
}

export class HistoryAccess {
  readonly status: HistoryStatusCells;
  private opened: { dbs: HistoryDbs; reads: HistoryReads } | null = null;

  constructor(private readonly init: HistoryInit) {
    this.status = new HistoryStatusCells(init.status);
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
