/**
 * Fixed-window counters per client address, shared by every serving thread
 * (SharedArrayBuffer), without collisions: each slot stores the full address
 * (IPv4 as IPv4-mapped IPv6), so two addresses never share a budget and one
 * address can never evict another's count. A slot is reused only once its
 * window has passed. Addresses hash with a random per-gateway seed over a short
 * probe sequence; when every slot of an address's sequence holds another live
 * address, the table is full for it (`add`/`take` say so and the caller
 * decides; nothing else is disturbed).
 *
 * Slot (8 int32): [lock, address ×4, window index + 1 (0: never used), count, -]. A slot's lock
 * guards its words; claiming a slot also takes the table's insert lock, so an
 * address is never inserted twice.
 */
import { randomInt } from "node:crypto";

const SLOT_WORDS = 8;
const LOCK = 0;
const ADDRESS = 1;
const WINDOW = 5;
const COUNT = 6;
/** Header: [insert lock, hash seed, …]. */
const HEADER_WORDS = 8;
const INSERT_LOCK = 0;
const SEED = 1;
/** Slots an address may live in. */
const PROBES = 8;
const COUNT_CAP = 0x7fffffff;

export const ADDRESS_TABLE_SLOTS = 65_536;

export function createAddressTable(slots = ADDRESS_TABLE_SLOTS): SharedArrayBuffer {
  if (slots & (slots - 1)) throw new RangeError("address table slots must be a power of two");
  const buffer = new SharedArrayBuffer((HEADER_WORDS + slots * SLOT_WORDS) * Int32Array.BYTES_PER_ELEMENT);
  new Int32Array(buffer)[SEED] = randomInt(0x7fffffff);
  return buffer;
}

/** The outcome of `take`. */
export type TakeResult = "taken" | "over" | "full";

export class AddressTable {
  private readonly words: Int32Array;
  private readonly mask: number;
  private readonly seed: number;
  /** The address being looked at, as four words (reused: the table is used by one thread at a time). */
  private readonly key = new Int32Array(4);

  constructor(buffer: SharedArrayBuffer) {
    this.words = new Int32Array(buffer);
    const slots = (this.words.length - HEADER_WORDS) / SLOT_WORDS;
    this.mask = slots - 1;
    this.seed = this.words[SEED];
  }

  /** The address's count in this window (0 when it has none). */
  count(address: Uint8Array, windowIndex: number): number {
    this.setKey(address);
    const slot = this.findLocked(windowIndex + 1);
    if (slot < 0) return 0;
    const count = this.words[this.base(slot) + COUNT];
    this.unlock(slot);
    return count;
  }

  /** Adds one to the address's count in this window; the new count, or -1 when the table is full for it. */
  add(address: Uint8Array, windowIndex: number): number {
    this.setKey(address);
    return this.update(windowIndex + 1, COUNT_CAP);
  }

  /** Adds one unless the count has reached `limit`. */
  take(address: Uint8Array, windowIndex: number, limit: number): TakeResult {
    this.setKey(address);
    const count = this.update(windowIndex + 1, limit);
    return count === -1 ? "full" : count === 0 ? "over" : "taken";
  }

  /** The new count; 0 when already at `limit`; -1 when no slot is free. `window` is the stored form (index + 1). */
  private update(window: number, limit: number): number {
    let slot = this.findLocked(window);
    if (slot < 0) {
      this.lockWord(INSERT_LOCK);
      try {
        slot = this.findLocked(window);
        if (slot < 0) slot = this.claimLocked(window);
      } finally {
        this.unlockWord(INSERT_LOCK);
      }
      if (slot < 0) return -1;
    }
    const at = this.base(slot) + COUNT;
    const count = this.words[at];
    const next = count >= limit ? 0 : count + 1;
    if (next > 0) this.words[at] = next;
    this.unlock(slot);
    return next;
  }

  /** The slot holding the key in this (stored) window, locked; -1 when none. */
  private findLocked(window: number): number {
    const words = this.words;
    const k = this.key;
    let slot = this.hash() & this.mask;
    for (let p = 0; p < PROBES; p++, slot = (slot + 1) & this.mask) {
      const b = this.base(slot);
      if (words[b + WINDOW] !== window) continue; // cheap pre-check; confirmed under the lock
      this.lock(slot);
      if (
        words[b + WINDOW] === window &&
        words[b + ADDRESS] === k[0] &&
        words[b + ADDRESS + 1] === k[1] &&
        words[b + ADDRESS + 2] === k[2] &&
        words[b + ADDRESS + 3] === k[3]
      ) {
        return slot;
      }
      this.unlock(slot);
    }
    return -1;
  }

  /** Claims a slot whose window has passed (or was never used) for the key, locked, count 0; -1 when none. */
  private claimLocked(window: number): number {
    const words = this.words;
    let slot = this.hash() & this.mask;
    for (let p = 0; p < PROBES; p++, slot = (slot + 1) & this.mask) {
      const b = this.base(slot);
      this.lock(slot);
      if (words[b + WINDOW] !== window) {
        for (let i = 0; i < 4; i++) words[b + ADDRESS + i] = this.key[i];
        words[b + WINDOW] = window;
        words[b + COUNT] = 0;
        return slot;
      }
      this.unlock(slot);
    }
    return -1;
  }

  /** The peer address as four words: IPv6 as is, IPv4 (4 bytes or IPv4-mapped) as ::ffff:a.b.c.d. */
  private setKey(address: Uint8Array): void {
    const k = this.key;
    const n = address.length;
    if (n === 16) {
      for (let i = 0; i < 4; i++)
        k[i] = (address[i * 4] << 24) | (address[i * 4 + 1] << 16) | (address[i * 4 + 2] << 8) | address[i * 4 + 3];
    } else {
      k[0] = 0;
      k[1] = 0;
      k[2] = 0xffff;
      k[3] = n === 4 ? (address[0] << 24) | (address[1] << 16) | (address[2] << 8) | address[3] : 0;
    }
  }

  /** murmur3-style mix of the key words with the gateway's seed. */
  private hash(): number {
    let h = this.seed;
    for (let i = 0; i < 4; i++) {
      let w = Math.imul(this.key[i], 0xcc9e2d51);
      w = (w << 15) | (w >>> 17);
      h ^= Math.imul(w, 0x1b873593);
      h = (h << 13) | (h >>> 19);
      h = Math.imul(h, 5) + 0xe6546b64;
    }
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    return (h ^ (h >>> 16)) >>> 0;
  }

  private base(slot: number): number {
    return HEADER_WORDS + slot * SLOT_WORDS;
  }

  private lock(slot: number): void {
    this.lockWord(this.base(slot) + LOCK);
  }

  private unlock(slot: number): void {
    this.unlockWord(this.base(slot) + LOCK);
  }

  /** A spin lock: held only for a few word reads and writes. */
  private lockWord(at: number): void {
    while (Atomics.compareExchange(this.words, at, 0, 1) !== 0) {
      // another thread is inside; it leaves within a few instructions
    }
  }

  private unlockWord(at: number): void {
    Atomics.store(this.words, at, 0);
  }
}
