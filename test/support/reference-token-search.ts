/**
 * Reference implementations of the search and single-chain routes (api-extended.md §8, §11),
 * written straight from the spec text: simple and readable, not fast, never looking at the
 * server's code. The multi-chain search reuses the token list reference for eligibility and
 * grouping (steps 1-4 of §3).
 */
import { CHAINS, type ChainId } from "../../src/chains/chains.js";
import type { SnapshotFile } from "../../src/api/snapshot-format.js";
import {
  compareStrings,
  referenceGroups,
  referenceOrder,
  toInstance,
  type Instance,
  type ReferenceEntry,
  type ReferenceGroup,
  type ReferenceRequest,
} from "./reference-token-list.js";

type SearchOrder = { field?: "tvl" | "relevance"; direction?: "asc" | "desc" };

/** A token list request with a term, ordered by TVL or relevance. */
export interface ReferenceSearchRequest {
  search: string;
  config?: Omit<NonNullable<ReferenceRequest["config"]>, "orderBy"> & { orderBy?: SearchOrder };
  filters?: ReferenceRequest["filters"];
}

/** A single-chain list (no `search`) or search. */
export interface ReferenceChainRequest {
  search?: string;
  config?: { orderBy?: SearchOrder; limit?: number; cursor?: string | null };
  filters?: Omit<NonNullable<ReferenceRequest["filters"]>, "chainIds">;
}

export interface SingleChainToken {
  chainId: number;
  address: string;
  decimals: number;
  name: string;
  symbol: string;
  logoUrl: string;
}

/** The words of a name: maximal runs of letters and digits. */
function words(text: string): string[] {
  return text.match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * The relevance tier of an instance for a search term (1 best .. 4), or 0 when it does not match:
 * 1 symbol or normalizedSymbol equals the term, 2 starts with it, 3 name or normalizedName starts
 * with it or has a word starting with it, 4 any other match (a substring somewhere, or the address).
 */
export function referenceTier(instance: Instance, search: string): number {
  const term = search.trim().toLowerCase();
  const symbols = [instance.symbol, instance.normalizedSymbol].map((s) => s.toLowerCase());
  const names = [instance.name, instance.normalizedName].map((s) => s.toLowerCase());
  const isAddress = /^0x[0-9a-f]{40}$/.test(term) && instance.address === term;
  const contains = [...symbols, ...names].some((s) => s.includes(term));
  if (!isAddress && !contains) return 0;
  if (symbols.some((s) => s === term)) return 1;
  if (symbols.some((s) => s.startsWith(term))) return 2;
  if (names.some((n) => n.startsWith(term) || words(n).some((w) => w.startsWith(term)))) return 3;
  return 4;
}

/** POST /v1/tokens/search: the whole ordered list of entries. */
export function referenceSearch(chains: SnapshotFile[], request: ReferenceSearchRequest): ReferenceEntry[] {
  const f = request.filters ?? {};
  const groups = referenceGroups(chains, {
    config: { matchAllSymbols: request.config?.matchAllSymbols ?? false },
    filters: {
      chainIds: f.chainIds,
      minimumTotalValuePooledUsd: f.minimumTotalValuePooledUsd ?? 0,
      minimumSwapsCount: f.minimumSwapsCount ?? 0,
      minimumSwapVolumeUsd: f.minimumSwapVolumeUsd ?? 0,
      ignoreWrappedNative: f.ignoreWrappedNative ?? false,
    },
  });
  const tierOf = (g: ReferenceGroup) => Math.min(...g.members.map((m) => referenceTier(m, request.search) || 99));
  const matching = groups.filter((g) => tierOf(g) < 99);
  const orderBy = request.config?.orderBy ?? {};
  if (orderBy.field === "relevance") {
    return [...matching].sort((a, b) => tierOf(a) - tierOf(b) || b.tvl - a.tvl || compareStrings(a.key, b.key)).map((g) => g.entry);
  }
  return referenceOrder(matching, orderBy.direction ?? "desc").map((g) => g.entry);
}

/** POST /v1/tokens/{chainId} (no search) and POST /v1/tokens/{chainId}/search: the whole ordered list. */
export function referenceChainTokens(chains: SnapshotFile[], chainId: number, request: ReferenceChainRequest): SingleChainToken[] {
  const file = chains.find((c) => c.chainId === chainId);
  if (file === undefined) return [];
  const searching = request.search !== undefined;
  const f = request.filters ?? {};
  const minTvl = f.minimumTotalValuePooledUsd ?? (searching ? 0 : 10_000);
  const minSwaps = f.minimumSwapsCount ?? (searching ? 0 : 1_000);
  const minVolume = f.minimumSwapVolumeUsd ?? (searching ? 0 : 100_000);
  const ignoreWrapped = f.ignoreWrappedNative ?? !searching;
  const wrapped = CHAINS[chainId as ChainId].wrappedNative;
  const eligible = file.tokens
    .map((t) => toInstance(chainId, t))
    .filter((t) => t.tvl > minTvl && t.swaps > minSwaps && t.volume > minVolume && !(ignoreWrapped && t.address === wrapped));
  const tier = (t: Instance) => (searching ? referenceTier(t, request.search!) : 1);
  const listed = eligible.filter((t) => tier(t) > 0);
  const orderBy = request.config?.orderBy ?? {};
  const byAddress = (a: Instance, b: Instance) => compareStrings(a.address, b.address);
  if (orderBy.field === "relevance") listed.sort((a, b) => tier(a) - tier(b) || b.tvl - a.tvl || byAddress(a, b));
  else if (orderBy.direction === "asc") listed.sort((a, b) => a.tvl - b.tvl || byAddress(a, b));
  else listed.sort((a, b) => b.tvl - a.tvl || byAddress(a, b));
  return listed.map((t) => ({ chainId, address: t.address, decimals: t.decimals, name: t.name, symbol: t.symbol, logoUrl: t.logoUrl }));
}
