/**
 * The history benchmark (issue 32, Performance): `npm run bench:history [-- [--rounds N] [--data DIR] [--large]
 * [--large-dir DIR] [--large-rounds N] [--only pushes|large] [--no-summary]]`. Run it through the bench lock (cpu-exclusive).
 *
 * Data: the bundled sample's largest chain (8453) and the sample generator's series of it
 * (tools/samplegen/series.ts, in-process as bench/build/series.ts does; cached in --data, generated once):
 *   - pushes: a warm-up file, then N + 5 files at each of 2, 5 and 20 % churn, one a minute (own manifest: push/plan.json);
 *   - disk: 120 files at each churn after the base file;
 *   - a day at each churn: the base file and 1,439 files, one a minute (5 %: `day`; 2 and 20 %: `day-<churn>`,
 *     each generated once beside the others, with its own manifest);
 *   - hourly: the smallest sample chain (9745) and 2,160 files at 5 %, one an hour (90 days).
 * In one run:
 *   1. two gateways, HISTORY=on and HISTORY=off: each churn's files pushed into both, rounds interleaved,
 *      rename → served (and → observed with history on); then the pool route under wrk during pushes, 5 rounds a
 *      churn, with each gateway's round-to-round p99 spread beside on/off. What it measures is what history adds
 *      to a push when nothing else runs: both gateways keep their build workers for the whole run
 *      (BUILD_WORKER_IDLE_S=3600; with the default 10 s the side whose pushes lay further apart lost its worker
 *      and built on cold code, which earlier runs read as +11-18 % for history) and every push waits until both
 *      gateways are quiet (past the build worker's idle collection, then both processes near 0 CPU);
 *   1b. with --large, the same pushes (no load rounds) on the large set's chain 8453 (bench:build generates the
 *      set; the series from its file is generated into DIR/large-push, ~250 MB a file, 3 rounds a churn
 *      and the warm-up file: 2.5 GB; about 5 minutes on this 2-core VM, most of it generating and starting);
 *   2. `history rebuild` of the base file alone and of each churn's 120 files, then of each churn's day (time,
 *      peak RSS, bytes per observation; ~1.5-2 minutes a day on 2 cores);
 *   3. the hourly files into the store of the day at 5 %;
 *   4. one gateway on that store (1 thread, CPU 0) and wrk (CPU 1): pool details, 1,000 minute candles of a
 *      token, 1,000 hourly rows of a pool, rounds interleaved; server CPU µs per request from /proc/<pid>/stat;
 *      the same history requests on a second gateway that keeps no answers (HISTORY_ANSWER_CACHE_MB=0), each
 *      request making its answer from the store.
 * Writes bench/results/history-<timestamp>.json and the "history" section of bench/RESULTS.md. Every process it
 * starts is stopped at the end, also on failure.
 */
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  cpSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pack, unpack } from "msgpackr";
import type { SnapshotFile } from "../../src/api/snapshot-format.js";
import { PROJECT_ROOT } from "../../src/config/config.js";
import { openHistoryDbs, type HistoryDb } from "../../src/history/history-store.js";
import { ChainSeries } from "../../tools/samplegen/series.js";
import { integerOption, readArgs } from "../shared/command-line.js";
import { benchMachine, log, onCleanup, publishResults, round, runBench } from "../shared/entry.js";
import { readProcessCpu } from "../shared/proc-stat.js";
import { readMemory } from "../shared/rss.js";
import { cpuMicrosPerRequest } from "../shared/stats.js";
import { ensureWrk, runWrk, startWrk, type WrkBinary, type WrkSpec } from "../shared/wrk.js";
import { MAIN_JS, readiness, startGateway, writeBenchKey, type RunningGateway } from "../targets/gateway.js";
import {
  churnVerdicts,
  renderSection,
  SECTION_ID,
  verdicts,
  type ChurnRun,
  type LargeRun,
  type CpuTarget,
  type DiskRun,
  type HistoryResults,
  type PoolLoad,
  type PushRound,
  type Rebuild,
  type StoreProfile,
} from "./summary.js";

const CHAIN = 8453;
const HOURLY_CHAIN = 9745;
const CHURNS = [0.02, 0.05, 0.2] as const;
const EVERY_S = 60;
const SEED = 7;
const DISK_FILES = 120;
const DAY_FILES = 1440;
/** The churn of the plan's day (the store the request part reads). */
const DAY_CHURN = 0.05;
const HOURLY_DAYS = 90;
const LOAD_ROUNDS = 5;
const LOAD_WINDOW_S = 2;
/**
 * Both gateways keep their build workers through the run (BUILD_WORKER_IDLE_S). With the default 10 s, the side
 * whose pushes lie further apart (the history side, which also waits for its observation, or either side across
 * the load rounds) lost its worker and built its next files on a new thread's cold code: 20-60 % slower builds
 * for a few pushes, which the runs of 03:36Z and 03:46Z read as ingestion's cost (bench/RESULTS.md, issue 32).
 */
