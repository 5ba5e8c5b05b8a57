/**
 * Limits failed authentication per client address (api-decisions.md §5), for
 * every serving thread at once: a shared table of fixed-window counters
 * indexed by a hash of the peer's address bytes. Only failures count, so an
 * address whose requests authenticate is never limited; an address over its
 * budget is answered 429 before any key is looked at, so guessing stops until
 * the window turns. (Addresses that collide in the table share a budget.)
 */
import { ApiError } from "../http/errors.js";
import { consumeCell, QUOTA_SLOT_BYTES } from "./shared-rate-limiter.js";

const COUNT_BITS = 32n;
const COUNT_MASK = (1n << COUNT_BITS) - 1n;
export const FAILED_AUTH_BUCKETS = 65_536;
/** Counts past the limit keep growing; this only keeps them in 32 bits. */
const COUNT_CAP = 0x7fffffff;

export function createFailedAuthCounters(): SharedArrayBuffer {
  return new SharedArrayBuffer(FAILED_AUTH_BUCKETS * QUOTA_SLOT_BYTES);
}

export interface FailedAuthLimit {
  readonly requests: number;
  readonly windowSeconds: number;
}

export class FailedAuthLimiter {
  private readonly cells: BigInt64Array;

  constructor(
    counters: SharedArrayBuffer,
    private readonly limit: FailedAuthLimit,
  ) {
    this.cells = new BigInt64Array(counters);
  }

  /** Throws 429 when the address has used up its failed attempts in this window. */
  assertNotBlocked(address: Uint8Array, nowMs: number): void {
    const windowMs = this.limit.windowSeconds * 1000;
    const windowIndex = Math.floor(nowMs / windowMs);
    const cell = Atomics.load(this.cells, bucketOf(address));
    if (cell >> COUNT_BITS !== BigInt(windowIndex) || Number(cell & COUNT_MASK) < this.limit.requests) return;
    const retryAfterSeconds = Math.max(1, Math.ceil(((windowIndex + 1) * windowMs - nowMs) / 1000));
    throw new ApiError(
      "RATE_LIMIT_EXCEEDED",
      `Too many failed authentication attempts from this address; retry in ${retryAfterSeconds} seconds with a valid API key.`,
      `At most ${this.limit.requests} failed attempts per ${this.limit.windowSeconds} s per client address.`,
      { retryAfterSeconds },
      { "retry-after": String(retryAfterSeconds) },
    );
  }

  recordFailure(address: Uint8Array, nowMs: number): void {
    consumeCell(this.cells, bucketOf(address), Math.floor(nowMs / (this.limit.windowSeconds * 1000)), COUNT_CAP);
  }
}

/** FNV-1a of the address bytes, into the table. */
function bucketOf(address: Uint8Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < address.length; i++) h = Math.imul(h ^ address[i], 0x01000193);
  return (h >>> 0) & (FAILED_AUTH_BUCKETS - 1);
}
