/**
 * The hand-made data set of the pool-search rule tests (api-extended.md §10): chains 1, 8453 and
 * 130 (130 without a native record), chain 999 absent; pools chosen so that each rule shows up as
 * one pool (or its absence), and a baskets file.
 */
import { CHAINS, NATIVE_ADDRESS } from "../../src/chains/chains.js";
import type { SnapshotFile } from "../../src/api/snapshot-format.js";
import {
  addr,
  algebraPool,
  chainFile,
  nativeToken,
  P,
  poolId,
  poolStats,
  poolToken,
  protocol,
  slipstreamPool,
  token,
  v2Pool,
  v3Pool,
  v4Pool,
  wrappedNativeToken,
} from "./fixtures.js";
import type { BasketsJson } from "./reference-pool-search.js";

const W1 = CHAINS[1].wrappedNative;
const W8453 = CHAINS[8453].wrappedNative;
const W130 = CHAINS[130].wrappedNative;

/** Token addresses. */
export const PT = {
  usdc1: P.usdc1,
  usdt1: addr("7e7"),
  dai1: addr("da1"),
  x: addr("a1"),
  y: addr("a2"),
  usdcBase: P.usdcBase,
  usdc130: addr("13001"),
  w1: W1,
  w8453: W8453,
  w130: W130,
  native: NATIVE_ADDRESS,
} as const;

/** Pool addresses. */
export const PS = {
  usdcWeth: addr("c101"),
  wethUsdc: addr("c102"),
  nativeUsdc: poolId("c103"),
  usdcUsdt: addr("c104"),
  threeToken: addr("c105"),
  usdcUsdc: addr("c106"),
  xy: addr("c107"),
  trackedZero: addr("c108"),
  usdcDai: addr("c109"),
  nativeWeth: addr("c10a"),
  // chain 8453 (the first shares chain 1's first pool address)
  baseWethUsdc: addr("c101"),
  baseNativeUsdc: addr("c201"),
  baseXWeth: addr("c202"),
  // chain 130
  uniWethUsdc: addr("c301"),
} as const;

const PROTOCOLS = [
  protocol("uniswap-v2"),
  protocol("uniswap-v3"),
  protocol("uniswap-v4"),
  protocol("algebra-one"),
  protocol("aero"),
  protocol("uniswap_x", { name: "An id no filter can name" }),
];

const pt = (address: string, usd: number) => poolToken(address, usd / 2, usd);

