/**
 * The hand-made data set of the token surface tests (api-extended.md §7-§9): chains 1, 8453 and
 * 130 loaded (999 never is), with tokens aimed at each rule — relevance tiers, literal `%` and
 * `_`, a USDC group across chains with a bridged member and an impostor, exact TVL ties on one
 * chain (address tie-break) and across chains (chain id tie-break), a zero-price token, a token
 * under the list's TVL default, a zero-TVL token, a record without a logo, a chain without a
 * native record (8453: the zero-address price falls back to its wrapped native token) — and a
 * baskets file over them.
 */
import { CHAINS, NATIVE_ADDRESS } from "../../src/chains/chains.js";
import type { SnapshotFile } from "../../src/api/snapshot-format.js";
import { addr, chainFile, nativeToken, token, wrappedNativeToken } from "./fixtures.js";

export const TS = {
  usdc1: addr("a001"),
  usdt1: addr("a002"),
  usdPlus1: addr("a003"),
  pct1: addr("a004"),
  und1: addr("a005"),
  tieB: addr("b002"),
  tieA: addr("b001"),
  zeroPrice1: addr("a006"),
  low1: addr("a007"),
  nil1: addr("a008"),
  noLogo1: addr("a009"),
  impostor1: addr("a00a"),
  usd1: addr("a00b"),
  xusd1: addr("a00c"),
  susd1: addr("a00d"),
  shared: addr("5a5a5a"),
  usdc8453: addr("c001"),
  bridged8453: addr("c002"),
  uni8453: addr("c003"),
  unibot8453: addr("c004"),
  sushi8453: addr("c005"),
  usdc130: addr("d001"),
  /** Listed in the baskets file, in no snapshot. */
  absent: addr("e0e0"),
  weth1: CHAINS[1].wrappedNative,
  weth8453: CHAINS[8453].wrappedNative,
  weth130: CHAINS[130].wrappedNative,
} as const;

