/**
 * Per-chain facts for the generator: native and wrapped-native economics,
 * liquidity scale, block timing, and which protocols run there.
 * Names, symbols and addresses of the native assets come from CHAINS.
 */
import type { ChainId } from "../../src/chains/chains.js";
import { fixedAddress } from "./addresses.js";
import { PANCAKE_V3_TIERS, SLIPSTREAM_TIERS, UNISWAP_V3_TIERS, UNISWAP_V4_TIERS, type ProtocolDeployment } from "./protocol-catalog.js";

export interface WrappedNativeInfo {
  readonly symbol: string;
  readonly name: string;
}

export interface ChainProfile {
  readonly chainId: ChainId;
  /** Liquidity of this chain relative to Ethereum, applied to the major assets. */
  readonly tvlMultiplier: number;
  readonly nativePriceUsd: number;
  readonly nativeTvlUsd: number;
  readonly wrapped: WrappedNativeInfo;
  readonly wrappedTvlUsd: number;
  readonly nativeLogoUrl: string;
  /**
   * Whether this chain's indexer ships normalizedSymbol/normalizedName for
   * ASCII tokens (indexer versions differ; the gateway derives them when absent).
   */
  readonly normalizesNames: boolean;
  /** Unix seconds of mainnet launch: no pool is older. */
  readonly launchedAt: number;
  /** A known (timestamp, block) pair and the block time, to derive blockNumber. */
  readonly blockAnchor: { readonly timestamp: number; readonly number: number; readonly blockTimeSeconds: number };
  readonly deployments: readonly ProtocolDeployment[];
}

const UNISWAP_V2_LAUNCH = 1588636800; // 2020-05-05
const UNISWAP_V3_LAUNCH = 1620172800; // 2021-05-05
const UNISWAP_V4_LAUNCH = 1737590400; // 2025-01-23
const PANCAKE_NPM = "0x46a15b0b27311cedf172ab29e4f4766fbe7f4364";

function hooks(chainId: ChainId, count: number): string[] {
  return Array.from({ length: count }, (_, i) => fixedAddress(`${chainId}:uniswap-v4:hook:${i}`));
}

const ETH_LOGO = "https://assets.coingecko.com/coins/images/279/large/ethereum.png";

