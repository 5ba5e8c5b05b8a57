/**
 * Build-time lookup structures of the token index (runs in a build worker):
 * the per-chain TVL orders of single-chain lists and the address hash table
 * of token lookups, prices and baskets. Plain shared columns.
 */
import { sortByFloatKey } from "../util/float-key-sort.js";
import { sharedArray } from "../tables/shared-columns.js";
import { ADDRESS_BYTES } from "../tables/token-index.js";
import { hashAddressBytes, sameAddress } from "../tables/token-lookup.js";

export interface ChainOrders {
  readonly chainStart: Uint32Array;
  readonly chainByTvlDesc: Uint32Array;
  readonly chainByTvlAsc: Uint32Array;
  readonly chainRankDesc: Uint32Array;
  readonly chainRankAsc: Uint32Array;
}

/**
 * One chain's instances for its single-chain orders: sorted from their TVLs (`tvl` and `positionOf`: each instance's
 * tracked TVL and index position, in address order), or given in both orders (index positions: mapped from an
 * earlier index for a chain that did not change).
 */
export type ChainOrderSource =
  { readonly tvl: Float64Array; readonly positionOf: Uint32Array } | { readonly desc: ArrayLike<number>; readonly asc: ArrayLike<number> };

/**
 * @param sources each chain position's instances (SUPPORTED_CHAIN_IDS; null: none)
 * @param n instances in the index
 */
export function compileChainOrders(sources: readonly (ChainOrderSource | null)[], n: number): ChainOrders {
  const chains = sources.length;
  const chainStart = sharedArray(Uint32Array, chains + 1);
  const chainByTvlDesc = sharedArray(Uint32Array, n);
  const chainByTvlAsc = sharedArray(Uint32Array, n);
  const chainRankDesc = sharedArray(Uint32Array, n);
  const chainRankAsc = sharedArray(Uint32Array, n);
  let start = 0;
  for (let c = 0; c < chains; c++) {
    chainStart[c] = start;
    const source = sources[c];
    if (source === null) continue;
    if ("desc" in source) {
      place(source.desc, source.desc.length, start, chainByTvlDesc, chainRankDesc);
      place(source.asc, source.asc.length, start, chainByTvlAsc, chainRankAsc);
      start += source.desc.length;
      continue;
    }
    // Stable by TVL over address order: ties stay in address order.
    const { tvl, positionOf } = source;
    const m = tvl.length;
    for (const [descending, order, rank] of [
      [true, chainByTvlDesc, chainRankDesc],
      [false, chainByTvlAsc, chainRankAsc],
    ] as const) {
      const byTvl = sortByFloatKey(tvl, m, descending);
      for (let j = 0; j < m; j++) byTvl[j] = positionOf[byTvl[j]];
      place(byTvl, m, start, order, rank);
    }
    start += m;
  }
  chainStart[chains] = start;
  return { chainStart, chainByTvlDesc, chainByTvlAsc, chainRankDesc, chainRankAsc };
}

/** Instances (index positions) in a chain's order, placed at `start` in `order`, with each one's rank. */
function place(instances: ArrayLike<number>, m: number, start: number, order: Uint32Array, rank: Uint32Array): void {
  for (let j = 0; j < m; j++) {
    const i = instances[j];
    order[start + j] = i;
    rank[i] = j;
  }
}

/** Open-addressing table over instance addresses; instances sharing an address are chained through `next`. */
export function compileAddressTable(addressBytes: Uint8Array, n: number): { addressSlots: Uint32Array; addressNext: Uint32Array } {
  let size = 2;
  while (size < n * 2) size <<= 1;
  const slots = sharedArray(Uint32Array, size);
  const next = sharedArray(Uint32Array, n);
  const mask = size - 1;
  for (let i = 0; i < n; i++) {
    let slot = hashAddressBytes(addressBytes, i * ADDRESS_BYTES) & mask;
    for (;;) {
      const entry = slots[slot];
      if (entry === 0) {
        slots[slot] = i + 1;
        break;
      }
      if (sameAddress(addressBytes, (entry - 1) * ADDRESS_BYTES, addressBytes, i * ADDRESS_BYTES)) {
        next[i] = entry;
        slots[slot] = i + 1;
        break;
      }
      slot = (slot + 1) & mask;
    }
  }
  return { addressSlots: slots, addressNext: next };
}
