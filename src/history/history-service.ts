/**
 * History's one writer at work (shared/spec/history.md §25): served files queued in the order served,
 * observed one at a time, compaction and retention in small steps whenever no file waits. It runs on its
 * own thread in the gateway (history-thread.ts), in the process itself for `history rebuild` and the
 * tests; nothing here is on a serving thread or in a swap's way.
 *
 * - A write that fails (full disk, I/O error) keeps nothing of its file: history is `failed`, the writer
 *   forgets what it cached, and the next file is tried as a fresh start (every record a candidate, the
 *   span since the last observation a gap); its success makes history `ok` again.
 * - More than MAX_QUEUED_PER_CHAIN files of one chain waiting: the newest is merged into the last queued
 *   (its change sets appended), so memory stays bounded; the skipped file is counted. History is `behind`
 *   while any file waits.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statfsSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HistoryCompactor } from "./history-compactor.js";
import type { HistoryRetention } from "./history-reader.js";
import { decodeMeta, openHistoryDbs, type HistoryDbs } from "./history-store.js";
import type { HistoryStatusCells } from "./history-status.js";
import { HistoryWriter, type ServedFile, type WriteOutcome } from "./history-writer.js";

/** Files of one chain that may wait before the newest is merged into the one before it. */
export const MAX_QUEUED_PER_CHAIN = 8;
/** Longest run of compaction steps in one turn of the event loop. */
const COMPACTION_SLICE_MS = 20;

export interface HistoryOptions {
  readonly dir: string;
  readonly retention: HistoryRetention;
  /** Free bytes HISTORY_DIR's file system must keep: below them nothing is written (HISTORY_MIN_FREE_MB; default 0: no floor). */
  readonly minFreeBytes?: number;
}

/** What the service reports besides the status cells (the thread logs it). */
export interface HistoryEvents {
  written?(file: ServedFile, outcome: WriteOutcome): void;
  failed?(what: "write" | "compaction", error: unknown): void;
  recovered?(): void;
}

interface Queued {
  file: ServedFile;
  /** When it was served (ms since the epoch): the lag is measured from here. */
  readonly at: number;
}

export class HistoryService {
  readonly dbs: HistoryDbs;
  private readonly writer: HistoryWriter;
  private readonly compactor: HistoryCompactor;
  private readonly queue: Queued[] = [];
  private scheduled = false;
  private compactionFailed = false;
  private closed = false;

  constructor(
    private readonly options: HistoryOptions,
    private readonly status: HistoryStatusCells,
    private readonly events: HistoryEvents = {},
  ) {
    claimWriter(options.dir);
    this.dbs = openHistoryDbs(options.dir);
    this.writer = new HistoryWriter(this.dbs);
    this.compactor = new HistoryCompactor(
      this.dbs,
      options.retention,
      (c) => this.writer.meta(c),
      (c, m) => this.writer.setMeta(c, m),
    );
    let last = 0;
    for (const { value } of this.dbs.meta.getRange()) last = Math.max(last, decodeMeta(value).maxT);
    status.started(last, this.diskBytes());
    status.state = "ok";
  }

  /** Files whose observations could not be written so far. */
  get failures(): number {
    return this.status.figures().failures;
  }

  /** A file served (in the order served); observed soon, off the caller's stack. */
  enqueue(file: ServedFile, servedAtMs = Date.now()): void {
    if (this.closed) return;
    let sameChain = 0;
    let last: Queued | null = null;
    for (const q of this.queue) {
      if (q.file.chainId !== file.chainId) continue;
      sameChain++;
      last = q;
    }
    if (sameChain >= MAX_QUEUED_PER_CHAIN && last !== null) {
      // Too far behind: the last queued file of the chain is not observed; its changes go with this one.
      last.file = { ...file, previous: last.file.previous, lists: [...last.file.lists, ...file.lists] };
      this.status.skipped();
    } else this.queue.push({ file, at: servedAtMs });
    this.updateStatus();
    this.schedule();
  }

  /** Observes every queued file and compacts until nothing is left, now (history rebuild, tests). */
  drain(): void {
    while (this.queue.length > 0) this.writeNext();
    while (!this.compactionFailed && this.compactOnce()) {
      /* until done */
    }
    this.updateStatus();
  }

