/** Address helpers: random, fixed-by-label, and a per-chain uniqueness registry. */
import { Rng } from "./random.js";

export function randomAddress(rng: Rng): string {
  return "0x" + rng.hex(40);
}

/** A V4 pool id: 0x + 64 hex digits (a bytes32 hash of the pool key). */
export function randomPoolId(rng: Rng): string {
  return "0x" + rng.hex(64);
}

/**
 * A "random-but-fixed" address for a contract or token whose real address is
 * not in the catalog: the same label always gives the same address, whatever
 * the seed.
 */
export function fixedAddress(label: string): string {
  return "0x" + Rng.fromLabel("fixed-address", label).hex(40);
}

/** Hands out addresses that are unique within one chain's snapshot. */
export class AddressRegistry {
  private readonly used = new Set<string>();

  /** Registers a known address; a duplicate is a bug in the catalogs. */
  claim(address: string): string {
    if (this.used.has(address)) throw new Error(`duplicate address ${address}`);
    this.used.add(address);
    return address;
  }

  /** A fresh address from `make`, redrawn on the (astronomically rare) collision. */
  fresh(rng: Rng, make: (rng: Rng) => string = randomAddress): string {
    for (;;) {
      const candidate = make(rng);
      if (!this.used.has(candidate)) {
        this.used.add(candidate);
        return candidate;
      }
    }
  }
}
