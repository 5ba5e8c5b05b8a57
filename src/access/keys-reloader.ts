/**
 * Applies a changed keys file to the running gateway (keys-file.md): watches
 * the file's directory (so rename-over edits are seen), debounces, parses and
 * checks the whole file, and hands it on. A file that fails validation, or that
 * `apply` refuses (e.g. more keys than the quota table holds), is logged,
 * counted and ignored: `apply` changes nothing when it throws, so the keys and
 * quotas in force stay in force.
 */
import { statSync, watch, type FSWatcher } from "node:fs";
import { basename, dirname } from "node:path";
import type { Logger } from "../log/logger.js";
import { KeyStore } from "./key-store.js";
import { loadKeysFile, type KeysFile } from "./keys-file.js";

export class KeysReloader {
  private watcher: FSWatcher | null = null;
  private timer: NodeJS.Timeout | null = null;
  private signature: string | null;

  constructor(
    private readonly file: string,
    private readonly apply: (keys: KeysFile) => void,
    private readonly log: Logger,
    /** A changed file was rejected (counted in metrics). */
    private readonly rejected: () => void = () => {},
    private readonly debounceMs = 200,
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
    this.watcher.on("error", (error) => this.log.error({ event: "keys-watch-error", err: error }, "keys file watch failed"));
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.watcher?.close();
  }

  /** Reloads the file if it changed since the last load or attempt. */
  reload(): void {
    const signature = signatureOf(this.file);
    if (signature === null || signature === this.signature) return;
    this.signature = signature;
    try {
      const file = loadKeysFile(this.file);
      const keys = new KeyStore(file); // the same checks the serving threads will make
      this.apply(file);
      this.log.info({ event: "keys-reloaded", keys: keys.size }, `keys file reloaded: ${keys.size} keys`);
    } catch (error) {
      this.rejected();
      this.log.warn({ event: "keys-file-rejected", error: (error as Error).message }, `keys file rejected, previous keys stay in force: ${(error as Error).message}`);
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
