/**
 * Whether a valid chain file may replace the one being served, judged on its
 * `generatedAt` (shared/spec/snapshot-format.md, docs/snapshot-format.md):
 *
 * - more than `maxFutureSkewSeconds` ahead of this server's clock: rejected
 *   (`future-generated-at`), so that one bad clock cannot lock a chain: a file
 *   from the far future would make every correct push after it out of order;
 * - older than the one being served: rejected (`out-of-order`), so that a
 *   delayed push never rolls a chain back, unless the operator allowed it for
 *   this chain (`liquidity-gateway snapshots allow-older`). An equal
 *   `generatedAt` is accepted (a correction of the same state).
 */
import { SnapshotError } from "./snapshot-error.js";

export interface AdmissionBounds {
  /** Latest acceptable generatedAt (Unix seconds): now plus the allowed clock skew. */
  readonly maxGeneratedAt: number;
  /** Earliest acceptable generatedAt: the served one, or null when any is (no data yet, or an older file is allowed). */
  readonly minGeneratedAt: number | null;
}

export function admissionBounds(
  nowMs: number,
  maxFutureSkewSeconds: number,
  servedGeneratedAt: number | null,
  allowOlder: boolean,
): AdmissionBounds {
  return { maxGeneratedAt: Math.floor(nowMs / 1000) + maxFutureSkewSeconds, minGeneratedAt: allowOlder ? null : servedGeneratedAt };
}

/** Throws `future-generated-at` or `out-of-order` when `generatedAt` is outside the bounds. */
export function checkAdmission(generatedAt: number, bounds: AdmissionBounds): void {
  if (generatedAt > bounds.maxGeneratedAt) {
    throw new SnapshotError(
      "future-generated-at",
      `generatedAt: ${generatedAt} (${isoSeconds(generatedAt)}) is more than the allowed clock skew ahead of this server's clock (latest accepted now: ${bounds.maxGeneratedAt}, ${isoSeconds(bounds.maxGeneratedAt)}; SNAPSHOT_MAX_FUTURE_SKEW_SECONDS)`,
      { path: "generatedAt" },
    );
  }
  if (bounds.minGeneratedAt !== null && generatedAt < bounds.minGeneratedAt) {
    throw new SnapshotError(
      "out-of-order",
      `generatedAt: ${generatedAt} is older than the snapshot being served (generatedAt ${bounds.minGeneratedAt}); to go back on purpose: liquidity-gateway snapshots allow-older <chainId>`,
      { path: "generatedAt" },
    );
  }
}

function isoSeconds(unixSeconds: number): string {
  const date = new Date(unixSeconds * 1000);
  return Number.isNaN(date.getTime()) ? "beyond the representable dates" : date.toISOString().replace(".000Z", "Z");
}
