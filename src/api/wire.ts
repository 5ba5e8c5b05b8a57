/**
 * Wire types: one TypeScript type per object of the public API
 * (shared/spec/interface-spec.md, api-decisions.md). typia derives the request
 * validators and the OpenAPI schema from these; nothing else describes them.
 */
import type { tags } from "typia";
import type { AccessGroup } from "./access-groups.js";
import type { ChainId } from "../chains/chains.js";
import type { AlgebraMetadata, ConcentratedMetadata, PoolType, V2Metadata, V4Metadata } from "./snapshot-format.js";

// ---------------------------------------------------------------- requests

/** Ordering of the token list. Keep it unchanged while paging with a cursor. */
export interface TokenOrder {
  /** Sort field: the group's TVL, the sum of its instances' tracked TVL in USD. Only TVL exists. @default "tvl" */
  field?: "tvl";
  /** Sort direction of the group TVL; ties are ordered by normalized symbol, ascending, in both directions. @default "desc" */
  direction?: "desc" | "asc";
}

/** Paging, ordering and grouping of the token list. */
export interface MultiChainTokenListConfig {
  /**
   * false: only the highest-TVL instance per chain per symbol (canonical view). true: every instance
   * whose symbol matches and that passes the price and metadata parity checks (more risk of
   * impersonation tokens). @default false
   */
  matchAllSymbols?: boolean;
  /** Page size: the number of entries in one response. @default 10 */
  limit?: number & tags.Type<"int32"> & tags.Minimum<1> & tags.Maximum<500>;
  /** Ordering; changing it while passing a cursor is an INVALID_PAGINATION_CURSOR. */
  orderBy?: TokenOrder;
  /** `nextCursor` of the previous page; null or "" starts from the beginning. */
  cursor?: string | null;
}

/** Which single-chain token instances are eligible for the list. */
export interface MultiChainTokenListFilter {
  /** Restrict to these supported chain ids (unique); empty or absent means every loaded chain. */
  chainIds?: ChainId[] & tags.UniqueItems;
  /** Minimum tracked TVL in USD of each single-chain instance (strictly greater). @default 10000 */
  minimumTotalValuePooledUsd?: number & tags.Minimum<0>;
  /** Minimum cumulative swap count of each instance (strictly greater). @default 1000 */
  minimumSwapsCount?: number & tags.Type<"int64"> & tags.Minimum<0>;
  /** Minimum cumulative tracked swap volume in USD of each instance (strictly greater). @default 100000 */
  minimumSwapVolumeUsd?: number & tags.Minimum<0>;
  /** Leave each chain's wrapped native token out. @default true */
  ignoreWrappedNative?: boolean;
}

/** Body of POST /v1/tokens. Unknown properties, at any depth, are a VALIDATION_ERROR (constraint `whitelist`). */
export interface TokenListRequest {
  /** Paging, ordering and grouping. */
  config?: MultiChainTokenListConfig;
  /** Eligibility thresholds and chains. */
  filters?: MultiChainTokenListFilter;
}

/** Ordering of a multi-chain search. Keep it unchanged while paging with a cursor. */
export interface TokenSearchOrder {
  /**
   * `tvl`: the group's TVL, as in the token list. `relevance`: the group's best tier first (1 a listed
   * member's symbol or normalized symbol equals the term, 2 starts with it, 3 a name or normalized name
   * starts with it or has a word starting with it, 4 any other match), then group TVL desc, then
   * normalized symbol asc. @default "tvl"
   */
  field?: "tvl" | "relevance";
  /** Sort direction of `tvl`; with `relevance` it must be absent or `desc`. @default "desc" */
  direction?: "desc" | "asc";
}

/** Paging, ordering and grouping of a multi-chain search. */
export interface MultiChainTokenSearchConfig {
  /** As in the token list: false keeps the highest-TVL passing instance per chain per symbol. @default false */
  matchAllSymbols?: boolean;
  /** Page size: the number of entries in one response. @default 10 */
  limit?: number & tags.Type<"int32"> & tags.Minimum<1> & tags.Maximum<500>;
  /** Ordering; changing it while passing a cursor is an INVALID_PAGINATION_CURSOR. */
  orderBy?: TokenSearchOrder;
  /** `nextCursor` of the previous page; null or "" starts from the beginning. */
  cursor?: string | null;
}

/** Which single-chain instances a multi-chain search considers (search defaults: everything with some liquidity). */
export interface MultiChainTokenSearchFilter {
  /** Restrict to these supported chain ids (unique); empty or absent means every loaded chain. */
  chainIds?: ChainId[] & tags.UniqueItems;
  /** Minimum tracked TVL in USD of each single-chain instance (strictly greater). @default 0 */
  minimumTotalValuePooledUsd?: number & tags.Minimum<0>;
  /** Minimum cumulative swap count of each instance (strictly greater). @default 0 */
  minimumSwapsCount?: number & tags.Type<"int64"> & tags.Minimum<0>;
  /** Minimum cumulative tracked swap volume in USD of each instance (strictly greater). @default 0 */
  minimumSwapVolumeUsd?: number & tags.Minimum<0>;
  /** Leave each chain's wrapped native token out. @default false */
  ignoreWrappedNative?: boolean;
}

/** Body of POST /v1/tokens/search. Unknown properties, at any depth, are a VALIDATION_ERROR (constraint `whitelist`). */
export interface TokenSearchRequest {
  /**
   * The search term: 1 to 100 characters once trimmed. Matches, case-insensitively and literally, a substring
   * of an instance's symbol, name, normalized symbol or normalized name, or equals its address (`0x` + 40 hex).
   */
  search: string;
  /** Paging, ordering and grouping. */
  config?: MultiChainTokenSearchConfig;
  /** Eligibility thresholds and chains. */
  filters?: MultiChainTokenSearchFilter;
}

/** Ordering of a single-chain list. Keep it unchanged while paging with a cursor. */
export interface SingleChainTokenOrder {
  /** Sort field: the token's tracked TVL in USD. @default "tvl" */
  field?: "tvl";
  /** Sort direction of the TVL; ties are ordered by address, ascending, in both directions. @default "desc" */
  direction?: "desc" | "asc";
}

/** Paging and ordering of a single-chain list. */
export interface SingleChainTokenListConfig {
  /** Page size: the number of tokens in one response. @default 10 */
  limit?: number & tags.Type<"int32"> & tags.Minimum<1> & tags.Maximum<500>;
  /** Ordering; changing it while passing a cursor is an INVALID_PAGINATION_CURSOR. */
  orderBy?: SingleChainTokenOrder;
  /** `nextCursor` of the previous page; null or "" starts from the beginning. */
  cursor?: string | null;
}

/** Which tokens of the chain are listed (the token list's defaults). */
export interface SingleChainTokenListFilter {
  /** Minimum tracked TVL in USD (strictly greater). @default 10000 */
  minimumTotalValuePooledUsd?: number & tags.Minimum<0>;
  /** Minimum cumulative swap count (strictly greater). @default 1000 */
  minimumSwapsCount?: number & tags.Type<"int64"> & tags.Minimum<0>;
  /** Minimum cumulative tracked swap volume in USD (strictly greater). @default 100000 */
  minimumSwapVolumeUsd?: number & tags.Minimum<0>;
  /** Leave the chain's wrapped native token out. @default true */
  ignoreWrappedNative?: boolean;
}

/** Body of POST /v1/tokens/{chainId}. Unknown properties, at any depth, are a VALIDATION_ERROR (constraint `whitelist`). */
export interface SingleChainTokenListRequest {
  /** Paging and ordering. */
  config?: SingleChainTokenListConfig;
  /** Eligibility thresholds. */
  filters?: SingleChainTokenListFilter;
}

/** Ordering of a single-chain search. Keep it unchanged while paging with a cursor. */
export interface SingleChainTokenSearchOrder {
  /**
   * `tvl`: the token's tracked TVL (ties by address asc). `relevance`: the token's tier first (1 its symbol or
   * normalized symbol equals the term, 2 starts with it, 3 its name or normalized name starts with it or has a
   * word starting with it, 4 any other match), then tracked TVL desc, then address asc. @default "tvl"
   */
  field?: "tvl" | "relevance";
  /** Sort direction of `tvl`; with `relevance` it must be absent or `desc`. @default "desc" */
  direction?: "desc" | "asc";
}

/** Paging and ordering of a single-chain search. */
export interface SingleChainTokenSearchConfig {
  /** Page size: the number of tokens in one response. @default 10 */
  limit?: number & tags.Type<"int32"> & tags.Minimum<1> & tags.Maximum<500>;
  /** Ordering; changing it while passing a cursor is an INVALID_PAGINATION_CURSOR. */
  orderBy?: SingleChainTokenSearchOrder;
  /** `nextCursor` of the previous page; null or "" starts from the beginning. */
  cursor?: string | null;
}

/** Which tokens of the chain a search considers (search defaults: everything with some liquidity). */
export interface SingleChainTokenSearchFilter {
  /** Minimum tracked TVL in USD (strictly greater). @default 0 */
  minimumTotalValuePooledUsd?: number & tags.Minimum<0>;
  /** Minimum cumulative swap count (strictly greater). @default 0 */
  minimumSwapsCount?: number & tags.Type<"int64"> & tags.Minimum<0>;
  /** Minimum cumulative tracked swap volume in USD (strictly greater). @default 0 */
  minimumSwapVolumeUsd?: number & tags.Minimum<0>;
  /** Leave the chain's wrapped native token out. @default false */
  ignoreWrappedNative?: boolean;
}

