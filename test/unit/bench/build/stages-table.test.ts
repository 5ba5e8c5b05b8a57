import { describe, expect, it } from "vitest";
import { stagesTable } from "../../../../bench/build/summary.js";
import type { SeriesPush } from "../../../../bench/build/series.js";

const build = (chainId: number, buildMs: number, stages: Record<string, number> | null) => ({
  chainId,
  buildMs,
  reusedPools: 0,
  reusedTokens: 0,
  waitedMs: 0,
  nice: 0,
  niceEnd: 0,
  stages,
});
const push = (step: number, builds: SeriesPush["builds"], indexMs?: number[]): SeriesPush => ({
  step,
  mode: "idle",
  churn: 0.05,
  files: builds.length,
  ms: 4321.4,
  load: null,
  builds,
  indexMs,
});

describe("bench:build's stages table", () => {
  it("shows the largest build's stages in the order logged and each batch's index", () => {
    const lines = stagesTable([
      push(
        9,
        [build(1, 900, { hash: 50, pools: 700 }), build(8453, 1600, { hash: 200, top: 900, finish: 500 }), build(130, 100, { hash: 5 })],
        [1100, 300],
      ),
    ]);
    const row = lines.flatMap((l) => l.split("\n")).find((l) => l.startsWith("| 9 "));
    expect(row).toBe("| 9 | 4,321 | chain 8453: hash 200, top 900, finish 500 | 1,100 + 300 |");
  });

  it("is empty for results from before the stages were logged", () => {
    expect(stagesTable([push(1, [build(8453, 1600, null)])])).toEqual([]);
  });
});
