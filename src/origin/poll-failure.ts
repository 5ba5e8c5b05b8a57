/**
 * Why a poll or a generation did not succeed, in one shape (fleet.md §18, §20): a code and a message for
 * status and the log (never a credential), whether it is an error (the origin could not be read: retried
 * by the poll policy) or a refusal (what it holds cannot be taken), and how an error is retried.
 */
import { CredentialsError } from "./aws-credentials.js";
import { ExchangeError } from "./http-exchange.js";
import { ManifestError } from "./manifest.js";
import { SignatureError } from "./manifest-signature.js";
import { retryOfStatus, type PollOutcome } from "./poll-policy.js";
import { StagingError } from "./staging.js";

export class PollFailure extends Error {
  override name = "PollFailure";
  constructor(
    readonly code: string,
    message: string,
    readonly outcome: PollOutcome & { kind: "error" | "refused" },
  ) {
    super(message);
  }
}

const REFUSED: PollOutcome & { kind: "refused" } = { kind: "refused" };

export function refused(code: string, message: string): PollFailure {
  return new PollFailure(code, message, REFUSED);
}

function failed(code: string, message: string, retry: "backoff" | "interval", retryAfterMs: number | null = null): PollFailure {
  return new PollFailure(code, message, { kind: "error", retry, retryAfterMs });
}

/** An answer other than the one expected (`what`: "GET manifest.json"); S3's code and message when it sent them. */
export function statusFailure(
  what: string,
  status: number,
  failure: { code: string | null; message: string | null } | null,
  retryAfterMs: number | null,
): PollFailure {
  const said = failure?.code ? ` (${failure.code}${failure.message ? `: ${failure.message}` : ""})` : "";
  return failed(
    "origin-status",
    `${what} answered ${status}${said}`,
    retryOfStatus(status),
    retryOfStatus(status) === "backoff" ? retryAfterMs : null,
  );
}

/** Any error a poll can meet, as a PollFailure. */
export function asPollFailure(error: unknown): PollFailure {
  if (error instanceof PollFailure) return error;
  if (error instanceof ExchangeError) {
    const transient = error.code === "unreachable" || error.code === "timeout" || error.code === "aborted";
    return failed(error.code, error.message, transient ? "backoff" : "interval");
  }
  if (error instanceof StagingError) {
    if (error.code === "body") {
      // A timeout while the body streams is a timeout; anything else cut it off.
      const cause = error.cause;
      return failed(cause instanceof ExchangeError ? cause.code : "unreachable", error.message, "backoff");
    }
    if (error.code === "disk-full" || error.code === "io") return failed(error.code, error.message, "interval");
    return refused(error.code, error.message);
  }
  if (error instanceof ManifestError || error instanceof SignatureError) return refused(error.code, error.message);
  if (error instanceof CredentialsError) return failed("credentials", error.message, "interval");
  return failed("io", error instanceof Error ? error.message : String(error), "interval");
}
