/**
 * The figures of `npm run bench:flood` (bench/live/flood-summary.ts): ratios taken per round, their median, and the
 * RESULTS.md section's verdict against the issue's target (the default message rates' variant).
 */
import { describe, expect, test } from "vitest";
import type { FloodReport } from "../../../../bench/live/flood-client.js";
import {
  median,
  p99Ratio,
  renderSection,
  type FloodResults,
  type Round,
  type Variant,
  type WrkRun,
} from "../../../../bench/live/flood-summary.js";
import { testMachine } from "../../../support/bench-machine.js";

const run = (p99Ms: number): WrkRun => ({
  label: "x",
  requests: 100_000,
  rps: 20_000,
  p50Ms: p99Ms / 4,
  p99Ms,
  maxMs: p99Ms * 2,
  errors: 0,
  gatewayCpuS: 4,
  cpuUsPerRequest: 40,
});

const flood: FloodReport = {
  type: "done",
  floods: 50,
  firstRoundMs: 40,
  sent: 1_000_000,
  subscribed: 800,
  errors: 1200,
  closes: { "1008 message rate exceeded": 50 },
  refusedOpens: 0,
  firstRefusal: null,
};

const round = (quiet: number, flooded: number): Round => ({ quiet: run(quiet), flooded: run(flooded), flood });
const variant = (name: string, rounds: Round[]): Variant => ({
  name,
  env: name === "defaults" ? {} : { STREAM_MAX_MESSAGES_PER_SECOND: "100000" },
  rounds,
});

function results(variants: Variant[]): FloodResults {
  return {
    startedAt: "2026-11-27T21:00:00.000Z",
    mode: "full",
    durationS: 150,
    machine: testMachine(),
    setup: {
      servingThreads: 2,
      connections: 10,
      messages: 20_000,
      rounds: 3,
      wrk: { version: "4.1.0", threads: 1, connections: 16, durationS: 10, path: "/v1/pools/8453/0xab" },
    },
    variants,
  };
}

describe("flood figures", () => {
  test("ratios are taken per round, then their median (the upper middle of an even count)", () => {
    const v = variant("defaults", [round(2, 3), round(4, 2), round(1, 5)]);
    expect(p99Ratio(v)).toEqual({ median: 1.5, min: 0.5, max: 5 });
    expect(median([4, 1, 3, 2])).toBe(3);
    expect(median([])).toBeNaN();
  });

  test("the verdict follows the default rates' median ratio against 2x, whatever the other variant", () => {
    const off = variant("limits off", [round(2, 600)]);
    const met = renderSection(results([off, variant("defaults", [round(2, 3.9), round(2, 5), round(2, 2)])]), "results/flood.json");
    expect(met).toContain("| **met** |");
    expect(met).toContain("1.95x (median of 3 rounds; 1.00-2.50x)");
    const missed = renderSection(results([off, variant("defaults", [round(2, 4.2), round(2, 5), round(2, 2)])]), "results/flood.json");
    expect(missed).toContain("| **missed** |");
    expect(renderSection(results([off]), "results/flood.json")).toContain("| not measured | n/a |");
  });

  test("the section quotes the machine and every round's figures", () => {
    const text = renderSection(results([variant("defaults", [round(2, 3)])]), "results/flood.json");
    expect(text).toContain("**Machine: 2 cores, Test CPU**");
    expect(text).toContain("1008 message rate exceeded ×50");
    expect(text).toContain("[results/flood.json](results/flood.json)");
  });
});
