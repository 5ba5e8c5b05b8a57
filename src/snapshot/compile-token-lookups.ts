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
 * @param tvl tracked TVL of each gathered instance; gathered instances are in (chain, address) order
 * @param chainPos position of each gathered instance's chain in SUPPORTED_CHAIN_IDS
 * @param positionOf index position of each gathered instance
 * @param chains number of chain positions (SUPPORTED_CHAIN_IDS.length)
 */
export function compileChainOrders(tvl: Float64Array, chainPos: Uint8Array, positionOf: Uint32Array, chains: number): ChainOrders {
  const n = tvl.length;
  const chainStart = sharedArray(Uint32Array, chains + 1);
  for (let i = 0; i < n; i++) chainStart[chainPos[i] + 1]++;
  for (let c = 0; c < chains; c++) chainStart[c + 1] += chainStart[c];
  const build = (descending: boolean) => {
    // Stable by TVL over (chain, address) order: ties stay in address order; then a stable counting sort by chain.
    const byTvl = sortByFloatKey(tvl, n, descending);
    const next = chainStart.slice(0, chains);
    const order = sharedArray(Uint32Array, n);
    const rank = sharedArray(Uint32Array, n);
    for (let j = 0; j < n; j++) {
      const i = byTvl[j];
      const c = chainPos[i];
      const at = next[c]++;
      order[at] = positionOf[i];
      rank[positionOf[i]] = at - chainStart[c];
    }
    return { order, rank };
  };
  const desc = build(true);
  const asc = build(false);
  return { chainStart, chainByTvlDesc: desc.order, chainByTvlAsc: asc.order, chainRankDesc: desc.rank, chainRankAsc: asc.rank };
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
