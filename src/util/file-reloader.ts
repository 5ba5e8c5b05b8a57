/**
 * Applies an operator-edited file to the running gateway whenever it changes:
 * watches the file's directory (so rename-over edits are seen), debounces,
 * skips unchanged files (same size, mtime, inode), then loads and applies the
 * whole file; a poll of the same signature every `pollMs` is the backstop where
 * watching sees nothing (a file on a network file system, written from another
 * host). A file that fails to load, or that `apply` refuses, is handed to
 * `rejected` and changes nothing: `apply` must change nothing when it throws,
 * so what is in force stays in force.
 */
import { statSync, watch, type FSWatcher } from "node:fs";
import { basename, dirname } from "node:path";
import type { Logger } from "../log/logger.js";

export interface FileReloadHandlers<T> {
  /** Reads and checks the whole file; throws to reject it. */
  load(path: string): T;
  /** Puts a loaded file in force; throws (changing nothing) to reject it. */
  apply(value: T): void;
  /** A changed file was not applied (log and count it). */
  rejected(error: Error): void;
  /** The file disappeared; absent: what is in force stays. */
  removed?(): void;
}

/** What a reload came to. */
export type ReloadResult = { readonly kind: "unchanged" | "applied" | "removed" } | { readonly kind: "rejected"; readonly reason: string };

const UNCHANGED: ReloadResult = { kind: "unchanged" };
const APPLIED: ReloadResult = { kind: "applied" };
const REMOVED: ReloadResult = { kind: "removed" };

export class FileReloader<T> {
  private watcher: FSWatcher | null = null;
  private timer: NodeJS.Timeout | null = null;
  private poll: NodeJS.Timeout | null = null;
  private signature: string | null;

  constructor(
    private readonly file: string,
    private readonly handlers: FileReloadHandlers<T>,
    private readonly log: Logger,
    private readonly debounceMs = 200,
    private readonly pollMs = 10_000,
  ) {
    this.signature = signatureOf(file);
  }

  start(): void {
    const name = basename(this.file);
    this.watcher = watch(dirname(this.file), (_event, changed) => {
      if (changed !== null && changed !== name) return;
      if (this.timer) clearTimeout(this.timer);
      this.timer = setTimeout(() => this.reload(), this.debounceMs);
    });
    this.watcher.on("error", (error) =>
      this.log.error(
        { event: "file-watch-error", file: this.file, err: error },
        `watching ${this.file} failed; the poll still rereads a changed file`,
      ),
    );
    this.poll = setInterval(() => this.reload(), this.pollMs);
    this.poll.unref();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.poll) clearInterval(this.poll);
    this.watcher?.close();
  }

  /** Reloads the file if it changed since the last load or attempt; says what came of it (an origin reports a rejection). */
  reload(): ReloadResult {
    const signature = signatureOf(this.file);
    if (signature === this.signature) return UNCHANGED;
    this.signature = signature;
    if (signature === null) {
      this.handlers.removed?.();
      return REMOVED;
    }
    let value: T;
    try {
      value = this.handlers.load(this.file);
      this.handlers.apply(value);
      return APPLIED;
    } catch (error) {
      const reason = error instanceof Error ? error : new Error(String(error));
      this.handlers.rejected(reason);
      return { kind: "rejected", reason: reason.message };
    }
  }
}

function signatureOf(file: string): string | null {
  try {
    const s = statSync(file);
    return `${s.size}:${s.mtimeMs}:${s.ino}`;
  } catch {
    return null;
  }
}
