/**
 * Per-key quotas shared by every serving thread (api-decisions.md §5: exact
 * across threads). Each key id owns a slot in a SharedArrayBuffer holding one
 * 64-bit cell: the fixed window's index (high 32 bits) and the count in it
 * (low 32 bits), updated with compare-and-swap, so concurrent threads never
 * lose or double an increment. Windows are aligned to the Unix epoch.
 */
import type { KeyRateLimit } from "./keys-file.js";
import type { KeyEntry } from "./key-store.js";
import type { RateLimitDecision, RateLimiter } from "./rate-limiter.js";

const COUNT_BITS = 32n;
const COUNT_MASK = (1n << COUNT_BITS) - 1n;

export const QUOTA_SLOT_BYTES = BigInt64Array.BYTES_PER_ELEMENT;

export function createQuotaCounters(slots: number): SharedArrayBuffer {
  return new SharedArrayBuffer(slots * QUOTA_SLOT_BYTES);
}

/** Consumes one request from a counter cell; the core of the limiter. */
export function consumeCell(cells: BigInt64Array, slot: number, windowIndex: number, limit: number): number {
  const window = BigInt(windowIndex);
  for (;;) {
    const current = Atomics.load(cells, slot);
    const sameWindow = current >> COUNT_BITS === window;
    const count = sameWindow ? Number(current & COUNT_MASK) : 0;
    if (count >= limit) return -1;
    const next = (window << COUNT_BITS) | BigInt(count + 1);
    if (Atomics.compareExchange(cells, slot, current, next) === current) return count + 1;
  }
}

export class SharedRateLimiter implements RateLimiter {
  private readonly cells: BigInt64Array;

  constructor(
    counters: SharedArrayBuffer,
    private slots: Readonly<Record<string, number>>,
    private readonly defaultLimit: KeyRateLimit,
  ) {
    this.cells = new BigInt64Array(counters);
  }

  /** New key-id → slot mapping after the keys file changed (slots of kept ids do not move). */
  setSlots(slots: Readonly<Record<string, number>>): void {
    this.slots = slots;
  }

  consume(entry: KeyEntry, nowMs: number): RateLimitDecision {
    const { requests, windowSeconds } = entry.rateLimit ?? this.defaultLimit;
    const windowMs = windowSeconds * 1000;
    const windowIndex = Math.floor(nowMs / windowMs);
    const resetSeconds = Math.max(1, Math.ceil(((windowIndex + 1) * windowMs - nowMs) / 1000));
    const slot = this.slots[entry.id];
    if (slot === undefined) throw new Error(`no quota slot for key ${entry.id}`);
    const count = consumeCell(this.cells, slot, windowIndex, requests);
    if (count < 0) return { allowed: false, limit: requests, remaining: 0, resetSeconds };
    return { allowed: true, limit: requests, remaining: requests - count, resetSeconds };
  }
}

/**
 * Assigns quota slots to key ids: ids keep their slot across reloads, new ids
 * take free slots (a deleted id's slot is reused only by a later new id after
 * it has been cleared). Lives in the supervisor.
 */
export class QuotaSlots {
  private readonly byId = new Map<string, number>();
  private readonly free: number[] = [];

  constructor(
    private readonly capacity: number,
    private readonly counters: SharedArrayBuffer,
  ) {
    for (let s = capacity - 1; s >= 0; s--) this.free.push(s);
  }

  /**
   * The mapping for this set of key ids. All or nothing: when the ids do not
   * fit, it throws and changes nothing (no slot is freed, no count is reset).
   */
  assign(ids: readonly string[]): Record<string, number> {
    const keep = new Set(ids);
    const removed = [...this.byId].filter(([id]) => !keep.has(id));
    const added = [...keep].filter((id) => !this.byId.has(id));
    if (added.length > this.free.length + removed.length) {
      throw new Error(`the keys file holds ${keep.size} keys, more than MAX_API_KEYS (${this.capacity}); raise MAX_API_KEYS`);
    }
    const cells = new BigInt64Array(this.counters);
    for (const [id, slot] of removed) {
      this.byId.delete(id);
      Atomics.store(cells, slot, 0n);
      this.free.push(slot);
    }
    for (const id of added) this.byId.set(id, this.free.pop()!);
    return Object.fromEntries(this.byId);
  }
}