const WORKER_IDLE_S = 3600;
/** An idle build worker collects its heap a second after its last task (build-pool.ts): each push waits past it. */
const SETTLE_MS = 1200;
/** Quiet: both gateway processes used under QUIET_CPU_S of CPU over QUIET_WINDOW_MS (nothing of the last push runs). */
const QUIET_WINDOW_MS = 300;
const QUIET_CPU_S = 0.03;
const QUIET_TIMEOUT_MS = 20_000;
/** The large set (--large): its chain 8453 file, 2 rounds a churn unless --large-rounds says otherwise. */
const DEFAULT_LARGE_DIR = "/tmp/lgw-bench-large";
const LARGE_ROUNDS = 3;
const LARGE_SERVE_TIMEOUT_MS = 180_000;
const CONNECTIONS = 16;
const CPU_ROUNDS = 3;
const CPU_DURATION_S = 4;
const SERVE_TIMEOUT_MS = 60_000;

const USAGE = `usage: npm run bench:history -- [--rounds N] [--data DIR] [--large] [--large-dir DIR] [--large-rounds N] [--only pushes|large] [--no-summary]
  --rounds N        push rounds per churn (default 10; ${LOAD_ROUNDS} more per churn run under wrk)
  --data DIR        where the generated series are cached (default ${join(tmpdir(), "lgw-bench-history-data")})
  --large           also push → served on the large set's chain 8453, history on and off (minutes more; off by default)
  --large-dir DIR   the large set (default ${DEFAULT_LARGE_DIR}: bench:build generates it)
  --large-rounds N  rounds per churn on the large set (default ${LARGE_ROUNDS})
  --only PART       run only part 1 (pushes) or the large set (large), log the figures, write no results
  --no-summary      do not rewrite the history section of bench/RESULTS.md`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const name = (chainId: number, k: number) => `chain-${chainId}-${String(k).padStart(5, "0")}.msgpack`;

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// ------------------------------------------------------------------ data (the sample generator's series)

/** The series other than the pushes' (data/plan.json). */
interface Plan {
  readonly seed: number;
  readonly everySeconds: number;
  readonly churns: readonly number[];
  readonly diskFiles: number;
  readonly dayFiles: number;
  readonly hourlyDays: number;
}

/**
 * A push series (its own plan.json): one warm-up file at the first churn (the first push after a start ran
 * 15-30 % slower on both sides), then `perChurn` files at each churn in turn after the base file.
 */
interface PushPlan {
  readonly seed: number;
  readonly everySeconds: number;
  readonly churns: readonly number[];
  readonly perChurn: number;
  /** The base file's size and modification time (the large set's file may be generated anew). */
  readonly base: string;
  /** Files pushed before the measured ones (always 1; named so that older manifests do not match). */
  readonly warmup: 1;
}

const readFile = (path: string) => unpack(readFileSync(path)) as SnapshotFile;

/** A series of `count` files after `base`, written as `dir/chain-<id>-<k>.msgpack` (k = 0: the base itself). */
function writeSeries(dir: string, base: SnapshotFile, everySeconds: number, churns: readonly number[], progress = false): void {
  mkdirSync(dir, { recursive: true });
  const series = new ChainSeries(base, SEED, { everySeconds, churn: churns[0] ?? 0.05 });
  writeFileSync(join(dir, name(base.chainId, 0)), pack(base));
  churns.forEach((churn, i) => {
    const t0 = performance.now();
    writeFileSync(join(dir, name(base.chainId, i + 1)), pack(series.next(churn)));
    if (progress) log(`  ${name(base.chainId, i + 1)} (churn ${churn}): ${round((performance.now() - t0) / 1000)} s`);
  });
}

const baseStamp = (file: string) => `${statSync(file).size}@${Math.round(statSync(file).mtimeMs)}`;

/** The push series of `plan` from `baseFile` in `dir`, generated unless its manifest says it is there. */
function ensurePushes(dir: string, baseFile: string, plan: PushPlan, withBase: boolean): void {
  const manifest = join(dir, "plan.json");
  if (existsSync(manifest) && readFileSync(manifest, "utf8") === JSON.stringify(plan)) return;
  rmSync(dir, { recursive: true, force: true });
  const t0 = performance.now();
  log(`generating ${plan.perChurn * plan.churns.length + 1} push files into ${dir} (seed ${SEED}; once)`);
  const churns = [plan.churns[0], ...plan.churns.flatMap((c) => Array<number>(plan.perChurn).fill(c))];
  writeSeries(dir, readFile(baseFile), plan.everySeconds, churns, !withBase); // a large file's progress
  // The base itself is what both gateways serve before the first push; a large one is not kept twice.
  if (!withBase) rmSync(join(dir, filesOf(dir)[0]));
  writeFileSync(manifest, JSON.stringify(plan));
  log(`generated in ${round((performance.now() - t0) / 1000)} s`);
}