/** Body of POST /v1/tokens/{chainId}/search. Unknown properties, at any depth, are a VALIDATION_ERROR (constraint `whitelist`). */
export interface SingleChainTokenSearchRequest {
  /** The search term, as in POST /v1/tokens/search (1 to 100 characters once trimmed). */
  search: string;
  /** Paging and ordering. */
  config?: SingleChainTokenSearchConfig;
  /** Eligibility thresholds. */
  filters?: SingleChainTokenSearchFilter;
}

/** A token named by chain and address in a request. */
export interface TokenAddressInput {
  /** Supported chain id. */
  chainId: ChainId;
  /** `0x` + 40 hex digits, any letter case (answered in lowercase); the native asset is the all-zero address. */
  address: string & tags.Pattern<"^0[xX][0-9a-fA-F]{40}$">;
}

/** Body of POST /v1/tokens/prices. A malformed address is INVALID_BLOCKCHAIN_ADDRESS (every bad item listed). */
export interface TokenPricesRequest {
  /** The tokens to price, 1 to 100, answered in this order (repeats allowed). */
  tokens: TokenAddressInput[] & tags.MinItems<1> & tags.MaxItems<100>;
}

/** A token basket of the operator's baskets file, on some chains. */
export interface BasketSelection {
  /** Id of a basket (GET /v1/tokens/baskets lists them); an id not in the file is INVALID_BASKET_ID. */
  basketId: string;
  /** The chains whose addresses of the basket count; absent or empty: every chain (for a chain-restricted key, its chains). */
  chainIds?: ChainId[] & tags.UniqueItems;
}

/** Which matching pools are listed. Allow-lists and block-lists both apply. */
export interface PoolSearchFilter {
  /** Minimum pool TVL in USD, inclusive: the pool's tracked TVL when its record has one, else its TVL. @default 0 */
  minimumTotalValueLockedUsd?: number & tags.Minimum<0>;
  /** Only pools of these protocol ids (lowercase slugs, `^[a-z0-9]+(-[a-z0-9]+)*$`, else INVALID_PROTOCOL_ID; an unknown id matches nothing). Absent: every protocol. */
  protocols?: string[];
  /** No pools of these protocol ids (same format as `protocols`). */
  blockedProtocols?: string[];
  /** Only pools of these types. Absent: every type. */
  poolTypes?: PoolType[];
  /** No pools of these types. */
  blockedPoolTypes?: PoolType[];
}

/** Ordering of pool search results: by the field, ties by chain id ascending, then pool address ascending. */
export interface PoolSearchOrder {
  /** `tvl`: pool TVL (tracked when the record has it); `yield`, `volume` (swap volume) and `fees`: of the timeframe's stats. @default "tvl" */
  field?: "tvl" | "yield" | "volume" | "fees";
  /** Direction of the field; the tie-breaks are ascending in both directions. @default "desc" */
  direction?: "desc" | "asc";
  /** The stats period `yield`, `volume` and `fees` are read from (TVL has none). @default "24h" */
  timeframe?: "24h" | "7d" | "30d" | "90d";
}

/** Paging, ordering and the native-token handling of a pool search. */
export interface PoolSearchConfig {
  /** Page size: the number of pools in one response. @default 10 */
  limit?: number & tags.Type<"int32"> & tags.Minimum<1> & tags.Maximum<500>;
  /** Ordering; changing it while passing a cursor is an INVALID_PAGINATION_CURSOR. */
  orderBy?: PoolSearchOrder;
  /** `nextCursor` of the previous page; null or "" starts from the beginning. */
  cursor?: string | null;
  /**
   * How a returned pool shows its chain's wrapped native token (in `tokens` and `balance.tokens`):
   * `ALWAYS` as the native asset (all-zero address, native name and symbol, 18 decimals), `NEVER` as
   * stored, `AUTO` as the native asset only on chains whose all-zero address is in side A or B.
   * @default "AUTO"
   */
  parseWrappedToNative?: "ALWAYS" | "AUTO" | "NEVER";
  /** An all-zero address in a side also adds that chain's wrapped native token to the side. @default true */
  useWrappedForNative?: boolean;
}

/**
 * Body of POST /v1/pools/search. Side A (tokensA and basketsA together) must name at least one
 * token or basket. Without side B, a pool matches when one of its tokens is in A; with side B, when
 * one of its token positions holds an A token and another position a B token. Unknown properties,
 * at any depth, are a VALIDATION_ERROR (constraint `whitelist`).
 */
export interface PoolSearchRequest {
  /** Side A tokens (at most 100). */
  tokensA?: TokenAddressInput[] & tags.MaxItems<100>;
  /** Side A baskets (at most 10): their addresses on their chains join side A. */
  basketsA?: BasketSelection[] & tags.MaxItems<10>;
  /** Side B tokens (at most 100); with basketsB, narrows the search to pairs. */
  tokensB?: TokenAddressInput[] & tags.MaxItems<100>;
  /** Side B baskets (at most 10). */
  basketsB?: BasketSelection[] & tags.MaxItems<10>;
  /** Which matching pools are listed. */
  filters?: PoolSearchFilter;
  /** Paging, ordering, native-token handling. */
  config?: PoolSearchConfig;
}

// ---------------------------------------------------------------- responses

/** A contract address on one chain. */
export interface BlockchainAddress {
  /** Supported chain id. */
  chainId: ChainId;
  /** Lowercase `0x` + 40 hex digits; the native asset is the all-zero address. */
  address: string;
}

/** One asset across chains: its instances grouped by normalized symbol. */
export interface MultiChainTokenMetadata {
  /** The instances' addresses, highest tracked TVL first (ties: lower chain id, then lower address). */
  addresses: BlockchainAddress[];
  /** Symbol of the highest-TVL instance, as read on-chain (e.g. `USD₮0`). */
  symbol: string;
  /** Name of the highest-TVL instance, as read on-chain. */
  name: string;
  /** Logo URL of the highest-TVL instance (from the gateway's URL template when its record has none). */
  logoUrl: string;
  /** The distinct chain ids of `addresses`, in the same order. */
  chainIds: ChainId[];
}

/** `data` of POST /v1/tokens: one page of the list. */
export interface TokenListData {
  /** Entries of this page, ordered by group TVL (see `orderBy`). */
  tokens: MultiChainTokenMetadata[];
  /** Opaque base64url cursor for the next page; null exactly at the end. */
  nextCursor: string | null;
}

/** A token on one chain. Keys in this order. */
export interface SingleChainTokenMetadata {
  /** Supported chain id. */
  chainId: ChainId;
  /** Lowercase `0x` + 40 hex digits; the native asset is the all-zero address. */
  address: string;
  /** ERC-20 decimals. */
  decimals: number;
  /** As read on-chain. */
  name: string;
  /** As read on-chain. */
  symbol: string;
  /** Logo URL (from the gateway's URL template when the token record has none). */
  logoUrl: string;
}

/** A token on one chain with its pooled liquidity. Keys in this order. */
export interface SingleChainTokenInfo extends SingleChainTokenMetadata {
  /** The token's tracked total value pooled, USD. */
  totalValuePooledUsd: number;
}

/** The filters a multi-chain search applied, defaults included. */
export interface EffectiveMultiChainSearchFilter {
  /** The chains searched, ascending. */
  chainIds: ChainId[];
  /** Minimum tracked TVL in USD of each instance (strictly greater). */
  minimumTotalValuePooledUsd: number;
  /** Minimum cumulative swap count of each instance (strictly greater). */
  minimumSwapsCount: number;
  /** Minimum cumulative tracked swap volume in USD of each instance (strictly greater). */
  minimumSwapVolumeUsd: number;
  /** Whether each chain's wrapped native token was left out. */
  ignoreWrappedNative: boolean;
}

/** The filters a single-chain search applied, defaults included. */
export interface EffectiveSingleChainSearchFilter {
  /** Minimum tracked TVL in USD (strictly greater). */
  minimumTotalValuePooledUsd: number;
  /** Minimum cumulative swap count (strictly greater). */
  minimumSwapsCount: number;
  /** Minimum cumulative tracked swap volume in USD (strictly greater). */
  minimumSwapVolumeUsd: number;
  /** Whether the chain's wrapped native token was left out. */
  ignoreWrappedNative: boolean;
}

/** `data` of POST /v1/tokens/search: one page of the matching entries. */
export interface TokenSearchData {
  /** Entries of this page, in the requested order. */
  tokens: MultiChainTokenMetadata[];
  /** The filters applied. */
  filters: EffectiveMultiChainSearchFilter;
  /** Opaque base64url cursor for the next page; null exactly at the end. */
  nextCursor: string | null;
}

/** `data` of POST /v1/tokens/{chainId}: one page of the chain's tokens. */
export interface SingleChainTokenListData {
  /** Tokens of this page, by tracked TVL (ties by address ascending). */
  tokens: SingleChainTokenMetadata[];
  /** Opaque base64url cursor for the next page; null exactly at the end. */
  nextCursor: string | null;
}

