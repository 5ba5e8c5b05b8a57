/**
 * Hand-made tokens that exercise the token list's rules (api-decisions.md §3).
 * Their values are exact (no jitter) so that tests can rely on them:
 *  - impostors that share a major symbol but fail price parity or name parity;
 *  - bridged variants that pass both (matchAllSymbols true lists them, false
 *    keeps one instance per chain);
 *  - untracked instances (trackedUsdPrice 0), including a group anchor;
 *  - symbols that differ only in letter case or digits, and exact TVL ties
 *    between different groups (the tie-break on normalizedSymbol);
 *  - a non-ASCII symbol with and without explicit normalization.
 * Threshold edge cases live in the long tail (see tail-tokens.ts).
 */
import type { ChainId } from "../../src/chains/chains.js";

export interface SpecialTokenSpec {
  readonly chainId: ChainId;
  readonly symbol: string;
  readonly name: string;
  readonly normalizedSymbol?: string;
  readonly normalizedName?: string;
  readonly decimals: number;
  readonly usdPrice: number;
  readonly trackedUsdPrice: number;
  /** trackedTotalValuePooledUsd, exactly. */
  readonly tvlUsd: number;
  readonly swapsCount: number;
  /** trackedSwapVolumeUsd, exactly. */
  readonly volumeUsd: number;
}

type Row = [ChainId, string, string, number, number, number, number, number, number];

function rows(list: readonly Row[]): SpecialTokenSpec[] {
  return list.map(([chainId, symbol, name, decimals, usdPrice, trackedUsdPrice, tvlUsd, swapsCount, volumeUsd]) => ({
    chainId,
    symbol,
    name,
    decimals,
    usdPrice,
    trackedUsdPrice,
    tvlUsd,
    swapsCount,
    volumeUsd,
  }));
}

//                chain   symbol   name                         dec  usdPrice  tracked   tvl          swaps    volume
const PRICE_IMPOSTORS = rows([
  [8453, "USDC", "USD Coin", 6, 0.5, 0.5, 48_000, 4_200, 910_000],
  [999, "USDC", "USD Coin", 6, 3, 3, 21_500, 1_900, 250_000],
  [534352, "USDT", "Tether USD", 6, 0.7, 0.7, 11_000, 1_300, 130_000],
  [999, "WETH", "Wrapped Ether", 18, 1500, 1500, 30_000, 2_500, 600_000],
  [534352, "WBTC", "Wrapped BTC", 8, 60_000, 60_000, 14_000, 1_150, 140_000],
]);

const NAME_IMPOSTORS = rows([
  [143, "USDC", "Totally Legit Coin", 6, 1, 1, 35_000, 3_100, 420_000],
  [143, "WETH", "Wrapped Ethereum Classic", 18, 3010, 3010, 25_000, 2_000, 310_000],
  [1, "USDT", "Tether Gold Rush", 6, 1, 1, 19_000, 1_500, 260_000],
]);

const BRIDGED_VARIANTS = rows([
  [8453, "USDC", "Bridged USDC (Stargate)", 6, 0.9995, 0.9995, 2_400_000, 180_000, 310_000_000],
  [143, "USDC", "USD Coin (Bridged)", 6, 1.0007, 1.0007, 650_000, 41_000, 52_000_000],
  [9745, "USDC", "USD Coin (Bridged)", 6, 0.999, 0.999, 120_000, 9_000, 8_000_000],
  [130, "USDC", "Bridged USDC", 6, 1.0002, 1.0002, 300_000, 12_000, 20_000_000],
]);

const UNTRACKED = rows([
  [534352, "USDC", "USD Coin", 6, 1, 0, 15_000, 1_500, 150_000],
  [143, "USDT", "Tether USD", 6, 1, 0, 90_000, 5_000, 1_200_000],
  // GHOST: the anchor (highest TVL) has trackedUsdPrice 0, so every instance passes price parity.
  [8453, "GHOST", "Ghost", 18, 0.02, 0, 500_000, 20_000, 9_000_000],
  [1, "GHOST", "Ghost", 18, 0.05, 0.05, 40_000, 2_100, 700_000],
  [143, "GHOST", "Ghost Protocol", 18, 9, 9, 12_500, 1_050, 105_000],
]);

const CASE_AND_TIES = rows([
  [8453, "eth", "Ethereum", 18, 2990, 2990, 26_000, 2_600, 400_000],
  [1, "Eth", "Eth Token", 18, 0.001, 0.001, 12_000, 1_100, 120_000],
  [999, "weth", "weth", 18, 2, 2, 10_500, 1_010, 100_500],
  // Three groups tied at 77777.77: code-unit order is MOON < Moon < moon.
  [1, "MOON", "Moon Token", 18, 0.012, 0.012, 77_777.77, 3_000, 800_000],
  [8453, "Moon", "Moon", 18, 0.0004, 0.0004, 77_777.77, 2_800, 640_000],
  [130, "moon", "moon", 18, 0.3, 0.3, 77_777.77, 1_700, 150_000],
  // Three groups tied at 123456.5: A1 < A10 < A2.
  [8453, "A1", "A1 Protocol", 18, 0.8, 0.8, 123_456.5, 4_000, 2_000_000],
  [8453, "A10", "A10 Finance", 18, 1.9, 1.9, 123_456.5, 3_900, 1_500_000],
  [1, "A2", "A2 Labs", 18, 0.07, 0.07, 123_456.5, 2_222, 900_000],
  // A two-chain group (60000 + 40000) tied with a one-chain group (100000): ALPHA < ZETA.
  [1, "ZETA", "Zeta", 18, 0.5, 0.5, 60_000, 6_000, 3_000_000],
  [534352, "ZETA", "Zeta", 18, 0.505, 0.505, 40_000, 2_000, 800_000],
  [143, "ALPHA", "Alpha Finance", 18, 0.03, 0.03, 100_000, 5_000, 2_500_000],
]);

const NON_ASCII: SpecialTokenSpec[] = [
  // Normalization absent: the gateway derives XAUT0.
  {
    chainId: 9745,
    symbol: "XAU₮0",
    name: "XAU₮0",
    decimals: 6,
    usdPrice: 4050,
    trackedUsdPrice: 4050,
    tvlUsd: 3_200_000,
    swapsCount: 60_000,
    volumeUsd: 250_000_000,
  },
  // Normalization explicit.
  {
    chainId: 999,
    symbol: "XAU₮0",
    name: "XAU₮0",
    normalizedSymbol: "XAUT0",
    normalizedName: "XAUT0",
    decimals: 6,
    usdPrice: 4060,
    trackedUsdPrice: 4060,
    tvlUsd: 900_000,
    swapsCount: 15_000,
    volumeUsd: 40_000_000,
  },
];

export const SPECIAL_TOKENS: readonly SpecialTokenSpec[] = [
  ...PRICE_IMPOSTORS,
  ...NAME_IMPOSTORS,
  ...BRIDGED_VARIANTS,
  ...UNTRACKED,
  ...CASE_AND_TIES,
  ...NON_ASCII,
];

export function specialTokensOf(chainId: ChainId): SpecialTokenSpec[] {
  return SPECIAL_TOKENS.filter((spec) => spec.chainId === chainId);
}
