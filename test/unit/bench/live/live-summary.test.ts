/**
 * The figures of `npm run bench:live` (bench/live/summary.ts): nearest-rank
 * percentiles over subscribers, and the RESULTS.md section's verdicts, which
 * follow the measured figures against the targets.
 */
import { describe, expect, test } from "vitest";
import { percentiles, renderSection, type LiveResults, type RoundResult, type WrkFigures } from "../../../../bench/live/summary.js";
import { testMachine } from "../../../support/bench-machine.js";

describe("percentiles over subscribers", () => {
  test("nearest rank, unsorted input, the maximum", () => {
    const values = Array.from({ length: 200 }, (_, i) => 200 - i); // 200 … 1
    expect(percentiles(values)).toEqual({ n: 200, p50: 100, p99: 198, max: 200 });
    expect(percentiles([7])).toEqual({ n: 1, p50: 7, p99: 7, max: 7 });
  });

  test("fractional milliseconds sort as numbers, not as text", () => {
    expect(percentiles([10.5, 9.25, 100.125, 2])).toEqual({ n: 4, p50: 9.25, p99: 100.125, max: 100.125 });
  });

  test("no subscriber: NaN figures", () => {
    const none = percentiles([]);
    expect(none.n).toBe(0);
    expect(none.p99).toBeNaN();
  });
});

const round = (n: number, p99: number, scenario: RoundResult["scenario"] = "full", underWrk = false): RoundResult => ({
  round: n,
  scenario,
  gatewayCpuS: 0.5,
  clientsCpuS: 0.4,
  latencyMs: { n: 10_000, p50: p99 / 2, p99, max: p99 + 1 },
  incomplete: 0,
  servedAt: "2026-11-27T08:00:00.000Z",
  bytes: 10_000 * 29_000,
  underWrk,
});

const wrk = (label: string, p99Ms: number): WrkFigures => ({
  label,
  requests: 300_000,
  rps: 30_000,
  p50Ms: 0.4,
  p99Ms,
  maxMs: 2 * p99Ms,
  errors: 0,
  pushes: 0,
});

function results(idleP99: number, perConnectionBytes: number, fanOutP99: number): LiveResults {
  return {
    startedAt: "2026-11-27T08:00:00.000Z",
    mode: "full",
    durationS: 120,
    machine: testMachine(),
    setup: {
      clients: 10_000,
      opened: 10_000,
      failed: 0,
      clientProcesses: 2,
      servingThreads: 2,
      chainId: 8453,
      chainPools: 1050,
      changedPerPush: 100,
      poolsPerClient: 10,
      wrk: { version: "wrk 4", threads: 1, connections: 16, durationS: 10, path: "/v1/pools/8453/0xabc" },
      ulimitN: "20000",
    },
    memory: {
      rssBeforeBytes: 100 * 2 ** 20,
      rssWithHalfBytes: 110 * 2 ** 20,
      halfOpened: 5000,
      rssWithIdleBytes: 120 * 2 ** 20,
      perConnectionBytes,
      perConnectionSecondHalfBytes: perConnectionBytes,
      clientRssBytes: [],
    },
    coldRound: round(1, 2000),
    rounds: [round(2, idleP99), round(3, idleP99, "full", true), round(4, 50, "changes-only")],
    swapAloneCpuS: [0.2, 0.3],
    idle: { n: 10_000, p50: idleP99 / 2, p99: idleP99, max: idleP99 + 1 },
    changesOnly: { n: 10_000, p50: 20, p99: 50, max: 51 },
    underLoad: { n: 10_000, p50: 100, p99: 300, max: 301 },
    wrk: {
      baseline: wrk("without subscribers", 4),
      fanOut: wrk("during fan-outs", fanOutP99),
      swapsOnly: wrk("swaps", 5),
      baselineAfter: wrk("again", 4),
    },
  };
}

describe("the live section of RESULTS.md", () => {
  const verdicts = (section: string) =>
    section
      .split("\n")
      .filter((line) => line.startsWith("| ") && /\*\*(met|missed)\*\*/.test(line))
      .map((line) => /\*\*(met|missed)\*\*/.exec(line)![1]);

  test("every target met: the figures within 250 ms, 4 KiB and 1.5x", () => {
    const section = renderSection(results(240, 3000, 5.9), "results/live-x.json");
    expect(verdicts(section)).toEqual(["met", "met", "met", "met"]);
    expect(section).toContain("p99 240.0 ms");
    expect(section).toContain("2.93 KiB");
    expect(section).toContain("1.48x");
    expect(section).toContain("[results/live-x.json](results/live-x.json)");
    expect(section).toContain("2 cores, Test CPU");
  });

  test("each target missed on its own figure", () => {
    expect(verdicts(renderSection(results(251, 3000, 5.9), "x.json"))).toEqual(["missed", "met", "met", "met"]);
    expect(verdicts(renderSection(results(240, 4097, 5.9), "x.json"))).toEqual(["met", "met", "missed", "met"]);
    expect(verdicts(renderSection(results(240, 3000, 6.1), "x.json"))).toEqual(["met", "met", "met", "missed"]);
  });

  test("the cold first push, the changes-only pushes and the pushes during wrk are listed apart", () => {
    const section = renderSection(results(240, 3000, 5.9), "x.json");
    expect(section).toMatch(/first push with subscribers \(cold; left out below\).*p99 2000\.0 ms/);
    expect(section).toMatch(/push 3 \(during wrk\)/);
    expect(section).toMatch(/push 4 \(`changes` only/);
    expect(section).toContain("0.20 and 0.30 s");
  });
});
