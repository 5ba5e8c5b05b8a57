/**
 * Per-key request quotas (api-decisions.md §5): what a limiter decides and how
 * a decision is answered. The limiter itself is shared-rate-limiter.ts: fixed
 * windows aligned to the Unix epoch, counted in memory every serving thread
 * shares.
 */
import type { KeyEntry } from "./key-store.js";
import { ApiError } from "../api/errors.js";

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