/** The disk, day and hourly series of this plan under `data`, generated unless its manifest says they are there. */
function ensureData(data: string, plan: Plan): void {
  const manifest = join(data, "plan.json");
  if (existsSync(manifest)) {
    // Runs before the push series had its own manifest wrote `rounds` into this one: the other series are the same.
    const { rounds: _rounds, ...stored } = JSON.parse(readFileSync(manifest, "utf8")) as Plan & { rounds?: number };
    if (JSON.stringify(stored) === JSON.stringify(plan)) return;
  }
  for (const part of ["base", "day", "hourly", ...plan.churns.map((c) => `disk-${c}`)])
    rmSync(join(data, part), { recursive: true, force: true });
  const sample = join(PROJECT_ROOT, "snapshots");
  const base = readFile(join(sample, `chain-${CHAIN}.msgpack`));
  const t0 = performance.now();
  log(`generating the series into ${data} (seed ${SEED}; once)`);
  for (const churn of plan.churns)
    writeSeries(join(data, `disk-${churn}`), base, plan.everySeconds, Array<number>(plan.diskFiles).fill(churn));
  writeSeries(join(data, "day"), base, plan.everySeconds, Array<number>(plan.dayFiles - 1).fill(DAY_CHURN));
  const hourlyBase = readFile(join(sample, `chain-${HOURLY_CHAIN}.msgpack`));
  writeSeries(join(data, "hourly"), hourlyBase, 3600, Array<number>(plan.hourlyDays * 24).fill(0.05));
  mkdirSync(join(data, "base"));
  copyFileSync(join(data, "day", name(CHAIN, 0)), join(data, "base", name(CHAIN, 0)));
  writeFileSync(manifest, JSON.stringify(plan));
  log(`generated in ${round((performance.now() - t0) / 1000)} s`);
}

/** The day of files at `churn`: the plan's (5 %) or one generated beside it, once. */
function dayDir(data: string, churn: number): string {
  if (churn === DAY_CHURN) return join(data, "day");
  const dir = join(data, `day-${churn}`);
  const manifest = join(dir, "series.json");
  const series = JSON.stringify({ seed: SEED, everySeconds: EVERY_S, files: DAY_FILES, churn });
  if (existsSync(manifest) && readFileSync(manifest, "utf8") === series) return dir;
  rmSync(dir, { recursive: true, force: true });
  const t0 = performance.now();
  writeSeries(dir, readFile(join(PROJECT_ROOT, "snapshots", `chain-${CHAIN}.msgpack`)), EVERY_S, Array<number>(DAY_FILES - 1).fill(churn));
  writeFileSync(manifest, series);
  log(`generated the day at ${churn} into ${dir} in ${round((performance.now() - t0) / 1000)} s (once)`);
  return dir;
}

const filesOf = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith(".msgpack"))
    .sort();

// ------------------------------------------------------------------ history rebuild (the CLI)

function storeBytes(dir: string): number {
  let bytes = 0;
  for (const f of readdirSync(dir)) bytes += statSync(join(dir, f)).size;
  return bytes;
}

function rebuild(from: string, store: string): Rebuild {
  const env = { ...process.env };
  for (const setting of ["HISTORY_DIR", "HISTORY_RAW_HOURS", "HISTORY_HOUR_DAYS"]) delete env[setting]; // the defaults
  const t0 = performance.now();
  const run = spawnSync(process.execPath, [MAIN_JS, "history", "rebuild", "--from", from, "--history-dir", store], {
    cwd: PROJECT_ROOT,
    encoding: "utf8",
    timeout: 15 * 60_000,
    env,
  });
  const seconds = (performance.now() - t0) / 1000;
  const line = /(\d+) of (\d+) files observed .* in ([0-9.]+) s \((\d+) observations written, peak RSS (\d+) MiB\)/.exec(run.stdout);
  if (run.status !== 0 || line === null)
    throw new Error(`history rebuild --from ${from} failed (${run.status}): ${run.stdout}\n${run.stderr}`);
  if (line[1] !== line[2]) throw new Error(`history rebuild observed ${line[1]} of ${line[2]} files: ${run.stderr}`);
  return { files: Number(line[1]), seconds, peakRssBytes: Number(line[5]) * 2 ** 20, records: Number(line[4]), bytes: storeBytes(store) };
}