/** `data` of POST /v1/tokens/{chainId}/search: one page of the chain's matching tokens. */
export interface SingleChainTokenSearchData {
  /** Tokens of this page, in the requested order. */
  tokens: SingleChainTokenMetadata[];
  /** The filters applied. */
  filters: EffectiveSingleChainSearchFilter;
  /** Opaque base64url cursor for the next page; null exactly at the end. */
  nextCursor: string | null;
}

/** `data` of GET /v1/tokens/{tokenAddress}. */
export interface TokensByAddressData {
  /** The token on every chain in scope that holds this address, by tracked TVL desc, then chain id asc. */
  tokens: SingleChainTokenMetadata[];
}

/** `data` of GET /v1/tokens/{chainId}/{tokenAddress}. */
export interface SingleChainTokenData {
  /** The token. */
  token: SingleChainTokenInfo;
}

/** `data` of GET /v1/tokens/prices/{chainId}/{tokenAddress}/usd. */
export interface TokenPriceData {
  /** The token's tracked USD price (0 is a price: an untrusted one). */
  price: number;
}

/** One token's price in POST /v1/tokens/prices. */
export interface TokenPriceEntry {
  /** As requested. */
  chainId: ChainId;
  /** As requested, in lowercase. */
  address: string;
  /** The tracked USD price; null when the chain's snapshot has no such token. */
  price: number | null;
}

/** `data` of POST /v1/tokens/prices. */
export interface TokenPricesData {
  /** One entry per requested token, in request order. */
  prices: TokenPriceEntry[];
}

/** A basket of the operator's baskets file, on the chains in scope. */
export interface TokenBasket {
  /** The basket id. */
  id: string;
  /** Display name. */
  name: string;
  /** What the basket holds. */
  description: string;
  /** Logo URL of the basket. */
  logoUrl: string;
  /** The chains in scope with at least one address of the basket, ascending. */
  chainIds: ChainId[];
  /** Every address of the basket on the chains in scope: chain ascending, then the file's order. */
  addresses: BlockchainAddress[];
  /** Those addresses that the loaded snapshots hold, by tracked TVL desc, then chain id, then address. */
  tokens: SingleChainTokenMetadata[];
}

/** `data` of GET /v1/tokens/baskets. */
export interface TokenBasketsData {
  /** The baskets with an address in scope, by id. */
  baskets: TokenBasket[];
}

/** `data` of GET /v1/tokens/baskets/{basketId} and GET /v1/tokens/baskets/{chainId}/{basketId}. */
export interface TokenBasketData {
  /** The basket. */
  basket: TokenBasket;
}

/** A token of a pool. */
export interface PoolToken {
  /** Supported chain id. */
  chainId: ChainId;
  /** Lowercase `0x` + 40 hex digits. The native asset is the all-zero address. */
  address: string;
  /** ERC-20 decimals; 18 for the native asset. */
  decimals: number;
  /** As read on-chain; the chain's native name for the native asset. */
  name: string;
  /** As read on-chain; the chain's native symbol for the native asset. */
  symbol: string;
  /** Logo URL (from the gateway's URL template when the token record has none). */
  logoUrl: string;
}

/** The pool's holding of one token. */
export interface PoolBalanceToken {
  /** Decimal-adjusted amount. */
  amount: number;
  /** Value of `amount` in USD. */
  amountUsd: number;
  /** Equal to the pool's `tokens` entry at the same index. */
  token: PoolToken;
}

/** What the pool holds. */
export interface PoolBalance {
  /** Total value locked in the pool, USD. */
  totalValueLockedUsd: number;
  /** One entry per pool token, in the order of the pool's `tokens`. */
  tokens: PoolBalanceToken[];
}

/** Activity of the pool over one period. */
export interface PoolPeriodStats {
  /** Swap fees of the period, USD. */
  feesUsd: number;
  /** Swap volume of the period, USD. */
  swapVolumeUsd: number;
  /** Annualized percent: 12.5 means 12.5 % a year. */
  yield: number;
  /** Liquidity added minus liquidity removed in the period, USD; may be negative. */
  netInflowUsd: number;
  /** Liquidity added plus liquidity removed in the period, USD. */
  liquidityVolumeUsd: number;
}

/** Pool activity over the last 24 hours, 7, 30 and 90 days. */
export interface PoolStatsWire {
  /** The last 24 hours. */
  stats24h: PoolPeriodStats;
  /** The last 7 days. */
  stats7d: PoolPeriodStats;
  /** The last 30 days. */
  stats30d: PoolPeriodStats;
  /** The last 90 days. */
  stats90d: PoolPeriodStats;
}

/** The pool's swap fee. */
export interface FeeTier {
  /** Percent: 0.3 means 0.3 %. */
  feeTierPercentage: number;
  /** True when the pool can change its fee (dynamic-fee pools). */
  isDynamic: boolean;
}

/** A DeFi protocol (DEX) that pools belong to. */
export interface Protocol {
  /** Lowercase slug, e.g. `uniswap-v3`. */
  id: string;
  /** Display name. */
  name: string;
  /** Logo URL. */
  logoUrl: string;
  /** The protocol's web site. */
  url: string;
}

/** What every pool has, whatever its type (`data.pool` keys, in order: chainId, address, createdAtTimestamp, feeTier, tokens, protocol, type, stats, balance, metadata). */
interface PoolCommon {
  /** Supported chain id. */
  chainId: ChainId;
  /** Lowercase: `0x` + 40 hex digits, or `0x` + 64 hex digits for a V4 pool id. */
  address: string;
  /** Creation time of the pool, Unix seconds. */
  createdAtTimestamp: number;
  /** Swap fee. */
  feeTier: FeeTier;
  /** The pool's tokens (two or more). */
  tokens: PoolToken[];
  /** The protocol the pool belongs to. */
  protocol: Protocol;
  /** Activity per period. */
  stats: PoolStatsWire;
  /** Holdings and TVL. */
  balance: PoolBalance;
}

/** A V2 pool: its metadata is the router, as `positionManagerAddress`. */
export interface PoolV2 extends PoolCommon {
  /** Pool type; selects the shape of `metadata`. */
  type: "V2";
  metadata: V2Metadata;
}

/** A V3 or SLIPSTREAM (concentrated-liquidity) pool. */
export interface PoolConcentrated extends PoolCommon {
  /** Pool type; selects the shape of `metadata`. */
  type: "V3" | "SLIPSTREAM";
  metadata: ConcentratedMetadata;
}

/** A V4 pool: concentrated-liquidity fields plus the pool manager, Permit2, state view and hook. */
export interface PoolV4 extends PoolCommon {
  /** Pool type; selects the shape of `metadata`. */
  type: "V4";
  metadata: V4Metadata;
}

/** An ALGEBRA pool: concentrated-liquidity fields plus community fee, deployer, plugin and version. */
export interface PoolAlgebra extends PoolCommon {
  /** Pool type; selects the shape of `metadata`. */
  type: "ALGEBRA";
  metadata: AlgebraMetadata;
}

/**
 * One liquidity pool (`data.pool`). `metadata` has exactly the fields of the pool's `type`; only
 * `stateViewAddress`, `hook` and `plugin` may be null.
 */
export type Pool = PoolV2 | PoolConcentrated | PoolV4 | PoolAlgebra;

/** `data` of GET /v1/pools/{chainId}/{poolAddress}. */
export interface PoolData {
  /** The pool. */
  pool: Pool;
}

/** The filters a pool search applied: every default written out; a list not sent is `[]`. */
export interface PoolSearchAppliedFilters {
  /** Inclusive minimum pool TVL in USD. */
  minimumTotalValueLockedUsd: number;
  /** Allow-list of protocol ids as sent; `[]`: every protocol. */
  protocols: string[];
  /** Block-list of protocol ids as sent. */
  blockedProtocols: string[];
  /** Allow-list of pool types as sent; `[]`: every type. */
  poolTypes: PoolType[];
  /** Block-list of pool types as sent. */
  blockedPoolTypes: PoolType[];
}

/** `data` of POST /v1/pools/search: one page of the matching pools. */
export interface PoolSearchData {
  /** Pools of this page, in `orderBy` order; each is the pool-details `data.pool`, apart from the `parseWrappedToNative` rewrite. */
  pools: Pool[];
  /** The filters applied. */
  filters: PoolSearchAppliedFilters;
  /** Opaque base64url cursor for the next page; null exactly at the end. */
  nextCursor: string | null;
}

/** `data` of GET /v1/protocols. */
export interface ProtocolsData {
  /** Every protocol with a pool in the loaded snapshots, ordered by `id`. */
  protocols: Protocol[];
}

/** Every successful response: the payload in `data`, keys in this order. */
export interface SuccessEnvelope<T> {
  /** HTTP status; always 200. */
  statusCode: 200;
  /** ISO 8601 UTC time of the response. */
  timestamp: string;
  /** The request path, with its query string. */
  path: string;
  /** The request's `x-trace-id` header when it is 1-128 chars of `[A-Za-z0-9._-]`, else a generated id; echoed in the `x-trace-id` response header. */
  traceId: string;
  /** The payload. */
  data: T;
}

