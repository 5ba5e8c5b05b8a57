/**
 * Concentrated-liquidity price state from USD prices: sqrtPriceX96 and the
 * current tick of token1 per token0 in raw (smallest-unit) amounts, as
 * Uniswap V3/V4, Slipstream and Algebra store them.
 */
import type { SnapshotToken } from "../../src/api/snapshot-format.js";
import type { Rng } from "./random.js";

const LN_TICK_BASE = Math.log(1.0001);
const MIN_TICK = -887272;
const MAX_TICK = 887272;
const LN_10 = Math.log(10);
const LN_2 = Math.log(2);

export interface PriceState {
  readonly sqrtPriceX96: string;
  readonly tick: string;
}

function lnUsdPrice(token: SnapshotToken): number {
  return Math.log(token.usdPrice > 0 ? token.usdPrice : 1);
}

/** 2^log2Value as an integer, with random low bits below double precision. */
function powerOfTwo(rng: Rng, log2Value: number): bigint {
  const exponent = Math.floor(log2Value);
  const mantissa = BigInt(Math.floor(Math.pow(2, log2Value - exponent + 52)));
  if (exponent >= 52) {
    const shift = exponent - 52;
    return (mantissa << BigInt(shift)) | rng.bigBits(shift);
  }
  return mantissa >> BigInt(52 - exponent);
}

export function priceState(rng: Rng, token0: SnapshotToken, token1: SnapshotToken): PriceState {
  // raw price = (usd0 / 10^dec0) / (usd1 / 10^dec1) per raw unit: token1 raw per token0 raw.
  const lnRaw = lnUsdPrice(token0) - lnUsdPrice(token1) + (token1.decimals - token0.decimals) * LN_10;
  const lnClamped = Math.min(Math.max(lnRaw, (MIN_TICK + 1) * LN_TICK_BASE), (MAX_TICK - 1) * LN_TICK_BASE);
  const tick = Math.floor(lnClamped / LN_TICK_BASE);
  const log2SqrtX96 = lnClamped / (2 * LN_2) + 96;
  return { sqrtPriceX96: powerOfTwo(rng, log2SqrtX96).toString(), tick: String(tick) };
}
