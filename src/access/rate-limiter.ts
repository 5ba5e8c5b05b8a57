/**
 * Per-key request quotas (api-decisions.md §5): a fixed window of
 * `windowSeconds` aligned to the Unix epoch, `requests` per window. Aligned
 * windows make the count a pure function of (key, window index), which is
 * what lets the counters move to shared memory for several serving threads.
 */
import type { KeyRateLimit } from "./keys-file.js";
import type { KeyEntry } from "./key-store.js";
import { ApiError } from "../http/errors.js";

export interface RateLimitDecision {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  /** Whole seconds until the window resets (>= 1). */
  readonly resetSeconds: number;
}

export interface RateLimiter {
  consume(entry: KeyEntry, nowMs: number): RateLimitDecision;
}

interface Window {
  index: number;
  count: number;
}

export class FixedWindowRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(private readonly defaultLimit: KeyRateLimit) {}

  consume(entry: KeyEntry, nowMs: number): RateLimitDecision {
    const { requests, windowSeconds } = entry.rateLimit ?? this.defaultLimit;
    const windowMs = windowSeconds * 1000;
    const index = Math.floor(nowMs / windowMs);
    const state = this.windows.get(entry.id) ?? { index, count: 0 };
    if (state.index !== index) {
      state.index = index;
      state.count = 0;
    }
    this.windows.set(entry.id, state);
    const resetSeconds = Math.max(1, Math.ceil(((index + 1) * windowMs - nowMs) / 1000));
    if (state.count >= requests) return { allowed: false, limit: requests, remaining: 0, resetSeconds };
    state.count++;
    return { allowed: true, limit: requests, remaining: requests - state.count, resetSeconds };
  }
}

/** The RateLimit-* headers of a decision (on every authenticated response). */
export function rateLimitHeaders(d: RateLimitDecision): Record<string, string> {
  return { "ratelimit-limit": String(d.limit), "ratelimit-remaining": String(d.remaining), "ratelimit-reset": String(d.resetSeconds) };
}

export function rateLimitExceeded(d: RateLimitDecision): ApiError {
  return new ApiError(
    "RATE_LIMIT_EXCEEDED",
    `This API key has used its ${d.limit} requests of the current window; retry in ${d.resetSeconds} seconds.`,
    "Quotas are per key, in fixed windows; see the RateLimit-* response headers.",
    { retryAfterSeconds: d.resetSeconds },
    { "retry-after": String(d.resetSeconds) },
  );
}