  close(): void {
    this.closed = true;
    this.queue.length = 0;
    // lmdb's close settles once pending asynchronous writes are done; this store writes only synchronously.
    void this.dbs.env.close();
    rmSync(join(this.options.dir, WRITER_FILE), { force: true });
  }

  private schedule(): void {
    if (this.scheduled || this.closed) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (this.closed) return;
      if (this.queue.length > 0) {
        this.writeNext();
        this.schedule();
        return;
      }
      const until = performance.now() + COMPACTION_SLICE_MS;
      let more = false;
      while (!this.compactionFailed && (more = this.compactOnce()) && performance.now() < until) {
        /* one slice */
      }
      this.updateStatus();
      if (more) this.schedule();
    });
  }

  private writeNext(): void {
    const q = this.queue.shift()!;
    try {
      checkRoom(this.options);
      const outcome = this.writer.write(q.file);
      if (outcome.kind === "observed") this.status.observed(q.file.generatedAt, outcome.records, Math.max(0, (Date.now() - q.at) / 1000));
      if (this.status.state === "failed") this.events.recovered?.();
      this.status.state = "ok";
      this.compactionFailed = false;
      this.events.written?.(q.file, outcome);
    } catch (error) {
      this.writer.reset();
      this.status.failed();
      this.status.state = "failed";
      this.events.failed?.("write", error);
    }
    this.updateStatus();
  }

  private compactOnce(): boolean {
    try {
      checkRoom(this.options);
      const step = this.compactor.step();
      if (step === null) return false;
      this.status.compacted();
      return true;
    } catch (error) {
      this.writer.reset();
      this.compactionFailed = true;
      this.status.state = "failed";
      this.events.failed?.("compaction", error);
      return false;
    }
  }

  private updateStatus(): void {
    if (this.status.state !== "failed") this.status.state = this.queue.length > 0 ? "behind" : "ok";
    let backlog = 0;
    try {
      backlog = this.compactor.backlog().hours;
    } catch {
      backlog = 0;
    }
    this.status.set(this.diskBytes(), this.queue.length, backlog);
  }

  /** Bytes of the store's files on disk. */
  private diskBytes(): number {
    let bytes = 0;
    try {
      for (const name of readdirSync(this.options.dir)) bytes += statSync(join(this.options.dir, name)).size;
    } catch {
      // the directory is unreadable: the next write reports it
    }
    return bytes;
  }
}

/**
 * Throws when HISTORY_DIR's file system has less free space than `minFreeBytes`, before anything is written: lmdb
 * must never meet a full disk, because lmdb-js's write-error path (mdb.c, mdb_page_flush) formats its message into a
 * 100-byte buffer it can overrun, which corrupts the process's heap (the process aborts: seen in our tests on a
 * full tmpfs). The write fails as a full disk would (history `failed`, the file a gap), and the next is tried.
 */
export function checkRoom(options: Pick<HistoryOptions, "dir" | "minFreeBytes">): void {
  const floor = options.minFreeBytes ?? 0;
  if (floor <= 0) return;
  const fs = statfsSync(options.dir);
  const free = fs.bavail * fs.bsize;
  if (free < floor) {
    const mib = (n: number) => `${Math.floor(n / 2 ** 20)} MiB`;
    throw new Error(
      `${options.dir}: ${mib(free)} free on its file system, under HISTORY_MIN_FREE_MB (${mib(floor)}); nothing is written until there is more`,
    );
  }
}

/** Names the process that writes the store: one writer per HISTORY_DIR. */
const WRITER_FILE = "writer.pid";

/** Claims the store for this process; throws when another live process writes it. */
function claimWriter(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, WRITER_FILE);
  let holder = NaN;
  try {
    holder = Number(readFileSync(file, "utf8").trim());
  } catch {
    // no writer yet
  }
  if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && alive(holder)) {
    throw new Error(`${dir} is written by process ${holder}: each gateway needs its own HISTORY_DIR`);
  }
  writeFileSync(file, `${process.pid}\n`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
