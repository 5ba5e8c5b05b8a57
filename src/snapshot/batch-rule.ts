/**
 * The batch rule (docs/decisions/002-one-build-at-a-time-and-batches.md): once a snapshot serves, files
 * build one at a time, largest first, and before building a file that would bring what the chains built but
 * not yet served added to memory past a third of the served files' bytes, what is built so far is served first.
 * What a build adds is counted in file bytes: its file's bytes times the share of its chain's compiled memory
 * that is new (chain-memory.ts; 1 for a full build, a small part for an incremental one, whose unchanged pools'
 * JSON stays where the served chain has it). Before a file builds, that share is expected as the largest a
 * build of its batch added, else as its chain's last build added, else 1. Pure: the loader asks, file by file,
 * and tells what each build changed and added.
 */

/** Share of the served files' bytes that a re-push may add to memory before serving what it built. */
export const REPUSH_BATCH_SHARE = 1 / 3;

/** What a scan built and has not served yet. */
export interface OpenBatch {
  /** A build changed the served data since the last publication. */
  readonly changed: boolean;
  /** What the chains built in it added to memory, in file bytes (`added`). */
  readonly pendingBytes: number;
  /** The largest share of its chain's memory a build in it added (0: none built). */
  readonly share: number;
}

export const EMPTY_BATCH: OpenBatch = { changed: false, pendingBytes: 0, share: 0 };

/** What a build of a file of `fileBytes` that added `share` of its chain's memory counts for (file bytes). */
export function added(fileBytes: number, share: number): number {
  return fileBytes * Math.min(1, Math.max(0, share));
}

/**
 * The share of its chain's memory a file is expected to add before it builds: the largest a build of this batch
 * added (the files of one push tend to change alike), else what its chain's last build added, else all of it.
 */
export function expectedShare(batch: OpenBatch, chainLast: number | undefined): number {
  return batch.share > 0 ? batch.share : (chainLast ?? 1);
}

/** Whether a batch whose builds added this much (file bytes) is past the rule (serve it first). */
export function passesBatch(pendingBytes: number, servedBytes: number): boolean {
  return pendingBytes > servedBytes * REPUSH_BATCH_SHARE;
}

/** The order files build in: largest first (the largest then builds while nothing else waits), then by name. */
export function buildOrder<T extends { readonly name: string; readonly bytes: number }>(files: T[]): T[] {
  return files.sort((x, y) => y.bytes - x.bytes || (x.name < y.name ? -1 : 1));
}

/** Before building a file expected to add `addedBytes`: whether the batch is served first (only once a snapshot serves). */
export function publishesFirst(batch: OpenBatch, addedBytes: number, servedBytes: number, serving: boolean): boolean {
  return batch.changed && serving && passesBatch(batch.pendingBytes + addedBytes, servedBytes);
}

/**
 * Whether a file is the last its batch builds: no file is to build after it in this scan (`nextBytes`
 * undefined), or the next would pass the rule (each as expected to add). Its token index may then start
 * while it finishes.
 */
export function lastOfBatch(batch: OpenBatch, addedBytes: number, nextBytes: number | undefined, servedBytes: number): boolean {
  return nextBytes === undefined || passesBatch(batch.pendingBytes + addedBytes + nextBytes, servedBytes);
}

/** The batch after a build of `fileBytes` that changed the served data and added `share` of its chain's memory (default all). */
export function withBuilt(batch: OpenBatch, fileBytes: number, share = 1): OpenBatch {
  return { changed: true, pendingBytes: batch.pendingBytes + added(fileBytes, share), share: Math.max(batch.share, share) };
}
