/**
 * The major assets: real symbols, names, decimals and (where known) real
 * addresses; present on several chains with plausible prices and liquidity.
 * Addresses not listed are fixed per (chain, symbol) by `fixedAddress`.
 */
import type { ChainId } from "../../src/chains/chains.js";

export interface AssetDeployment {
  readonly address?: string;
  /** Absolute trackedTotalValuePooledUsd; default baseTvlUsd * the chain's tvlMultiplier. */
  readonly tvlUsd?: number;
  /** Whether the record carries normalizedSymbol/normalizedName (else the gateway derives them). */
  readonly explicitNormalization?: boolean;
}

export interface MajorAsset {
  readonly symbol: string;
  readonly name: string;
  /** ASCII transliterations, for assets whose on-chain symbol or name is not ASCII. */
  readonly normalizedSymbol?: string;
  readonly normalizedName?: string;
  readonly decimals: number;
  readonly priceUsd: number;
  /** Liquidity on Ethereum (or the reference chain). */
  readonly baseTvlUsd: number;
  readonly logoUrl: string;
  /** > 0 when the asset serves as the quote side of long-tail pools. */
  readonly quoteWeight: number;
  readonly stable: boolean;
  readonly deployments: Readonly<Partial<Record<ChainId, AssetDeployment>>>;
}

function coingecko(id: number, file: string): string {
  return `https://assets.coingecko.com/coins/images/${id}/large/${file}`;
}

/** The WETH asset on chains where it is not the wrapped native (bridged WETH). */
export const BRIDGED_WETH: MajorAsset = {
  symbol: "WETH",
  name: "Wrapped Ether",
  decimals: 18,
  priceUsd: 3000,
  baseTvlUsd: 2_600_000_000,
  logoUrl: coingecko(2518, "weth.png"),
  quoteWeight: 2,
  stable: false,
  deployments: { 999: {}, 143: {}, 9745: {} },
};

