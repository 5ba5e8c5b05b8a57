/**
 * The live-data benchmark (issue 21): `npm run bench:live [-- --clients N]
 * [--client-processes P] [--changed K] [--rounds R] [--duration S]
 * [--connections C] [--quick] [--write-summary]`.
 *
 * One gateway (2 serving threads, auth and rate limiting on) on a copy of the
 * bundled sample snapshots; N WebSocket subscribers in P other processes
 * (bench/live/client.ts, the `ws` client), each subscribed to `changes` and to
 * 10 `pool:` topics of the largest chain, all among the K pools each push
 * changes (so every subscriber gets one `changes` event and 10 `pool` events
 * per push: the worst case for a subscriber of 10 pools). It measures:
 *   1. server memory per idle connection: (gateway RSS with N idle
 *      subscribers − RSS before them) / N, before any push (and over the
 *      second half of the subscribers alone);
 *   2. for each push of a new file of the largest chain (the sample file with
 *      K pools' 24 h swap volume changed and a later generatedAt, written aside
 *      and renamed over the live name): from the swap to the moment each
 *      subscriber holds all its events; the swap's time is the server's own
 *      `servedAt` of the change set (the supervisor's clock as it publishes
 *      the snapshot to the serving threads, just before the `snapshot-swapped`
 *      log line: the threads' swaps and confirmations are inside the figure),
 *      the receipt time the client's clock (same machine); p50/p99/max over
 *      subscribers;
 *   3. the pool route's p99 under wrk: without subscribers, with the N
 *      subscribers while the chain is pushed every 2 s (the fan-outs, each
 *      measured as in 2), and, once they are gone, while it is pushed every
 *      2 s (the swaps alone).
 * Writes bench/results/live-<timestamp>.json and, from a full run (or a quick
 * one with --write-summary), the "live" section of bench/RESULTS.md. Every
 * process it starts is stopped at the end, also on failure.
 */
import { fork, type ChildProcess } from "node:child_process";
import { loadavg, tmpdir } from "node:os";
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { pack, unpack } from "msgpackr";
import type { SnapshotFile } from "../../src/api/snapshot-format.js";
import { PROJECT_ROOT } from "../../src/config/config.js";
import { integerOption, readArgs } from "../shared/command-line.js";
import { benchMachine, log, onCleanup, publishResults, round, runBench } from "../shared/entry.js";
import type { ClientCommand, ClientReport } from "./client.js";
import { fmt, fmtBytes, percentiles, renderSection, SECTION_ID, type LiveResults, type RoundResult, type WrkFigures } from "./summary.js";
import { readProcessCpu } from "../shared/proc-stat.js";
import { readMemory } from "../shared/rss.js";
import { startGateway, writeBenchKey, type RunningGateway } from "../targets/gateway.js";
import { ensureWrk, runWrk, type WrkBinary, type WrkResult } from "../shared/wrk.js";

// ------------------------------------------------------------------ arguments

interface Args {
  clients: number;
  clientProcesses: number;
  changed: number;
  rounds: number;
  durationS: number;
  connections: number;
  quick: boolean;
  writeSummary: boolean;
}

const USAGE = `usage: npm run bench:live -- [--clients N] [--client-processes P] [--changed K] [--rounds R] [--duration S] [--connections C] [--quick] [--write-summary]
  --clients N           WebSocket subscribers (default 10000; --quick 1000)
  --client-processes P  processes holding them (default 2)
  --changed K           pools of the largest chain each push changes; every subscriber follows 10 of them (default 100)
  --rounds R            pushes measured with idle subscribers (default 3)
  --duration S          seconds of each wrk run on the pool route (default 10; --quick 5)
  --connections C       wrk connections (default 16)
  --quick               1000 subscribers, 5 s wrk runs
  --write-summary       with --quick: also regenerate the live section of bench/RESULTS.md (a full run always does)
Run it under the bench lock: flock /tmp/bench.lock npm run bench:live`;

const POOLS_PER_CLIENT = 10;
const PUSH_INTERVAL_MS = 2000;

