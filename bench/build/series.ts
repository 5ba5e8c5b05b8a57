/**
 * Incremental re-pushes (issue 30): what an indexer pushes, from the sample generator's series
 * (tools/samplegen/series.ts) on top of the data set, pushed into a running gateway one after another.
 *
 * The series files are cached next to the data set (`<data>-series/`, with a manifest naming how they were made)
 * and generated once, before the gateway starts: the largest chain's file followed by one file per step, each a
 * share of its records changed against the step before (2, 5, 20 and 100 %, idle; the same again under load),
 * then every chain's file at 5 % (a re-push of every file at once).
 *
 * The loaded steps are the harsher measurement of issue 30: wrk on the pool route starts `LEAD_S` before the push
 * and runs through it to the swap, so the build starts on cores that are already saturated (bench:build's
 * issue-22 row starts its measured run with the push instead).
 */
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pack, unpack } from "msgpackr";
import type { SnapshotFile } from "../../src/api/snapshot-format.js";
import { snapshotVersion, versionHex } from "../../src/api/snapshot-version.js";
import type { ChainId } from "../../src/chains/chains.js";
import { ChainSeries } from "../../tools/samplegen/series.js";
import { writeFileAtomic } from "../../tools/samplegen/atomic-write.js";
import { snapshotFiles } from "./measure.js";
import { clearPeakRss, readMemory } from "../shared/rss.js";
import { runWrk, startWrk, type WrkBinary, type WrkSpec } from "../shared/wrk.js";
import { waitForVersion, type RunningGateway } from "../targets/gateway.js";
import type { LogLine } from "../shared/child.js";

export const SERIES_CHURNS = [0.02, 0.05, 0.2, 1] as const;
const SEED = 7;
const EVERY_S = 300;
const CHAIN: ChainId = 8453;
/** The churn of the step that re-pushes every file. */
const EVERY_FILE_CHURN = 0.05;
/** Seconds of wrk on the pool route before a loaded push (issue 30's method). */
export const LEAD_S = 1;
/**
 * The wait before each push: a build worker beyond the BUILD_WORKERS_KEPT kept ones exits 10 s after a build, and the kept
 * ones have collected their heaps (build-pool.ts), as after a quiet spell in production.
 */
const WORKER_EXIT_MS = 12_000;

interface SeriesStep {
  readonly mode: "idle" | "loaded";
  readonly churn: number;
  /** The chain files of this step (the others stay as served). */
  readonly files: readonly string[];
}

interface Manifest {
  readonly seed: number;
  readonly everySeconds: number;
  readonly chainId: number;
  readonly steps: readonly SeriesStep[];
}

function plannedSteps(allFiles: readonly string[]): SeriesStep[] {
  const one = [`chain-${CHAIN}.msgpack`];
  return [
    ...SERIES_CHURNS.map((churn) => ({ mode: "idle" as const, churn, files: one })),
    ...SERIES_CHURNS.map((churn) => ({ mode: "loaded" as const, churn, files: one })),
    { mode: "idle", churn: EVERY_FILE_CHURN, files: allFiles },
  ];
}

const stepDir = (seriesDir: string, k: number) => join(seriesDir, String(k));

/** The series of `dataDir`, generated into `seriesDir` unless its manifest says it is there already. */
export function ensureSeries(dataDir: string, seriesDir: string, log: (line: string) => void): SeriesStep[] {
  const steps = plannedSteps(snapshotFiles(dataDir));
  const manifest: Manifest = { seed: SEED, everySeconds: EVERY_S, chainId: CHAIN, steps };
  const manifestFile = join(seriesDir, "series.json");
  if (existsSync(manifestFile) && readFileSync(manifestFile, "utf8") === JSON.stringify(manifest)) return steps;
  log(`generating the re-push series into ${seriesDir} (seed ${SEED}; a few minutes, once)`);
  mkdirSync(seriesDir, { recursive: true });
  const series = new Map<string, ChainSeries>();
  const seriesOf = (file: string) => {
    let s = series.get(file);
    if (s === undefined) {
      const base = unpack(readFileSync(join(dataDir, file))) as SnapshotFile;
      s = new ChainSeries(base, SEED, { everySeconds: EVERY_S, churn: EVERY_FILE_CHURN });
      series.set(file, s);
    }
    return s;
  };
  steps.forEach((step, i) => {
    for (const file of step.files) {
      const started = performance.now();
      mkdirSync(stepDir(seriesDir, i + 1), { recursive: true });
      writeFileAtomic(stepDir(seriesDir, i + 1), file, pack(seriesOf(file).next(step.churn)));
      log(`  step ${i + 1} ${file} churn ${step.churn}: ${Math.round(performance.now() - started)} ms`);
    }
  });
  writeFileSync(manifestFile, JSON.stringify(manifest));
  return steps;
}

export interface SeriesPush {
  readonly step: number;
  readonly mode: "idle" | "loaded";
  readonly churn: number;
  readonly files: number;
  /** Push (rename) to the new version serving. */
  readonly ms: number;
  /** Loaded: the pool route over the run (LEAD_S before the push, then to the swap). */
  readonly load: { readonly rps: number; readonly p50Ms: number; readonly p99Ms: number; readonly durationS: number } | null;
  /** The gateway's snapshot-accepted lines of this push (per chain: pools and tokens reused, its wait and priority). */
  readonly builds: ReadonlyArray<{
    readonly chainId: number;
    readonly buildMs: number | null;
    readonly reusedPools: number | null;
    readonly reusedTokens: number | null;
    readonly waitedMs: number | null;
    readonly nice: number | null;
    readonly niceEnd: number | null;
    /** Milliseconds per stage of the chain task (snapshot-accepted's `stages`; absent from older gateways). */
    readonly stages?: Readonly<Record<string, number>> | null;
  }>;
  /** The token index of each batch this push was served in (snapshot-built's buildMs, ms). */
  readonly indexMs?: readonly number[];
}