/** `error` of the error envelope. */
export interface ErrorBody {
  /** Machine-readable error code; each operation lists the codes it can answer. */
  code: string;
  /** Short title of the code's class. */
  title: string;
  /** One sentence a person can act on. */
  message: string;
  /** A technical hint. */
  details: string;
  /** Context of the error; its members depend on `code`. */
  metadata: Record<string, unknown>;
}

/** Every error response (also named by the `x-error-code` header), keys in this order. */
export interface ErrorEnvelope {
  /** HTTP status of the response. */
  statusCode: number;
  /** ISO 8601 UTC time of the response. */
  timestamp: string;
  /** The request path, with its query string. */
  path: string;
  /** Trace id, as in the success envelope; echoed in the `x-trace-id` response header. */
  traceId: string;
  /** What went wrong. */
  error: ErrorBody;
}

// ---------------------------------------------------------------- named bodies of each route

/** 200 body of POST /v1/tokens. */
export type TokenListResponse = SuccessEnvelope<TokenListData>;

/** 200 body of GET /v1/pools/{chainId}/{poolAddress}. */
export type PoolResponse = SuccessEnvelope<PoolData>;

/** 200 body of POST /v1/pools/search. */
export type PoolSearchResponse = SuccessEnvelope<PoolSearchData>;

/** 200 body of GET /v1/protocols. */
export type ProtocolsResponse = SuccessEnvelope<ProtocolsData>;

/** 200 body of POST /v1/tokens/search. */
export type TokenSearchResponse = SuccessEnvelope<TokenSearchData>;

/** 200 body of POST /v1/tokens/{chainId}. */
export type SingleChainTokenListResponse = SuccessEnvelope<SingleChainTokenListData>;

/** 200 body of POST /v1/tokens/{chainId}/search. */
export type SingleChainTokenSearchResponse = SuccessEnvelope<SingleChainTokenSearchData>;

/** 200 body of GET /v1/tokens/{tokenAddress}. */
export type TokensByAddressResponse = SuccessEnvelope<TokensByAddressData>;

/** 200 body of GET /v1/tokens/{chainId}/{tokenAddress}. */
export type SingleChainTokenResponse = SuccessEnvelope<SingleChainTokenData>;

/** 200 body of GET /v1/tokens/prices/{chainId}/{tokenAddress}/usd. */
export type TokenPriceResponse = SuccessEnvelope<TokenPriceData>;

/** 200 body of POST /v1/tokens/prices. */
export type TokenPricesResponse = SuccessEnvelope<TokenPricesData>;

/** 200 body of GET /v1/tokens/baskets. */
export type TokenBasketsResponse = SuccessEnvelope<TokenBasketsData>;

/** 200 body of GET /v1/tokens/baskets/{basketId} and GET /v1/tokens/baskets/{chainId}/{basketId}. */
export type TokenBasketResponse = SuccessEnvelope<TokenBasketData>;

/** A supported chain id, written in base 10 without sign or leading zeros. */
type PathChainId = ChainId;

/** A token address in a path: `0x` + 40 hex digits, any letter case. */
type PathTokenAddress = string & tags.Pattern<"^0[xX][0-9a-fA-F]{40}$">;

/** Path parameters of POST /v1/tokens/{chainId} and POST /v1/tokens/{chainId}/search. */
export interface ChainPathParameters {
  /**
   * Supported chain id, written in base 10 without sign or leading zeros (otherwise a VALIDATION_ERROR on
   * `chainId`; a canonical but unsupported id is UNSUPPORTED_CHAIN_ID).
   */
  chainId: PathChainId;
}

/** Path parameters of GET /v1/tokens/{tokenAddress}. */
export interface TokenAddressPathParameters {
  /**
   * Token address: `0x` + 40 hex digits, any letter case, answered in lowercase (otherwise a VALIDATION_ERROR on
   * `tokenAddress`, constraint `isEthereumAddress`).
   */
  tokenAddress: PathTokenAddress;
}

/** Path parameters of GET /v1/tokens/{chainId}/{tokenAddress} and GET /v1/tokens/prices/{chainId}/{tokenAddress}/usd. */
export interface ChainTokenPathParameters {
  /**
   * Supported chain id, written in base 10 without sign or leading zeros (otherwise a VALIDATION_ERROR on
   * `chainId`; a canonical but unsupported id is UNSUPPORTED_CHAIN_ID).
   */
  chainId: PathChainId;
  /**
   * Token address: `0x` + 40 hex digits, any letter case, answered in lowercase (otherwise a VALIDATION_ERROR on
   * `tokenAddress`, constraint `isEthereumAddress`).
   */
  tokenAddress: PathTokenAddress;
}

/** Path parameters of GET /v1/tokens/baskets/{basketId}. */
export interface BasketPathParameters {
  /** A basket id of the operator's baskets file (otherwise INVALID_BASKET_ID). */
  basketId: string;
}

/** Path parameters of GET /v1/tokens/baskets/{chainId}/{basketId}. */
export interface ChainBasketPathParameters {
  /**
   * Supported chain id, written in base 10 without sign or leading zeros (otherwise a VALIDATION_ERROR on
   * `chainId`; a canonical but unsupported id is UNSUPPORTED_CHAIN_ID).
   */
  chainId: PathChainId;
  /** A basket id of the operator's baskets file (otherwise INVALID_BASKET_ID). */
  basketId: string;
}

/**
 * Query parameters of GET /v1/tokens/{tokenAddress}. Lists are written `chainIds=1,8453`,
 * `chainIds=1&chainIds=8453` or `chainIds[]=1&chainIds[]=8453`; an unknown parameter is a VALIDATION_ERROR (`whitelist`).
 */
export interface TokensByAddressQuery {
  /** Only these supported chains (unique); absent: every loaded chain the key may read. */
  chainIds?: ChainId[] & tags.UniqueItems;
}

/**
 * Query parameters of GET /v1/tokens/baskets. Lists are written `a=1,2`, `a=1&a=2` or `a[]=1&a[]=2`; an unknown
 * parameter is a VALIDATION_ERROR (`whitelist`).
 */
export interface TokenBasketsQuery {
  /** The chains in scope (unique); absent: every supported chain the key may read. */
  chainIds?: ChainId[] & tags.UniqueItems;
  /** Only these baskets (unique); an id not in the baskets file is INVALID_BASKET_ID. Absent: every basket. */
  basketIds?: string[] & tags.UniqueItems;
}

/**
 * Query parameters of GET /v1/tokens/baskets/{basketId}. Lists are written `a=1,2`, `a=1&a=2` or `a[]=1&a[]=2`;
 * an unknown parameter is a VALIDATION_ERROR (`whitelist`).
 */
export interface TokenBasketQuery {
  /** The chains in scope (unique); absent: every supported chain the key may read. */
  chainIds?: ChainId[] & tags.UniqueItems;
}

/** Routes without query parameters: any parameter is a VALIDATION_ERROR (`whitelist`). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- an object without properties: validateEquals refuses any
export interface NoQueryParameters {}

/** Path parameters of GET /v1/pools/{chainId}/{poolAddress}. */
export interface PoolPathParameters {
  /**
   * Supported chain id, written in base 10 without sign or leading zeros (otherwise a
   * VALIDATION_ERROR on `chainId`; a canonical but unsupported id is UNSUPPORTED_CHAIN_ID).
   */
  chainId: ChainId;
  /**
   * Pool contract address (`0x` + 40 hex digits) or V4 pool id (`0x` + 64 hex digits), any letter
   * case, matched case-insensitively (otherwise INVALID_POOL_ADDRESS).
   */
  poolAddress: string & tags.Pattern<"^0[xX](?:[0-9a-fA-F]{40}|[0-9a-fA-F]{64})$">;
}

/** Path parameters of GET /docs/assets/{file}. */
export interface DocsAssetPathParameters {
  /** A file of the page's bundle, as GET /docs names it (otherwise ROUTE_NOT_FOUND). */
  file: string & tags.Pattern<"^[A-Za-z0-9][A-Za-z0-9._-]*$">;
}

/** 200 body of GET /health: the process is up. Not enveloped. */
export interface HealthResponse {
  status: "ok";
}

/** Body of GET /ready (200 when ready, else 503). Not enveloped. */
export interface ReadinessResponse {
  /**
   * True once the snapshot files present at start have loaded or been rejected, unless the quota
   * store is Redis with `QUOTA_FAILURE=closed` and the answering serving thread cannot reach it
   * (such an instance answers keyed routes 503, so it is not ready).
   */
  ready: boolean;
  /** Version of the served snapshot (the `x-snapshot-version` header of data responses); null before any has loaded. */
  version: (string & tags.Pattern<"^[0-9a-f]{12}$">) | null;
  /** Chain ids of the loaded chains. */
  chains: ChainId[];
  quotaStore: QuotaStoreStatus;
  /**
   * The instance's position (live.md §12): every loaded chain's latest change-set id, to pass as `since`
   * (GET /v1/changes, GET /v1/stream); null before any chain has loaded.
   */
  position: StreamPosition | null;
}

/** Where per-key quotas and failed-authentication counts are kept, as seen by the serving thread that answered. */
export interface QuotaStoreStatus {
  /** `memory`: this instance's counters (exact across its threads); `redis`: counters shared by every instance on the same Redis. */
  kind: "memory" | "redis";
  /** `local` for memory; for redis, `connected` when this thread counts in Redis, `unavailable` when `onFailure` applies. */
  state: "local" | "connected" | "unavailable";
  /** What happens while Redis is unavailable: `open` counts on this instance's own counters, `closed` answers 503; null for memory. */
  onFailure: "open" | "closed" | null;
}