function readOptions(argv: readonly string[]): Args {
  const text = { type: "string" } as const;
  const values = readArgs(
    argv,
    {
      clients: text,
      "client-processes": text,
      changed: text,
      rounds: text,
      duration: text,
      connections: text,
      quick: { type: "boolean" },
      "write-summary": { type: "boolean" },
    },
    USAGE,
  );
  const quick = values.quick ?? false;
  return {
    clients: integerOption("--clients", values.clients, 1, 100_000) ?? (quick ? 1000 : 10_000),
    clientProcesses: integerOption("--client-processes", values["client-processes"], 1, 16) ?? 2,
    changed: integerOption("--changed", values.changed, POOLS_PER_CLIENT, 100_000) ?? 100,
    rounds: integerOption("--rounds", values.rounds, 1, 50) ?? 3,
    durationS: integerOption("--duration", values.duration, 1, 600) ?? (quick ? 5 : 10),
    connections: integerOption("--connections", values.connections, 1, 10_000) ?? 16,
    quick,
    writeSummary: values["write-summary"] ?? false,
  };
}

// ------------------------------------------------------------------ data

interface ChainData {
  readonly chainId: number;
  readonly file: SnapshotFile;
  readonly path: string;
}

/** Copies the bundled sample into a temporary directory; returns the largest chain (by pool count) as decoded. */
function prepareData(): { dir: string; largest: ChainData } {
  const source = join(PROJECT_ROOT, "snapshots");
  const dir = mkdtempSync(join(tmpdir(), "lgw-bench-live-"));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  let largest: ChainData | null = null;
  for (const name of readdirSync(source)) {
    copyFileSync(join(source, name), join(dir, name));
    const match = /^chain-(\d+)\.msgpack$/.exec(name);
    if (match === null) continue;
    const file = unpack(readFileSync(join(source, name))) as SnapshotFile;
    if (largest === null || file.pools.length > largest.file.pools.length)
      largest = { chainId: Number(match[1]), file, path: join(dir, name) };
  }
  if (largest === null) throw new Error(`no chain file in ${source}`);
  return { dir, largest };
}

/** Version `v` of the largest chain: the first `changed` pools' 24 h swap volume moved, generatedAt + v; written aside, then renamed over the live name. */
function pushVersion(chain: ChainData, changed: number, v: number): number {
  const file = structuredClone(chain.file);
  file.generatedAt = chain.file.generatedAt + v;
  for (let i = 0; i < changed; i++) {
    const stats = file.pools[i].stats.stats24h;
    stats.swapVolumeUsd = Math.round((stats.swapVolumeUsd + v * 0.01) * 100) / 100;
  }
  const tmp = `${chain.path}.${process.pid}.tmp`;
  writeFileSync(tmp, pack(file));
  renameSync(tmp, chain.path);
  return file.generatedAt;
}

// ------------------------------------------------------------------ clients

class ClientProcess {
  private readonly waiters: Array<(report: ClientReport) => boolean> = [];

  constructor(readonly child: ChildProcess) {
    child.on("message", (report: ClientReport) => {
      const i = this.waiters.findIndex((w) => w(report));
      if (i >= 0) this.waiters.splice(i, 1);
    });
  }

  send(command: ClientCommand): void {
    this.child.send(command);
  }

  next<T extends ClientReport["type"]>(type: T, timeoutMs: number): Promise<Extract<ClientReport, { type: T }>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`client ${this.child.pid}: no '${type}' report within ${timeoutMs} ms`)), timeoutMs);
      this.waiters.push((report) => {
        if (report.type !== type) return false;
        clearTimeout(timer);
        resolve(report as Extract<ClientReport, { type: T }>);
        return true;
      });
    });
  }
}

