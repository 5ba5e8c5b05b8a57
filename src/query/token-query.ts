/**
 * Token queries with every default applied (interface-spec.md limits,
 * api-extended.md §8), and their canonical keys: two requests that mean the
 * same list share a key (what cursors are bound to and results cached by).
 */
import { SUPPORTED_CHAIN_IDS, type ChainId } from "../chains/chains.js";
import type {
  EffectiveSingleChainSearchFilter,
  MultiChainTokenSearchFilter,
  SingleChainTokenListRequest,
  SingleChainTokenSearchRequest,
  TokenListRequest,
  TokenSearchRequest,
} from "../api/wire.js";

/** The four eligibility thresholds of §3.1. */
export interface TokenFilters {
  readonly minTvl: number;
  readonly minSwaps: number;
  readonly minVolume: number;
  readonly ignoreWrappedNative: boolean;
}

export interface TokenQuery extends TokenFilters {
  /** Requested chains, ascending; empty = every loaded chain. */
  readonly chainIds: readonly ChainId[];
  readonly matchAllSymbols: boolean;
  readonly direction: "desc" | "asc";
}

export type SearchOrder = "tvl" | "relevance";

/** A multi-chain search: the token list query of its filters, the term and the order. */
export interface TokenSearchQuery extends TokenQuery {
  /** The term as sent, trimmed. */
  readonly term: string;
  readonly orderBy: SearchOrder;
}

/** A single-chain list or search. */
export interface SingleChainQuery extends TokenFilters {
  readonly chainId: ChainId;
  readonly direction: "desc" | "asc";
  /** The search term as sent, trimmed; null for the plain list. */
  readonly term: string | null;
  readonly orderBy: SearchOrder;
}

/** The token list's thresholds (§3), also those of single-chain lists. */
export const LIST_FILTER_DEFAULTS: TokenFilters = { minTvl: 10_000, minSwaps: 1_000, minVolume: 100_000, ignoreWrappedNative: true };

/** The thresholds of searches (§8): everything with some liquidity, wrapped native included. */
export const SEARCH_FILTER_DEFAULTS: TokenFilters = { minTvl: 0, minSwaps: 0, minVolume: 0, ignoreWrappedNative: false };

export const DEFAULT_TOKEN_QUERY: TokenQuery = { chainIds: [], ...LIST_FILTER_DEFAULTS, matchAllSymbols: false, direction: "desc" };

type FilterFields = Omit<MultiChainTokenSearchFilter, "chainIds">;

function filtersOf(f: FilterFields | undefined, defaults: TokenFilters): TokenFilters {
  return {
    minTvl: f?.minimumTotalValuePooledUsd ?? defaults.minTvl,
    minSwaps: f?.minimumSwapsCount ?? defaults.minSwaps,
    minVolume: f?.minimumSwapVolumeUsd ?? defaults.minVolume,
    ignoreWrappedNative: f?.ignoreWrappedNative ?? defaults.ignoreWrappedNative,
  };
}

function ascending(chainIds: readonly ChainId[] | undefined): ChainId[] {
  return [...(chainIds ?? [])].sort((a, b) => a - b);
}

/** Applies the defaults to a validated token list request. */
export function toTokenQuery(request: TokenListRequest): TokenQuery {
  const c = request.config ?? {};
  return {
    chainIds: ascending(request.filters?.chainIds),
    ...filtersOf(request.filters, LIST_FILTER_DEFAULTS),
    matchAllSymbols: c.matchAllSymbols ?? DEFAULT_TOKEN_QUERY.matchAllSymbols,
    direction: c.orderBy?.direction ?? DEFAULT_TOKEN_QUERY.direction,
  };
}

/** Applies the defaults to a validated multi-chain search request; `term` is the trimmed search. */
export function toTokenSearchQuery(request: TokenSearchRequest, term: string): TokenSearchQuery {
  const c = request.config ?? {};
  return {
    chainIds: ascending(request.filters?.chainIds),
    ...filtersOf(request.filters, SEARCH_FILTER_DEFAULTS),
    matchAllSymbols: c.matchAllSymbols ?? false,
    direction: c.orderBy?.direction ?? "desc",
    term,
    orderBy: c.orderBy?.field ?? "tvl",
  };
}

/** Applies the defaults to a validated single-chain list (term null) or search request. */
export function toSingleChainQuery(
  chainId: ChainId,
  request: SingleChainTokenListRequest | SingleChainTokenSearchRequest,
  term: string | null,
): SingleChainQuery {
  const orderBy = request.config?.orderBy;
  return {
    chainId,
    ...filtersOf(request.filters, term === null ? LIST_FILTER_DEFAULTS : SEARCH_FILTER_DEFAULTS),
    direction: orderBy?.direction ?? "desc",
    term,
    orderBy: orderBy?.field ?? "tvl",
  };
}

/** The four thresholds as a search answers them (`filters`), in the wire's key order. */
export function filtersEcho(q: TokenFilters): EffectiveSingleChainSearchFilter {
  return {
    minimumTotalValuePooledUsd: q.minTvl,
    minimumSwapsCount: q.minSwaps,
    minimumSwapVolumeUsd: q.minVolume,
    ignoreWrappedNative: q.ignoreWrappedNative,
  };
}

function filtersKey(q: TokenFilters): string {
  return `${q.minTvl}|${q.minSwaps}|${q.minVolume}|${q.ignoreWrappedNative ? 1 : 0}`;
}

/** Canonical text of a token list query. */
export function tokenQueryKey(q: TokenQuery): string {
  return `${q.chainIds.join(",")}|${filtersKey(q)}|${q.matchAllSymbols ? 1 : 0}|${q.direction}`;
}

/** Canonical text of a multi-chain search. */
export function tokenSearchKey(q: TokenSearchQuery): string {
  return `${tokenQueryKey(q)}|${q.orderBy}|${JSON.stringify(q.term)}`;
}

/** Canonical text of a single-chain list or search. */
export function singleChainKey(q: SingleChainQuery): string {
  return `${q.chainId}|${filtersKey(q)}|${q.direction}|${q.orderBy}|${q.term === null ? "-" : JSON.stringify(q.term)}`;
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

/** The bit of one chain. */
export function chainBitOf(chainId: ChainId): number {
  return 1 << SUPPORTED_CHAIN_IDS.indexOf(chainId);
}
