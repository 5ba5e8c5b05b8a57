/**
 * The chains a multi-chain token request covers (api-decisions.md §2,
 * api-extended.md §7): named chains must be allowed for the key and loaded;
 * a request that names none covers the key's allowed chains (those loaded),
 * or every loaded chain.
 */
import { assertChainAllowed } from "../access/restrictions.js";
import type { KeyEntry } from "../access/key-store.js";
import type { ChainId } from "../chains/chains.js";
import type { ServingSnapshot } from "../serving/serving-snapshot.js";
import { requireLoadedChain } from "./chain-availability.js";

export function resolveChains<Q extends { readonly chainIds: readonly ChainId[] }>(
  query: Q,
  key: KeyEntry,
  current: ServingSnapshot | null,
): Q {
  for (const chainId of query.chainIds) {
    assertChainAllowed(key, chainId);
    requireLoadedChain(current, chainId);
  }
  if (query.chainIds.length > 0 || key.allowedChainIds === null) return query;
  return { ...query, chainIds: key.allowedChainIds as readonly ChainId[] };
}

/** The chains a resolved query searches, ascending: its chains that are loaded, or every loaded chain. */
export function searchedChains(query: { readonly chainIds: readonly ChainId[] }, snapshot: ServingSnapshot): ChainId[] {
  const loaded = snapshot.chainIds;
  return query.chainIds.length === 0 ? [...loaded] : loaded.filter((id) => query.chainIds.includes(id));
}
