/**
 * The figures of `npm run bench:history` (bench/history/summary.ts): ratios taken per round, bytes per stored
 * observation net of the base file's full pass, and the RESULTS.md section's verdicts against the targets.
 */
import { describe, expect, test } from "vitest";
import {
  renderSection,
  verdicts,
  type CpuRound,
  type HistoryResults,
  type PushRound,
  type Rebuild,
} from "../../../../bench/history/summary.js";
import { testMachine } from "../../../support/bench-machine.js";

const push = (onMs: number, offMs: number): PushRound => ({ onMs, offMs, observedMs: onMs + 10, records: 90 });
const load = (p99Ms: number) => ({ rps: 10_000, p50Ms: 1, p99Ms, requests: 20_000 });
const store = (files: number, records: number, bytes: number): Rebuild => ({
  files,
  seconds: files / 10,
  peakRssBytes: 300 * 2 ** 20,
  records,
  bytes,
});
const cpu = (us: number): CpuRound => ({ rps: 1e6 / us, cpuUsPerRequest: us, p99Ms: 2, non2xx: 0 });

function results(options: { onMs?: number; recordBytes?: number; candlesUs?: number } = {}): HistoryResults {
  const onMs = options.onMs ?? 102;
  const b = options.recordBytes ?? 20;
  return {
    startedAt: "2026-11-28T00:30:00.000Z",
    durationS: 300,
    machine: testMachine(),
    setup: {
      chainId: 8453,
      pools: 1050,
      tokens: 625,
      fileBytes: 1_400_000,
      everySeconds: 60,
      gatewayThreads: 2,
      wrk: { version: "wrk 4.2.0", connections: 16, durationS: 4, loadWindowS: 2 },
      sizeNote: "the sample.",
      hourly: { chainId: 9745, pools: 230, files: 2161, days: 90 },
    },
    pushes: [0.02, 0.05, 0.2].map((churn) => ({
      churn,
      rounds: [push(onMs, 100), push(onMs * 2, 200), push(onMs / 2, 50)],
      load: [{ on: load(3), off: load(3) }],
    })),
    diskBase: store(1, 1_000, 100_000),
    // 100 files of 90 observations each at `b` bytes on top of the base store.
    disk: [0.02, 0.05, 0.2].map((churn) => ({ churn, files: 100, rebuild: store(101, 1_000 + 9_000, 100_000 + 9_000 * b) })),
    rebuildDay: store(1440, 1_000 + 1439 * 90, 100_000 + 1439 * 90 * b),
    dayProfile: {
      pageSize: 4096,
      filePages: 12,
      dbs: [
        { name: "l1", entries: 2, keyBytes: 1024, valueBytes: 1024, pages: 1 },
        { name: "gaps", entries: 0, keyBytes: 0, valueBytes: 0, pages: 0 },
      ],
    },
    rebuildHourly: store(2161, 50_000, 2_000_000),
    cpu: [
      { name: "pool details", path: "/v1/pools/8453/0xa", answerBytes: 2000, rounds: [cpu(10), cpu(20)] },
      { name: "candles", path: "/v1/history/x", answerBytes: 60_000, rounds: [cpu(options.candlesUs ?? 25), cpu(40)] },
    ],
  };
}