// ---------------------------------------------------------------- live data (live.md §12-§15)

/**
 * A position (live.md §12): opaque, base64url without padding. It names, for each chain, the id of the last
 * change set a client has seen; it is derived from file contents only, so every instance that served the same
 * files gives and accepts the same positions. A malformed one is INVALID_POSITION.
 */
export type StreamPosition = string & tags.Pattern<"^[A-Za-z0-9_-]{2,151}$">;

/** A change-set id: `<generatedAt>.<first 12 hex digits of the chain file's SHA-256>`. */
export type ChangeSetId = string & tags.Pattern<"^(0|[1-9][0-9]*)\\.[0-9a-f]{12}$">;

/** The addresses of one kind of record a change set touched: lowercase, each list sorted ascending. */
export interface ChangeLists {
  /** New records, and records whose JSON differs in any field. */
  upserted: string[];
  /** Records no longer in the chain's file. */
  removed: string[];
}

/**
 * `changes` event (topics `changes`, `changes:<chainId>`): one chain file started being served. Keys in this
 * order; the four counts are present only when `truncated` is true (the lists are then empty: page through
 * GET /v1/changes).
 */
export interface ChangesEvent {
  type: "changes";
  /** The position after this event (the SSE `id`). */
  position: StreamPosition;
  /** The chain. */
  chainId: ChainId;
  /** This change set. */
  id: ChangeSetId;
  /** The change set it follows; null on the chain's first load (every address upserted). */
  previous: ChangeSetId | null;
  /** `generatedAt` of the chain file, Unix seconds. */
  generatedAt: number & tags.Type<"int64"> & tags.Minimum<0>;
  /** `blockNumber` of the chain file; null when the file has none. */
  blockNumber: (number & tags.Type<"uint64">) | null;
  /** When this gateway started serving it: ISO 8601 UTC with milliseconds. */
  servedAt: string & tags.Format<"date-time">;
  /** The snapshot version that started serving it (as `x-snapshot-version`). */
  snapshotVersion: string & tags.Pattern<"^[0-9a-f]{12}$">;
  /** Pools whose pool-details JSON (`GET /v1/pools/{chainId}/{poolAddress}` `data.pool`) is new or changed, and pools removed. */
  pools: ChangeLists;
  /** Tokens whose single-chain JSON (`GET /v1/tokens/{chainId}/{tokenAddress}` `data.token`), or tracked price, is new or changed, and tokens removed. */
  tokens: ChangeLists;
  /** Count of `pools.upserted` (only when truncated). */
  poolsUpserted?: number & tags.Type<"uint32">;
  /** Count of `pools.removed` (only when truncated). */
  poolsRemoved?: number & tags.Type<"uint32">;
  /** Count of `tokens.upserted` (only when truncated). */
  tokensUpserted?: number & tags.Type<"uint32">;
  /** Count of `tokens.removed` (only when truncated). */
  tokensRemoved?: number & tags.Type<"uint32">;
  /** True when a list was longer than the stream sends (STREAM_MAX_ADDRESSES): the lists are empty and the counts present. */
  truncated: boolean;
}

/** `pool` event (topic `pool:<chainId>:<poolAddress>`): the pool was upserted or removed. */
export interface PoolEvent {
  type: "pool";
  /** The position after this event. */
  position: StreamPosition;
  chainId: ChainId;
  /** Lowercase pool address (or V4 pool id). */
  address: string;
  /** The pool as `GET /v1/pools/{chainId}/{poolAddress}` answers it now (`data.pool`); null when removed. */
  pool: Pool | null;
  /** True when the pool is no longer in the chain's file. */
  removed: boolean;
}

/** `token` event (topic `token:<chainId>:<tokenAddress>`): the token was upserted or removed. */
export interface TokenEvent {
  type: "token";
  /** The position after this event. */
  position: StreamPosition;
  chainId: ChainId;
  /** Lowercase token address. */
  address: string;
  /** The token as `GET /v1/tokens/{chainId}/{tokenAddress}` answers it now (`data.token`); null when removed. */
  token: SingleChainTokenInfo | null;
  /** True when the token is no longer in the chain's file. */
  removed: boolean;
}

/** `resync` event: the chain's missed change sets are not known here; re-read it through the REST routes, then continue from `position`. */
export interface ResyncEvent {
  type: "resync";
  chainId: ChainId;
  /** The position to continue from once the chain is re-read. */
  position: StreamPosition;
}

/** `subscribed` event: the first event of every stream, and the answer to each subscribe/unsubscribe message. */
export interface SubscribedEvent {
  type: "subscribed";
  /** Every topic the connection holds now, lowercase. */
  topics: string[];
  /** The current position (of the stream: replayed events follow this event). */
  position: StreamPosition;
}

/** `error` event: a bad message or topic on an open WebSocket (the connection stays open). */
export interface ErrorEvent {
  type: "error";
  /** The usual error object. */
  error: ErrorBody;
}

/** Every event of GET /v1/stream. */
export type StreamEvent = ChangesEvent | PoolEvent | TokenEvent | ResyncEvent | SubscribedEvent | ErrorEvent;

/** A WebSocket client message. Unknown properties are a VALIDATION_ERROR (`whitelist`), answered as an `error` event. */
export interface StreamClientMessage {
  /** Add these topics to the connection, or remove them. */
  op: "subscribe" | "unsubscribe";
  /** Topics: `changes`, `changes:<chainId>`, `pool:<chainId>:<poolAddress>`, `token:<chainId>:<tokenAddress>` (case-insensitive). */
  topics: string[];
}

/** One address of one change set, in GET /v1/changes. Keys in this order. */
export interface ChangeEntry {
  chainId: ChainId;
  /** The change set. */
  id: ChangeSetId;
  /** The change set it follows; null on the chain's first load. */
  previous: ChangeSetId | null;
  /** `generatedAt` of the chain file, Unix seconds. */
  generatedAt: number & tags.Type<"int64"> & tags.Minimum<0>;
  /** When this gateway started serving the change set: ISO 8601 UTC with milliseconds. */
  servedAt: string & tags.Format<"date-time">;
  /** A pool (re-read it with GET /v1/pools/{chainId}/{address}) or a token (GET /v1/tokens/{chainId}/{address}). */
  kind: "pool" | "token";
  /** Lowercase address. */
  address: string;
  /** `upserted`: new or changed, re-read it; `removed`: no longer in the chain's file, drop it. */
  change: "upserted" | "removed";
}

/** `data` of GET /v1/changes: one page of the change sets served after `since`. */
export interface ChangesData {
  /** Chain id ascending, then change-set order, then pools before tokens, upserted before removed, address ascending. */
  changes: ChangeEntry[];
  /** Chains whose missed change sets are not known here (rollback, or history too short): re-read them through the REST routes. */
  resync: ChainId[];
  /** Where to resume once every page is read (the same on every page of a walk). */
  position: StreamPosition;
  /** Opaque cursor of the next page; null exactly at the end. */
  nextCursor: string | null;
}

/** The freshness of one loaded chain, in GET /v1/status. */
export interface ChainStatus {
  chainId: ChainId;
  /** `generatedAt` of the served file, Unix seconds. */
  generatedAt: number & tags.Type<"int64"> & tags.Minimum<0>;
  /** `blockNumber` of the served file; null when it has none. */
  blockNumber: (number & tags.Type<"uint64">) | null;
  /** When this gateway started serving it: ISO 8601 UTC with milliseconds. */
  servedAt: string & tags.Format<"date-time">;
  /** Whole seconds from `generatedAt` to now (0 when `generatedAt` is ahead of this server's clock). */
  ageSeconds: number & tags.Type<"uint64">;
  /** The served file's change-set id. */
  id: ChangeSetId;
  /** Pools of the served file. */
  pools: number & tags.Type<"uint32">;
  /** Tokens of the served file. */
  tokens: number & tags.Type<"uint32">;
}

/** `data` of GET /v1/status. */
export interface StatusData {
  /** The current position over the chains listed. */
  position: StreamPosition;
  /** Every loaded chain the key may read, by chain id. */
  chains: ChainStatus[];
  /** Where this instance pulls its files from and how that goes (fleet.md §20); null without `SNAPSHOT_ORIGIN`. */
  origin: OriginStatus | null;
  /** Where history stands (shared/spec/history.md §25). */
  history: HistoryStatus;
}

// ---------------------------------------------------------------- fleet (fleet.md §16-§21)

type IsoDateTime = string & tags.Format<"date-time">;

/** Why the last poll or generation did not succeed. */
export interface OriginError {
  /**
   * What went wrong: `unreachable`, `timeout`, `too-many-redirects`, `insecure-redirect`, `origin-status` (an answer
   * other than 200/304; S3's code is in the message), `credentials`, `malformed-manifest`, `manifest-too-large`,
   * `unsupported-chain`, `duplicate-file`, `bad-key`, `file-too-large`, `unsigned`, `bad-signature`, `rollback`,
   * `generation-reused`, `expired`, `object-missing`, `object-too-large`, `object-truncated`, `object-hash-mismatch`,
   * `disk-full`, `io`.
   */
  code: string & tags.Pattern<"^[a-z][a-z-]{1,40}$">;
  /** What happened, for people; never a credential. */
  message: string;
  /** When it happened (ISO 8601 UTC). */
  at: IsoDateTime;
}

