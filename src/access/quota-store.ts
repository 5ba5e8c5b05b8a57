/**
 * How keyed requests are counted (api-decisions.md §5, issue 15): the
 * failed-authentication budget of the client address and the key's quota, in
 * one place the request pipeline asks without knowing where the counters live:
 * - LocalQuotaStore (QUOTA_STORE=memory): this instance's shared-memory
 *   counters, exact across its serving threads; every answer is synchronous;
 * - RedisQuotaStore (QUOTA_STORE=redis): counters in Redis, exact across every
 *   instance; an answer may be a promise (one round trip), except for what the
 *   thread already knows is refused until its window turns.
 */
import type { QuotaStoreStatus } from "../api/wire.js";
import { ApiError } from "../api/errors.js";
import type { AddressLimiter } from "./address-limiter.js";
import type { KeyEntry } from "./key-store.js";
import type { RateLimitDecision } from "./rate-limiter.js";
import type { SharedRateLimiter } from "./shared-rate-limiter.js";

export type { QuotaStoreStatus };

export interface QuotaStore {
  /** Before authentication: throws 429 when the address is over its failed-authentication budget (nothing is counted). */
  assertAddressUnder(address: Uint8Array, nowMs: number): void;
  /**
   * Counts a failed authentication of the address. `undefined`: counted (the
   * caller answers the authentication error). A promise: resolves once counted
   * (answer the authentication error), or rejects with what to answer instead
   * (429 once the address is over its budget, or 503 QUOTA_STORE_UNAVAILABLE).
   * May throw either at once.
   */
  authenticationFailed(address: Uint8Array, nowMs: number): Promise<void> | undefined;
  /**
   * Counts one request of an authenticated key: its decision, or a promise of
   * it. With the client's `address` (a key not confirmed before), throws (or
   * rejects with) 429 when the address is over its failed-authentication
   * budget; null: a key already confirmed valid, served whatever its address.
   * Throws (or rejects with) 503 QUOTA_STORE_UNAVAILABLE when it must.
   */
  consume(entry: KeyEntry, address: Uint8Array | null, nowMs: number): RateLimitDecision | Promise<RateLimitDecision>;
  /** The keys file changed: the key ids' local counter slots (see QuotaSlots). */
  keysChanged(slots: Readonly<Record<string, number>>): void;
  /** What /ready reports. */
  status(nowMs: number): QuotaStoreStatus;
  /** Releases connections (a draining thread, once nothing is in flight). */
  close(): Promise<void>;
}

const MEMORY_STATUS: QuotaStoreStatus = Object.freeze({ kind: "memory", state: "local", onFailure: null });

/** QUOTA_STORE=memory: the instance's shared-memory counters (also the fail-open fallback of Redis). */
export class LocalQuotaStore implements QuotaStore {
  constructor(
    readonly rateLimiter: SharedRateLimiter,
    readonly failedAuth: AddressLimiter,
  ) {}

  assertAddressUnder(address: Uint8Array, nowMs: number): void {
    this.failedAuth.assertUnder(address, nowMs);
  }

  authenticationFailed(address: Uint8Array, nowMs: number): undefined {
    this.failedAuth.record(address, nowMs);
    return undefined;
  }

  consume(entry: KeyEntry, _address: Uint8Array | null, nowMs: number): RateLimitDecision {
    return this.rateLimiter.consume(entry, nowMs);
  }

  keysChanged(slots: Readonly<Record<string, number>>): void {
    this.rateLimiter.setSlots(slots);
  }

  status(): QuotaStoreStatus {
    return MEMORY_STATUS;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** How long a client is told to wait when the quota store is unavailable and QUOTA_FAILURE=closed. */
export const QUOTA_STORE_RETRY_AFTER_SECONDS = 1;

/** 503 QUOTA_STORE_UNAVAILABLE (QUOTA_FAILURE=closed while Redis cannot be reached). */
export function quotaStoreUnavailable(): ApiError {
  const retryAfterSeconds = QUOTA_STORE_RETRY_AFTER_SECONDS;
  return new ApiError(
    "QUOTA_STORE_UNAVAILABLE",
    `The gateway cannot check this key's quota right now; retry in ${retryAfterSeconds} second.`,
    "The shared quota store (Redis) is unreachable and this gateway is configured to refuse requests it cannot count (QUOTA_FAILURE=closed); nothing was counted.",
    { retryAfterSeconds },
    { "retry-after": String(retryAfterSeconds) },
  );
}
