/**
 * When an instance asks its origin again (fleet.md §18), apart from how it asks: pure, time and
 * randomness passed in.
 *
 * - A poll that ended well (changed, not modified) or was refused (a manifest or a generation that
 *   cannot be taken) waits a uniform random time in [ORIGIN_POLL_MIN_S, ORIGIN_POLL_MAX_S].
 * - A transient error (network, timeout, 5xx, 408, 429) backs off: 1 s × 1.6ⁿ after the n-th failure in a
 *   row, ±20 % jitter, at most ORIGIN_POLL_MAX_S; a `Retry-After` is honoured instead (up to an hour).
 * - 401, 403, 404 and other answers that asking again soon will not change poll at the usual interval.
 * - A poke (Redis) polls after a random 0-2 s, unless a poll is due sooner or a Retry-After holds.
 */

export interface PollTiming {
  readonly minMs: number;
  readonly maxMs: number;
}

export type PollOutcome =
  | { readonly kind: "changed" }
  | { readonly kind: "not-modified" }
  | { readonly kind: "refused" }
  | { readonly kind: "error"; readonly retry: "backoff" | "interval"; readonly retryAfterMs: number | null };

/** How an answer's status is retried (the ones not listed are answers: 200, 304). */
export function retryOfStatus(status: number): "backoff" | "interval" {
  return status === 408 || status === 429 || status >= 500 ? "backoff" : "interval";
}

export const BACKOFF_BASE_MS = 1000;
export const BACKOFF_FACTOR = 1.6;
export const BACKOFF_JITTER = 0.2;
export const POKE_WINDOW_MS = 2000;
/** The longest Retry-After honoured. */
export const MAX_RETRY_AFTER_MS = 3_600_000;

export class PollPolicy {
  private failures = 0;
  /** No poll before this (epoch ms): a Retry-After. */
  private holdUntil = 0;

  constructor(
    private readonly timing: PollTiming,
    private readonly random: () => number = Math.random,
  ) {}

  /** Failed polls in a row. */
  get consecutiveFailures(): number {
    return this.failures;
  }

  /** The wait (ms) before the next poll, after one that ended with `outcome` at `nowMs`. */
  next(outcome: PollOutcome, nowMs: number): number {
    if (outcome.kind !== "error") {
      this.failures = 0;
      this.holdUntil = 0;
      return this.interval();
    }
    this.failures++;
    if (outcome.retryAfterMs !== null) {
      const wait = Math.min(Math.max(0, outcome.retryAfterMs), MAX_RETRY_AFTER_MS);
      this.holdUntil = nowMs + wait;
      return wait;
    }
    this.holdUntil = 0;
    return outcome.retry === "interval" ? this.interval() : this.backoff();
  }

  /** A poke at `nowMs` with the next poll due at `dueAtMs`: the wait before polling, or null to keep the one due. */
  poked(nowMs: number, dueAtMs: number): number | null {
    if (nowMs < this.holdUntil) return null;
    const wait = this.random() * POKE_WINDOW_MS;
    return nowMs + wait < dueAtMs ? wait : null;
  }

  /** Uniform in [min, max]. */
  interval(): number {
    return this.timing.minMs + this.random() * (this.timing.maxMs - this.timing.minMs);
  }

  /** 1 s × 1.6^(failures-1), ±20 %, capped at the longest interval. */
  private backoff(): number {
    const base = BACKOFF_BASE_MS * BACKOFF_FACTOR ** (this.failures - 1);
    const jittered = base * (1 - BACKOFF_JITTER + 2 * BACKOFF_JITTER * this.random());
    return Math.min(jittered, this.timing.maxMs);
  }
}

/** A `Retry-After` value (seconds or an HTTP date) as ms from `nowMs`; null when absent or unreadable. */
export function retryAfterMs(value: string | undefined, nowMs: number): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}
