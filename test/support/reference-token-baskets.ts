/**
 * A deliberately simple TokenBasket (api-extended.md §9) for the tests, read straight off the
 * snapshot files and the baskets file as the spec words it: `addresses` every listed address on the
 * chains in scope (chain ascending, then file order, lowercase), `chainIds` the chains in scope with
 * an address, `tokens` the metadata of the addresses a loaded chain holds, by tracked TVL desc,
 * chain id, address. Nothing is precomputed or cached.
 */
import { CHAINS, NATIVE_ADDRESS, type ChainId } from "../../src/chains/chains.js";
import type { SnapshotFile } from "../../src/api/snapshot-format.js";
import { templateLogo } from "./fixtures.js";
import type { BasketsJson } from "./reference-pool-search.js";

export interface ReferenceTokenMetadata {
  chainId: number;
  address: string;
  decimals: number;
  name: string;
  symbol: string;
  logoUrl: string;
}

export interface ReferenceBasket {
  id: string;
  name: string;
  description: string;
  logoUrl: string;
  chainIds: number[];
  addresses: { chainId: number; address: string }[];
  tokens: ReferenceTokenMetadata[];
}

/** The basket `id` on the chains of `scope` (any order), or null when it lists no address there. */
export function referenceBasket(
  files: readonly SnapshotFile[],
  basketsFile: BasketsJson,
  id: string,
  scope: readonly number[],
): ReferenceBasket | null {
  const basket = basketsFile.baskets.find((b) => b.id === id);
  if (basket === undefined) throw new Error(`no basket ${id}`);
  const chainIds: number[] = [];
  const addresses: { chainId: number; address: string }[] = [];
  const held: { tvl: number; meta: ReferenceTokenMetadata }[] = [];
  for (const chainId of [...scope].sort((a, b) => a - b)) {
    const listed = (basket.addresses[String(chainId)] ?? []).map((a) => a.toLowerCase());
    if (listed.length === 0) continue;
    chainIds.push(chainId);
    const file = files.find((f) => f.chainId === chainId);
    for (const address of listed) {
      addresses.push({ chainId, address });
      const t = file?.tokens.find((x) => x.address === address);
      if (t === undefined) continue;
      const native = address === NATIVE_ADDRESS;
      const chain = CHAINS[chainId as ChainId];
      held.push({
        tvl: t.trackedTotalValuePooledUsd,
        meta: {
          chainId,
          address,
          decimals: native ? 18 : t.decimals,
          name: native ? chain.nativeName : t.name,
          symbol: native ? chain.nativeSymbol : t.symbol,
          logoUrl: t.logoUrl ?? templateLogo(chainId, address),
        },
      });
    }
  }
  if (chainIds.length === 0) return null;
  held.sort(
    (x, y) =>
      y.tvl - x.tvl || x.meta.chainId - y.meta.chainId || (x.meta.address < y.meta.address ? -1 : x.meta.address > y.meta.address ? 1 : 0),
  );
  return {
    id,
    name: basket.name,
    description: basket.description,
    logoUrl: basket.logoUrl,
    chainIds,
    addresses,
    tokens: held.map((h) => h.meta),
  };
}

/** GET /v1/tokens/baskets: the chosen baskets (all when `ids` is absent) with an address in scope, by id. */
export function referenceBasketList(
  files: readonly SnapshotFile[],
  basketsFile: BasketsJson,
  scope: readonly number[],
  ids?: readonly string[],
): ReferenceBasket[] {
  return basketsFile.baskets
    .map((b) => b.id)
    .filter((id) => ids === undefined || ids.includes(id))
    .sort()
    .map((id) => referenceBasket(files, basketsFile, id, scope))
    .filter((b): b is ReferenceBasket => b !== null);
}
