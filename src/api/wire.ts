/**
 * Wire types: one TypeScript type per object of the public API
 * (shared/spec/interface-spec.md, api-decisions.md). typia derives the request
 * validators and the OpenAPI schema from these; nothing else describes them.
 */
import type { tags } from "typia";
import type { ChainId } from "../chains/chains.js";
import type { AlgebraMetadata, ConcentratedMetadata, PoolType, V2Metadata, V4Metadata } from "../snapshot/format.js";

// ---------------------------------------------------------------- requests

export interface TokenOrder {
  /** Sort field. Only TVL exists. @default "tvl" */
  field?: "tvl";
  /** @default "desc" */
  direction?: "desc" | "asc";
}

export interface MultiChainTokenListConfig {
  /** false: one instance per chain per symbol (canonical view). true: every instance that passes parity. @default false */
  matchAllSymbols?: boolean;
  /** Page size. @default 10 */
  limit?: number & tags.Type<"int32"> & tags.Minimum<1> & tags.Maximum<500>;
  orderBy?: TokenOrder;
  /** `nextCursor` of the previous page; null or "" starts from the beginning. */
  cursor?: string | null;
}

export interface MultiChainTokenListFilter {
  /** Restrict to these chains; empty or absent means every loaded chain. */
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

export interface TokenListRequest {
  config?: MultiChainTokenListConfig;
  filters?: MultiChainTokenListFilter;
}

// ---------------------------------------------------------------- responses

export interface BlockchainAddress {
  chainId: ChainId;
  address: string;
}

export interface MultiChainTokenMetadata {
  addresses: BlockchainAddress[];
  symbol: string;
  name: string;
  logoUrl: string;
  chainIds: ChainId[];
}

export interface TokenListData {
  tokens: MultiChainTokenMetadata[];
  /** Opaque base64url cursor for the next page; null exactly at the end. */
  nextCursor: string | null;
}

export interface PoolToken {
  chainId: ChainId;
  /** The native asset is the all-zero address. */
  address: string;
  decimals: number;
  name: string;
  symbol: string;
  logoUrl: string;
}

export interface PoolBalanceToken {
  /** Decimal-adjusted amount. */
  amount: number;
  amountUsd: number;
  token: PoolToken;
}

export interface PoolBalance {
  totalValueLockedUsd: number;
  tokens: PoolBalanceToken[];
}

export interface PoolPeriodStats {
  feesUsd: number;
  swapVolumeUsd: number;
  /** Annualized percent: 12.5 means 12.5 % a year. */
  yield: number;
  /** May be negative. */
  netInflowUsd: number;
  liquidityVolumeUsd: number;
}

export interface PoolStatsWire {
  stats24h: PoolPeriodStats;
  stats7d: PoolPeriodStats;
  stats30d: PoolPeriodStats;
  stats90d: PoolPeriodStats;
}

export interface FeeTier {
  /** Percent: 0.3 means 0.3 %. */
  feeTierPercentage: number;
  isDynamic: boolean;
}

export interface Protocol {
  id: string;
  name: string;
  logoUrl: string;
  url: string;
}

export type PoolMetadata = V2Metadata | ConcentratedMetadata | V4Metadata | AlgebraMetadata;

/** `data.pool`, keys in the order of api-decisions.md §4. */
export interface Pool {
  chainId: ChainId;
  address: string;
  /** Unix seconds. */
  createdAtTimestamp: number;
  feeTier: FeeTier;
  tokens: PoolToken[];
  protocol: Protocol;
  type: PoolType;
  stats: PoolStatsWire;
  balance: PoolBalance;
  metadata: PoolMetadata;
}

export interface PoolData {
  pool: Pool;
}

export interface ProtocolsData {
  protocols: Protocol[];
}

export interface SuccessEnvelope<T> {
  statusCode: 200;
  timestamp: string;
  path: string;
  traceId: string;
  data: T;
}

export interface ErrorBody {
  code: string;
  title: string;
  message: string;
  details: string;
  metadata: Record<string, unknown>;
}

export interface ErrorEnvelope {
  statusCode: number;
  timestamp: string;
  path: string;
  traceId: string;
  error: ErrorBody;
}