export const CHAIN_PROFILES: Readonly<Record<ChainId, ChainProfile>> = {
  1: {
    chainId: 1,
    normalizesNames: true,
    tvlMultiplier: 1,
    nativePriceUsd: 3000,
    nativeTvlUsd: 320_000_000,
    wrapped: { symbol: "WETH", name: "Wrapped Ether" },
    wrappedTvlUsd: 2_600_000_000,
    nativeLogoUrl: ETH_LOGO,
    launchedAt: 1438269973,
    blockAnchor: { timestamp: 1735689600, number: 21_525_000, blockTimeSeconds: 12 },
    deployments: [
      {
        type: "V2",
        protocolId: "uniswap-v2",
        weight: 30,
        launchedAt: UNISWAP_V2_LAUNCH,
        fee: 0.3,
        positionManager: "0x7a250d5630b4cf539739df2c5dacb4c659f2488d",
      },
      {
        type: "V2",
        protocolId: "sushiswap-v2",
        weight: 6,
        launchedAt: 1599177600,
        fee: 0.3,
        positionManager: "0xd9e1ce17f2641f24ae83637ab66a2cca9c378b9f",
      },
      {
        type: "V3",
        protocolId: "uniswap-v3",
        weight: 30,
        launchedAt: UNISWAP_V3_LAUNCH,
        feeTiers: UNISWAP_V3_TIERS,
        dynamicFeeShare: 0,
        positionManager: "0xc36442b4a4522e871399cd717abdd847ab11fe88",
      },
      {
        type: "V3",
        protocolId: "pancakeswap-v3",
        weight: 5,
        launchedAt: 1680307200,
        feeTiers: PANCAKE_V3_TIERS,
        dynamicFeeShare: 0,
        positionManager: PANCAKE_NPM,
      },
      {
        type: "V4",
        protocolId: "uniswap-v4",
        weight: 29,
        launchedAt: UNISWAP_V4_LAUNCH,
        feeTiers: UNISWAP_V4_TIERS,
        dynamicFeeShare: 0.12,
        hookShare: 0.2,
        nativeShare: 0.75,
        positionManager: "0xbd216513d74c8cf14cf4747e6aaa6420ff64ee9e",
        poolManager: "0x000000000004444c5dc75cb358380d2e3de08a90",
        stateView: "0x7ffe42c4a5deea5b0fec41c94c136cf115597227",
        hooks: hooks(1, 24),
      },
    ],
  },
  8453: {
    chainId: 8453,
    normalizesNames: true,
    tvlMultiplier: 0.35,
    nativePriceUsd: 3000,
    nativeTvlUsd: 180_000_000,
    wrapped: { symbol: "WETH", name: "Wrapped Ether" },
    wrappedTvlUsd: 900_000_000,
    nativeLogoUrl: ETH_LOGO,
    launchedAt: 1691539200,
    blockAnchor: { timestamp: 1735689600, number: 24_450_000, blockTimeSeconds: 2 },
    deployments: [
      {
        type: "V2",
        protocolId: "uniswap-v2",
        weight: 14,
        launchedAt: 1691539200,
        fee: 0.3,
        positionManager: "0x4752ba5dbc23f44d87826276bf6fd6b1c372ad24",
      },
      {
        type: "V3",
        protocolId: "uniswap-v3",
        weight: 18,
        launchedAt: 1691539200,
        feeTiers: UNISWAP_V3_TIERS,
        dynamicFeeShare: 0,
        positionManager: "0x03a520b32c04bf3beef7beb72e919cf822ed34f1",
      },
      {
        type: "V3",
        protocolId: "pancakeswap-v3",
        weight: 6,
        launchedAt: 1691539200,
        feeTiers: PANCAKE_V3_TIERS,
        dynamicFeeShare: 0,
        positionManager: PANCAKE_NPM,
      },
      {
        type: "SLIPSTREAM",
        protocolId: "aerodrome-slipstream",
        weight: 22,
        launchedAt: 1712620800,
        feeTiers: SLIPSTREAM_TIERS,
        dynamicFeeShare: 0.25,
        positionManager: "0x827922686190790b37229fd06084350e74485b72",
      },
      {
        type: "ALGEBRA",
        protocolId: "quickswap-v4",
        weight: 6,
        launchedAt: 1727740800,
        version: "integral-1.2",
        pluginConfigs: [193, 195, 199],
        communityFeePercentages: [10, 15],
        tickSpacings: [60, 60, 60, 10, 1, 200],
        dynamicFeeShare: 0.8,
        deployer: fixedAddress("8453:quickswap-v4:deployer"),
        positionManager: fixedAddress("8453:quickswap-v4:npm"),
      },
      {
        type: "V4",
        protocolId: "uniswap-v4",
        weight: 34,
        launchedAt: UNISWAP_V4_LAUNCH,
        feeTiers: UNISWAP_V4_TIERS,
        dynamicFeeShare: 0.25,
        hookShare: 0.35,
        nativeShare: 0.8,
        positionManager: "0x7c5f5a4bbd8fd63184577525326123b519429bdc",
        poolManager: "0x498581ff718922c3f8e6a244956af099b2652b2b",
        stateView: "0xa3c0c9b65bad0b08107aa264b0f3db444b867a71",
        hooks: hooks(8453, 40),
      },
    ],
  },
  130: {
    chainId: 130,
    normalizesNames: false,
    tvlMultiplier: 0.05,
    nativePriceUsd: 3000,
    nativeTvlUsd: 95_000_000,
    wrapped: { symbol: "WETH", name: "Wrapped Ether" },
    wrappedTvlUsd: 60_000_000,
    nativeLogoUrl: ETH_LOGO,
    launchedAt: 1739232000,
    blockAnchor: { timestamp: 1739232000, number: 8_400_000, blockTimeSeconds: 1 },
    deployments: [
      {
        type: "V2",
        protocolId: "uniswap-v2",
        weight: 15,
        launchedAt: 1739232000,
        fee: 0.3,
        positionManager: "0x284f11109359a7e1306c3e447ef14d38400063ff",
      },
      {
        type: "V3",
        protocolId: "uniswap-v3",
        weight: 25,
        launchedAt: 1739232000,
        feeTiers: UNISWAP_V3_TIERS,
        dynamicFeeShare: 0,
        positionManager: "0x943e6e07a7e8e791dafc44083e54041d743c46e9",
      },
      {
        type: "V4",
        protocolId: "uniswap-v4",
        weight: 60,
        launchedAt: 1739232000,
        feeTiers: UNISWAP_V4_TIERS,
        dynamicFeeShare: 0.15,
        hookShare: 0.25,
        nativeShare: 0.85,
        positionManager: "0x4529a01c7a0410167c5740c487a8de60232617bf",
        poolManager: "0x1f98400000000000000000000000000000000004",
        stateView: "0x86e8631a016f9068c3f085faf484ee3f5fdee8f2",
        hooks: hooks(130, 12),
      },
    ],
  },
  999: {
    chainId: 999,
    normalizesNames: true,
    tvlMultiplier: 0.08,
    nativePriceUsd: 28,
    nativeTvlUsd: 40_000_000,
    wrapped: { symbol: "WHYPE", name: "Wrapped HYPE" },
    wrappedTvlUsd: 160_000_000,
    nativeLogoUrl: "https://assets.coingecko.com/coins/images/50882/large/hyperliquid.jpg",
    launchedAt: 1739836800,
    blockAnchor: { timestamp: 1739836800, number: 1_200_000, blockTimeSeconds: 1 },
    deployments: [
      {
        type: "V2",
        protocolId: "hyperswap-v2",
        weight: 25,
        launchedAt: 1739836800,
        fee: 0.3,
        positionManager: fixedAddress("999:hyperswap-v2:router"),
      },
      {
        type: "V3",
        protocolId: "hyperswap-v3",
        weight: 45,
        launchedAt: 1739836800,
        feeTiers: UNISWAP_V3_TIERS,
        dynamicFeeShare: 0,
        positionManager: fixedAddress("999:hyperswap-v3:npm"),
      },
      {
        type: "ALGEBRA",
        protocolId: "kittenswap-algebra",
        weight: 30,
        launchedAt: 1743465600,
        version: "integral-1.2",
        pluginConfigs: [193, 195],
        communityFeePercentages: [10, 20],
        tickSpacings: [60, 60, 10, 1, 200],
        dynamicFeeShare: 0.75,
        deployer: fixedAddress("999:kittenswap-algebra:deployer"),
        positionManager: fixedAddress("999:kittenswap-algebra:npm"),
      },
    ],
  },
  143: {
    chainId: 143,
    normalizesNames: false,
    tvlMultiplier: 0.03,
    nativePriceUsd: 0.032,
    nativeTvlUsd: 12_000_000,
    wrapped: { symbol: "WMON", name: "Wrapped MON" },
    wrappedTvlUsd: 45_000_000,
    nativeLogoUrl: "https://assets.coingecko.com/coins/images/38927/large/monad.png",
    launchedAt: 1763942400,
    blockAnchor: { timestamp: 1763942400, number: 36_000_000, blockTimeSeconds: 0.4 },
    deployments: [
      {
        type: "V2",
        protocolId: "uniswap-v2",
        weight: 20,
        launchedAt: 1763942400,
        fee: 0.3,
        positionManager: fixedAddress("143:uniswap-v2:router"),
      },
      {
        type: "V3",
        protocolId: "uniswap-v3",
        weight: 30,
        launchedAt: 1763942400,
        feeTiers: UNISWAP_V3_TIERS,
        dynamicFeeShare: 0,
        positionManager: fixedAddress("143:uniswap-v3:npm"),
      },
      {
        type: "V3",
        protocolId: "pancakeswap-v3",
        weight: 15,
        launchedAt: 1763942400,
        feeTiers: PANCAKE_V3_TIERS,
        dynamicFeeShare: 0,
        positionManager: PANCAKE_NPM,
      },
      {
        type: "V4",
        protocolId: "uniswap-v4",
        weight: 35,
        launchedAt: 1763942400,
        feeTiers: UNISWAP_V4_TIERS,
        dynamicFeeShare: 0.1,
        hookShare: 0.15,
        nativeShare: 0.7,
        positionManager: fixedAddress("143:uniswap-v4:position-manager"),
        poolManager: fixedAddress("143:uniswap-v4:pool-manager"),
        stateView: fixedAddress("143:uniswap-v4:state-view"),
        hooks: hooks(143, 6),
      },
    ],
  },
  9745: {
    chainId: 9745,
    normalizesNames: true,
    tvlMultiplier: 0.12,
    nativePriceUsd: 0.22,
    nativeTvlUsd: 20_000_000,
    wrapped: { symbol: "WXPL", name: "Wrapped XPL" },
    wrappedTvlUsd: 85_000_000,
    nativeLogoUrl: "https://assets.coingecko.com/coins/images/66489/large/plasma.png",
    launchedAt: 1758758400,
    blockAnchor: { timestamp: 1758758400, number: 1_000_000, blockTimeSeconds: 1 },
    deployments: [
      {
        type: "V2",
        protocolId: "uniswap-v2",
        weight: 20,
        launchedAt: 1758758400,
        fee: 0.3,
        positionManager: fixedAddress("9745:uniswap-v2:router"),
      },
      {
        type: "V3",
        protocolId: "uniswap-v3",
        weight: 45,
        launchedAt: 1758758400,
        feeTiers: UNISWAP_V3_TIERS,
        dynamicFeeShare: 0,
        positionManager: fixedAddress("9745:uniswap-v3:npm"),
      },
      {
        // No StateView lens deployed here: the metadata carries null.
        type: "V4",
        protocolId: "uniswap-v4",
        weight: 35,
        launchedAt: 1758758400,
        feeTiers: UNISWAP_V4_TIERS,
        dynamicFeeShare: 0.1,
        hookShare: 0.1,
        nativeShare: 0.6,
        positionManager: fixedAddress("9745:uniswap-v4:position-manager"),
        poolManager: fixedAddress("9745:uniswap-v4:pool-manager"),
        stateView: null,
        hooks: hooks(9745, 4),
      },
    ],
  },
  534352: {
    chainId: 534352,
    normalizesNames: false,
    tvlMultiplier: 0.015,
    nativePriceUsd: 3000,
    nativeTvlUsd: 3_000_000,
    wrapped: { symbol: "WETH", name: "Wrapped Ether" },
    wrappedTvlUsd: 28_000_000,
    nativeLogoUrl: ETH_LOGO,
    launchedAt: 1697500800,
    blockAnchor: { timestamp: 1697500800, number: 100_000, blockTimeSeconds: 3 },
    deployments: [
      {
        type: "V2",
        protocolId: "zebra-v2",
        weight: 15,
        launchedAt: 1698796800,
        fee: 0.3,
        positionManager: fixedAddress("534352:zebra-v2:router"),
      },
      {
        type: "V3",
        protocolId: "uniswap-v3",
        weight: 30,
        launchedAt: 1697500800,
        feeTiers: UNISWAP_V3_TIERS,
        dynamicFeeShare: 0,
        positionManager: "0xb39002e4033b162fac607fc3471e205fa2ae5967",
      },
      {
        type: "V3",
        protocolId: "nuri-exchange",
        weight: 25,
        launchedAt: 1714521600,
        feeTiers: UNISWAP_V3_TIERS,
        dynamicFeeShare: 0,
        positionManager: fixedAddress("534352:nuri-exchange:npm"),
      },
      {
        type: "ALGEBRA",
        protocolId: "scribe-exchange",
        weight: 30,
        launchedAt: 1701388800,
        version: "1.9",
        pluginConfigs: null,
        communityFeePercentages: [0, 10, 15],
        tickSpacings: [60],
        dynamicFeeShare: 0.9,
        deployer: fixedAddress("534352:scribe-exchange:deployer"),
        positionManager: fixedAddress("534352:scribe-exchange:npm"),
      },
    ],
  },
};
