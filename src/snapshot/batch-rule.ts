/**
 * The batch rule (docs/decisions/002-one-build-at-a-time-and-batches.md): once a snapshot serves, files
 * build one at a time, largest first, and before building a file that would bring the chains built but not
 * yet served past a third of the served files' bytes, what is built so far is served first. Pure: the
 * loader asks, file by file, and tells what each build changed.
 */

/** Share of the served files' bytes that a re-push may build before serving what it built. */
export const REPUSH_BATCH_SHARE = 1 / 3;

/** What a scan built and has not served yet. */
export interface OpenBatch {
  /** A build changed the served data since the last publication. */
  readonly changed: boolean;
  /** File bytes of the chains built in it. */
  readonly pendingBytes: number;
}

export const EMPTY_BATCH: OpenBatch = { changed: false, pendingBytes: 0 };

/** Whether a batch of this many file bytes built and not served is past the rule (serve it first). */
export function passesBatch(pendingBytes: number, servedBytes: number): boolean {
  return pendingBytes > servedBytes * REPUSH_BATCH_SHARE;
}

/** The order files build in: largest first (the largest then builds while nothing else waits), then by name. */
export function buildOrder<T extends { readonly name: string; readonly bytes: number }>(files: T[]): T[] {
  return files.sort((x, y) => y.bytes - x.bytes || (x.name < y.name ? -1 : 1));
}

/** Before building a file of `fileBytes`: whether the batch is served first (only once a snapshot serves). */
export function publishesFirst(batch: OpenBatch, fileBytes: number, servedBytes: number, serving: boolean): boolean {
  return batch.changed && serving && passesBatch(batch.pendingBytes + fileBytes, servedBytes);
}

/**
 * Whether a file is the last its batch builds: no file is to build after it in this scan (`nextBytes`
 * undefined), or the next would pass the rule. Its token index may then start while it finishes.
 */
export function lastOfBatch(batch: OpenBatch, fileBytes: number, nextBytes: number | undefined, servedBytes: number): boolean {
  return nextBytes === undefined || passesBatch(batch.pendingBytes + fileBytes + nextBytes, servedBytes);
}

/** The batch after a build of `fileBytes` that changed the served data. */
export function withBuilt(batch: OpenBatch, fileBytes: number): OpenBatch {
  return { changed: true, pendingBytes: batch.pendingBytes + fileBytes };
}
