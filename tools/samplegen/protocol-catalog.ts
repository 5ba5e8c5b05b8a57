/**
 * Protocols (one metadata record per id, shared by every chain so that
 * `/v1/protocols` sees one consistent record per id) and their per-chain
 * deployments: pool type, contracts, fee tiers.
 */
import type { SnapshotProtocol } from "../../src/api/snapshot-format.js";

export const PERMIT2 = "0x000000000022d473030f116ddee9f6b43ac78ba3";

function protocol(id: string, name: string, url: string): SnapshotProtocol {
  return { id, name, logoUrl: `https://icons.llamao.fi/icons/protocols/${id}?w=48&h=48`, url };
}

export const PROTOCOLS: Readonly<Record<string, SnapshotProtocol>> = Object.fromEntries(
  [
    protocol("uniswap-v2", "Uniswap V2", "https://app.uniswap.org"),
    protocol("uniswap-v3", "Uniswap V3", "https://app.uniswap.org"),
    protocol("uniswap-v4", "Uniswap V4", "https://app.uniswap.org"),
    protocol("sushiswap-v2", "SushiSwap V2", "https://www.sushi.com"),
    protocol("pancakeswap-v3", "PancakeSwap V3", "https://pancakeswap.finance"),
    protocol("aerodrome-slipstream", "Aerodrome Slipstream", "https://aerodrome.finance"),
    protocol("quickswap-v4", "QuickSwap V4", "https://quickswap.exchange"),
    protocol("hyperswap-v2", "HyperSwap V2", "https://hyperswap.exchange"),
    protocol("hyperswap-v3", "HyperSwap V3", "https://hyperswap.exchange"),
    protocol("kittenswap-algebra", "KittenSwap Algebra", "https://kittenswap.finance"),
    protocol("scribe-exchange", "Scribe Exchange", "https://scribe.exchange"),
    protocol("nuri-exchange", "Nuri Exchange", "https://www.nuri.exchange"),
    protocol("zebra-v2", "Zebra V2", "https://zebra.xyz"),
  ].map((p) => [p.id, p]),
);

export interface FeeTier {
  /** Percent: 0.3 means 0.3 %. */
  readonly fee: number;
  readonly tickSpacing: number;
  readonly weight: number;
}

interface DeploymentBase {
  readonly protocolId: string;
  /** Relative share of the chain's pools. */
  readonly weight: number;
  /** Unix seconds of the first pool on this chain. */
  readonly launchedAt: number;
  /** NonfungiblePositionManager (router for V2). */
  readonly positionManager: string;
}

export interface V2Deployment extends DeploymentBase {
  readonly type: "V2";
  readonly fee: number;
}

export interface ConcentratedDeployment extends DeploymentBase {
  readonly type: "V3" | "SLIPSTREAM";
  readonly feeTiers: readonly FeeTier[];
  /** Share of pools with a dynamic fee (Aerodrome's dynamic fee module). */
  readonly dynamicFeeShare: number;
}

export interface V4Deployment extends DeploymentBase {
  readonly type: "V4";
  readonly poolManager: string;
  readonly stateView: string | null;
  readonly feeTiers: readonly FeeTier[];
  readonly dynamicFeeShare: number;
  /** Share of static-fee pools that still have a hook (dynamic-fee pools always do). */
  readonly hookShare: number;
  /** Well-known hook contracts of this chain (pools reuse them). */
  readonly hooks: readonly string[];
  /** Share of pools whose wrapped-native side uses the native asset instead. */
  readonly nativeShare: number;
}

export interface AlgebraDeployment extends DeploymentBase {
  readonly type: "ALGEBRA";
  readonly deployer: string;
  readonly version: string;
  /** Plugin config bitmaps (Algebra Integral); null for versions without plugins. */
  readonly pluginConfigs: readonly number[] | null;
  readonly communityFeePercentages: readonly number[];
  readonly tickSpacings: readonly number[];
  readonly dynamicFeeShare: number;
}

export type ProtocolDeployment = V2Deployment | ConcentratedDeployment | V4Deployment | AlgebraDeployment;

// ------------------------------------------------------------ fee tier tables

export const UNISWAP_V3_TIERS: readonly FeeTier[] = [
  { fee: 0.01, tickSpacing: 1, weight: 1 },
  { fee: 0.05, tickSpacing: 10, weight: 3 },
  { fee: 0.3, tickSpacing: 60, weight: 5 },
  { fee: 1, tickSpacing: 200, weight: 3 },
];

export const PANCAKE_V3_TIERS: readonly FeeTier[] = [
  { fee: 0.01, tickSpacing: 1, weight: 1 },
  { fee: 0.05, tickSpacing: 10, weight: 3 },
  { fee: 0.25, tickSpacing: 50, weight: 5 },
  { fee: 1, tickSpacing: 200, weight: 2 },
];

export const SLIPSTREAM_TIERS: readonly FeeTier[] = [
  { fee: 0.01, tickSpacing: 1, weight: 1 },
  { fee: 0.05, tickSpacing: 50, weight: 2 },
  { fee: 0.05, tickSpacing: 100, weight: 3 },
  { fee: 0.3, tickSpacing: 200, weight: 4 },
  { fee: 1, tickSpacing: 2000, weight: 2 },
];

export const UNISWAP_V4_TIERS: readonly FeeTier[] = [
  ...UNISWAP_V3_TIERS,
  { fee: 0.25, tickSpacing: 50, weight: 0.5 },
  { fee: 0.5, tickSpacing: 100, weight: 0.4 },
  { fee: 0.69, tickSpacing: 138, weight: 0.2 },
  { fee: 3, tickSpacing: 200, weight: 0.2 },
  { fee: 0, tickSpacing: 1, weight: 0.1 },
];

/** Stable pairs favour the lowest tiers. */
export function isStableTier(tier: FeeTier): boolean {
  return tier.fee <= 0.05;
}
