/**
 * A token-list query with every default applied (interface-spec.md limits),
 * and its canonical key: two requests that mean the same list share a key.
 */
import { SUPPORTED_CHAIN_IDS, type ChainId } from "../chains/chains.js";
import type { TokenListRequest } from "../api/wire.js";

export interface TokenQuery {
  /** Requested chains, ascending; empty = every loaded chain. */
  readonly chainIds: readonly ChainId[];
  readonly minTvl: number;
  readonly minSwaps: number;
  readonly minVolume: number;
  readonly ignoreWrappedNative: boolean;
  readonly matchAllSymbols: boolean;
  readonly direction: "desc" | "asc";
}

export const DEFAULT_LIMIT = 10;

export const DEFAULT_TOKEN_QUERY: TokenQuery = {
  chainIds: [],
  minTvl: 10_000,
  minSwaps: 1_000,
  minVolume: 100_000,
  ignoreWrappedNative: true,
  matchAllSymbols: false,
  direction: "desc",
};

/** Applies the defaults to a validated request. */
export function toTokenQuery(request: TokenListRequest): TokenQuery {
  const f = request.filters ?? {};
  const c = request.config ?? {};
  return {
    chainIds: [...(f.chainIds ?? [])].sort((a, b) => a - b),
    minTvl: f.minimumTotalValuePooledUsd ?? DEFAULT_TOKEN_QUERY.minTvl,
    minSwaps: f.minimumSwapsCount ?? DEFAULT_TOKEN_QUERY.minSwaps,
    minVolume: f.minimumSwapVolumeUsd ?? DEFAULT_TOKEN_QUERY.minVolume,
    ignoreWrappedNative: f.ignoreWrappedNative ?? DEFAULT_TOKEN_QUERY.ignoreWrappedNative,
    matchAllSymbols: c.matchAllSymbols ?? DEFAULT_TOKEN_QUERY.matchAllSymbols,
    direction: c.orderBy?.direction ?? DEFAULT_TOKEN_QUERY.direction,
  };
}

/** Canonical text of a query: what cursors are bound to and results are cached by. */
export function tokenQueryKey(q: TokenQuery): string {
  return `${q.chainIds.join(",")}|${q.minTvl}|${q.minSwaps}|${q.minVolume}|${q.ignoreWrappedNative ? 1 : 0}|${q.matchAllSymbols ? 1 : 0}|${q.direction}`;
}

/** Bit mask of chains (positions in SUPPORTED_CHAIN_IDS). */
export function chainMask(chainIds: readonly number[]): number {
  let mask = 0;
  for (const id of chainIds) {
    const bit = SUPPORTED_CHAIN_IDS.indexOf(id as ChainId);
    if (bit >= 0) mask |= 1 << bit;
  }
  return mask;
}
