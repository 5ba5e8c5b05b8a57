/**
 * The figures of `npm run bench:history` (bench/history/summary.ts): ratios taken per round, bytes per stored
 * observation net of the base file's full pass, and the RESULTS.md section's verdicts against the targets.
 */
import { describe, expect, test } from "vitest";
import {
  churnVerdicts,
  p99Unmeasurable,
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
      pushMethod: { buildWorkerIdleS: 3600, settleMs: 1200, quietWindowMs: 300, quietCpuS: 0.03 },
      sizeNote: "the sample.",
      hourly: { chainId: 9745, pools: 230, files: 2161, days: 90 },
    },
    pushes: [0.02, 0.05, 0.2].map((churn) => ({
      churn,
      rounds: [push(onMs, 100), push(onMs * 2, 200), push(onMs / 2, 50)],
      load: [
        { on: load(3), off: load(3) },
        { on: load(3), off: load(3) },
        { on: load(3), off: load(3) },
      ],
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

  test("p99 on/off is judged against the same gateway's round-to-round spread", () => {
    const run = (pairs: ReadonlyArray<readonly [number, number]>) =>
      churnVerdicts([{ churn: 0.05, rounds: [push(100, 100)], load: pairs.map(([on, off]) => ({ on: load(on), off: load(off) })) }])[0];
    // on 4, 5, 4 / off 4, 4, 5: on/off 1, 1.25, 0.8 (median 1); same side 4/5, 5/4, 4/4, 4/5 → 0.8-1.25.
    const within = run([
      [4, 4],
      [5, 4],
      [4, 5],
    ]);
    expect(within.p99Same).toMatchObject({ n: 4, min: 0.8, max: 1.25 });
    expect(within.p99Ratio.median).toBe(1);
    expect(p99Unmeasurable(within)).toBe(true);
    // History's side twice as slow every round: on/off 2, the same side moves 0.9-1.1.
    const outside = run([
      [8, 4],
      [8.8, 4.4],
      [8, 4],
    ]);
    expect(outside.p99Ratio.median).toBe(2);
    expect(p99Unmeasurable(outside)).toBe(false);
    expect(p99Unmeasurable(run([[3, 3]]))).toBeNull();
    const r = results();
    const missed = renderSection(
      {
        ...r,
        pushes: r.pushes.map((c) => ({ ...c, load: c.load.map((x) => ({ on: load(x.on.p99Ms * 2), off: x.off })) })),
      },
      "results/history.json",
    );
    expect(missed).toMatch(/nothing measurable.*\| \*\*missed\*\* \(a churn's median on\/off outside/);
    const one = renderSection({ ...r, pushes: r.pushes.map((c) => ({ ...c, load: c.load.slice(0, 1) })) }, "results/history.json");
    expect(one).toMatch(/nothing measurable.*\| not judged \(fewer than two load rounds\) \|/);
    // A run from before the push method was recorded renders as it did: its p99 row judged within 10 %.
    const { pushMethod: _, ...setup } = r.setup;
    const legacy = renderSection({ ...r, setup }, "results/history.json");
    expect(legacy).toMatch(/nothing measurable.*\| \*\*met\*\* \(within 10 %, the run-to-run noise\) \|/);
    expect(legacy).not.toContain("same gateway, round to round");
    expect(legacy).not.toContain("BUILD_WORKER_IDLE_S");
    expect(renderSection(r, "results/history.json")).toContain("`BUILD_WORKER_IDLE_S=3600`");
  });

  test("the large set's pushes get their own target row and table when the run has them", () => {
    const r = results();
    const large = { dir: "/data", fileBytes: 249 * 2 ** 20, rssBytes: { on: 3 * 2 ** 30, off: 2 * 2 ** 30 }, pushes: r.pushes };
    const text = renderSection({ ...r, large }, "results/history.json");
    expect(text).toMatch(/\| the same on the large set \(chain 8453, 249\.0 MiB; `--large`\) \| 2 %: \+2\.0 %.*\| \*\*met\*\* \|/);
    expect(text).toContain("On the large set (`--large`)");
    const slow = { ...large, pushes: r.pushes.map((c) => ({ ...c, rounds: c.rounds.map((x) => ({ ...x, onMs: x.offMs * 1.2 })) })) };
    expect(renderSection({ ...r, large: slow }, "results/history.json")).toMatch(/the same on the large set.*\| \*\*missed\*\* \|/);
    expect(renderSection(r, "results/history.json")).not.toContain("large set (chain");
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
