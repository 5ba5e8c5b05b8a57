/**
 * The loader's memory of each live snapshot name: what the last look at it saw
 * (its signature, live-entry.ts) and how the last build ended, and the rules
 * that decide whether a scan builds it again (issue 10, item 4):
 *
 * - a new or changed entry (another signature) is built;
 * - a file that failed for a reason outside its content (I/O error, a worker
 *   that crashed or threw) is built again on every scheduled tick, whatever
 *   its signature: the cause may be gone without the file changing;
 * - a file rejected for its content is built again only when it changes, and
 *   then quietly skipped if its bytes hash to the rejected content again, with
 *   two exceptions that depend on something other than the file: a
 *   `future-generated-at` rejection once the clock allows its generatedAt, and
 *   an `out-of-order` one while the operator allows an older file for the chain;
 * - an entry that is not a regular file is reported once per change, never built.
 *
 * Pure bookkeeping: no I/O, time passed in, so every rule has a unit test.
 */
import type { SnapshotErrorReason } from "./snapshot-error.js";
import type { NotAFileKind } from "./live-entry.js";

export type AttemptOutcome =
  /** Accepted, or its bytes are the content being served. */
  | { readonly kind: "served"; readonly sha256: string }
  /** Rejected for its content; `sha256` is null when it was rejected before being read (its name). */
  | {
      readonly kind: "rejected";
      readonly reason: SnapshotErrorReason;
      /** The operator-facing sentence of the rejection (what the log says; an origin's `partial` reports it). */
      readonly message: string;
      readonly sha256: string | null;
      /** `future-generated-at`: when the clock will accept its generatedAt (epoch ms). */
      readonly retryAtMs: number | null;
    }
  /** Failed for a reason outside its content: I/O, or the build crashed or threw. */
  | { readonly kind: "failed" }
  | { readonly kind: "not-a-file"; readonly what: NotAFileKind };

export interface ScanContext {
  /** The scan runs on the REBUILD_CRON schedule. */
  readonly tick: boolean;
  readonly nowMs: number;
  /** The operator allows an older file for this name's chain (an allow-older marker). */
  readonly allowOlder: boolean;
}

export type BuildDecision =
  | { readonly build: false }
  /** Build; when the bytes hash to `unchangedRejected`, the file is the content rejected before: skip it quietly. */
  | { readonly build: true; readonly unchangedRejected: string | null };

const SKIP: BuildDecision = { build: false };

interface Attempt {
  readonly signature: string;
  readonly outcome: AttemptOutcome;
}

export class FileAttempts {
  private readonly byName = new Map<string, Attempt>();

  decide(name: string, signature: string, context: ScanContext): BuildDecision {
    const last = this.byName.get(name);
    if (last === undefined) return { build: true, unchangedRejected: null };
    const { outcome } = last;
    if (outcome.kind === "rejected") {
      if (outcome.reason === "future-generated-at" && outcome.retryAtMs !== null && context.nowMs >= outcome.retryAtMs) {
        return { build: true, unchangedRejected: null };
      }
      if (outcome.reason === "out-of-order" && context.allowOlder) return { build: true, unchangedRejected: null };
      return last.signature === signature ? SKIP : { build: true, unchangedRejected: outcome.sha256 };
    }
    if (last.signature !== signature) return { build: true, unchangedRejected: null };
    return outcome.kind === "failed" && context.tick ? { build: true, unchangedRejected: null } : SKIP;
  }

  record(name: string, signature: string, outcome: AttemptOutcome): void {
    this.byName.set(name, { signature, outcome });
  }

  /** Records a name that is not a regular file; true when this is news (first sight or a change), to report once. */
  notAFile(name: string, signature: string, what: NotAFileKind): boolean {
    const last = this.byName.get(name);
    if (last?.signature === signature && last.outcome.kind === "not-a-file") return false;
    this.byName.set(name, { signature, outcome: { kind: "not-a-file", what } });
    return true;
  }

  /** The name is gone: a file that appears there later is new. */
  forget(name: string): void {
    this.byName.delete(name);
  }

  outcome(name: string): AttemptOutcome | undefined {
    return this.byName.get(name)?.outcome;
  }
}
