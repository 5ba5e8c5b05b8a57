/**
 * The baskets file in the running gateway (docs/baskets.md): loaded at start,
 * then reloaded whenever it changes. A file that fails validation is logged,
 * counted and ignored (the baskets in force stay in force; at start, that is
 * no basket). No file, or a removed one, means no baskets. The file is read
 * through the bounded operator-file reader: a FIFO, a device or an oversized
 * file at the path is rejected the same way, without blocking the supervisor.
 */
import { existsSync } from "node:fs";
import type { Logger } from "../log/logger.js";
import { FileReloader } from "../util/file-reloader.js";
import { FILE_LIMITS } from "../util/operator-file.js";
import { loadBasketsFile, type BasketsFile } from "./basket-file.js";

export const NO_BASKETS: BasketsFile = { baskets: [] };

/** The baskets to start with: the file's, none when there is no file, none (logged and counted) when it is invalid. */
export function loadInitialBaskets(
  path: string,
  log: Logger,
  rejected: () => void,
  maxBytes: number = FILE_LIMITS.baskets.maxBytes,
): BasketsFile {
  if (!existsSync(path)) {
    log.info({ event: "baskets-file-absent", file: path }, `no baskets file at ${path}: no token baskets are served until one appears`);
    return NO_BASKETS;
  }
  try {
    const file = loadBasketsFile(path, maxBytes);
    log.info({ event: "baskets-loaded", file: path, baskets: file.baskets.length }, `baskets file loaded: ${file.baskets.length} baskets`);
    return file;
  } catch (error) {
    rejected();
    log.error(
      { event: "baskets-file-rejected", file: path, error: (error as Error).message },
      `baskets file rejected, no baskets are served until it is fixed: ${(error as Error).message}`,
    );
    return NO_BASKETS;
  }
}

/** How a baskets file is watched and read; each field but `rejected` has its default here. */
export interface BasketsReloaderOptions {
  /** A changed file was rejected (counted in metrics). */
  readonly rejected: () => void;
  /** Quiet time after a change before the file is read (default 200 ms). */
  readonly debounceMs?: number;
  /** Largest baskets file read (BASKETS_FILE_MAX_MB). */
  readonly maxBytes?: number;
}

export class BasketsReloader extends FileReloader<BasketsFile> {
  constructor(file: string, apply: (baskets: BasketsFile) => void, log: Logger, options: BasketsReloaderOptions) {
    const { rejected, debounceMs = 200, maxBytes = FILE_LIMITS.baskets.maxBytes } = options;
    super(
      file,
      {
        load: (path) => loadBasketsFile(path, maxBytes),
        apply(baskets) {
          apply(baskets);
          log.info(
            { event: "baskets-reloaded", file, baskets: baskets.baskets.length },
            `baskets file reloaded: ${baskets.baskets.length} baskets`,
          );
        },
        rejected(error) {
          rejected();
          log.warn(
            { event: "baskets-file-rejected", file, error: error.message },
            `baskets file rejected, previous baskets stay in force: ${error.message}`,
          );
        },
        removed() {
          apply(NO_BASKETS);
          log.info({ event: "baskets-file-removed", file }, `baskets file ${file} removed: no token baskets are served until one appears`);
        },
      },
      log,
      debounceMs,
    );
  }
}