describe("history figures", () => {
  test("push ratios are per round, bytes per observation net of the base store, a day scaled from the files' interval", () => {
    const v = verdicts(results({ onMs: 103 }));
    expect(v.churns[0].pushRatio.median).toBeCloseTo(1.03, 10);
    expect(v.disk[0].bytesPerObservation).toBe(20);
    expect(v.disk[0].observationsPerFile).toBe(90);
    expect(v.disk[0].bytesPerDay).toBe(90 * 20 * 1440);
    expect(v.dayBytesPerObservation).toBe(20);
    // Round by round: 25/10 and 40/20.
    expect(v.cpu[1].ratio).toMatchObject({ median: 2.25, min: 2, max: 2.5 });
    expect(v.cpu[0].ratio).toBeNull();
  });

  test("each target's verdict follows its figure", () => {
    const met = renderSection(results(), "results/history.json");
    expect(met).not.toContain("**missed**");
    expect(met.match(/\*\*met\*\*/g)).toHaveLength(4);
    expect(renderSection(results({ onMs: 106 }), "results/history.json")).toMatch(/ingestion adds ≤ 5 %.*\| \*\*missed\*\* \|/);
    expect(renderSection(results({ recordBytes: 25 }), "results/history.json")).toMatch(/≤ 24 bytes.*\| \*\*missed\*\* \|/);
    expect(renderSection(results({ candlesUs: 70 }), "results/history.json")).toMatch(/≤ 3x the server CPU.*\| \*\*missed\*\* \|/);
  });

  test("a day at each churn: its row, its whole store, and the verdict on the worst of them", () => {
    const r = results();
    // The base file and 1,439 files of 40, 90 and 360 observations at 30, 20 and 12 bytes each.
    const day = (churn: number, n: number, bytes: number) => ({
      churn,
      files: 1439,
      rebuild: store(1440, 1_000 + 1439 * n, 100_000 + 1439 * n * bytes),
    });
    const days = [day(0.02, 40, 30), day(0.05, 90, 20), day(0.2, 360, 12)];
    const v = verdicts({ ...r, days });
    expect(v.days.map((d) => d.bytesPerObservation)).toEqual([30, 20, 12]);
    expect(v.days[0].wholeStorePerObservation).toBeCloseTo((100_000 + 1439 * 40 * 30) / (1_000 + 1439 * 40), 10);
    const text = renderSection({ ...r, days }, "results/history.json");
    expect(text).toMatch(/≤ 24 bytes.*a day: 2 %: 30\.0 B \(whole store 31\.2 B\); 5 %: 20\.0 B.*\| \*\*missed\*\* \|/);
    expect(text).toContain("| 2 % (one day, measured) | 1439 | 40 | 30.0 | 31.2 |");
    expect(text).toContain("| 20 % (one day, measured) | 1439 | 360 | 12.0 | 12.2 |");
    expect(text).toContain("- The day at 2 % churn (1440 files): 144.0 s");
    // Without the day at 2 %, every figure is within the target.
    expect(renderSection({ ...r, days: days.slice(1) }, "results/history.json")).toMatch(/≤ 24 bytes.*\| \*\*met\*\* \|/);
  });

  test("answers made from the store (no answer kept) are reported beside the target, not judged by it", () => {
    const r = results();
    const made = { name: "candles made", path: "/v1/history/x", answerBytes: 60_000, rounds: [cpu(300), cpu(400)], made: true };
    const text = renderSection({ ...r, cpu: [...r.cpu, made] }, "results/history.json");
    expect(text).toMatch(/≤ 3x the server CPU.*made from the store, once per file of the chain: candles made: 25.00x.*\| \*\*met\*\* \|/);
    expect(text).toContain("| candles made (`/v1/history/x`) |");
    expect(text).toContain("with `HISTORY_ANSWER_CACHE_MB=0`, where every request makes its answer");
    expect(renderSection(r, "results/history.json")).not.toContain("HISTORY_ANSWER_CACHE_MB");
  });

  test("the section quotes the machine, the size and its results file", () => {
    const text = renderSection(results(), "results/history.json");
    expect(text).toContain("**Machine: 2 cores, Test CPU**");
    expect(text).toContain("**Size:** the sample.");
    expect(text).toContain("[results/history.json](results/history.json)");
    expect(text).toContain("1440 files in 144.0 s");
    // The store's profile: each database's share of its pages filled, empty ones left out.
    expect(text).toContain("| l1 | 2 | 1.0 KiB | 1.0 KiB | 1 | 50 % |");
    expect(text).not.toContain("| gaps |");
    expect(text).toContain("12 pages of 4096 B in the file, 1 in the databases' trees");
  });
});
