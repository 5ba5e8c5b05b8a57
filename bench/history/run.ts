/**
 * The history benchmark (issue 32, Performance): `npm run bench:history [-- [--rounds N] [--data DIR] [--no-summary]]`.
 * Run it through the bench lock (cpu-exclusive).
 *
 * Data: the bundled sample's largest chain (8453) and the sample generator's series of it
 * (tools/samplegen/series.ts, in-process as bench/build/series.ts does; cached in --data, generated once):
 *   - pushes: N + 2 files at each of 2, 5 and 20 % churn, one a minute;
 *   - disk: 120 files at each churn after the base file;
 *   - a day at each churn: the base file and 1,439 files, one a minute (5 %: `day`; 2 and 20 %: `day-<churn>`,
 *     each generated once beside the others, with its own manifest);
 *   - hourly: the smallest sample chain (9745) and 2,160 files at 5 %, one an hour (90 days).
 * In one run:
 *   1. two gateways, HISTORY=on and HISTORY=off: each churn's files pushed into both, rounds interleaved,
 *      rename → served (and → observed with history on); then the pool route under wrk during pushes;
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
import { cpuMicrosPerRequest } from "../shared/stats.js";
import { ensureWrk, runWrk, startWrk, type WrkBinary, type WrkSpec } from "../shared/wrk.js";
import { MAIN_JS, readiness, startGateway, writeBenchKey, type RunningGateway } from "../targets/gateway.js";
import {
  renderSection,
  SECTION_ID,
  verdicts,
  type ChurnRun,
  type CpuTarget,
  type DiskRun,
  type HistoryResults,
  type PoolLoad,
  type PushRound,
  type Rebuild,
  type StoreProfile,
} from "./summary.js";

const USAGE = `usage: npm run bench:history -- [--rounds N] [--data DIR] [--no-summary]
  --rounds N    push rounds per churn (default 6; 2 more per churn run under wrk)
  --data DIR    where the generated series are cached (default ${join(tmpdir(), "lgw-bench-history-data")})
  --no-summary  do not rewrite the history section of bench/RESULTS.md`;

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
const LOAD_ROUNDS = 2;
const LOAD_WINDOW_S = 2;
const CONNECTIONS = 16;
const CPU_ROUNDS = 3;
const CPU_DURATION_S = 4;
const SERVE_TIMEOUT_MS = 60_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const name = (chainId: number, k: number) => `chain-${chainId}-${String(k).padStart(5, "0")}.msgpack`;

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// ------------------------------------------------------------------ data (the sample generator's series)

interface Plan {
  readonly seed: number;
  readonly everySeconds: number;
  readonly rounds: number;
  readonly churns: readonly number[];
  readonly diskFiles: number;
  readonly dayFiles: number;
  readonly hourlyDays: number;
}

const readFile = (path: string) => unpack(readFileSync(path)) as SnapshotFile;

/** A series of `count` files after `base`, written as `dir/chain-<id>-<k>.msgpack` (k = 0: the base itself). */
function writeSeries(dir: string, base: SnapshotFile, everySeconds: number, churns: readonly number[]): void {
  mkdirSync(dir, { recursive: true });
  const series = new ChainSeries(base, SEED, { everySeconds, churn: churns[0] ?? 0.05 });
  writeFileSync(join(dir, name(base.chainId, 0)), pack(base));
  churns.forEach((churn, i) => writeFileSync(join(dir, name(base.chainId, i + 1)), pack(series.next(churn))));
}