/** A file of the accepted generation the build did not take (its chain keeps its last good data). */
export interface OriginPartialFile {
  /** `chain-<id>.msgpack`, `baskets`, `keys`. */
  file: string;
  /** Why (the loader's or the reloader's reason). */
  reason: string;
}

/** `origin` of GET /v1/status: the origin this instance pulls from (fleet.md §20). */
export interface OriginStatus {
  kind: "https" | "http" | "s3";
  /** The origin's URL without credentials or query string. */
  url: string;
  /** The generation served (the last accepted); null before any. */
  generation: (number & tags.Type<"uint64">) | null;
  /** SHA-256 of that generation's manifest bytes. */
  manifestSha256: (string & tags.Pattern<"^[0-9a-f]{64}$">) | null;
  /** The manifest's ETag sent as `If-None-Match`; null when the next poll reads it in full. */
  etag: string | null;
  /** `publishedAt` of the served generation. */
  publishedAt: IsoDateTime | null;
  lastPollAt: IsoDateTime | null;
  /** The last poll that ended with the origin's newest generation served (changed or not modified). */
  lastSuccessAt: IsoDateTime | null;
  /** When a new generation was last applied. */
  lastChangeAt: IsoDateTime | null;
  nextPollAt: IsoDateTime | null;
  /** Polls in a row that failed (network, timeout, an error answer). */
  consecutiveFailures: number & tags.Type<"uint32">;
  lastError: OriginError | null;
  /**
   * True while this instance cannot say it serves the origin's newest generation: before a first successful poll
   * (serving its local copy), while polls fail, while the origin's newest manifest is refused, once the served one expired.
   */
  stale: boolean;
  /** Seconds since the last successful poll (since start without one) while stale; 0 otherwise. */
  staleSeconds: number & tags.Type<"uint64">;
  /** The origin's clock minus this server's, from the last answer's `Date` (whole-second resolution), ms; null before any. */
  clockSkewMs: (number & tags.Type<"int64">) | null;
  /** The key that signed the served manifest; null when unsigned or not checked. */
  signature: { keyId: string } | null;
  /** Files of the served generation the build or a reloader rejected: their chains keep their last good data. */
  partial: OriginPartialFile[];
}

/** One instance in GET /v1/status/fleet, as it last wrote itself into Redis. */
export interface FleetInstance {
  /** INSTANCE_ID (default `<host name>:<port>`). */
  instanceId: string;
  /** The generation it serves; null before any. */
  generation: (number & tags.Type<"uint64">) | null;
  /** Generations it is behind the newest one any live instance serves. */
  behind: number & tags.Type<"uint64">;
  /** Its position (live.md §12); null before any chain has loaded. */
  position: StreamPosition | null;
  /** When it applied its generation. */
  appliedAt: IsoDateTime | null;
  /** Its origin's last error, when its last poll or generation failed. */
  lastError: OriginError | null;
  /** When it last wrote itself (it does after every poll; an instance silent for 3 poll intervals drops out). */
  reportedAt: IsoDateTime;
}

/** `data` of GET /v1/status/fleet (fleet.md §20). */
export interface FleetData {
  /** The newest generation a live instance serves; null when none serves one. */
  newestGeneration: (number & tags.Type<"uint64">) | null;
  /** Newest minus oldest generation among the live instances (0: every instance serves the same). */
  generationSkew: number & tags.Type<"uint64">;
  /** Whether every live instance gives the same position. */
  samePosition: boolean;
  /** The live instances, by id. */
  instances: FleetInstance[];
}

/** 200 body of GET /v1/status/fleet. */
export type FleetStatusResponse = SuccessEnvelope<FleetData>;

/** 200 body of GET /v1/changes. */
export type ChangesResponse = SuccessEnvelope<ChangesData>;

/** 200 body of GET /v1/status. */
export type StatusResponse = SuccessEnvelope<StatusData>;

/**
 * Query parameters of GET /v1/changes. `chainIds` is written `chainIds=1,8453`, `chainIds=1&chainIds=8453` or
 * `chainIds[]=1&chainIds[]=8453`; an unknown parameter is a VALIDATION_ERROR (`whitelist`).
 */
export interface ChangesQuery {
  /** The position to read from (`position` of GET /v1/status, of a `subscribed` event or of a previous walk); a malformed one is INVALID_POSITION. */
  since: string;
  /** Only these supported chains (unique); absent: every loaded chain the key may read. A position naming other chains is fine. */
  chainIds?: ChainId[] & tags.UniqueItems;
  /** Entries per page. @default 1000 */
  limit?: number & tags.Type<"int32"> & tags.Minimum<1> & tags.Maximum<10000>;
  /** `nextCursor` of the previous page (with the same `since` and `chainIds`); absent or empty: the first page. */
  cursor?: string;
}

/**
 * Query parameters of GET /v1/stream. `topics` is written `topics=a,b`, `topics=a&topics=b` or `topics[]=a`; an
 * unknown parameter is a VALIDATION_ERROR (`whitelist`).
 */
export interface StreamQuery {
  /** Topics to subscribe to at once: `changes`, `changes:<chainId>`, `pool:<chainId>:<poolAddress>`, `token:<chainId>:<tokenAddress>`. */
  topics?: string[];
  /** Replay what was served after this position (SSE: `Last-Event-ID` wins over it); a malformed one is INVALID_POSITION. */
  since?: string;
}

/** Request headers GET /v1/stream reads besides those of every route (and `Accept`, which selects server-sent events). */
export interface StreamRequestHeaders {
  /**
   * `websocket`, with the rest of a WebSocket handshake (RFC 6455 §4.2.1: `Connection: Upgrade`, `Sec-WebSocket-Key`,
   * `Sec-WebSocket-Version: 13`): opens a WebSocket (101) instead of server-sent events. A request whose Upgrade does
   * not list `websocket` (absent, `h2c`, …) is an ordinary GET: server-sent events, or 406.
   */
  Upgrade?: string;
  /** WebSocket handshake: 16 random bytes in base64 (24 characters); any other value is 400 INVALID_WEBSOCKET_HANDSHAKE. */
  "Sec-WebSocket-Key"?: string;
  /** WebSocket handshake: `13`; another version is 426 UNSUPPORTED_WEBSOCKET_VERSION, none is 400 INVALID_WEBSOCKET_HANDSHAKE. */
  "Sec-WebSocket-Version"?: string;
  /**
   * Server-sent events only: the position to resume from (the `id` of the last event processed; EventSource sends
   * it when it reconnects). It wins over `since`; a malformed one is INVALID_POSITION.
   */
  "Last-Event-ID"?: string;
}

/**
 * The HTTP headers of GET /v1/stream's WebSocket handshake (RFC 6455 §4.2.1), besides `Authorization`: the
 * AsyncAPI document's WebSocket binding. They are checked before the key.
 */
export interface WebSocketHandshakeHeaders {
  /** Lists `websocket` (any letter case). A request without it is an ordinary GET (server-sent events, or 406): it is never switched. */
  Upgrade: string;
  /** Lists `Upgrade` (any letter case); otherwise 400 INVALID_WEBSOCKET_HANDSHAKE. */
  Connection: string;
  /** 16 random bytes in base64 (24 characters); otherwise 400 INVALID_WEBSOCKET_HANDSHAKE. */
  "Sec-WebSocket-Key": string & tags.Pattern<"^[A-Za-z0-9+/]{22}==$">;
  /** `13`; another version is 426 UNSUPPORTED_WEBSOCKET_VERSION (with `Sec-WebSocket-Version: 13`), none is 400 INVALID_WEBSOCKET_HANDSHAKE. */
  "Sec-WebSocket-Version": "13";
}

// ---------------------------------------------------------------- headers

/** Request headers every route reads (besides Authorization and Content-Type). */
export interface RequestHeaders {
  /** The trace id to use for this request when it is 1-128 chars of `[A-Za-z0-9._-]`; otherwise the gateway generates one. */
  "x-trace-id"?: string;
  /**
   * Content codings the client accepts, with q-values (RFC 9110 §12.5.3): bodies of at least 1 KiB (configurable)
   * are sent `gzip` or `br` when accepted (gzip preferred among equal q-values); `identity;q=0` without an
   * acceptable coding still gets the body as is.
   */
  "Accept-Encoding"?: string;
  /** ETags of representations the client holds (GET and HEAD): when one matches (weak comparison), the answer is 304 with no body. */
  "If-None-Match"?: string;
}

