/**
 * When the loader scans its directory: at start, on directory changes and on the REBUILD_CRON schedule. One
 * scan at a time: a request during a scan queues one more (a queued tick stays a tick, so the scan after it
 * retries what failed for I/O or a crash).
 *
 * Directory changes are debounced (`debounceMs`: a file written in place sends a change event per write), except
 * the documented push (docs/snapshot-format.md): complete files renamed over chain files' names. Their rename
 * events scan once RENAME_SETTLE_MS pass without another (files renamed in a row, a push of several chains, make
 * one scan, so one batch), unless a write to a chain file's name comes meanwhile (a file created in place sends a
 * rename event too, then its writes: the debounce then applies). A file read while it is still being written is
 * rejected and read again on its next change (chain-file-task.ts: an `io` rejection).
 */
import { watch, type FSWatcher } from "node:fs";
import cron, { type ScheduledTask } from "node-cron";
import { SNAPSHOT_FILE_PATTERN } from "../api/snapshot-format.js";
import type { Logger } from "../log/logger.js";

/**
 * How long a rename event of a chain file's name waits for another rename (scanned together) or a write to a chain
 * file's name (a file created in place: the debounce applies) before it scans. A writer's first write follows its
 * create within microseconds; a script renaming several files renames them a millisecond or two apart.
 */
export const RENAME_SETTLE_MS = 20;

/** What started a scan. */
export type ScanTrigger = "start" | "change" | "tick";

export interface ScanTriggerOptions {
  readonly dir: string;
  readonly debounceMs: number;
  readonly cron: string;
}

export class ScanTriggers {
  private running: Promise<void> | null = null;
  private again = false;
  private tick = false;
  private stopped = false;
  private watcher: FSWatcher | null = null;
  private debounce: NodeJS.Timeout | null = null;
  /** Chain files renamed into place: scanned once RENAME_SETTLE_MS pass without another rename or a write. */
  private renamed: NodeJS.Timeout | null = null;
  private schedule: ScheduledTask | null = null;

  /** @param scanDirectory one scan; `tick`: a tick asked for it (alone or among queued requests) */
  constructor(
    private readonly scanDirectory: (tick: boolean) => Promise<void>,
    private readonly options: ScanTriggerOptions,
    private readonly log: Logger,
  ) {}

  /** Runs one scan, or queues one more if a scan is running; settles when the scans it joined are done. */
  scan(trigger: ScanTrigger): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (trigger === "tick") this.tick = true;
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          const tick = this.tick;
          this.tick = false;
          await this.scanDirectory(tick);
        } while (this.again && !this.stopped);
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  /** Starts watching the directory and the schedule. */
  watch(): void {
    this.watcher = watch(this.options.dir, (event, name) => this.changed(event, name));
    this.watcher.on("error", (error) =>
      this.log.error({ event: "watch-error", err: error }, "snapshot directory watch failed; the cron schedule still rescans"),
    );
    this.schedule = cron.schedule(this.options.cron, () => this.scanLogged("tick"));
  }

  /** Stops watching and the schedule; no scan starts after this. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.watcher?.close();
    if (this.debounce) clearTimeout(this.debounce);
    if (this.renamed) clearTimeout(this.renamed);
    await this.schedule?.stop();
  }

  /** The scan running now (settles when it and the scans queued behind it are done), if any. */
  get current(): Promise<void> | null {
    return this.running;
  }

  private changed(event: string, name: string | null): void {
    if (name !== null && SNAPSHOT_FILE_PATTERN.test(name)) {
      if (this.renamed) clearTimeout(this.renamed);
      this.renamed = null;
      if (event === "rename") {
        this.renamed = setTimeout(() => this.settled(), RENAME_SETTLE_MS);
        return;
      }
      // Written to: a file created in place (or written over), debounced like any write; so are the renames before it.
    }
    if (this.debounce) clearTimeout(this.debounce);
    this.debounce = setTimeout(() => this.scanLogged("change"), this.options.debounceMs);
  }

  private settled(): void {
    this.renamed = null;
    this.scanLogged("change");
  }

  /** A scan nobody awaits (the schedule's, the watch's): a failure is logged, and the next trigger scans again. */
  private scanLogged(trigger: ScanTrigger): void {
    this.scan(trigger).catch((error: unknown) =>
      this.log.error({ event: "scan-failed", trigger, err: error }, "a snapshot scan failed; serving the last good data"),
    );
  }
}