export function poolSearchFixture(): SnapshotFile[] {
  const c1 = chainFile(1, {
    protocols: PROTOCOLS,
    tokens: [
      nativeToken(1, { logoUrl: "https://logos.test/native-eth.png" }),
      wrappedNativeToken(1, { symbol: "WETH", name: "Wrapped Ether" }),
      token(1, { address: PT.usdc1, symbol: "USDC", name: "USD Coin", decimals: 6 }),
      token(1, { address: PT.usdt1, symbol: "USDT", name: "Tether USD", decimals: 6 }),
      token(1, { address: PT.dai1, symbol: "DAI", name: "Dai" }),
      token(1, { address: PT.x, symbol: "X" }),
      token(1, { address: PT.y, symbol: "Y" }),
    ],
    pools: [
      // TVL order on chain 1: wethUsdc 2M, usdcWeth 1M (tracked), threeToken 800k, nativeUsdc 500k, usdcUsdt = usdcDai 300k, nativeWeth 100k, usdcUsdc 50k, trackedZero 0 (its untracked TVL is 9M)
      v2Pool({
        address: PS.usdcWeth,
        protocolId: "uniswap-v2",
        tokens: [pt(PT.usdc1, 1), pt(W1, 1)],
        totalValueLockedUsd: 1_500_000,
        trackedTotalValueLockedUsd: 1_000_000,
        stats: poolStats(5),
      }),
      v3Pool({
        address: PS.wethUsdc,
        protocolId: "uniswap-v3",
        tokens: [pt(W1, 1), pt(PT.usdc1, 1)],
        totalValueLockedUsd: 2_000_000,
        stats: poolStats(2),
      }),
      v4Pool({
        address: PS.nativeUsdc,
        protocolId: "uniswap-v4",
        tokens: [pt(NATIVE_ADDRESS, 1), pt(PT.usdc1, 1)],
        totalValueLockedUsd: 500_000,
        stats: poolStats(7),
      }),
      v3Pool({
        address: PS.usdcUsdt,
        protocolId: "uniswap-v3",
        tokens: [pt(PT.usdc1, 1), pt(PT.usdt1, 1)],
        totalValueLockedUsd: 300_000,
        stats: poolStats(3),
      }),
      algebraPool({
        address: PS.threeToken,
        protocolId: "algebra-one",
        tokens: [pt(PT.usdc1, 1), pt(W1, 1), pt(PT.dai1, 1)],
        totalValueLockedUsd: 800_000,
        stats: poolStats(3),
      }),
      v3Pool({
        address: PS.usdcUsdc,
        protocolId: "uniswap-v3",
        tokens: [pt(PT.usdc1, 1), pt(PT.usdc1, 1)],
        totalValueLockedUsd: 50_000,
        stats: poolStats(1),
      }),
      slipstreamPool({
        address: PS.xy,
        protocolId: "aero",
        tokens: [pt(PT.x, 1), pt(PT.y, 1)],
        totalValueLockedUsd: 5_000_000,
        stats: poolStats(9),
      }),
      v3Pool({
        address: PS.trackedZero,
        protocolId: "uniswap-v3",
        tokens: [pt(PT.x, 1), pt(PT.usdc1, 1)],
        totalValueLockedUsd: 9_000_000,
        trackedTotalValueLockedUsd: 0,
        stats: poolStats(8),
      }),
      v2Pool({
        address: PS.usdcDai,
        protocolId: "uniswap_x",
        tokens: [pt(PT.usdc1, 1), pt(PT.dai1, 1)],
        totalValueLockedUsd: 300_000,
        stats: poolStats(6),
      }),
      v3Pool({
        address: PS.nativeWeth,
        protocolId: "uniswap-v3",
        tokens: [pt(NATIVE_ADDRESS, 1), pt(W1, 1)],
        totalValueLockedUsd: 100_000,
        stats: poolStats(4),
      }),
    ],
  });
  const c8453 = chainFile(8453, {
    protocols: [protocol("uniswap-v3"), protocol("aero"), protocol("uniswap-v2")],
    tokens: [
      nativeToken(8453, { logoUrl: undefined }),
      wrappedNativeToken(8453, { symbol: "WETH", name: "Wrapped Ether" }),
      token(8453, { address: PT.usdcBase, symbol: "USDC", name: "USD Coin", decimals: 6 }),
      token(8453, { address: PT.x, symbol: "X" }),
    ],
    pools: [
      v3Pool({
        address: PS.baseWethUsdc,
        protocolId: "uniswap-v3",
        tokens: [pt(W8453, 1), pt(PT.usdcBase, 1)],
        totalValueLockedUsd: 300_000,
        stats: poolStats(3),
      }),
      slipstreamPool({
        address: PS.baseNativeUsdc,
        protocolId: "aero",
        tokens: [pt(NATIVE_ADDRESS, 1), pt(PT.usdcBase, 1)],
        totalValueLockedUsd: 700_000,
        stats: poolStats(10),
      }),
      v2Pool({
        address: PS.baseXWeth,
        protocolId: "uniswap-v2",
        tokens: [pt(PT.x, 1), pt(W8453, 1)],
        totalValueLockedUsd: 10,
        stats: poolStats(1),
      }),
    ],
  });
  const c130 = chainFile(130, {
    protocols: [protocol("uniswap-v4")],
    tokens: [
      wrappedNativeToken(130, { symbol: "WETH", name: "Wrapped Ether" }),
      token(130, { address: PT.usdc130, symbol: "USDC", name: "USD Coin", decimals: 6 }),
    ],
    pools: [
      v4Pool({
        address: PS.uniWethUsdc,
        protocolId: "uniswap-v4",
        tokens: [pt(W130, 1), pt(PT.usdc130, 1)],
        totalValueLockedUsd: 400_000,
        stats: poolStats(11),
      }),
    ],
  });
  return [c1, c8453, c130];
}

export const POOL_SEARCH_BASKETS: BasketsJson = {
  baskets: [
    {
      id: "stables",
      name: "Stablecoins",
      description: "USD stablecoins.",
      logoUrl: "https://logos.test/baskets/stables.png",
      addresses: { "1": [PT.usdc1, PT.usdt1, "0x" + PT.dai1.slice(2).toUpperCase()], "8453": [PT.usdcBase], "130": [PT.usdc130] },
    },
    {
      id: "eth",
      name: "ETH",
      description: "The native asset and its wrapped token.",
      logoUrl: "https://logos.test/baskets/eth.png",
      addresses: { "1": [NATIVE_ADDRESS, W1], "8453": [W8453], "999": [addr("999")] },
    },
    {
      id: "elsewhere",
      name: "Elsewhere",
      description: "Only on an unloaded chain.",
      logoUrl: "https://logos.test/baskets/e.png",
      addresses: { "999": [addr("998")] },
    },
  ],
};
