/**
 * What a chain task's result means for its file's attempts (file-attempts.ts), which decide when a scan
 * builds it again. Pure, so every case has a unit test.
 */
import type { ChainTaskResult } from "./build-tasks.js";
import type { AttemptOutcome } from "./file-attempts.js";
import type { SnapshotErrorReason } from "./snapshot-error.js";

/** A build that threw or whose worker died: retried on the next REBUILD_CRON tick or when the file changes. */
export const BUILD_FAILED: AttemptOutcome = { kind: "failed" };

export interface OutcomeContext {
  /** SHA-256 of the chain's served file, if any. */
  readonly servedSha256: string | null;
  /** The name's last outcome. */
  readonly previous: AttemptOutcome | undefined;
  readonly maxFutureSkewSeconds: number;
}

/** Whether a rejection is about something outside the file's content (retried on every tick, like a failure). */
export function outsideContent(reason: SnapshotErrorReason): boolean {
  return reason === "io" || reason === "not-a-file";
}

export function attemptOutcome(result: ChainTaskResult, context: OutcomeContext): AttemptOutcome {
  switch (result.status) {
    case "known": {
      // The served bytes, or the bytes rejected before (that rejection stands).
      const stillRejected = result.sha256 !== context.servedSha256 && context.previous !== undefined;
      return stillRejected ? context.previous! : { kind: "served", sha256: result.sha256 };
    }
    case "rejected": {
      if (outsideContent(result.reason)) return BUILD_FAILED;
      const retryAtMs =
        result.reason === "future-generated-at" && result.generatedAt !== null
          ? (result.generatedAt - context.maxFutureSkewSeconds) * 1000
          : null;
      return { kind: "rejected", reason: result.reason, message: result.message, sha256: result.sha256, retryAtMs };
    }
    case "accepted":
      return { kind: "served", sha256: result.chain.info.sha256 };
  }
}
