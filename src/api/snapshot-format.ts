/**
 * Snapshot file format 1 (shared/spec/snapshot-format.md): one MessagePack map
 * per chain, pushed by operators as `chain-<chainId>.msgpack`.
 *
 * These types are the format. typia derives the structural validator from them
 * (see validate-snapshot.ts); cross-record rules (unique ids, references, the
 * file name) are checked there too.
 */
import type { tags } from "typia";

export type Address = string & tags.Pattern<"^0x[0-9a-f]{40}$">;
export type PoolAddress = string & tags.Pattern<"^0x(?:[0-9a-f]{40}|[0-9a-f]{64})$">;
/** A number >= 0. typia accepts NaN and ±Infinity; validate-snapshot.ts rejects every non-finite number. */
export type NonNegative = number & tags.Minimum<0>;
export type NonNegativeInt = number & tags.Type<"uint64">;
export type UnixSeconds = number & tags.Type<"int64">;
export type IntegerString = string & tags.Pattern<"^-?[0-9]+$">;
export type UnsignedIntegerString = string & tags.Pattern<"^[0-9]+$">;

export type PoolType = "V2" | "V3" | "V4" | "ALGEBRA" | "SLIPSTREAM";

export interface SnapshotFile {
  format: "liquidity-snapshot";
  version: 1;
  /** A supported chain id, equal to the one in the file name (checked in validate-snapshot.ts). */
  chainId: number & tags.Type<"uint32">;
  /** Not before 1970: change-set ids and positions (live.md §12) hold it as an unsigned number. */
  generatedAt: UnixSeconds & tags.Minimum<0>;
  blockNumber?: NonNegativeInt;
  protocols: SnapshotProtocol[];
  tokens: SnapshotToken[];
  pools: SnapshotPool[];
}

export interface SnapshotProtocol {
  /** Lowercase slug such as `uniswap-v3`. */
  id: string & tags.Pattern<"^[a-z0-9][a-z0-9._-]*$">;
  name: string;
  logoUrl: string;
  url: string;
}

export interface SnapshotToken {
  address: Address;
  symbol: string;
  name: string;
  normalizedSymbol?: string;
  normalizedName?: string;
  decimals: number & tags.Type<"uint32"> & tags.Maximum<255>;
  logoUrl?: string;
  usdPrice: NonNegative;
  trackedUsdPrice: NonNegative;
  totalValuePooledUsd?: NonNegative;
  trackedTotalValuePooledUsd: NonNegative;
  swapsCount: NonNegativeInt;
  swapVolumeUsd?: NonNegative;
  trackedSwapVolumeUsd: NonNegative;
}

export interface SnapshotPoolToken {
  address: Address;
  amount: NonNegative;
  amountUsd: NonNegative;
}

export interface PeriodStats {
  feesUsd: number;
  swapVolumeUsd: number;
  yield: number;
  netInflowUsd: number;
  liquidityVolumeUsd: number;
}

export interface PoolStats {
  stats24h: PeriodStats;
  stats7d: PeriodStats;
  stats30d: PeriodStats;
  stats90d: PeriodStats;
}

/** V3 and SLIPSTREAM (concentrated liquidity). */
export interface ConcentratedMetadata {
  latestSqrtPriceX96: UnsignedIntegerString;
  tickSpacing: number & tags.Type<"int32">;
  latestTick: IntegerString;
  positionManagerAddress: Address;
}

export interface V4Metadata extends ConcentratedMetadata {
  poolManagerAddress: Address;
  permit2Address: Address;
  stateViewAddress: Address | null;
  hook: { address: Address } | null;
}

export interface AlgebraMetadata extends ConcentratedMetadata {
  communityFeePercentage: number;
  deployer: Address;
  plugin: { address: Address; config: number & tags.Type<"int32"> } | null;
  version: string;
}

export interface V2Metadata {
  /** The router. */
  positionManagerAddress: Address;
}

interface SnapshotPoolBase {
  address: PoolAddress;
  protocolId: string;
  createdAtTimestamp: UnixSeconds;
  feeTierPercentage: NonNegative;
  isDynamicFee: boolean;
  totalValueLockedUsd: NonNegative;
  trackedTotalValueLockedUsd?: NonNegative;
  tokens: SnapshotPoolToken[] & tags.MinItems<2>;
  stats: PoolStats;
}

export interface SnapshotV2Pool extends SnapshotPoolBase {
  type: "V2";
  metadata: V2Metadata;
}
export interface SnapshotV3Pool extends SnapshotPoolBase {
  type: "V3";
  metadata: ConcentratedMetadata;
}
export interface SnapshotSlipstreamPool extends SnapshotPoolBase {
  type: "SLIPSTREAM";
  metadata: ConcentratedMetadata;
}
export interface SnapshotV4Pool extends SnapshotPoolBase {
  type: "V4";
  metadata: V4Metadata;
}
export interface SnapshotAlgebraPool extends SnapshotPoolBase {
  type: "ALGEBRA";
  metadata: AlgebraMetadata;
}

export type SnapshotPool = SnapshotV2Pool | SnapshotV3Pool | SnapshotSlipstreamPool | SnapshotV4Pool | SnapshotAlgebraPool;

/** Live file names; a leading zero (`chain-08453.msgpack`) is another name, so ignored. */
export const SNAPSHOT_FILE_PATTERN = /^chain-([1-9][0-9]*)\.msgpack$/;

export function snapshotFileName(chainId: number): string {
  return `chain-${chainId}.msgpack`;
}