/** The series of this plan under `data`, generated unless its manifest says they are there. */
function ensureData(data: string, plan: Plan): void {
  const manifest = join(data, "plan.json");
  if (existsSync(manifest) && readFileSync(manifest, "utf8") === JSON.stringify(plan)) return;
  rmSync(data, { recursive: true, force: true });
  const sample = join(PROJECT_ROOT, "snapshots");
  const base = readFile(join(sample, `chain-${CHAIN}.msgpack`));
  const t0 = performance.now();
  log(`generating the series into ${data} (seed ${SEED}; once)`);
  writeSeries(
    join(data, "push"),
    base,
    plan.everySeconds,
    plan.churns.flatMap((c) => Array<number>(plan.rounds + LOAD_ROUNDS).fill(c)),
  );
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
async function push(gw: RunningGateway, dir: string, file: string): Promise<{ t0: number; servedMs: number }> {
  const before = await version(gw);
  const target = join(dir, `chain-${CHAIN}.msgpack`);
  const tmp = `${target}.bench-tmp`;
  copyFileSync(file, tmp);
  const t0 = performance.now();
  renameSync(tmp, target);
  const deadline = t0 + SERVE_TIMEOUT_MS;
  for (;;) {
    const v = await version(gw);
    if (v !== null && v !== before) return { t0, servedMs: performance.now() - t0 };
    if (performance.now() > deadline) throw new Error(`${file} not served within ${SERVE_TIMEOUT_MS} ms`);
    await sleep(10);
  }
}

/** Until the history gateway's files-observed counter passes `before`; ms after t0. */
async function observed(gw: RunningGateway, before: number, t0: number): Promise<number> {
  const deadline = t0 + SERVE_TIMEOUT_MS;
  while ((await metric(gw, "gateway_history_files_observed_total")) <= before) {
    if (performance.now() > deadline) throw new Error("history did not observe the file in time");
    await sleep(10);
  }
  return performance.now() - t0;
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

async function measurePushes(on: Side, off: Side, pushDir: string, rounds: number, spec: (gw: RunningGateway) => WrkSpec, wrk: WrkBinary) {
  const files = filesOf(pushDir).slice(1);
  const runs: ChurnRun[] = [];
  let k = 0;
  for (const churn of CHURNS) {
    const pushes: PushRound[] = [];
    for (let r = 0; r < rounds; r++) {
      const file = join(pushDir, files[k++]);
      const filesBefore = await metric(on.gw, "gateway_history_files_observed_total");
      const recordsBefore = await metric(on.gw, "gateway_history_observations_written_total");
      let onMs = NaN;
      let offMs = NaN;
      let observedMs = NaN;
      const doOn = async () => {
        const p = await push(on.gw, on.dir, file);
        onMs = p.servedMs;
        observedMs = await observed(on.gw, filesBefore, p.t0);
      };
      const doOff = async () => {
        offMs = (await push(off.gw, off.dir, file)).servedMs;
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
      await sleep(300);
    }
    const loads: { on: PoolLoad; off: PoolLoad }[] = [];
    for (let r = 0; r < LOAD_ROUNDS; r++) {
      const file = join(pushDir, files[k++]);
      const measured: Partial<Record<"on" | "off", PoolLoad>> = {};
      for (const which of r % 2 === 0 ? (["on", "off"] as const) : (["off", "on"] as const)) {
        const side = which === "on" ? on : off;
        await runWrk(wrk, { ...spec(side.gw), durationS: 1 }); // connections warm
        const running = startWrk(wrk, { ...spec(side.gw), durationS: LOAD_WINDOW_S });
        await push(side.gw, side.dir, file);
        measured[which] = load(await running.result);
        await sleep(500);
      }
      loads.push({ on: measured.on!, off: measured.off! });
      log(`churn ${churn} under load: pool p99 on ${measured.on!.p99Ms} ms, off ${measured.off!.p99Ms} ms`);
    }
    runs.push({ churn, rounds: pushes, load: loads });
  }
  return runs;
}

// ------------------------------------------------------------------ main

async function main(): Promise<void> {
  const values = readArgs(
    process.argv.slice(2),
    { rounds: { type: "string" }, data: { type: "string" }, "no-summary": { type: "boolean" } },
    USAGE,
  );
  const rounds = integerOption("--rounds", values.rounds, 1, 100) ?? 6;
  const data = resolve(values.data ?? join(tmpdir(), "lgw-bench-history-data"));
  const started = Date.now();
  const startedAt = new Date(started).toISOString();
  const machine = benchMachine();
  const plan: Plan = {
    seed: SEED,
    everySeconds: EVERY_S,
    rounds,
    churns: CHURNS,
    diskFiles: DISK_FILES,
    dayFiles: DAY_FILES,
    hourlyDays: HOURLY_DAYS,
  };
  ensureData(data, plan);
  const sample = join(PROJECT_ROOT, "snapshots");
  const base = readFile(join(sample, `chain-${CHAIN}.msgpack`));
  const hourlyBase = readFile(join(sample, `chain-${HOURLY_CHAIN}.msgpack`));
  const wrk = ensureWrk(log);
  const key = writeBenchKey();
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
  const onDir = copySample("lgw-bench-history-on-");
  const offDir = copySample("lgw-bench-history-off-");
  const onStore = tempDir("lgw-bench-history-store-");
  const on = await startGateway({
    snapshotDir: onDir,
    keysFile: key.file,
    timeoutMs: 120_000,
    name: "history-on",
    env: { HISTORY: "on", HISTORY_DIR: onStore },
  });
  const off = await startGateway({
    snapshotDir: offDir,
    keysFile: key.file,
    timeoutMs: 120_000,
    name: "history-off",
    env: { HISTORY: "off" },
  });
  const threads = Number(await metric(on, "gateway_serving_threads"));
  await sleep(1000);
  const pushes = await measurePushes({ gw: on, dir: onDir }, { gw: off, dir: offDir }, join(data, "push"), rounds, (gw) => spec(gw), wrk);
  await on.child.stop();
  await off.child.stop();

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
      sizeNote: `the bundled sample's largest chain (${CHAIN}: ${base.pools.length.toLocaleString("en-US")} pools, ${base.tokens.length} tokens, ${(statSync(join(sample, `chain-${CHAIN}.msgpack`)).size / 2 ** 20).toFixed(1)} MiB), not the large set (chain 8453 there: 249 MB, about 200x the records): a day of its files at one a minute (1,440 files) and the series at three churns fit a run of minutes on this 2-core VM only at this size. Ratios (history on/off, history request/pool details) are what carry over; absolute times, bytes a day and rebuild times scale with the records changed.`,
      hourly: { chainId: HOURLY_CHAIN, pools: hourlyBase.pools.length, files: rebuildHourly.files, days: HOURLY_DAYS },
    },
    pushes,
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
