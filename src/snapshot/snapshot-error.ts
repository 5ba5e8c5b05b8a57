/**
 * Why a snapshot file was rejected. `reason` is a short machine label (a metrics
 * label value); `message` is one operator-facing sentence that starts with the
 * offending path inside the file, e.g. `pools[1042].tokens[1].address: not in tokens`.
 */
export const SNAPSHOT_ERROR_REASONS = [
  "decode",
  "structure",
  "reference",
  "chain-mismatch",
  "unsupported-chain",
  "duplicate",
  "out-of-order",
  "future-generated-at",
  "file-name",
  "not-a-file",
  "too-large",
  "io",
] as const;

export type SnapshotErrorReason = (typeof SNAPSHOT_ERROR_REASONS)[number];

export interface SnapshotErrorOptions {
  /** Path of the offending value inside the snapshot, e.g. `pools[3].tokens[1].address`. */
  path?: string;
  /** The snapshot file the error is about, when known. */
  file?: string;
  cause?: unknown;
}

export class SnapshotError extends Error {
  override readonly name = "SnapshotError";
  readonly reason: SnapshotErrorReason;
  /** Path of the offending value inside the snapshot (`""` for the top-level value); absent when the error is not about a value. */
  readonly path?: string;
  /** The snapshot file the error is about, when known. */
  file?: string;

  constructor(reason: SnapshotErrorReason, message: string, options: SnapshotErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.reason = reason;
    if (options.path !== undefined) this.path = options.path;
    if (options.file !== undefined) this.file = options.file;
  }
}

export function isSnapshotError(error: unknown): error is SnapshotError {
  return error instanceof SnapshotError;
}
