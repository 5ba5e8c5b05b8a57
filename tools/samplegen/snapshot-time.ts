/** generatedAt and blockNumber, derived from the seed (never from the clock). */
import type { ChainId } from "../../src/chains/chains.js";
import type { ChainProfile } from "./chain-profiles.js";
import { DAY } from "./numbers.js";
import { Rng } from "./random.js";

/** 2026-01-01T00:00:00Z. */
export const BASE_TIMESTAMP = 1_767_225_600;

/** The base timestamp plus a seed-derived offset (under a week) plus a per-chain skew of up to two minutes. */
export function generatedAtFor(seed: number, chainId: ChainId): number {
  const seedOffset = Rng.fromLabel("generated-at", seed).int(0, 7 * DAY - 1);
  const chainSkew = Rng.fromLabel("generated-at", seed, chainId).int(0, 120);
  return BASE_TIMESTAMP + seedOffset + chainSkew;
}

export function blockNumberAt(profile: ChainProfile, timestamp: number): number {
  const { blockAnchor } = profile;
  return blockAnchor.number + Math.floor((timestamp - blockAnchor.timestamp) / blockAnchor.blockTimeSeconds);
}