/** Response headers (integers are written in base 10). */
export interface ResponseHeaders {
  /** The request's trace id (`traceId` of the body); on every response. */
  "x-trace-id": string & tags.Pattern<"^[A-Za-z0-9._-]{1,128}$">;
  /**
   * Version of the snapshot, 8 lowercase hex digits: on every response once a snapshot has loaded
   * (the one being served; for a token page, the one that answered, which stays the same for a
   * cursor's later pages while it is kept).
   */
  "x-snapshot-version": string & tags.Pattern<"^[0-9a-f]{12}$">;
  /**
   * The `generatedAt` (Unix seconds) of the chain file that answered: on every answer about one chain (pool
   * details, the single-chain token routes, a basket on one chain, the price of one token).
   */
  "x-data-generated-at": number & tags.Type<"int64"> & tags.Minimum<0>;
  /** The error's `code`; on every error envelope. */
  "x-error-code": string;
  /** The key's quota: requests per window. */
  "RateLimit-Limit": number & tags.Type<"uint32">;
  /** Requests left in the current window. */
  "RateLimit-Remaining": number & tags.Type<"uint32">;
  /** Seconds until the current window resets. */
  "RateLimit-Reset": number & tags.Type<"uint32"> & tags.Minimum<1>;
  /** Seconds to wait before retrying. */
  "Retry-After": number & tags.Type<"uint32"> & tags.Minimum<1>;
  /** The methods the path allows, comma-separated. */
  Allow: string;
  /**
   * Validator of a GET answer. Enveloped answers: weak, `W/"<snapshot version>-<checksum of data>-<length of data>"`
   * (their `timestamp` and `traceId` differ on every response, so only `data` is validated); bodies sent as they
   * are (the OpenAPI document, /health): strong, of their bytes, with `-gzip`/`-br` for a compressed variant.
   */
  ETag: string & tags.Pattern<'^(W/)?"[0-9a-z-]+"$'>;
  /** `private, no-cache` on authenticated answers (shared caches never keep them), `no-cache` on public ones, `no-store` on errors. */
  "Cache-Control": "private, no-cache" | "no-cache" | "no-store";
  /** `Accept-Encoding` (and `Origin` when CORS lists origins): the answer depends on them. */
  Vary: string;
  /** The body's coding when it is compressed. */
  "Content-Encoding": "gzip" | "br";
  /** CORS (when enabled by the operator): the calling origin, or `*`. */
  "Access-Control-Allow-Origin": string;
  /** CORS (when enabled): the response headers a browser script may read. */
  "Access-Control-Expose-Headers": string;
  /** `no` on an event stream (GET /v1/stream as server-sent events): a reverse proxy that buffers answers (nginx) passes it through as it comes. */
  "X-Accel-Buffering": "no";
  /**
   * On every answer that leaves the connection open: `timeout=5`, the seconds a client may keep the idle
   * connection for another request (the gateway closes idle connections 8-12 s after their last answer).
   */
  "Keep-Alive": string & tags.Pattern<"^timeout=[0-9]+$">;
  /** On a 426 (RFC 9110 §15.5.22): the protocol to retry the request with. */
  Upgrade: "websocket";
  /** On a 426 (RFC 6455 §4.4): the WebSocket version the gateway speaks. */
  "Sec-WebSocket-Version": "13";
}

// ---------------------------------------------------------------- `error.metadata` of each error code

/** Constraint name (`max`, `isInt`, `whitelist`, ...) → messages. */
export interface ValidationConstraints {
  [constraint: string]: string[];
}

export interface ValidationErrorMetadata {
  /**
   * Dotted path of the first failing property in document order, e.g. `config.limit`,
   * `filters.chainIds.1`; `body` when the body is not an object; `chainId` for the path parameter.
   */
  property: string;
  /** The offending value; absent when the property is missing. */
  value?: unknown;
  /** The failed constraint: its name → messages. */
  constraints: ValidationConstraints;
}

export interface MalformedJsonMetadata {
  /** Why the body is not JSON: the parser's message, or `empty body`. */
  reason: string;
}

export interface UnsupportedChainIdMetadata {
  /** The offending chain id, as sent. */
  chainId: number;
  /** Every unsupported chain id of the request. */
  unsupportedIds: number[];
  /** The supported chain ids, ascending. */
  supportedIds: ChainId[];
}

export interface InvalidPoolAddressMetadata {
  /** The path's `poolAddress`, as sent. */
  liquidityPoolAddress: string;
}

export interface InvalidPaginationCursorMetadata {
  /** The `config.cursor` sent. */
  receivedCursor: string;
}

export interface ApiKeyMissingMetadata {
  /** The expected header value: `Bearer <api-key>`. */
  example: string;
}

export interface ApiKeyInvalidMetadata {
  /** What is wrong with the Authorization header (it is never quoted). */
  reason: string;
}

export interface ApiKeyNotFoundMetadata {
  /** The received key, masked: its first 4 and last 3 characters around `...` when longer than 10 characters, else `***`. */
  receivedKey: string;
}

export interface ApiKeyExpiredMetadata {
  /** When the key expired. */
  expiredAt: string & tags.Format<"date-time">;
}

/** API_KEY_FORBIDDEN for a route outside the key's `routes`. */
export interface ApiKeyRouteForbiddenMetadata {
  /** The route asked for. */
  route: AccessGroup;
  /** The routes the key may use. */
  allowedRoutes: AccessGroup[];
}

/** API_KEY_FORBIDDEN for a chain outside the key's `chainIds`. */
export interface ApiKeyChainForbiddenMetadata {
  /** The chain asked for. */
  chainId: ChainId;
  /** The chains the key may read, ascending. */
  allowedChainIds: ChainId[];
}

export interface LiquidityPoolNotFoundMetadata {
  /** The path's `poolAddress`, as sent. */
  liquidityPoolAddress: string;
  /** The path's chain id. */
  chainId: ChainId;
}

export interface InvalidRequestFramingMetadata {
  /** The header that makes the body's length ambiguous. */
  header: "content-length" | "transfer-encoding";
  /** Every value of that header, in order. */
  values: string[];
}

export interface RouteNotFoundMetadata {
  /** The request method. */
  method: string;
}

export interface MethodNotAllowedMetadata {
  /** The methods the path allows (also in the `Allow` header). */
  allowed: string[];
}

export interface PayloadTooLargeMetadata {
  /** The largest accepted body, bytes. */
  maxBytes: number & tags.Type<"uint32">;
}

export interface UnsupportedMediaTypeMetadata {
  /** The request's Content-Type; null when it had none. */
  received: string | null;
}

export interface RateLimitExceededMetadata {
  /** Seconds until the key's quota window resets (also in the `Retry-After` header). */
  retryAfterSeconds: number & tags.Type<"uint32"> & tags.Minimum<1>;
}

export interface QuotaStoreUnavailableMetadata {
  /** Seconds after which to retry (also in the `Retry-After` header). */
  retryAfterSeconds: number & tags.Type<"uint32"> & tags.Minimum<1>;
}

export interface FleetViewUnavailableMetadata {
  /** `no-origin` (SNAPSHOT_ORIGIN unset), `no-redis` (QUOTA_STORE is not redis), `redis-unreachable`. */
  reason: "no-origin" | "no-redis" | "redis-unreachable";
}

export interface HistoryUnavailableMetadata {
  /** Why the store cannot be read, e.g. its format, or that the history thread has not created it yet. */
  reason: string;
}

export interface ChainDataUnavailableMetadata {
  /** The chain without data; null when no chain has loaded at all. */
  chainId: ChainId | null;
}

export interface TokenNotFoundMetadata {
  /** The token address, as sent. */
  tokenAddress: string;
  /** The chain searched. */
  chainId: ChainId;
}

/** TOKEN_BASKET_NOT_FOUND on one chain. */
export interface TokenBasketNotFoundOnChainMetadata {
  /** The basket id, as sent. */
  basketId: string;
  /** The chain in scope. */
  chainId: ChainId;
}

/** TOKEN_BASKET_NOT_FOUND on several chains. */
export interface TokenBasketNotFoundOnChainsMetadata {
  /** The basket id, as sent. */
  basketId: string;
  /** The chains in scope, ascending. */
  chainIds: ChainId[];
}

export interface InvalidBasketIdMetadata {
  /** The unknown basket id as sent; the list of unknown ids for the `basketIds` query. */
  basketId: string | string[];
  /** The ids of the operator's baskets file, ascending. */
  supportedIds: string[];
}

/** One malformed address of a request list. */
export interface InvalidAddressItem {
  /** The address as sent (its JSON value when it is not a string). */
  address: unknown;
  /** What is wrong with it. */
  reason: string;
}

export interface InvalidBlockchainAddressMetadata {
  /** Every malformed item of the list, in request order. */
  invalidAddresses: InvalidAddressItem[];
  /** Length of the list the items came from. */
  receivedCount: number & tags.Type<"uint32">;
}

export interface InvalidProtocolIdMetadata {
  /** The protocol id list as sent. */
  received: string[];
  /** The ids that are not lowercase slugs. */
  invalidItems: string[];
}

export interface InvalidWebSocketHandshakeMetadata {
  /** The handshake field at fault (the first, in the order RFC 6455 §4.2.1 lists them). */
  header: "Connection" | "Sec-WebSocket-Key" | "Sec-WebSocket-Version";
  /** Its value as sent (the first 200 characters); null when it was absent. */
  value: string | null;
}

export interface UnsupportedWebSocketVersionMetadata {
  /** The `Sec-WebSocket-Version` the request named. */
  version: string;
  /** The versions the gateway speaks (also its `Sec-WebSocket-Version` header). */
  supportedVersions: string[];
}

export interface InvalidPositionMetadata {
  /** The position as sent (`since`, or the `Last-Event-ID` header of an SSE request). */
  position: string;
}

