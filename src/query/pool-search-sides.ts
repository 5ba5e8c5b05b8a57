/**
 * Sides A and B of a pool search on one snapshot (api-extended.md §10): the
 * named tokens plus the baskets' addresses on their chains, the wrapped native
 * token added for an all-zero address, resolved to token rows per chain
 * through the token index's address table.
 */
import { NATIVE_ADDRESS, SUPPORTED_CHAIN_IDS, type ChainId } from "../chains/chains.js";
import type { ServingSnapshot } from "../snapshot/serving-snapshot.js";
import type { SearchChain } from "./pool-search.js";
import { instanceOnChain, parseAddress } from "./token-lookup.js";
import { protocolAllowed, type PoolSearchSpec, type SideSpec } from "./pool-search-query.js";

/** What the sides read of the baskets file: a basket's addresses per chain. */
export interface BasketAddresses {
  get(id: string): { readonly addresses: ReadonlyMap<ChainId, readonly string[]> } | undefined;
}

export interface ResolvedSearch {
  /** The chains side A has tokens on (and that the snapshot holds), ascending. */
  readonly chains: SearchChain[];
  /** Per entry of `chains`: whether its wrapped native token is shown as the native asset. */
  readonly toNative: boolean[];
}

/** Lowercase addresses per chain. */
type SideAddresses = Map<ChainId, Set<string>>;

function sideAddresses(side: SideSpec, baskets: BasketAddresses, defaultChains: readonly ChainId[]): SideAddresses {
  const out: SideAddresses = new Map();
  const add = (chainId: ChainId, address: string) => {
    let set = out.get(chainId);
    if (set === undefined) out.set(chainId, (set = new Set()));
    set.add(address);
  };
  for (const t of side.tokens) add(t.chainId, t.address);
  for (const b of side.baskets) {
    const basket = baskets.get(b.basketId);
    if (basket === undefined) continue; // checked by the caller
    for (const chainId of b.chainIds ?? defaultChains) for (const address of basket.addresses.get(chainId) ?? []) add(chainId, address.toLowerCase());
  }
  return out;
}

/**
 * @param keyChains the chains the key may read (ascending), null for every
 *   chain: the scope of a basket named without chains.
 */
export function resolveSearch(spec: PoolSearchSpec, snapshot: ServingSnapshot, baskets: BasketAddresses, keyChains: readonly ChainId[] | null): ResolvedSearch {
  const defaultChains = keyChains ?? SUPPORTED_CHAIN_IDS;
  const a = sideAddresses(spec.a, baskets, defaultChains);
  const b = spec.b === null ? null : sideAddresses(spec.b, baskets, defaultChains);
  const chains: SearchChain[] = [];
  const toNative: boolean[] = [];
  for (const chainId of [...a.keys()].sort((x, y) => x - y)) {
    const compiled = snapshot.chains.get(chainId);
    if (compiled === undefined) continue;
    const nativeNamed = a.get(chainId)!.has(NATIVE_ADDRESS) || (b?.get(chainId)?.has(NATIVE_ADDRESS) ?? false);
    const index = compiled.poolSearch;
    const rows = (addresses: Set<string> | undefined): number[] => {
      const found = new Set<number>();
      if (addresses === undefined) return [];
      for (const address of addresses) {
        const instance = instanceOnChain(snapshot.tokenIndex, chainId, parseAddress(address)!);
        if (instance >= 0) found.add(snapshot.tokenIndex.chainRow[instance]);
      }
      if (spec.useWrappedForNative && addresses.has(NATIVE_ADDRESS) && index.wrappedRow >= 0) found.add(index.wrappedRow);
      return [...found];
    };
    const protocolFlags = new Uint8Array(index.protocolIds.length);
    index.protocolIds.forEach((id, i) => (protocolFlags[i] = protocolAllowed(spec.filters, id) ? 1 : 0));
    chains.push({
      chainId,
      index,
      pools: compiled.pools,
      a: rows(a.get(chainId)),
      b: b === null ? null : rows(b.get(chainId)),
      protocolAllowed: protocolFlags,
    });
    toNative.push(spec.wrappedToNative === "ALWAYS" || (spec.wrappedToNative === "AUTO" && nativeNamed));
  }
  return { chains, toNative };
}