export const MAJOR_ASSETS: readonly MajorAsset[] = [
  {
    symbol: "USDC",
    name: "USD Coin",
    decimals: 6,
    priceUsd: 1,
    baseTvlUsd: 1_500_000_000,
    logoUrl: coingecko(6319, "usdc.png"),
    quoteWeight: 6,
    stable: true,
    deployments: {
      1: { address: "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48" },
      8453: { address: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913", tvlUsd: 700_000_000 },
      130: { address: "0x078d782b760474a361dda0af3839290b0ef57ad6" },
      534352: { address: "0x06efdbff2a14a7c8e15944d1f4a48f9f95f663a4" },
      999: { address: "0xb88339cb7199b77e23db6e890353e22632ba630f" },
      143: {},
    },
  },
  {
    symbol: "USDT",
    name: "Tether USD",
    decimals: 6,
    priceUsd: 1,
    baseTvlUsd: 800_000_000,
    logoUrl: coingecko(325, "Tether.png"),
    quoteWeight: 3,
    stable: true,
    deployments: {
      1: { address: "0xdac17f958d2ee523a2206206994597c13d831ec7" },
      8453: { address: "0xfde4c96c8593536e31f229ea8f37b2ada2699bb2" },
      534352: { address: "0xf55bec9cafdbe8730f096aa55dad6d22d44099df" },
    },
  },
  {
    // On-chain symbol and name carry the Tugrik sign; some indexers ship the
    // transliteration, others leave it to the gateway.
    symbol: "USD₮0",
    name: "USD₮0",
    normalizedSymbol: "USDT0",
    normalizedName: "USDT0",
    decimals: 6,
    priceUsd: 1,
    baseTvlUsd: 400_000_000,
    logoUrl: coingecko(53705, "usdt0.jpg"),
    quoteWeight: 5,
    stable: true,
    deployments: {
      9745: { address: "0xb8ce59fc3717ada4c02eadf9682a9e934f625ebb", tvlUsd: 900_000_000, explicitNormalization: true },
      999: { address: "0xb8ce59fc3717ada4c02eadf9682a9e934f625ebb", tvlUsd: 120_000_000, explicitNormalization: true },
      130: { address: "0x9151434b16b9763660705744891fa906f660ecc5", tvlUsd: 35_000_000, explicitNormalization: false },
      143: { tvlUsd: 25_000_000, explicitNormalization: false },
    },
  },
  {
    symbol: "WBTC",
    name: "Wrapped BTC",
    decimals: 8,
    priceUsd: 90_000,
    baseTvlUsd: 600_000_000,
    logoUrl: coingecko(7598, "wrapped_bitcoin_wbtc.png"),
    quoteWeight: 0.4,
    stable: false,
    deployments: {
      1: { address: "0x2260fac5e5542a773aa44f8cba9bf5d7af05f2c4" },
      534352: { address: "0x3c1bca5a656e69edcd0d4e36bebb3fcdaca60cf1" },
      130: {},
      143: {},
    },
  },
  {
    symbol: "cbBTC",
    name: "Coinbase Wrapped BTC",
    decimals: 8,
    priceUsd: 90_000,
    baseTvlUsd: 200_000_000,
    logoUrl: coingecko(40143, "cbbtc.webp"),
    quoteWeight: 0.6,
    stable: false,
    deployments: {
      1: { address: "0xcbb7c0000ab88b473b1f5afd9ef808440eed33bf" },
      8453: { address: "0xcbb7c0000ab88b473b1f5afd9ef808440eed33bf", tvlUsd: 450_000_000 },
      130: {},
    },
  },
  {
    symbol: "DAI",
    name: "Dai Stablecoin",
    decimals: 18,
    priceUsd: 1,
    baseTvlUsd: 150_000_000,
    logoUrl: coingecko(9956, "Badge_Dai.png"),
    quoteWeight: 0.5,
    stable: true,
    deployments: {
      1: { address: "0x6b175474e89094c44da98e4cba6f48b0c4c1f8e6" },
      8453: { address: "0x50c5725949a6f0c72e6c4a641f24049a917db0cb" },
      534352: { address: "0xca77eb3fefe3725dc33bccb54edefc3d9f764f97" },
      130: {},
    },
  },
  {
    symbol: "LINK",
    name: "ChainLink Token",
    decimals: 18,
    priceUsd: 15,
    baseTvlUsd: 100_000_000,
    logoUrl: coingecko(877, "chainlink-new-logo.png"),
    quoteWeight: 0,
    stable: false,
    deployments: {
      1: { address: "0x514910771af9ca656af840dff83e8264ecf986ca" },
      8453: { address: "0x88fb150bdc53a65fe94dea0c9ba0a6daf8c6e196" },
      534352: { address: "0x548c6944cba02b9d1c0570102c89de64d258d3ac" },
      143: {},
    },
  },
  {
    symbol: "UNI",
    name: "Uniswap",
    decimals: 18,
    priceUsd: 8,
    baseTvlUsd: 80_000_000,
    logoUrl: coingecko(12504, "uni.jpg"),
    quoteWeight: 0,
    stable: false,
    deployments: {
      1: { address: "0x1f9840a85d5af5bf1d1762f925bdaddc4201f984" },
      130: { address: "0x8f187aa05619a017077f5308904739877ce9ea21", tvlUsd: 18_000_000 },
      8453: { address: "0xc3de830ea07524a0761646a6a4e4be0e114a3c83" },
    },
  },
  {
    symbol: "AAVE",
    name: "Aave Token",
    decimals: 18,
    priceUsd: 250,
    baseTvlUsd: 60_000_000,
    logoUrl: coingecko(12645, "aave-token-round.png"),
    quoteWeight: 0,
    stable: false,
    deployments: {
      1: { address: "0x7fc66500c84a76ad7e9c93437bfc5ac33e2ddae9" },
      8453: { address: "0x63706e401c06ac8513145b7687a14804d17f814b" },
      534352: {},
    },
  },
  {
    symbol: "wstETH",
    name: "Wrapped liquid staked Ether 2.0",
    decimals: 18,
    priceUsd: 3650,
    baseTvlUsd: 400_000_000,
    logoUrl: coingecko(18834, "wstETH.png"),
    quoteWeight: 0,
    stable: false,
    deployments: {
      1: { address: "0x7f39c581f595b53c5cb19bd0b3f8da6c935e2ca0" },
      8453: { address: "0xc1cba3fcea344f92d9239c08c0568f6f2f0ee452" },
      130: { address: "0xc02fe7317d4eb8753a02c35fe019786854a92001" },
      534352: { address: "0xf610a9dfb7c89644979b4a0f27063e9e7d7cda32" },
    },
  },
  {
    symbol: "weETH",
    name: "Wrapped eETH",
    decimals: 18,
    priceUsd: 3200,
    baseTvlUsd: 250_000_000,
    logoUrl: coingecko(33033, "weETH.png"),
    quoteWeight: 0,
    stable: false,
    deployments: {
      1: { address: "0xcd5fe23c85820f7b72d0926fc9b05b43e359b7ee" },
      8453: { address: "0x04c0599ae5a44757c0af6f9ec3b93da8976c150a" },
      534352: { address: "0x01f0a31698c4d065659b9bdc21b3610292a1c506" },
      130: {},
      999: {},
      9745: {},
    },
  },
  {
    symbol: "USDe",
    name: "USDe",
    decimals: 18,
    priceUsd: 1,
    baseTvlUsd: 200_000_000,
    logoUrl: coingecko(33613, "usde.png"),
    quoteWeight: 0.5,
    stable: true,
    deployments: {
      1: { address: "0x4c9edd5852cd905f086c759e8383e09bff1e68b3" },
      8453: { address: "0x5d3a1ff2b6bab83b63cd9ad0787074081a52ef34" },
      9745: { tvlUsd: 150_000_000 },
      999: {},
      143: {},
    },
  },
  {
    symbol: "ENA",
    name: "ENA",
    decimals: 18,
    priceUsd: 0.45,
    baseTvlUsd: 50_000_000,
    logoUrl: coingecko(36530, "ethena.png"),
    quoteWeight: 0,
    stable: false,
    deployments: { 1: { address: "0x57e114b691db790c35207b2e685d4a43181e6061" }, 8453: {}, 9745: {} },
  },
  {
    symbol: "ARB",
    name: "Arbitrum",
    decimals: 18,
    priceUsd: 0.4,
    baseTvlUsd: 10_000_000,
    logoUrl: coingecko(16547, "arb.jpg"),
    quoteWeight: 0,
    stable: false,
    deployments: { 1: { address: "0xb50721bcf8d664c30412cfbc6cf7a15145234ad1" }, 8453: {} },
  },
  {
    symbol: "PEPE",
    name: "Pepe",
    decimals: 18,
    priceUsd: 0.0000072,
    baseTvlUsd: 40_000_000,
    logoUrl: coingecko(29850, "pepe-token.jpeg"),
    quoteWeight: 0,
    stable: false,
    deployments: { 1: { address: "0x6982508145454ce325ddbe47a25d4ec3d2311933" }, 8453: {}, 130: {} },
  },
  {
    symbol: "1INCH",
    name: "1INCH Token",
    decimals: 18,
    priceUsd: 0.28,
    baseTvlUsd: 5_000_000,
    logoUrl: coingecko(13469, "1inch-token.png"),
    quoteWeight: 0,
    stable: false,
    deployments: {
      1: { address: "0x111111111117dc0aa78b770fa6a738034120c302" },
      8453: { address: "0xc5fecc3a29fb57b5024eec8a2239d4621e111cbe" },
    },
  },
  {
    symbol: "USD1",
    name: "World Liberty Financial USD",
    decimals: 18,
    priceUsd: 1,
    baseTvlUsd: 30_000_000,
    logoUrl: coingecko(54977, "USD1_1000x1000_transparent.png"),
    quoteWeight: 0.2,
    stable: true,
    deployments: { 1: { address: "0x8d0d000ee44948fc98c9b98a4fa4921476f08b0d" }, 143: {} },
  },
  {
    symbol: "AERO",
    name: "Aerodrome",
    decimals: 18,
    priceUsd: 0.9,
    baseTvlUsd: 80_000_000,
    logoUrl: coingecko(31745, "token.png"),
    quoteWeight: 0.3,
    stable: false,
    deployments: { 8453: { address: "0x940181a94a35a4569e4529a3cdfb74e38fd98631", tvlUsd: 80_000_000 } },
  },
  {
    symbol: "VIRTUAL",
    name: "Virtual Protocol",
    decimals: 18,
    priceUsd: 1.5,
    baseTvlUsd: 60_000_000,
    logoUrl: coingecko(34057, "LOGOMARK.png"),
    quoteWeight: 0.4,
    stable: false,
    deployments: { 8453: { address: "0x0b3e328455c4059eeb9e3f84b5543f74e24e7e1b", tvlUsd: 60_000_000 } },
  },
  {
    symbol: "DEGEN",
    name: "Degen",
    decimals: 18,
    priceUsd: 0.003,
    baseTvlUsd: 9_000_000,
    logoUrl: coingecko(34515, "android-chrome-512x512.png"),
    quoteWeight: 0,
    stable: false,
    deployments: { 8453: { address: "0x4ed4e862860bed51a9570b96d89af5e1b0efefed", tvlUsd: 9_000_000 } },
  },
  {
    symbol: "kHYPE",
    name: "Kinetiq Staked HYPE",
    decimals: 18,
    priceUsd: 28.3,
    baseTvlUsd: 70_000_000,
    logoUrl: coingecko(66017, "khype.png"),
    quoteWeight: 0,
    stable: false,
    deployments: { 999: { tvlUsd: 70_000_000 } },
  },
  {
    symbol: "shMON",
    name: "ShMonad",
    decimals: 18,
    priceUsd: 0.033,
    baseTvlUsd: 6_000_000,
    logoUrl: coingecko(67000, "shmon.png"),
    quoteWeight: 0,
    stable: false,
    deployments: { 143: { tvlUsd: 6_000_000 } },
  },
  {
    symbol: "SCR",
    name: "Scroll",
    decimals: 18,
    priceUsd: 0.2,
    baseTvlUsd: 4_000_000,
    logoUrl: coingecko(50571, "scroll.jpg"),
    quoteWeight: 0,
    stable: false,
    deployments: { 534352: { address: "0xd29687c813d741e2f938f4ac377128810e217b1b", tvlUsd: 4_000_000 } },
  },
  {
    symbol: "syrupUSDT",
    name: "Syrup USDT",
    decimals: 6,
    priceUsd: 1.1,
    baseTvlUsd: 50_000_000,
    logoUrl: coingecko(66500, "syrupusdt.png"),
    quoteWeight: 0,
    stable: true,
    deployments: { 9745: { tvlUsd: 50_000_000 } },
  },
  BRIDGED_WETH,
];