export interface NotAcceptableMetadata {
  /** The request's Accept header; null when it had none. */
  accept: string | null;
}

/** An empty object: the code carries no context. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- an object without properties
export interface NoErrorMetadata {}

/** `error.metadata` of every error code (api-decisions.md §1). */
export interface ErrorMetadataByCode {
  VALIDATION_ERROR: ValidationErrorMetadata;
  MALFORMED_JSON: MalformedJsonMetadata;
  UNSUPPORTED_CHAIN_ID: UnsupportedChainIdMetadata;
  INVALID_POOL_ADDRESS: InvalidPoolAddressMetadata;
  INVALID_PAGINATION_CURSOR: InvalidPaginationCursorMetadata;
  INVALID_BLOCKCHAIN_ADDRESS: InvalidBlockchainAddressMetadata;
  INVALID_BASKET_ID: InvalidBasketIdMetadata;
  INVALID_PROTOCOL_ID: InvalidProtocolIdMetadata;
  INVALID_REQUEST_FRAMING: InvalidRequestFramingMetadata;
  INVALID_POSITION: InvalidPositionMetadata;
  INVALID_WEBSOCKET_HANDSHAKE: InvalidWebSocketHandshakeMetadata;
  API_KEY_MISSING: ApiKeyMissingMetadata;
  API_KEY_INVALID: ApiKeyInvalidMetadata;
  API_KEY_NOT_FOUND: ApiKeyNotFoundMetadata;
  API_KEY_DISABLED: NoErrorMetadata;
  API_KEY_EXPIRED: ApiKeyExpiredMetadata;
  API_KEY_FORBIDDEN: ApiKeyRouteForbiddenMetadata | ApiKeyChainForbiddenMetadata;
  LIQUIDITY_POOL_NOT_FOUND: LiquidityPoolNotFoundMetadata;
  TOKEN_NOT_FOUND: TokenNotFoundMetadata;
  TOKEN_BASKET_NOT_FOUND: TokenBasketNotFoundOnChainMetadata | TokenBasketNotFoundOnChainsMetadata;
  HISTORY_DISABLED: NoErrorMetadata;
  ROUTE_NOT_FOUND: RouteNotFoundMetadata;
  METHOD_NOT_ALLOWED: MethodNotAllowedMetadata;
  NOT_ACCEPTABLE: NotAcceptableMetadata;
  UNSUPPORTED_WEBSOCKET_VERSION: UnsupportedWebSocketVersionMetadata;
  PAYLOAD_TOO_LARGE: PayloadTooLargeMetadata;
  UNSUPPORTED_MEDIA_TYPE: UnsupportedMediaTypeMetadata;
  RATE_LIMIT_EXCEEDED: RateLimitExceededMetadata;
  CHAIN_DATA_UNAVAILABLE: ChainDataUnavailableMetadata;
  QUOTA_STORE_UNAVAILABLE: QuotaStoreUnavailableMetadata;
  FLEET_VIEW_UNAVAILABLE: FleetViewUnavailableMetadata;
  HISTORY_UNAVAILABLE: HistoryUnavailableMetadata;
  UNKNOWN_ERROR: NoErrorMetadata;
}

// ---- History (shared/spec/history.md §22-§25; docs/history.md)

/** Timeframes of the history routes: buckets of `aggregate` minutes, hours or days, aligned to UTC. */
export type HistoryTimeframe = "minute" | "hour" | "day";

/**
 * Query parameters of the history bucket routes (GET /v1/history/tokens/…/ohlcv/{timeframe}, GET
 * /v1/history/pools/…/{timeframe}). An unknown parameter is a VALIDATION_ERROR (`whitelist`).
 */
export interface HistoryQuery {
  /** Bucket width in timeframe units: minute 1, 5 or 15; hour 1, 4 or 12; day 1 (else VALIDATION_ERROR on `aggregate`). @default 1 */
  aggregate?: number & tags.Type<"uint32"> & tags.Minimum<1> & tags.Maximum<15>;
  /** Only buckets starting before this time (Unix seconds, exclusive): pages back. Absent: up to the latest. */
  before?: number & tags.Type<"int64"> & tags.Minimum<0> & tags.Maximum<4294967295>;
  /** Most buckets answered. @default 100 */
  limit?: number & tags.Type<"uint32"> & tags.Minimum<1> & tags.Maximum<1000>;
  /** `previous`: a bucket without observation (and without any file of the chain) carries the previous close, listed in `filled`. @default none */
  fill?: "none" | "previous";
}

/** What the buckets answered cover. */
export interface HistoryCoverage {
  /** Start of the oldest bucket answered when `limit` were found, else where the kept history starts (Unix seconds). */
  from: number & tags.Type<"int64">;
  /** End of the newest bucket that could be answered (Unix seconds, exclusive). */
  to: number & tags.Type<"int64">;
  /** Observations of the entity in the buckets answered. */
  observations: number & tags.Type<"uint32">;
  /** Spans no observation of this instance covers (it was down, or a file was lost): [last observation before, first after]. */
  gaps: [number, number][];
}

/** `data` of GET /v1/history/tokens/{chainId}/{tokenAddress}/ohlcv/{timeframe}. */
export interface TokenOhlcvData {
  chainId: ChainId;
  /** Lowercase. */
  address: string;
  timeframe: HistoryTimeframe;
  aggregate: number & tags.Type<"uint32">;
  /** Always `snapshots`: sampled from the served files, not built from trades. */
  source: "snapshots";
  /** Newest first: [bucket start (Unix seconds), open, high, low, close (USD price), pooled value at the close (USD)]. */
  candles: [number, number, number, number, number, number][];
  /** Starts of the buckets of `candles` that carry the previous close (`fill=previous`). */
  filled: number[];
  coverage: HistoryCoverage;
}

/** `data` of GET /v1/history/pools/{chainId}/{poolAddress}/{timeframe}. */
export interface PoolHistoryData {
  chainId: ChainId;
  /** Lowercase. */
  address: string;
  timeframe: HistoryTimeframe;
  aggregate: number & tags.Type<"uint32">;
  /** Always `snapshots`: sampled from the served files, not built from trades. */
  source: "snapshots";
  /** Newest first: [bucket start, TVL, volume 24h, fees 24h, yield 24h] at the bucket's last observation (rolling 24-hour windows as the files state them). */
  rows: [number, number, number, number, number][];
  /** Starts of the buckets of `rows` that carry the previous values (`fill=previous`). */
  filled: number[];
  coverage: HistoryCoverage;
}

/** Body of POST /v1/history/tokens/prices. */
export interface HistoricalPricesRequest {
  /** The time asked about (Unix seconds). */
  at: number & tags.Type<"int64"> & tags.Minimum<0> & tags.Maximum<4294967295>;
  /** 1 to 100 tokens, answered in this order. */
  tokens: TokenAddressInput[] & tags.MinItems<1> & tags.MaxItems<100>;
}

/** A token's price at a time: its last observation at or before it. */
export interface HistoricalPrice {
  chainId: ChainId;
  /** Lowercase. */
  address: string;
  /** USD price (`trackedUsdPrice`) as observed. */
  price: number;
  /** generatedAt of the file it was observed in (Unix seconds). */
  observedAt: number & tags.Type<"int64">;
}

/** `data` of POST /v1/history/tokens/prices. */
export interface HistoricalPricesData {
  at: number & tags.Type<"int64">;
  /** In request order; null: no observation of the token at or before `at` in what history keeps. */
  prices: (HistoricalPrice | null)[];
}

/** Path parameters of the token OHLCV route. */
export interface TokenHistoryPathParameters {
  chainId: ChainId;
  /** `0x` + 40 hex digits, any letter case. */
  tokenAddress: string & tags.Pattern<"^0[xX][0-9a-fA-F]{40}$">;
  timeframe: HistoryTimeframe;
}

/** Path parameters of the pool history route. */
export interface PoolHistoryPathParameters {
  chainId: ChainId;
  /** Pool contract address (`0x` + 40 hex digits) or V4 pool id (`0x` + 64 hex digits), any letter case. */
  poolAddress: string & tags.Pattern<"^0[xX](?:[0-9a-fA-F]{40}|[0-9a-fA-F]{64})$">;
  timeframe: HistoryTimeframe;
}

/** History's state in GET /v1/status. */
export interface HistoryStatus {
  /** `ok`; `behind` (files wait to be observed); `failed` (the last write failed: full or failing disk; it retries with the next file); `off` (HISTORY=off). */
  state: "ok" | "behind" | "failed" | "off";
  /** generatedAt of the latest file observed (Unix seconds); null: none. */
  lastObservedAt: (number & tags.Type<"int64">) | null;
  /** Bytes of the history store on disk. */
  bytes: number & tags.Type<"uint64">;
}

/** 200 body of GET /v1/history/tokens/{chainId}/{tokenAddress}/ohlcv/{timeframe}. */
export type TokenOhlcvResponse = SuccessEnvelope<TokenOhlcvData>;
/** 200 body of GET /v1/history/pools/{chainId}/{poolAddress}/{timeframe}. */
export type PoolHistoryResponse = SuccessEnvelope<PoolHistoryData>;
/** 200 body of POST /v1/history/tokens/prices. */
export type HistoricalPricesResponse = SuccessEnvelope<HistoricalPricesData>;