/** What the store's pages hold: per database its entries, key and value bytes and pages (lmdb's own statistics). */
function storeProfile(dir: string): StoreProfile {
  const dbs = openHistoryDbs(dir);
  try {
    const env = dbs.env.getStats() as { pageSize: number; lastPageNumber: number };
    const out: StoreProfile["dbs"][number][] = [];
    for (const [dbName, db] of Object.entries(dbs)) {
      if (dbName === "env") continue;
      const stats = (db as HistoryDb).getStats() as { treeBranchPageCount: number; treeLeafPageCount: number; overflowPages: number };
      let entries = 0;
      let keyBytes = 0;
      let valueBytes = 0;
      for (const { key, value } of (db as HistoryDb).getRange()) {
        entries++;
        keyBytes += key.length;
        valueBytes += value.length;
      }
      out.push({
        name: dbName,
        entries,
        keyBytes,
        valueBytes,
        pages: stats.treeBranchPageCount + stats.treeLeafPageCount + stats.overflowPages,
      });
    }
    return { pageSize: env.pageSize, filePages: env.lastPageNumber + 1, dbs: out };
  } finally {
    void dbs.env.close();
  }
}

// ------------------------------------------------------------------ gateways

async function metric(gw: RunningGateway, metricName: string): Promise<number> {
  const text = await (await fetch(`${gw.baseUrl}/metrics`)).text();
  const m = new RegExp(`^${metricName}(?:\\{[^}]*\\})? (\\S+)`, "m").exec(text);
  return m === null ? NaN : Number(m[1]);
}

async function version(gw: RunningGateway): Promise<string | null> {
  return (await readiness(gw.baseUrl))?.version ?? null;
}

/** Renames `file` into the gateway's directory as chain-<id>.msgpack; ms until its /ready version changed. */
async function push(gw: RunningGateway, dir: string, file: string, timeoutMs: number): Promise<{ t0: number; servedMs: number }> {
  const before = await version(gw);
  const target = join(dir, `chain-${CHAIN}.msgpack`);
  const tmp = `${target}.bench-tmp`;
  copyFileSync(file, tmp);
  const t0 = performance.now();
  renameSync(tmp, target);
  const deadline = t0 + timeoutMs;
  for (;;) {
    const v = await version(gw);
    if (v !== null && v !== before) return { t0, servedMs: performance.now() - t0 };
    if (performance.now() > deadline) throw new Error(`${file} not served within ${timeoutMs} ms`);
    await sleep(10);
  }
}

/** Until the history gateway's files-observed counter passes `before`; ms after t0. */
async function observed(gw: RunningGateway, before: number, t0: number, timeoutMs: number): Promise<number> {
  const deadline = t0 + timeoutMs;
  while ((await metric(gw, "gateway_history_files_observed_total")) <= before) {
    if (performance.now() > deadline) throw new Error("history did not observe the file in time");
    await sleep(10);
  }
  return performance.now() - t0;
}

/**
 * Waits until nothing of the last push runs in either gateway: SETTLE_MS (past the build worker's idle heap
 * collection), then until both processes use under QUIET_CPU_S over QUIET_WINDOW_MS (history's writes and
 * compaction, a collection, the other side's swap). False when they were not quiet within QUIET_TIMEOUT_MS.
 */
async function quiet(gateways: readonly RunningGateway[]): Promise<boolean> {
  await sleep(SETTLE_MS);
  const deadline = performance.now() + QUIET_TIMEOUT_MS;
  for (;;) {
    const before = gateways.map((g) => readProcessCpu(g.child.pid));
    await sleep(QUIET_WINDOW_MS);
    if (gateways.every((g, i) => readProcessCpu(g.child.pid) - before[i] < QUIET_CPU_S)) return true;
    if (performance.now() > deadline) return false;
  }
}

const load = (w: Awaited<ReturnType<typeof runWrk>>): PoolLoad => ({
  rps: round(w.rps, 0),
  p50Ms: w.latencyMs.p50,
  p99Ms: w.latencyMs.p99,
  requests: w.requests,
});

interface Side {
  readonly gw: RunningGateway;
  readonly dir: string;
}

/** The pushed files of a series directory (the base file, k = 0, is what both gateways start from). */
const pushFiles = (dir: string) => filesOf(dir).filter((f) => !f.endsWith(`-${"0".repeat(5)}.msgpack`));
// (The first of them is the warm-up file: see PushPlan.)

interface PushOptions {
  readonly rounds: number;
  readonly loadRounds: number;
  readonly timeoutMs: number;
  /** wrk on the pool route of a gateway (only with loadRounds > 0). */
  readonly spec?: (gw: RunningGateway) => WrkSpec;
  readonly wrk?: WrkBinary;
}

/**
 * Per churn: `rounds` rounds, each pushing the series' next file into both gateways one after the other (which goes
 * first alternates), each push only once both gateways are quiet; then `loadRounds` rounds of the pool route
 * under wrk for LOAD_WINDOW_S starting with the push, on each gateway in turn (order alternating, quiet first).
 */