function startClients(count: number): ClientProcess[] {
  const script = join(fileURLToPath(new URL(".", import.meta.url)), "client.js");
  const out: ClientProcess[] = [];
  for (let i = 0; i < count; i++) {
    const child = fork(script, [], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
    out.push(new ClientProcess(child));
  }
  onCleanup(() => {
    for (const c of out) if (c.child.exitCode === null) c.child.kill("SIGKILL");
  });
  return out;
}

/** Arms every client for a push, pushes, and waits for every subscriber to hold its events (at most 60 s). */
async function measurePush(
  clients: ClientProcess[],
  gatewayPid: number,
  chain: ChainData,
  changed: number,
  v: number,
  underWrk: boolean,
  latenciesOut: number[],
  scenario: RoundResult["scenario"] = "full",
): Promise<RoundResult> {
  const generatedAt = chain.file.generatedAt + v;
  const poolsPerSocket = scenario === "full" ? POOLS_PER_CLIENT : 0;
  for (const c of clients) c.send({ type: "arm", round: v, chainId: chain.chainId, poolsPerSocket, generatedAt });
  await new Promise((r) => setTimeout(r, 50)); // the arm messages are read before the push can be served
  const cpu = () => ({
    gateway: readProcessCpu(gatewayPid),
    clients: clients.reduce((sum, c) => sum + readProcessCpu(c.child.pid ?? -1), 0),
  });
  const cpuBefore = cpu();
  pushVersion(chain, changed, v);
  const reports = await Promise.all(
    clients.map(async (c) => {
      const timer = setTimeout(() => c.send({ type: "collect", round: v }), 60_000);
      const report = await c.next("round", 70_000);
      clearTimeout(timer);
      return report;
    }),
  );
  const cpuAfter = cpu();
  const latencies = reports.flatMap((r) => r.latenciesMs);
  for (const l of latencies) latenciesOut.push(l);
  const result: RoundResult = {
    round: v,
    scenario,
    gatewayCpuS: cpuAfter.gateway - cpuBefore.gateway,
    clientsCpuS: cpuAfter.clients - cpuBefore.clients,
    latencyMs: percentiles(latencies),
    incomplete: reports.reduce((s, r) => s + r.incomplete, 0),
    wrong: reports.reduce((s, r) => s + r.wrong, 0),
    sampled: reports.reduce((s, r) => s + r.sampled, 0),
    servedAt: reports.find((r) => r.servedAt !== null)?.servedAt ?? null,
    bytes: reports.reduce((s, r) => s + r.bytes, 0),
    underWrk,
  };
  const closes = Object.entries(reports.reduce<Record<string, number>>((all, r) => ({ ...all, ...r.closes }), {}));
  log(
    `push ${v}${underWrk ? " (under wrk)" : ""}${scenario === "full" ? "" : ` (${scenario})`}: servedAt ${result.servedAt}; swap → last event p50 ${fmt(result.latencyMs.p50)} ms, p99 ${fmt(
      result.latencyMs.p99,
    )} ms, max ${fmt(result.latencyMs.max)} ms over ${result.latencyMs.n} subscribers; ${result.incomplete} incomplete; ${result.wrong} wrong (${result.sampled} pool events checked in full${reports.find((r) => r.firstWrong !== null)?.firstWrong ? `; first: ${reports.find((r) => r.firstWrong !== null)!.firstWrong}` : ""}); ${fmtBytes(result.bytes)} received; CPU gateway ${fmt(result.gatewayCpuS, 2)} s, subscribers ${fmt(result.clientsCpuS, 2)} s` +
      (closes.length > 0 ? `; closes ${closes.map(([code, n]) => `${code}×${n}`).join(" ")}` : ""),
  );
  return result;
}

/** Waits (at most 30 s) until a process's RSS stays within 1 MiB over 3 s. */
async function steadyRss(pid: number): Promise<void> {
  const readings: number[] = [];
  for (let i = 0; i < 30; i++) {
    readings.push(readMemory(pid)?.rssBytes ?? NaN);
    const last = readings.slice(-4);
    if (last.length === 4 && Math.max(...last) - Math.min(...last) < 2 ** 20) return;
    await new Promise((r) => setTimeout(r, 1000));
  }
  log("gateway RSS did not settle within 30 s; measuring anyway");
}

// ------------------------------------------------------------------ wrk

async function wrkRun(
  wrk: WrkBinary,
  gateway: RunningGateway,
  key: string,
  path: string,
  args: Args,
  scratch: string,
  label: string,
  during: (() => Promise<number>) | null,
): Promise<WrkFigures> {
  const run = runWrk(wrk, {
    baseUrl: gateway.baseUrl,
    request: { method: "GET", path, headers: { Authorization: `Bearer ${key}` } },
    threads: 1,
    connections: args.connections,
    durationS: args.durationS,
    timeoutS: 10,
    cpus: null,
    scratchDir: scratch,
  });
  const pushes = during === null ? 0 : await during();
  const r: WrkResult = await run;
  const figures: WrkFigures = {
    label,
    requests: r.requests,
    rps: r.rps,
    p50Ms: r.latencyMs.p50,
    p99Ms: r.latencyMs.p99,
    maxMs: r.latencyMs.max,
    errors: r.non2xx + r.socketErrors.connect + r.socketErrors.read + r.socketErrors.write + r.socketErrors.timeout,
    pushes,
  };
  log(
    `wrk ${label}: ${Math.round(r.rps)} req/s, p50 ${fmt(r.latencyMs.p50, 2)} ms, p99 ${fmt(r.latencyMs.p99, 2)} ms, max ${fmt(r.latencyMs.max, 2)} ms, ${figures.errors} errors, ${pushes} pushes`,
  );
  return figures;
}

// ------------------------------------------------------------------ main

async function main(): Promise<void> {
  const args = readOptions(process.argv.slice(2));
  const started = Date.now();
  const machine = benchMachine();
  const ulimitN = readFileSync("/proc/self/limits", "utf8").match(/^Max open files\s+(\d+|unlimited)\s+(\d+|unlimited)/m);
  const ulimit = ulimitN === null ? "unknown" : `${ulimitN[1]} (hard ${ulimitN[2]})`;
  log(
    `machine: ${machine.cores} cores, ${machine.cpuModel}; node ${machine.node}; load average ${machine.loadAverageStart.join(" ")}; open files ${ulimit}`,
  );
  const perProcess = Math.ceil(args.clients / args.clientProcesses);
  if (ulimitN !== null && ulimitN[1] !== "unlimited" && Number(ulimitN[1]) < perProcess + 1000)
    throw new Error(
      `open-file limit ${ulimitN[1]} is below ${perProcess + 1000} (the subscribers of one process and the gateway's sockets): raise ulimit -n`,
    );

  const wrk = ensureWrk(log);
  const { dir, largest } = prepareData();
  const scratch = mkdtempSync(join(tmpdir(), "lgw-bench-live-wrk-"));
  onCleanup(() => rmSync(scratch, { recursive: true, force: true }));
  const changed = Math.min(args.changed, largest.file.pools.length);
  const pools: string[] = largest.file.pools.slice(0, changed).map((p) => p.address.toLowerCase());
  log(`data: ${dir}, largest chain ${largest.chainId} (${largest.file.pools.length} pools); each push changes ${changed} pools`);

  const key = writeBenchKey();
  const threads = 2;
  const gateway = await startGateway({
    snapshotDir: dir,
    keysFile: key.file,
    timeoutMs: 120_000,
    threads,
    env: { STREAM_MAX_CONNECTIONS_PER_KEY: String(Math.min(100_000, args.clients + 100)) },
    name: "gateway",
  });
  const path = `/v1/pools/${largest.chainId}/${pools[0]}`;
  log(`gateway ${gateway.baseUrl} ready in ${Math.round(gateway.startToReadyMs)} ms (pid ${gateway.child.pid})`);

  let version = 0;
  /** During a wrk run: `push` every PUSH_INTERVAL_MS (a push that takes longer delays the next); how many were made. */
  const pushEvery = async (push: () => unknown): Promise<number> => {
    const until = performance.now() + args.durationS * 1000 - PUSH_INTERVAL_MS / 2;
    let n = 0;
    await new Promise((r) => setTimeout(r, PUSH_INTERVAL_MS / 2));
    while (performance.now() < until) {
      const t0 = performance.now();
      await push();
      n++;
      const left = PUSH_INTERVAL_MS - (performance.now() - t0);
      if (left > 0) await new Promise((r) => setTimeout(r, left));
    }
    return n;
  };

  // 3a: the pool route without subscribers (nothing pushed yet).
  await wrkRun(wrk, gateway, key.key, path, { ...args, durationS: 2 }, scratch, "warm-up", null);
  const baseline = await wrkRun(wrk, gateway, key.key, path, args, scratch, "without subscribers", null);
  // The build worker exits 10 s after its last build (src/snapshot/build-pool.ts), releasing its heap: RSS is
  // read once it has, and once it holds still (within 1 MiB over 3 s).
  const readyAt = gateway.spawnedAt + gateway.startToReadyMs;
  await new Promise((r) => setTimeout(r, Math.max(0, readyAt + 12_000 - performance.now())));
  await steadyRss(gateway.child.pid);

  // 1: memory per idle connection, before any push: RSS before, with half the subscribers, with all of them.
  const rssSamples = async () => {
    const values: number[] = [];
    for (let i = 0; i < 5; i++) {
      values.push(readMemory(gateway.child.pid)?.rssBytes ?? NaN);
      await new Promise((r) => setTimeout(r, 200));
    }
    return values.sort((a, b) => a - b)[2];
  };
  const rssBefore = await rssSamples();
  const clients = startClients(args.clientProcesses);
  const wsUrl = `${gateway.baseUrl.replace(/^http/, "ws")}/v1/stream`;
  const queriesOf = (p: number): string[] => {
    const queries: string[] = [];
    for (let i = p; i < args.clients; i += args.clientProcesses) {
      const topics = ["changes"];
      for (let j = 0; j < POOLS_PER_CLIENT; j++) topics.push(`pool:${largest.chainId}:${pools[(i * POOLS_PER_CLIENT + j) % changed]}`);
      queries.push(`topics=${topics.join(",")}`);
    }
    return queries;
  };
  const openStarted = performance.now();
  const openHalf = async (half: 0 | 1) =>
    Promise.all(
      clients.map((c, p) => {
        const all = queriesOf(p);
        const cut = Math.floor(all.length / 2);
        c.send({ type: "open", wsUrl, key: key.key, queries: half === 0 ? all.slice(0, cut) : all.slice(cut), concurrency: 100 });
        return c.next("opened", 300_000);
      }),
    );
  const settle = () => new Promise((r) => setTimeout(r, 5000));
  const firstHalf = await openHalf(0);
  await settle();
  const rssWithHalf = await rssSamples();
  const secondHalf = await openHalf(1);
  const opened = [...firstHalf, ...secondHalf];
  const okHalf = firstHalf.reduce((s, o) => s + o.ok, 0);
  const ok = opened.reduce((s, o) => s + o.ok, 0);
  const failed = opened.reduce((s, o) => s + o.failed, 0);
  log(
    `${ok} subscribers open (${failed} failed${failed > 0 ? `: ${opened.find((o) => o.firstError)?.firstError}` : ""}) in ${Math.round(performance.now() - openStarted - 6000)} ms`,
  );
  if (ok === 0) throw new Error("no subscriber could open a stream");
  await settle();
  const rssWithIdle = await rssSamples();
  const perConnection = (rssWithIdle - rssBefore) / ok;
  const perConnectionSecondHalf = (rssWithIdle - rssWithHalf) / (ok - okHalf);
  log(
    `gateway RSS ${fmtBytes(rssBefore)} → ${fmtBytes(rssWithHalf)} with ${okHalf} → ${fmtBytes(rssWithIdle)} with ${ok} idle subscribers: ` +
      `${Math.round(perConnection)} bytes per connection (${Math.round(perConnectionSecondHalf)} over the second half)`,
  );

  // 2: swap → last subscriber holding its events, idle.
  const rounds: RoundResult[] = [];
  const idleLatencies: number[] = [];
  const loadLatencies: number[] = [];
  // The first fan-out of a process runs cold (JIT, first encodings, the build worker starting): measured, kept apart.
  const coldRound = await measurePush(clients, gateway.child.pid, largest, changed, ++version, false, []);
  await new Promise((r) => setTimeout(r, 2000));
  for (let i = 0; i < args.rounds; i++) {
    rounds.push(await measurePush(clients, gateway.child.pid, largest, changed, ++version, false, idleLatencies));
    await new Promise((r) => setTimeout(r, 2000));
  }

  // 3c: the pool route during the fan-outs (a push every 2 s, each measured).
  const fanOut = await wrkRun(
    wrk,
    gateway,
    key.key,
    path,
    args,
    scratch,
    `with ${ok} subscribers, a push every ${PUSH_INTERVAL_MS / 1000} s`,
    () =>
      pushEvery(async () => {
        rounds.push(await measurePush(clients, gateway.child.pid, largest, changed, ++version, true, loadLatencies));
      }),
  );

  // 2b: the same subscribers on `changes` alone (each unsubscribes from its pool topics): one event per push.
  await Promise.all(
    clients.map((c) => {
      c.send({ type: "unsubscribe-pools" });
      return c.next("unsubscribed", 120_000);
    }),
  );
  const changesOnlyLatencies: number[] = [];
  for (let i = 0; i < args.rounds; i++) {
    await new Promise((r) => setTimeout(r, 2000));
    rounds.push(await measurePush(clients, gateway.child.pid, largest, changed, ++version, false, changesOnlyLatencies, "changes-only"));
  }

  for (const c of clients) c.send({ type: "close" });
  await new Promise((r) => setTimeout(r, 3000));

  // The gateway's CPU for a push without subscribers (the swap alone: watch, build worker, diff, thread swaps).
  const swapAloneCpuS: number[] = [];
  for (let i = 0; i < 2; i++) {
    const before = readProcessCpu(gateway.child.pid);
    const generatedAt = pushVersion(largest, changed, ++version);
    const deadline = performance.now() + 30_000;
    for (;;) {
      const status = (await (await fetch(`${gateway.baseUrl}/v1/status`, { headers: { authorization: `Bearer ${key.key}` } })).json()) as {
        data: { chains: Array<{ chainId: number; generatedAt: number }> };
      };
      if (status.data.chains.some((c) => c.chainId === largest.chainId && c.generatedAt === generatedAt)) break;
      if (performance.now() > deadline) throw new Error("a push without subscribers was not served within 30 s");
      await new Promise((r) => setTimeout(r, 20));
    }
    await new Promise((r) => setTimeout(r, 1000));
    swapAloneCpuS.push(readProcessCpu(gateway.child.pid) - before);
    log(`push ${version} without subscribers: gateway CPU ${fmt(swapAloneCpuS[i], 2)} s (to served + 1 s)`);
  }

  // 3b: the pool route with the swaps alone (the subscribers gone).
  const swapsOnly = await wrkRun(
    wrk,
    gateway,
    key.key,
    path,
    args,
    scratch,
    `without subscribers, a push every ${PUSH_INTERVAL_MS / 1000} s`,
    () => pushEvery(() => pushVersion(largest, changed, ++version)),
  );
  const baselineAfter = await wrkRun(wrk, gateway, key.key, path, args, scratch, "without subscribers, again at the end", null);
  await gateway.child.stop();
  machine.loadAverageEnd = loadavg().map((v) => round(v, 2));

  const results: LiveResults = {
    startedAt: new Date(started).toISOString(),
    mode: args.quick ? "quick" : "full",
    durationS: (Date.now() - started) / 1000,
    machine,
    setup: {
      clients: args.clients,
      opened: ok,
      failed,
      clientProcesses: args.clientProcesses,
      servingThreads: threads,
      chainId: largest.chainId,
      chainPools: largest.file.pools.length,
      changedPerPush: changed,
      poolsPerClient: POOLS_PER_CLIENT,
      wrk: { version: wrk.version, threads: 1, connections: args.connections, durationS: args.durationS, path },
      ulimitN: ulimit,
    },
    memory: {
      rssBeforeBytes: rssBefore,
      rssWithHalfBytes: rssWithHalf,
      halfOpened: okHalf,
      rssWithIdleBytes: rssWithIdle,
      perConnectionBytes: perConnection,
      perConnectionSecondHalfBytes: perConnectionSecondHalf,
      clientRssBytes: secondHalf.map((o) => o.rssBytes),
    },
    coldRound,
    rounds,
    swapAloneCpuS,
    idle: percentiles(idleLatencies),
    changesOnly: percentiles(changesOnlyLatencies),
    underLoad: percentiles(loadLatencies),
    wrk: { baseline, swapsOnly, fanOut, baselineAfter },
  };
  publishResults("live", SECTION_ID, results, (jsonPath) => renderSection(results, jsonPath), !args.quick || args.writeSummary);
}

runBench(main);
