/**
 * Open streams per key (STREAM_MAX_CONNECTIONS_PER_KEY, live.md §13): one
 * int32 per key quota slot (src/access/shared-rate-limiter.ts QuotaSlots) in
 * memory every serving thread of the instance shares, so the limit holds
 * across threads. A stream takes a place before it opens and gives it back
 * when it closes; the opening past the limit is answered 429.
 *
 * Slots belong to key ids (QuotaSlots), and a keys-file reload may give a
 * key another id (a rename, two keys swapping ids): the count follows the
 * key, not the id. A stream remembers the slot its place is counted in, and
 * when a reload keeps it open under an entry whose id has another slot, the
 * hub moves its place there (`move`), each thread its own streams.
 */
import { ApiError } from "../api/errors.js";

export function createStreamCounters(slots: number): SharedArrayBuffer {
  return new SharedArrayBuffer(Math.max(1, slots) * Int32Array.BYTES_PER_ELEMENT);
}

/** A place not counted anywhere (a key without a quota slot: none in practice). */
export const UNCOUNTED = -1;

/** Seconds a refused opening is told to wait (`Retry-After`): a place frees when one of the key's streams closes. */
const RETRY_AFTER_SECONDS = 5;

export class KeyStreams {
  private readonly open: Int32Array;

  constructor(
    buffer: SharedArrayBuffer,
    private slots: Readonly<Record<string, number>>,
    private readonly max: number,
  ) {
    this.open = new Int32Array(buffer);
  }

  /** The key-id → slot mapping after the keys file changed (slots of kept ids do not move). */
  setSlots(slots: Readonly<Record<string, number>>): void {
    this.slots = slots;
  }

  /** Takes one of the key's places: its slot (give it back with `release`), or throws 429 RATE_LIMIT_EXCEEDED. */
  take(keyId: string): number {
    const slot = this.slotOf(keyId);
    if (slot === UNCOUNTED) return UNCOUNTED;
    if (Atomics.add(this.open, slot, 1) < this.max) return slot;
    Atomics.sub(this.open, slot, 1);
    throw new ApiError(
      "RATE_LIMIT_EXCEEDED",
      `This API key holds ${this.max} open streams, the most it may hold on this gateway; close one, or retry in ${RETRY_AFTER_SECONDS} seconds.`,
      `Open streams are limited per key (STREAM_MAX_CONNECTIONS_PER_KEY = ${this.max}).`,
      { retryAfterSeconds: RETRY_AFTER_SECONDS },
      { "retry-after": String(RETRY_AFTER_SECONDS) },
    );
  }

  release(slot: number): void {
    if (slot !== UNCOUNTED) Atomics.sub(this.open, slot, 1);
  }

  /** The slot a key id's places are counted in now (UNCOUNTED when it has none). */
  slotOf(keyId: string): number {
    const slot = this.slots[keyId];
    return slot === undefined || slot >= this.open.length ? UNCOUNTED : slot;
  }

  /** One open stream's place moves from slot `from` to slot `to` (never refused: the stream is open already). */
  move(from: number, to: number): void {
    if (from === to) return;
    if (to !== UNCOUNTED) Atomics.add(this.open, to, 1);
    this.release(from);
  }

  /** Open streams of a slot (tests, diagnostics). */
  count(slot: number): number {
    return Atomics.load(this.open, slot);
  }
}
