/**
 * Keys this gateway process has confirmed valid (a request presented them and
 * their hash matched), shared by every serving thread: one int32 per quota slot
 * (shared-rate-limiter.ts QuotaSlots) holding a token of the key's SHA-256, so
 * a rotated key (same id, new hash) is not confirmed until presented.
 *
 * What it is for (api-decisions.md §5, issue 9): an address over its
 * failed-authentication budget is refused, but a key confirmed valid is served
 * whatever address presents it, so a partner behind the same NAT or proxy as an
 * attacker is not locked out. A key never confirmed is refused from such an
 * address like any guess, so guessing learns nothing.
 */
import type { KeyEntry } from "./key-store.js";

export function createConfirmedKeys(slots: number): SharedArrayBuffer {
  return new SharedArrayBuffer(Math.max(1, slots) * Int32Array.BYTES_PER_ELEMENT);
}

/** A non-zero token of the key's digest (0 marks a slot with no confirmed key). */
function tokenOf(entry: KeyEntry): number {
  return entry.digest.readInt32BE(0) | 1;
}

export class ConfirmedKeys {
  private readonly tokens: Int32Array;

  constructor(
    buffer: SharedArrayBuffer,
    private slots: Readonly<Record<string, number>>,
  ) {
    this.tokens = new Int32Array(buffer);
  }

  /** The key-id → slot mapping after the keys file changed (see QuotaSlots). */
  setSlots(slots: Readonly<Record<string, number>>): void {
    this.slots = slots;
  }

  has(entry: KeyEntry): boolean {
    const slot = this.slots[entry.id];
    return slot !== undefined && Atomics.load(this.tokens, slot) === tokenOf(entry);
  }

  mark(entry: KeyEntry): void {
    const slot = this.slots[entry.id];
    if (slot !== undefined) Atomics.store(this.tokens, slot, tokenOf(entry));
  }
}
