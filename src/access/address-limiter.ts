/**
 * Limits per client address (api-decisions.md §5), for every serving thread at
 * once, on an AddressTable (no two addresses share a budget):
 * - failed authentication: only failures count; an address over its budget is
 *   answered 429 before any key is looked at, so guessing stops until the
 *   window turns, while every other address is served;
 * - public routes (no key): every request counts.
 * When the table is full for an address (every slot of its probe sequence holds
 * another live address) the request is not limited and `onFull` counts it.
 */
import { ApiError } from "../api/errors.js";
import { AddressTable } from "./address-table.js";

export interface AddressLimit {
  readonly requests: number;
  readonly windowSeconds: number;
}

export class AddressLimiter {
  private readonly table: AddressTable;

  constructor(
    table: SharedArrayBuffer,
    readonly limit: AddressLimit,
    /** What is limited, for the 429 message: "failed authentication attempts" or "requests without a key". */
    readonly what: string,
    private readonly onFull: () => void = () => {},
  ) {
    this.table = new AddressTable(table);
  }

  private windowIndex(nowMs: number): number {
    return Math.floor(nowMs / (this.limit.windowSeconds * 1000));
  }

  /** Throws 429 when the address has used its budget in this window (nothing is counted). */
  assertUnder(address: Uint8Array, nowMs: number): void {
    const windowIndex = this.windowIndex(nowMs);
    if (this.table.count(address, windowIndex) >= this.limit.requests) throw this.exceeded(windowIndex, nowMs);
  }

  /** Counts one event of the address. */
  record(address: Uint8Array, nowMs: number): void {
    if (this.table.add(address, this.windowIndex(nowMs)) < 0) this.onFull();
  }

  /** Counts one request, or throws 429 when the budget is used. */
  take(address: Uint8Array, nowMs: number): void {
    const windowIndex = this.windowIndex(nowMs);
    const result = this.table.take(address, windowIndex, this.limit.requests);
    if (result === "over") throw this.exceeded(windowIndex, nowMs);
    if (result === "full") this.onFull();
  }

  private exceeded(windowIndex: number, nowMs: number): ApiError {
    const windowMs = this.limit.windowSeconds * 1000;
    return addressLimitExceeded(this.limit, this.what, Math.max(1, Math.ceil(((windowIndex + 1) * windowMs - nowMs) / 1000)));
  }
}

/** The 429 of an address over its budget of `what` (see AddressLimiter). */
export function addressLimitExceeded(limit: AddressLimit, what: string, retryAfterSeconds: number): ApiError {
  return new ApiError(
    "RATE_LIMIT_EXCEEDED",
    `Too many ${what} from this address; retry in ${retryAfterSeconds} seconds.`,
    `At most ${limit.requests} ${what} per ${limit.windowSeconds} s per client address.`,
    { retryAfterSeconds },
    { "retry-after": String(retryAfterSeconds) },
  );
}