async function measurePushes(on: Side, off: Side, pushDir: string, options: PushOptions): Promise<ChurnRun[]> {
  const files = pushFiles(pushDir);
  const both = [on.gw, off.gw];
  const runs: ChurnRun[] = [];
  let notQuiet = 0;
  const settle = async () => {
    if (!(await quiet(both))) notQuiet++;
  };
  // The warm-up file, into both, not measured.
  for (const side of [on, off]) {
    await settle();
    const p = await push(side.gw, side.dir, join(pushDir, files[0]), options.timeoutMs);
    log(`warm-up push: ${side === on ? "on" : "off"} served in ${round(p.servedMs)} ms (not measured)`);
  }
  let k = 1;
  for (const churn of CHURNS) {
    const pushes: PushRound[] = [];
    for (let r = 0; r < options.rounds; r++) {
      const file = join(pushDir, files[k++]);
      const filesBefore = await metric(on.gw, "gateway_history_files_observed_total");
      const recordsBefore = await metric(on.gw, "gateway_history_observations_written_total");
      let onMs = NaN;
      let offMs = NaN;
      let observedMs = NaN;
      const doOn = async () => {
        await settle();
        const p = await push(on.gw, on.dir, file, options.timeoutMs);
        onMs = p.servedMs;
        observedMs = await observed(on.gw, filesBefore, p.t0, options.timeoutMs);
      };
      const doOff = async () => {
        await settle();
        offMs = (await push(off.gw, off.dir, file, options.timeoutMs)).servedMs;
      };
      if (r % 2 === 0) {
        await doOn();
        await doOff();
      } else {
        await doOff();
        await doOn();
      }
      const records = (await metric(on.gw, "gateway_history_observations_written_total")) - recordsBefore;
      pushes.push({ onMs, offMs, observedMs, records });
      log(
        `churn ${churn} round ${r + 1}: served on ${round(onMs)} ms, off ${round(offMs)} ms; observed ${round(observedMs)} ms (${records} observations)`,
      );
    }
    const loads: { on: PoolLoad; off: PoolLoad }[] = [];
    for (let r = 0; r < options.loadRounds; r++) {
      const file = join(pushDir, files[k++]);
      const measured: Partial<Record<"on" | "off", PoolLoad>> = {};
      for (const which of r % 2 === 0 ? (["on", "off"] as const) : (["off", "on"] as const)) {
        const side = which === "on" ? on : off;
        await settle();
        await runWrk(options.wrk!, { ...options.spec!(side.gw), durationS: 1 }); // connections warm
        const running = startWrk(options.wrk!, { ...options.spec!(side.gw), durationS: LOAD_WINDOW_S });
        await push(side.gw, side.dir, file, options.timeoutMs);
        measured[which] = load(await running.result);
      }
      loads.push({ on: measured.on!, off: measured.off! });
      log(`churn ${churn} under load: pool p99 on ${measured.on!.p99Ms} ms, off ${measured.off!.p99Ms} ms`);
    }
    runs.push({ churn, rounds: pushes, load: loads });
  }
  if (notQuiet > 0) log(`${notQuiet} pushes started before both gateways were quiet (${QUIET_TIMEOUT_MS} ms)`);
  return runs;
}

/** Starts the history-on and history-off gateways on copies (`copy`) of one data directory. */
async function startPair(copy: (prefix: string) => string, key: string, timeoutMs: number): Promise<{ on: Side; off: Side }> {
  const onDir = copy("lgw-bench-history-on-");
  const offDir = copy("lgw-bench-history-off-");
  const onStore = tempDir("lgw-bench-history-store-");
  const common = { keysFile: key, timeoutMs, env: { BUILD_WORKER_IDLE_S: String(WORKER_IDLE_S) } };
  const [onGw, offGw] = await Promise.all([
    startGateway({ ...common, snapshotDir: onDir, name: "history-on", env: { ...common.env, HISTORY: "on", HISTORY_DIR: onStore } }),
    startGateway({ ...common, snapshotDir: offDir, name: "history-off", env: { ...common.env, HISTORY: "off" } }),
  ]);
  return { on: { gw: onGw, dir: onDir }, off: { gw: offGw, dir: offDir } };
}

