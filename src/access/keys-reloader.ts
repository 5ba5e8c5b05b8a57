/**
 * Applies a changed keys file to the running gateway (keys-file.md). A file
 * that fails validation, or that `apply` refuses (e.g. more keys than the
 * quota table holds), is logged, counted and ignored: the keys and quotas in
 * force stay in force. A removed file changes nothing either. The poll of the
 * file reloader is the backstop where watching sees nothing (a keys file on a
 * network file system, written from another host). The file is read through
 * the bounded operator-file reader: a FIFO, a device or an oversized file at
 * the path is rejected the same way, without blocking the supervisor.
 */
import type { Logger } from "../log/logger.js";
import { FileReloader } from "../util/file-reloader.js";
import { FILE_LIMITS } from "../util/operator-file.js";
import { KeyStore } from "./key-store.js";
import { loadKeysFile, type KeysFile } from "./keys-file.js";

/** How a keys file is watched and read; each field has its default here. */
export interface KeysReloaderOptions {
  /** A changed file was rejected (counted in metrics). */
  readonly rejected?: () => void;
  /** Quiet time after a change before the file is read (default 200 ms). */
  readonly debounceMs?: number;
  /** The poll, where watching sees nothing (default 10 s). */
  readonly pollMs?: number;
  /** Largest keys file read (KEYS_FILE_MAX_MB). */
  readonly maxBytes?: number;
}

export class KeysReloader extends FileReloader<KeysFile> {
  constructor(file: string, apply: (keys: KeysFile) => void, log: Logger, options: KeysReloaderOptions = {}) {
    const { rejected = () => {}, debounceMs = 200, pollMs = 10_000, maxBytes = FILE_LIMITS.keys.maxBytes } = options;
    super(
      file,
      {
        load(path) {
          const keys = loadKeysFile(path, maxBytes);
          void new KeyStore(keys); // the same checks the serving threads will make
          return keys;
        },
        apply(keys) {
          apply(keys);
          log.info({ event: "keys-reloaded", keys: keys.keys.length }, `keys file reloaded: ${keys.keys.length} keys`);
        },
        rejected(error) {
          rejected();
          log.warn(
            { event: "keys-file-rejected", error: error.message },
            `keys file rejected, previous keys stay in force: ${error.message}`,
          );
        },
      },
      log,
      debounceMs,
      pollMs,
    );
  }
}