export function tokenSurfaceFixture(): SnapshotFile[] {
  return [
    chainFile(1, {
      tokens: [
        nativeToken(1, { trackedUsdPrice: 3000, trackedTotalValuePooledUsd: 900_000 }),
        wrappedNativeToken(1, { symbol: "WETH", name: "Wrapped Ether", trackedUsdPrice: 3001, trackedTotalValuePooledUsd: 800_000 }),
        token(1, { address: TS.usdc1, symbol: "USDC", name: "USD Coin", decimals: 6, trackedTotalValuePooledUsd: 700_000 }),
        token(1, { address: TS.usdt1, symbol: "USDT", name: "Tether USD", decimals: 6, trackedTotalValuePooledUsd: 600_000 }),
        token(1, { address: TS.usdPlus1, symbol: "usd+", name: "usd+ yield", trackedTotalValuePooledUsd: 50_000 }),
        token(1, { address: TS.pct1, symbol: "PCT", name: "100% Real", trackedTotalValuePooledUsd: 40_000 }),
        token(1, { address: TS.und1, symbol: "UND", name: "under_score token", trackedTotalValuePooledUsd: 30_000 }),
        // Inserted out of address order: the tie on chain 1 is broken by address ascending.
        token(1, { address: TS.tieB, symbol: "TIEB", name: "Tie Bravo", trackedTotalValuePooledUsd: 20_000 }),
        token(1, { address: TS.tieA, symbol: "TIEA", name: "Tie Alpha", trackedTotalValuePooledUsd: 20_000 }),
        token(1, { address: TS.zeroPrice1, symbol: "ZP", name: "Zero Price", trackedUsdPrice: 0, trackedTotalValuePooledUsd: 15_000 }),
        token(1, { address: TS.low1, symbol: "LOW", name: "Low Liquidity", trackedTotalValuePooledUsd: 5_000 }),
        token(1, { address: TS.nil1, symbol: "NIL", name: "Nothing Pooled", trackedTotalValuePooledUsd: 0 }),
        token(1, { address: TS.noLogo1, symbol: "NOLOGO", name: "No Logo", logoUrl: undefined, trackedTotalValuePooledUsd: 12_000 }),
        token(1, {
          address: TS.impostor1,
          symbol: "USDC",
          name: "Totally Legit",
          trackedUsdPrice: 0.5,
          trackedTotalValuePooledUsd: 11_000,
        }),
        token(1, { address: TS.usd1, symbol: "USD", name: "Generic Dollar", trackedTotalValuePooledUsd: 10_500 }),
        token(1, { address: TS.xusd1, symbol: "XUSD", name: "Dollar USD Token", trackedTotalValuePooledUsd: 25_000 }),
        token(1, { address: TS.susd1, symbol: "SUSD", name: "Synth sUSD", trackedTotalValuePooledUsd: 35_000 }),
        token(1, { address: TS.shared, symbol: "SHR", name: "Shared", trackedTotalValuePooledUsd: 70_000 }),
      ],
    }),
    chainFile(8453, {
      // No native record on Base.
      tokens: [
        wrappedNativeToken(8453, { symbol: "WETH", name: "Wrapped Ether", trackedUsdPrice: 2999, trackedTotalValuePooledUsd: 400_000 }),
        token(8453, { address: TS.usdc8453, symbol: "USDC", name: "USD Coin", decimals: 6, trackedTotalValuePooledUsd: 500_000 }),
        token(8453, {
          address: TS.bridged8453,
          symbol: "USDC",
          name: "Bridged USDC (Stargate)",
          decimals: 6,
          trackedUsdPrice: 0.999,
          trackedTotalValuePooledUsd: 200_000,
        }),
        token(8453, { address: TS.uni8453, symbol: "UNI", name: "Uniswap", trackedTotalValuePooledUsd: 90_000 }),
        token(8453, { address: TS.unibot8453, symbol: "UNIBOT", name: "Unibot", trackedTotalValuePooledUsd: 95_000 }),
        token(8453, { address: TS.sushi8453, symbol: "SUSHI", name: "SushiSwap", trackedTotalValuePooledUsd: 60_000 }),
        token(8453, { address: TS.shared, symbol: "SHR", name: "Shared", trackedTotalValuePooledUsd: 70_000 }),
      ],
    }),
    chainFile(130, {
      tokens: [
        nativeToken(130, { trackedUsdPrice: 2500, trackedTotalValuePooledUsd: 100_000 }),
        wrappedNativeToken(130, { symbol: "WETH", name: "Wrapped Ether", trackedUsdPrice: 2500, trackedTotalValuePooledUsd: 90_000 }),
        token(130, { address: TS.usdc130, symbol: "USDC", name: "USD Coin", decimals: 6, trackedTotalValuePooledUsd: 80_000 }),
      ],
    }),
  ];
}

/** A baskets file over the fixture (written as an operator would: mixed letter case, chain keys in any order). */
export function tokenSurfaceBaskets(): { baskets: Record<string, unknown>[] } {
  return {
    baskets: [
      {
        id: "usd-stablecoins",
        name: "USD Stablecoins",
        description: "Dollars.",
        logoUrl: "https://logos.test/baskets/usd.png",
        addresses: {
          "8453": [TS.usdc8453.toUpperCase().replace("0X", "0x")],
          "1": [TS.usdt1, TS.usdc1, TS.absent],
          "130": [TS.usdc130],
        },
      },
      {
        id: "eth-pegged-tokens",
        name: "ETH Pegged Tokens",
        description: "Ether.",
        logoUrl: "https://logos.test/baskets/eth.png",
        addresses: { "1": [NATIVE_ADDRESS, TS.weth1], "8453": [TS.weth8453, NATIVE_ADDRESS], "130": [TS.weth130] },
      },
      {
        id: "hype-pegged-tokens",
        name: "HYPE Pegged Tokens",
        description: "Only on HyperEVM, which the fixture never loads.",
        logoUrl: "https://logos.test/baskets/hype.png",
        addresses: { "999": [CHAINS[999].wrappedNative] },
      },
      {
        id: "ghost-basket",
        name: "Ghost",
        description: "Only addresses no snapshot holds.",
        logoUrl: "https://logos.test/baskets/ghost.png",
        addresses: { "1": [TS.absent] },
      },
    ],
  };
}
