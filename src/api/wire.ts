/**
 * Wire types: one TypeScript type per object of the public API
 * (shared/spec/interface-spec.md, api-decisions.md). typia derives the request
 * validators and the OpenAPI schema from these; nothing else describes them.
 */
import type { tags } from "typia";
import type { AccessGroup } from "../access/access-groups.js";
import type { ChainId } from "../chains/chains.js";
import type { AlgebraMetadata, ConcentratedMetadata, V2Metadata, V4Metadata } from "../snapshot/format.js";

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

/** 200 body of GET /v1/protocols. */
export type ProtocolsResponse = SuccessEnvelope<ProtocolsData>;

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

/** 200 body of GET /health: the process is up. Not enveloped. */
export interface HealthResponse {
  status: "ok";
}

/** Body of GET /ready (200 when ready, else 503). Not enveloped. */
export interface ReadinessResponse {
  /** True once the snapshot files present at start have loaded or been rejected. */
  ready: boolean;
  /** Version of the served snapshot (the `x-snapshot-version` header of data responses); null before any has loaded. */
  version: (string & tags.Pattern<"^[0-9a-f]{12}$">) | null;
  /** Chain ids of the loaded chains. */
  chains: ChainId[];
}

// ---------------------------------------------------------------- headers

/** Request headers every route reads (besides Authorization and Content-Type). */
export interface RequestHeaders {
  /** The trace id to use for this request when it is 1-128 chars of `[A-Za-z0-9._-]`; otherwise the gateway generates one. */
  "x-trace-id"?: string;
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

export interface ChainDataUnavailableMetadata {
  /** The chain without data; null when no chain has loaded at all. */
  chainId: ChainId | null;
}

/** An empty object: the code carries no context. */
export interface NoErrorMetadata {}

/** `error.metadata` of every error code (api-decisions.md §1). */
export interface ErrorMetadataByCode {
  VALIDATION_ERROR: ValidationErrorMetadata;
  MALFORMED_JSON: MalformedJsonMetadata;
  UNSUPPORTED_CHAIN_ID: UnsupportedChainIdMetadata;
  INVALID_POOL_ADDRESS: InvalidPoolAddressMetadata;
  INVALID_PAGINATION_CURSOR: InvalidPaginationCursorMetadata;
  API_KEY_MISSING: ApiKeyMissingMetadata;
  API_KEY_INVALID: ApiKeyInvalidMetadata;
  API_KEY_NOT_FOUND: ApiKeyNotFoundMetadata;
  API_KEY_DISABLED: NoErrorMetadata;
  API_KEY_EXPIRED: ApiKeyExpiredMetadata;
  API_KEY_FORBIDDEN: ApiKeyRouteForbiddenMetadata | ApiKeyChainForbiddenMetadata;
  LIQUIDITY_POOL_NOT_FOUND: LiquidityPoolNotFoundMetadata;
  ROUTE_NOT_FOUND: RouteNotFoundMetadata;
  METHOD_NOT_ALLOWED: MethodNotAllowedMetadata;
  PAYLOAD_TOO_LARGE: PayloadTooLargeMetadata;
  UNSUPPORTED_MEDIA_TYPE: UnsupportedMediaTypeMetadata;
  RATE_LIMIT_EXCEEDED: RateLimitExceededMetadata;
  CHAIN_DATA_UNAVAILABLE: ChainDataUnavailableMetadata;
  UNKNOWN_ERROR: NoErrorMetadata;
}
