/** How much data each scale produces, per chain. */
import type { ChainId } from "../../src/chains/chains.js";

export type ScaleName = "small" | "large";
export const SCALE_NAMES: readonly ScaleName[] = ["small", "large"];

export interface ChainVolume {
  /** Long-tail tokens generated on top of the native, major and hand-made tokens. */
  readonly tailTokens: number;
  /** Target pool count (a little more when every token needs its own pool). */
  readonly pools: number;
}

export interface ScaleProfile {
  readonly name: ScaleName;
  /** Minor tokens that exist on several chains (cross-chain groups of the long tail). */
  readonly sharedMinorTokens: number;
  /** Tail tokens per chain forced onto each threshold edge (exactly at / just above). */
  readonly edgeTokensPerCase: number;
  /** Report progress every this many pools. */
  readonly progressEvery: number;
  readonly chains: Readonly<Record<ChainId, ChainVolume>>;
}

const SMALL: ScaleProfile = {
  name: "small",
  sharedMinorTokens: 60,
  edgeTokensPerCase: 1,
  progressEvery: 50_000,
  chains: {
    1: { tailTokens: 420, pools: 900 },
    8453: { tailTokens: 560, pools: 1050 },
    130: { tailTokens: 150, pools: 280 },
    999: { tailTokens: 190, pools: 330 },
    143: { tailTokens: 170, pools: 290 },
    9745: { tailTokens: 120, pools: 230 },
    534352: { tailTokens: 150, pools: 270 },
  },
};

const LARGE: ScaleProfile = {
  name: "large",
  sharedMinorTokens: 4_000,
  edgeTokensPerCase: 12,
  progressEvery: 50_000,
  chains: {
    1: { tailTokens: 76_000, pools: 152_000 },
    8453: { tailTokens: 96_000, pools: 190_000 },
    130: { tailTokens: 21_000, pools: 42_000 },
    999: { tailTokens: 19_000, pools: 38_000 },
    143: { tailTokens: 17_000, pools: 34_000 },
    9745: { tailTokens: 12_000, pools: 24_000 },
    534352: { tailTokens: 15_000, pools: 30_000 },
  },
};

export function scaleProfile(name: ScaleName): ScaleProfile {
  return name === "small" ? SMALL : LARGE;
}