/** Push → served on the large set's chain 8453, history on and off (--large). */
async function measureLarge(largeDir: string, data: string, rounds: number, key: string): Promise<LargeRun> {
  const baseFile = join(largeDir, `chain-${CHAIN}.msgpack`);
  if (!existsSync(baseFile)) throw new Error(`--large: no ${baseFile} (bench:build generates the large set: npm run bench:build)`);
  const pushDir = join(data, "large-push");
  ensurePushes(
    pushDir,
    baseFile,
    { seed: SEED, everySeconds: EVERY_S, churns: CHURNS, perChurn: rounds, base: baseStamp(baseFile), warmup: 1 },
    false,
  );
  // Hard links: a push renames a new file over the served one, never writes into it.
  const link = (prefix: string) => {
    const dir = tempDir(prefix);
    for (const f of readdirSync(largeDir)) linkSync(join(largeDir, f), join(dir, f));
    return dir;
  };
  const t0 = performance.now();
  const { on, off } = await startPair(link, key, 10 * 60_000);
  log(`large set: both gateways ready in ${round((performance.now() - t0) / 1000)} s`);
  try {
    const pushes = await measurePushes(on, off, pushDir, { rounds, loadRounds: 0, timeoutMs: LARGE_SERVE_TIMEOUT_MS });
    return {
      dir: largeDir,
      fileBytes: statSync(baseFile).size,
      rssBytes: { on: readMemory(on.gw.child.pid)?.rssBytes ?? NaN, off: readMemory(off.gw.child.pid)?.rssBytes ?? NaN },
      pushes,
    };
  } finally {
    await Promise.all([on.gw.child.stop(), off.gw.child.stop()]);
  }
}

/** The figures of a part run alone (--only): logged, not published. */
function logLarge(l: LargeRun): void {
  logPushVerdicts(`large (${round(l.fileBytes / 1e6, 0)} MB)`, l.pushes);
  log(`large: RSS on ${round(l.rssBytes.on / 2 ** 30, 2)} GiB, off ${round(l.rssBytes.off / 2 ** 30, 2)} GiB`);
}

function logPushVerdicts(label: string, pushes: readonly ChurnRun[]): void {
  for (const c of churnVerdicts(pushes))
    log(
      `${label} churn ${c.churn}: push on/off median ${round(c.pushRatio.median, 3)} (${round(c.pushRatio.min, 3)}-${round(c.pushRatio.max, 3)}), on ${round(c.on.median, 0)} ms, off ${round(c.off.median, 0)} ms` +
        (c.p99Ratio.n > 0
          ? `; p99 on/off ${round(c.p99Ratio.median, 2)} (${round(c.p99Ratio.min, 2)}-${round(c.p99Ratio.max, 2)}), same side ${round(c.p99Same.min, 2)}-${round(c.p99Same.max, 2)}`
          : ""),
    );
}

// ------------------------------------------------------------------ main

