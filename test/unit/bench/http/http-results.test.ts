import { describe, expect, test } from "vitest";
import { cpuRatios, judgeGoals, summariseCells, type LimitContext, type Measurement } from "../../../../bench/http/results.js";
import { cpuMicrosPerRequest, median, pairedRatio, summarise } from "../../../../bench/shared/stats.js";

describe("median and spread", () => {
  test("odd and even counts, unsorted input", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });

  test("summarise gives median, range and the range relative to the median; NaN rounds are left out", () => {
    expect(summarise([10, 12, NaN, 8])).toEqual({ n: 3, median: 10, min: 8, max: 12, spreadPercent: 40 });
    expect(summarise([5])).toEqual({ n: 1, median: 5, min: 5, max: 5, spreadPercent: 0 });
    expect(summarise([NaN]).n).toBe(0);
  });

  test("paired ratios are taken round by round, then summarised", () => {
    // Round medians alone would give 20/10 = 2; the pairs say 1.5, 2, 3.
    const r = pairedRatio([15, 20, 30], [10, 10, 10]);
    expect(r).toEqual({ n: 3, median: 2, min: 1.5, max: 3, spreadPercent: 75 });
    // A round missing on either side is left out.
    expect(pairedRatio([15, NaN, 30], [10, 10, 0]).n).toBe(1);
  });

  test("CPU per request in µs", () => {
    expect(cpuMicrosPerRequest(0.5, 50_000)).toBe(10);
    expect(cpuMicrosPerRequest(0.5, 0)).toBeNaN();
    expect(cpuMicrosPerRequest(NaN, 10)).toBeNaN();
  });
});

function m(target: string, server: string, round: number, cpuUsPerRequest: number, extra: Partial<Measurement> = {}): Measurement {
  return {
    target,
    server,
    round,
    requests: 100_000,
    durationS: 5,
    wallS: 5.01,
    rps: 20_000,
    serverCpuS: (cpuUsPerRequest * 100_000) / 1e6,
    cpuUsPerRequest,
    serverCpuPercent: 99,
    wrkCpuS: 2,
    wrkCpuPercent: 40,
    otherCpuPercent: 1,
    latencyMs: { p50: 1, p90: 2, p99: 3, p999: 4, max: 5, mean: 1.2 },
    non2xx: 0,
    socketErrors: 0,
    ...extra,
  };
}

const context = (cells: LimitContext["cells"]): LimitContext => ({
  cells,
  serverCores: 1,
  wrkCores: 1,
  labelOf: (id) => id,
  threadsOf: () => 1,
});

describe("summariseCells, cpuRatios, judgeGoals", () => {
  const runs = [
    m("pool", "gw", 0, 12),
    m("pool", "bare", 0, 8),
    m("pool", "floor", 0, 10),
    m("pool", "gw", 1, 13),
    m("pool", "bare", 1, 8),
    m("pool", "floor", 1, 10),
    m("pool", "gw", 2, 11),
    m("pool", "bare", 2, 8),
    m("pool", "floor", 2, 11),
  ];

  test("a cell per target and server, in the order given, with the medians of the rounds", () => {
    const cells = summariseCells(runs, ["pool", "tokens"], ["gw", "bare", "floor"]);
    expect(cells.map((c) => c.server)).toEqual(["gw", "bare", "floor"]);
    expect(cells[0].cpuUsPerRequest).toEqual({ n: 3, median: 12, min: 11, max: 13, spreadPercent: (2 / 12) * 100 });
    expect(cells[0].requests).toBe(300_000);
    expect(cells[0].p99Ms).toBe(3);
  });

  test("ratios of CPU per request, gateway against each baseline, paired by round", () => {
    const ratios = cpuRatios(runs, ["pool"], ["gw"], ["bare", "floor"]);
    expect(ratios.map((r) => r.against)).toEqual(["bare", "floor"]);
    expect(ratios[0].cpuPerRequest.median).toBeCloseTo(1.5, 10); // 12/8, 13/8, 11/8
    expect(ratios[1].cpuPerRequest.median).toBeCloseTo(1.2, 10); // 1.2, 1.3, 1.0
    expect(ratios[1].cpuPerRequest.min).toBeCloseTo(1, 10);
  });

  test("goals: met at or under the limit, missed above it with what limits it, invalid with failed responses, not measured without figures", () => {
    const cells = summariseCells(runs, ["pool"], ["gw", "bare", "floor"]);
    const ratios = cpuRatios(runs, ["pool"], ["gw"], ["bare", "floor"]);
    const verdicts = judgeGoals(
      [
        { target: "pool", server: "gw", against: "bare", maxRatio: 1.5 },
        { target: "pool", server: "gw", against: "floor", maxRatio: 1.15 },
        { target: "tokens", server: "gw", against: "floor", maxRatio: 1.25 },
      ],
      ratios,
      context(cells),
    );
    expect(verdicts.map((v) => v.status)).toEqual(["met", "missed", "not measured"]);
    expect(verdicts[1].limit).toContain("gw spends 12.0 µs of server CPU per request against 10.0 µs for floor");
    expect(verdicts[1].limit).toContain("the goal allows 11.5 µs");
    expect(verdicts[1].limit).not.toContain("not saturated");

    const failing = [...runs.slice(0, 3), m("pool", "gw", 1, 13, { non2xx: 5 }), ...runs.slice(4)];
    const bad = judgeGoals(
      [{ target: "pool", server: "gw", against: "bare", maxRatio: 1.5 }],
      cpuRatios(failing, ["pool"], ["gw"], ["bare"]),
      context(summariseCells(failing, ["pool"], ["gw", "bare"])),
    );
    expect(bad[0].status).toBe("invalid");
  });

  test("what limits a missed goal names an unsaturated server, a load-generator bound and a shared machine", () => {
    const starved = runs.map((r) =>
      r.server === "gw" ? { ...r, serverCpuPercent: 50, otherCpuPercent: 60 } : r.server === "floor" ? { ...r, wrkCpuPercent: 97 } : r,
    );
    const cells = summariseCells(starved, ["pool"], ["gw", "bare", "floor"]);
    const [v] = judgeGoals(
      [{ target: "pool", server: "gw", against: "floor", maxRatio: 1.1 }],
      cpuRatios(starved, ["pool"], ["gw"], ["floor"]),
      context(cells),
    );
    expect(v.status).toBe("missed");
    expect(v.limit).toContain("gw was not saturated (50.0 % of one core");
    expect(v.limit).toContain("other processes took 60.0 %");
    expect(v.limit).toContain("wrk used 97.0 % of its 1 core(s) against floor");
    expect(v.limit).toContain("the machine was shared");
  });
});
