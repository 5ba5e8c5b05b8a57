/**
 * A pool-search request with every default applied (api-extended.md §10), its
 * canonical key (what cursors bind to: everything but `limit`; sets as sets,
 * addresses lowercase) and the `filters` it echoes.
 */
import type { ChainId } from "../chains/chains.js";
import type { BasketSelection, TokenAddressInput, PoolSearchAppliedFilters, PoolSearchRequest } from "../api/wire.js";
import type { PoolType } from "../api/snapshot-format.js";
import { POOL_TYPES, sortKeyIndex, type PoolOrderField, type PoolTimeframe } from "../tables/pool-search-index.js";

/** A basket on some chains; `chainIds` null: the default scope (every chain the key may read). */
export interface SideBasket {
  readonly basketId: string;
  readonly chainIds: readonly ChainId[] | null;
}

/** One side as named: tokens (lowercase, unique, ordered) and baskets (unique, ordered). */
export interface SideSpec {
  readonly tokens: readonly { readonly chainId: ChainId; readonly address: string }[];
  readonly baskets: readonly SideBasket[];
}

export type WrappedToNative = "ALWAYS" | "AUTO" | "NEVER";

export interface PoolSearchSpec {
  readonly a: SideSpec;
  /** Null when the request names no side B token or basket. */
  readonly b: SideSpec | null;
  readonly filters: PoolSearchAppliedFilters;
  readonly field: PoolOrderField;
  readonly timeframe: PoolTimeframe;
  readonly descending: boolean;
  readonly wrappedToNative: WrappedToNative;
  readonly useWrappedForNative: boolean;
}

export function toPoolSearchSpec(request: PoolSearchRequest): PoolSearchSpec {
  const f = request.filters ?? {};
  const c = request.config ?? {};
  const hasB = (request.tokensB?.length ?? 0) > 0 || (request.basketsB?.length ?? 0) > 0;
  return {
    a: side(request.tokensA, request.basketsA),
    b: hasB ? side(request.tokensB, request.basketsB) : null,
    filters: {
      minimumTotalValueLockedUsd: f.minimumTotalValueLockedUsd ?? 0,
      protocols: f.protocols ?? [],
      blockedProtocols: f.blockedProtocols ?? [],
      poolTypes: f.poolTypes ?? [],
      blockedPoolTypes: f.blockedPoolTypes ?? [],
    },
    field: c.orderBy?.field ?? "tvl",
    timeframe: c.orderBy?.timeframe ?? "24h",
    descending: (c.orderBy?.direction ?? "desc") === "desc",
    wrappedToNative: c.parseWrappedToNative ?? "AUTO",
    useWrappedForNative: c.useWrappedForNative ?? true,
  };
}

function side(tokens: readonly TokenAddressInput[] = [], baskets: readonly BasketSelection[] = []): SideSpec {
  const byText = new Map<string, { chainId: ChainId; address: string }>();
  for (const t of tokens) {
    const address = t.address.toLowerCase();
    byText.set(`${t.chainId}:${address}`, { chainId: t.chainId, address });
  }
  const basketByText = new Map<string, SideBasket>();
  for (const b of baskets) {
    const chainIds = b.chainIds === undefined || b.chainIds.length === 0 ? null : [...b.chainIds].sort((x, y) => x - y);
    basketByText.set(`${b.basketId}@${chainIds?.join(",") ?? "*"}`, { basketId: b.basketId, chainIds });
  }
  return {
    tokens: [...byText.keys()].sort().map((k) => byText.get(k)!),
    baskets: [...basketByText.keys()].sort().map((k) => basketByText.get(k)!),
  };
}

/** The sort key of the spec's order (pool-search-index.ts). */
export function specSortKey(spec: PoolSearchSpec): number {
  return sortKeyIndex(spec.field, spec.timeframe);
}

/** Bit i set: pool type POOL_TYPES[i] passes the allow-list and the block-list. */
export function poolTypeMask(filters: PoolSearchAppliedFilters): number {
  let mask = 0;
  POOL_TYPES.forEach((type: PoolType, i) => {
    const allowed = filters.poolTypes.length === 0 || filters.poolTypes.includes(type);
    if (allowed && !filters.blockedPoolTypes.includes(type)) mask |= 1 << i;
  });
  return mask;
}

/** Whether a protocol id passes the allow-list and the block-list. */
export function protocolAllowed(filters: PoolSearchAppliedFilters, id: string): boolean {
  return (filters.protocols.length === 0 || filters.protocols.includes(id)) && !filters.blockedProtocols.includes(id);
}

const sortedUnique = (values: readonly string[]) => [...new Set(values)].sort();

/** Canonical text of the effective query: equal for requests that mean the same search (any `limit`). */
export function poolSearchKey(spec: PoolSearchSpec): string {
  const f = spec.filters;
  return JSON.stringify([
    spec.a,
    spec.b,
    f.minimumTotalValueLockedUsd,
    sortedUnique(f.protocols),
    sortedUnique(f.blockedProtocols),
    sortedUnique(f.poolTypes),
    sortedUnique(f.blockedPoolTypes),
    spec.field,
    spec.timeframe,
    spec.descending,
    spec.wrappedToNative,
    spec.useWrappedForNative,
  ]);
}