export interface SeriesFigures {
  /** VmRSS before the first push, the build workers gone. */
  readonly steadyBytes: number;
  /** VmHWM from there to the end of the series. */
  readonly peakBytes: number;
  readonly pushes: SeriesPush[];
}

const sha = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");
const num = (v: unknown): number | null => (typeof v === "number" ? v : null);
const stagesOf = (v: unknown): Record<string, number> | null =>
  typeof v === "object" && v !== null && Object.values(v).every((x) => typeof x === "number") ? (v as Record<string, number>) : null;

/** Pushes each step's files into the gateway's directory, one step at a time, and times each. */
export async function measureSeries(options: {
  readonly gateway: RunningGateway;
  readonly servingDir: string;
  readonly seriesDir: string;
  readonly steps: readonly SeriesStep[];
  readonly poolLoad: { readonly wrk: WrkBinary; readonly spec: WrkSpec };
  readonly timeoutMs: number;
  readonly log: (line: string) => void;
}): Promise<SeriesFigures> {
  const { gateway, servingDir } = options;
  await new Promise((resolve) => setTimeout(resolve, WORKER_EXIT_MS));
  const steadyBytes = readMemory(gateway.child.pid)?.rssBytes ?? NaN;
  clearPeakRss(gateway.child.pid);
  const pushes: SeriesPush[] = [];
  for (const [i, step] of options.steps.entries()) {
    const k = i + 1;
    const staged = step.files.map((file) => {
      const tmp = join(servingDir, `.${file}.series-tmp`);
      copyFileSync(join(stepDir(options.seriesDir, k), file), tmp);
      return { file, tmp };
    });
    const contents = snapshotFiles(servingDir).map((file) => {
      const s = staged.find((x) => x.file === file);
      return { chainId: Number(/\d+/.exec(file)![0]) as ChainId, sha256: sha(s ? s.tmp : join(servingDir, file)) };
    });
    const version = versionHex(snapshotVersion(contents));
    await new Promise((resolve) => setTimeout(resolve, WORKER_EXIT_MS));
    const chains = new Set(step.files.map((f) => Number(/\d+/.exec(f)![0])));
    const lines: LogLine[] = [];
    const indexMs: number[] = [];
    // Until every pushed chain is accepted and a snapshot is built after the last of them (its token index).
    let builtAfterLast = false;
    const watching = gateway.child.waitForLine((l) => {
      if (l.event === "snapshot-accepted" && chains.has(l.chainId as number)) {
        lines.push(l);
        builtAfterLast = false;
      }
      if (l.event === "snapshot-built" && lines.length > 0) {
        if (typeof l.buildMs === "number") indexMs.push(l.buildMs);
        builtAfterLast = true;
      }
      return lines.length >= chains.size && builtAfterLast;
    }, options.timeoutMs);
    let load = null;
    if (step.mode === "loaded") {
      await runWrk(options.poolLoad.wrk, { ...options.poolLoad.spec, durationS: 1 }); // connections warm
      load = startWrk(options.poolLoad.wrk, { ...options.poolLoad.spec, durationS: Math.ceil(options.timeoutMs / 1000) + 5 });
      await new Promise((resolve) => setTimeout(resolve, LEAD_S * 1000));
    }
    const pushedAt = performance.now();
    for (const { file, tmp } of staged) renameSync(tmp, join(servingDir, file));
    let servedAt: number;
    try {
      servedAt = (await waitForVersion(gateway.baseUrl, version, options.timeoutMs)).at;
    } finally {
      load?.stop();
    }
    const w = load ? await load.result : null;
    await watching.catch(() => null);
    const push: SeriesPush = {
      step: k,
      mode: step.mode,
      churn: step.churn,
      files: step.files.length,
      ms: servedAt - pushedAt,
      load: w ? { rps: w.rps, p50Ms: w.latencyMs.p50, p99Ms: w.latencyMs.p99, durationS: w.durationS } : null,
      builds: lines.map((l) => ({
        chainId: l.chainId as number,
        buildMs: num(l.buildMs),
        reusedPools: num(l.reusedPools),
        reusedTokens: num(l.reusedTokens),
        waitedMs: num(l.waitedMs),
        nice: num(l.nice),
        niceEnd: num(l.niceEnd),
        stages: stagesOf(l.stages),
      })),
      indexMs,
    };
    options.log(
      `series step ${k} (${step.mode}, churn ${step.churn}, ${step.files.length} file(s)): served after ${Math.round(push.ms)} ms` +
        (push.load ? `; pool p99 ${push.load.p99Ms} ms at ${push.load.rps} req/s` : "") +
        `; ${JSON.stringify(push.builds)}`,
    );
    pushes.push(push);
  }
  return { steadyBytes, peakBytes: readMemory(gateway.child.pid)?.peakRssBytes ?? NaN, pushes };
}
