/**
 * Per-key quotas shared by every serving thread (api-decisions.md §5: exact
 * across threads). Each key id owns a slot in a SharedArrayBuffer: two int32
 * cells, the fixed window's index and the count in it. Windows are aligned to
 * the Unix epoch. Counting is one Atomics.add on the count while the window is
 * current; the thread that first sees a new window claims the slot (a CAS of
 * the window cell to a marker), sets the count to 1 and publishes the window,
 * so concurrent threads never lose or double an increment. A request over the
 * limit takes its increment back, so the count never runs past the limit by
 * more than the requests in flight. (No 64-bit BigInt cell: BigInt arithmetic
 * allocates on every request.)
 */
import type { KeyRateLimit } from "./keys-file.js";
import type { KeyEntry } from "./key-store.js";
import type { RateLimitDecision, RateLimiter } from "./rate-limiter.js";

/** Int32 cells per slot: [window index, count]. */
export const QUOTA_SLOT_CELLS = 2;
/** A window cell being reset by another thread. */
const CLAIMING = -1;

export function createQuotaCounters(slots: number): SharedArrayBuffer {
  return new SharedArrayBuffer(Math.max(1, slots) * QUOTA_SLOT_CELLS * Int32Array.BYTES_PER_ELEMENT);
}

/**
 * Counts one request in a slot for the window `windowIndex` (or the next one,
 * when another thread has already moved there): the count including it, or -1
 * when it would exceed `limit` (nothing counted). Any other window in the slot
 * (an earlier one, or one of another window length after a keys-file change)
 * is replaced.
 */
export function consumeCell(cells: Int32Array, slot: number, windowIndex: number, limit: number): number {
  if (limit < 1) return -1;
  const at = slot * QUOTA_SLOT_CELLS;
  for (;;) {
    const seen = Atomics.load(cells, at);
    if (seen === windowIndex || seen === windowIndex + 1) {
      const count = Atomics.add(cells, at + 1, 1) + 1;
      if (count <= limit) return count;
      Atomics.sub(cells, at + 1, 1);
      return -1;
    }
    if (seen === CLAIMING) continue; // another thread is starting the window: a few instructions
    if (Atomics.compareExchange(cells, at, seen, CLAIMING) !== seen) continue;
    Atomics.store(cells, at + 1, 1);
    Atomics.store(cells, at, windowIndex);
    return 1;
  }
}

export class SharedRateLimiter implements RateLimiter {
  private readonly cells: Int32Array;

  constructor(
    counters: SharedArrayBuffer,
    private slots: Readonly<Record<string, number>>,
    private readonly defaultLimit: KeyRateLimit,
  ) {
    this.cells = new Int32Array(counters);
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
 * it has been cleared, and only once every slot never used is taken: the open
 * streams a removed key still holds on a serving thread that has not applied
 * the reload yet are never counted against a key added in the same reload).
 * Lives in the supervisor.
 */
export class QuotaSlots {
  private readonly byId = new Map<string, number>();
  private readonly free: number[] = [];

  constructor(
    private readonly capacity: number,
    private readonly counters: SharedArrayBuffer,
    /** Confirmed-key tokens by slot (confirmed-keys.ts): cleared with the slot. */
    private readonly confirmed: SharedArrayBuffer | null = null,
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
    const cells = new Int32Array(this.counters);
    const confirmed = this.confirmed === null ? null : new Int32Array(this.confirmed);
    for (const [id, slot] of removed) {
      this.byId.delete(id);
      Atomics.store(cells, slot * QUOTA_SLOT_CELLS, 0);
      Atomics.store(cells, slot * QUOTA_SLOT_CELLS + 1, 0);
      if (confirmed !== null) Atomics.store(confirmed, slot, 0);
      this.free.unshift(slot); // taken last (`pop` takes from the end)
    }
    for (const id of added) this.byId.set(id, this.free.pop()!);
    return Object.fromEntries(this.byId);
  }
}