async function main(): Promise<void> {
  const values = readArgs(
    process.argv.slice(2),
    {
      rounds: { type: "string" },
      data: { type: "string" },
      large: { type: "boolean" },
      "large-dir": { type: "string" },
      "large-rounds": { type: "string" },
      only: { type: "string" },
      "no-summary": { type: "boolean" },
    },
    USAGE,
  );
  const rounds = integerOption("--rounds", values.rounds, 1, 100) ?? 10;
  const largeRounds = integerOption("--large-rounds", values["large-rounds"], 1, 5) ?? LARGE_ROUNDS;
  const only = values.only;
  if (only !== undefined && only !== "pushes" && only !== "large") throw new Error(`--only: pushes or large, not ${only}\n${USAGE}`);
  const data = resolve(values.data ?? join(tmpdir(), "lgw-bench-history-data"));
  const largeDir = resolve(values["large-dir"] ?? DEFAULT_LARGE_DIR);
  const key = writeBenchKey();
  if (only === "large") {
    logLarge(await measureLarge(largeDir, data, largeRounds, key.file));
    return;
  }
  const started = Date.now();
  const startedAt = new Date(started).toISOString();
  const machine = benchMachine();
  const plan: Plan = {
    seed: SEED,
    everySeconds: EVERY_S,
    churns: CHURNS,
    diskFiles: DISK_FILES,
    dayFiles: DAY_FILES,
    hourlyDays: HOURLY_DAYS,
  };
  const sample = join(PROJECT_ROOT, "snapshots");
  const sampleFile = join(sample, `chain-${CHAIN}.msgpack`);
  const pushDir = join(data, "push");
  ensurePushes(
    pushDir,
    sampleFile,
    { seed: SEED, everySeconds: EVERY_S, churns: CHURNS, perChurn: rounds + LOAD_ROUNDS, base: baseStamp(sampleFile), warmup: 1 },
    true,
  );
  if (only === undefined) ensureData(data, plan);
  const base = readFile(join(sample, `chain-${CHAIN}.msgpack`));
  const hourlyBase = readFile(join(sample, `chain-${HOURLY_CHAIN}.msgpack`));
  const wrk = ensureWrk(log);
  const headers = { authorization: `Bearer ${key.key}` };
  const scratch = tempDir("lgw-bench-history-");
  // A pool and a token no series removes: the chain's largest.
  const pool = base.pools.slice().sort((a, b) => b.totalValueLockedUsd - a.totalValueLockedUsd)[0].address;
  const token = base.tokens.slice().sort((a, b) => b.trackedTotalValuePooledUsd - a.trackedTotalValuePooledUsd)[1].address;
  const hourlyPool = hourlyBase.pools.slice().sort((a, b) => b.totalValueLockedUsd - a.totalValueLockedUsd)[0].address;
  const poolPath = `/v1/pools/${CHAIN}/${pool}`;
  const spec = (gw: RunningGateway, path = poolPath, cpus: string | null = null): WrkSpec => ({
    baseUrl: gw.baseUrl,
    request: { method: "GET", path, headers },
    threads: 1,
    connections: CONNECTIONS,
    durationS: CPU_DURATION_S,
    timeoutS: 10,
    cpus,
    scratchDir: scratch,
  });

  // 1. Push → served, on and off.
  const copySample = (prefix: string) => {
    const dir = tempDir(prefix);
    for (const f of readdirSync(sample)) copyFileSync(join(sample, f), join(dir, f));
    return dir;
  };
  const pair = await startPair(copySample, key.file, 120_000);
  const threads = Number(await metric(pair.on.gw, "gateway_serving_threads"));
  const pushes = await measurePushes(pair.on, pair.off, pushDir, {
    rounds,
    loadRounds: LOAD_ROUNDS,
    timeoutMs: SERVE_TIMEOUT_MS,
    spec: (gw) => spec(gw),
    wrk,
  });
  await Promise.all([pair.on.gw.child.stop(), pair.off.gw.child.stop()]);
  if (only === "pushes") {
    logPushVerdicts("sample", pushes);
    return;
  }
  const large = values.large === true ? await measureLarge(largeDir, data, largeRounds, key.file) : undefined;

  // 2. Disk, by history rebuild.
  const diskBase = rebuild(join(data, "base"), tempDir("lgw-bench-history-store-"));
  const disk: DiskRun[] = CHURNS.map((churn) => {
    const r = rebuild(join(data, `disk-${churn}`), tempDir("lgw-bench-history-store-"));
    log(`disk at ${churn}: ${r.bytes} bytes, ${r.records} observations over ${r.files} files`);
    return { churn, files: DISK_FILES, rebuild: r };
  });

  // A day at each churn; the day at 5 % is the store of the hourly files and the requests (3, 4).
  const store = tempDir("lgw-bench-history-store-");
  const days: DiskRun[] = CHURNS.map((churn) => {
    const r = rebuild(dayDir(data, churn), churn === DAY_CHURN ? store : tempDir("lgw-bench-history-store-"));
    log(
      `rebuild of a day at ${churn} (${r.files} files): ${round(r.seconds)} s, peak RSS ${round(r.peakRssBytes / 2 ** 20)} MiB, ${r.bytes} bytes, ${r.records} observations`,
    );
    return { churn, files: r.files - 1, rebuild: r };
  });
  const rebuildDay = days.find((d) => d.churn === DAY_CHURN)!.rebuild;
  const dayProfile = storeProfile(store);

  // 3. The hourly files into the day's store.
  const rebuildHourly = rebuild(join(data, "hourly"), store);
  log(`rebuild of ${rebuildHourly.files} hourly files: ${round(rebuildHourly.seconds)} s`);

  // 4. Server CPU per request.
  const cpuDir = copySample("lgw-bench-history-cpu-");
  const lastOf = (dir: string) => join(dir, filesOf(dir).at(-1)!);
  copyFileSync(lastOf(join(data, "day")), join(cpuDir, `chain-${CHAIN}.msgpack`));
  copyFileSync(lastOf(join(data, "hourly")), join(cpuDir, `chain-${HOURLY_CHAIN}.msgpack`));
  const gw = await startGateway({
    snapshotDir: cpuDir,
    keysFile: key.file,
    threads: 1,
    cpus: "0",
    timeoutMs: 120_000,
    name: "history-cpu",
    env: { HISTORY: "on", HISTORY_DIR: store },
  });
  // The same store copied for a gateway that keeps no answers: every request makes its answer (a miss's cost).
  const madeStore = tempDir("lgw-bench-history-store-");
  cpSync(store, madeStore, { recursive: true });
  const made = await startGateway({
    snapshotDir: cpuDir,
    keysFile: key.file,
    threads: 1,
    cpus: "0",
    timeoutMs: 120_000,
    name: "history-cpu-made",
    env: { HISTORY: "on", HISTORY_DIR: madeStore, HISTORY_ANSWER_CACHE_MB: "0" },
  });
  const candles = `/v1/history/tokens/${CHAIN}/${token}/ohlcv/minute?limit=1000`;
  const rows = `/v1/history/pools/${HOURLY_CHAIN}/${hourlyPool}/hour?limit=1000`;
  const targets = [
    { name: "pool details", path: poolPath, gw },
    { name: "1,000 minute candles of a token", path: candles, gw },
    { name: "1,000 hourly rows of a pool", path: rows, gw },
    { name: "1,000 minute candles, made from the store", path: candles, gw: made, made: true },
    { name: "1,000 hourly rows, made from the store", path: rows, gw: made, made: true },
  ];
  const cpu: CpuTarget[] = [];
  const gatewayOf = new Map<CpuTarget, RunningGateway>();
  for (const t of targets) {
    const response = await fetch(t.gw.baseUrl + t.path, { headers });
    const body = await response.text();
    if (response.status !== 200) throw new Error(`${t.path}: ${response.status} ${body.slice(0, 300)}`);
    const rows = /"(?:candles|rows)":\[(.*)\]/.exec(body)?.[1];
    if (rows !== undefined) {
      const count = (rows.match(/\],\[/g)?.length ?? 0) + 1;
      log(`${t.name}: ${count} entries in ${body.length} bytes`);
      if (count < 1000) throw new Error(`${t.path} answered ${count} entries, not 1,000: the store is not filled as planned`);
    }
    const target: CpuTarget = {
      name: t.name,
      path: t.path,
      answerBytes: Buffer.byteLength(body),
      rounds: [],
      ...(t.made ? { made: true } : {}),
    };
    cpu.push(target);
    gatewayOf.set(target, t.gw);
    await runWrk(wrk, { ...spec(t.gw, t.path, "1"), durationS: 1 }); // warm-up
  }
  for (let r = 0; r < CPU_ROUNDS; r++)
    for (const t of cpu) {
      const on = gatewayOf.get(t)!;
      const before = readProcessCpu(on.child.pid);
      const w = await runWrk(wrk, spec(on, t.path, "1"));
      const cpuUs = cpuMicrosPerRequest(readProcessCpu(on.child.pid) - before, w.requests);
      (t.rounds as CpuTarget["rounds"][number][]).push({
        rps: round(w.rps, 0),
        cpuUsPerRequest: round(cpuUs, 2),
        p99Ms: w.latencyMs.p99,
        non2xx: w.non2xx,
      });
      log(`round ${r + 1} ${t.name}: ${round(w.rps, 0)} req/s, ${round(cpuUs, 1)} µs/request`);
      if (w.non2xx > 0) throw new Error(`${t.path}: ${w.non2xx} non-2xx answers under wrk`);
    }
  await gw.child.stop();
  await made.child.stop();

  machine.loadAverageEnd = loadavg().map((x) => round(x, 2));
  const results: HistoryResults = {
    startedAt,
    durationS: (Date.now() - started) / 1000,
    machine,
    setup: {
      chainId: CHAIN,
      pools: base.pools.length,
      tokens: base.tokens.length,
      fileBytes: statSync(join(sample, `chain-${CHAIN}.msgpack`)).size,
      everySeconds: EVERY_S,
      gatewayThreads: threads,
      wrk: { version: wrk.version, connections: CONNECTIONS, durationS: CPU_DURATION_S, loadWindowS: LOAD_WINDOW_S },
      pushMethod: { buildWorkerIdleS: WORKER_IDLE_S, settleMs: SETTLE_MS, quietWindowMs: QUIET_WINDOW_MS, quietCpuS: QUIET_CPU_S },
      sizeNote: `the bundled sample's largest chain (${CHAIN}: ${base.pools.length.toLocaleString("en-US")} pools, ${base.tokens.length} tokens, ${(statSync(join(sample, `chain-${CHAIN}.msgpack`)).size / 2 ** 20).toFixed(1)} MiB), not the large set (chain 8453 there: 249 MB, about 200x the records): a day of its files at one a minute (1,440 files) and the series at three churns fit a run of minutes on this 2-core VM only at this size. Ratios (history on/off, history request/pool details) are what carry over; absolute times, bytes a day and rebuild times scale with the records changed.`,
      hourly: { chainId: HOURLY_CHAIN, pools: hourlyBase.pools.length, files: rebuildHourly.files, days: HOURLY_DAYS },
    },
    pushes,
    ...(large === undefined ? {} : { large }),
    diskBase,
    disk,
    days,
    rebuildDay,
    dayProfile,
    rebuildHourly,
    cpu,
  };
  const v = verdicts(results);
  log(
    `push on/off ${v.churns.map((c) => round(c.pushRatio.median, 3)).join(" ")}; bytes/observation ${v.disk.map((d) => round(d.bytesPerObservation)).join(" ")}; cpu vs pool ${v.cpu.map((c) => (c.ratio ? round(c.ratio.median, 2) : 1)).join(" ")}`,
  );
  publishResults("history", SECTION_ID, results, (json) => renderSection(results, json), !(values["no-summary"] ?? false));
}

runBench(main);
