/**
 * The stream message-flood benchmark (issue 27): `npm run bench:flood [--
 * [--connections N] [--messages M] [--duration S] [--wrk-connections C]
 * [--quick] [--write-summary]]`. Run it under the bench lock
 * (`flock /tmp/bench.lock npm run bench:flood`).
 *
 * For each variant (message rates off: the gateway as before issue 27; the
 * default message rates), one gateway (2 serving threads, auth and rate
 * limiting on) on the bundled sample, and:
 *   1. wrk on the pool route with the partner key, quiet (after a 2 s warm-up);
 *   2. the same while N WebSockets of another key each send M pipelined
 *      subscribe/unsubscribe messages, again and again until the run ends
 *      (bench/live/flood-client.ts, another process).
 * Prints the pool route's req/s, p50/p99 and the gateway's CPU per request
 * for both, the p99 ratio (target: <= 2x with the defaults), and what the
 * flooder got (answers, error events, closes). Writes
 * bench/results/flood-<timestamp>.json and, from a full run (or a quick one
 * with --write-summary), the "flood" section of bench/RESULTS.md. Every
 * process it starts is stopped at the end, also on failure.
 */
import { fork, type ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { unpack } from "msgpackr";
import type { SnapshotFile } from "../../src/api/snapshot-format.js";
import { PROJECT_ROOT } from "../../src/config/config.js";
import { integerOption, readArgs } from "../shared/command-line.js";
import { benchMachine, log, onCleanup, publishResults, round, runBench } from "../shared/entry.js";
import type { FloodCommand, FloodReport } from "./flood-client.js";
import {
  p99Ratio,
  renderSection,
  roundRatio,
  SECTION_ID,
  type FloodResults,
  type Round,
  type Variant,
  type WrkRun,
} from "./flood-summary.js";
import { fmt } from "./summary.js";
import { readProcessCpu } from "../shared/proc-stat.js";
import { startGateway, type RunningGateway } from "../targets/gateway.js";
import { ensureWrk, runWrk, type WrkBinary } from "../shared/wrk.js";

interface Args {
  rounds: number;
  connections: number;
  messages: number;
  durationS: number;
  wrkConnections: number;
  quick: boolean;
  writeSummary: boolean;
}

const USAGE = `usage: npm run bench:flood -- [--connections N] [--messages M] [--duration S] [--wrk-connections C] [--quick] [--write-summary]
  --connections N      flooding WebSockets, all of one key (default 10)
  --messages M         subscribe/unsubscribe messages each sends, pipelined, per flood (default 20000)
  --duration S         seconds of each wrk run on the pool route (default 10; --quick 5)
  --rounds R           rounds per variant, each a quiet run and a flooded one (default 3; --quick 1)
  --wrk-connections C  wrk connections (default 16)
  --quick              5 s wrk runs, 1 round
  --write-summary      with --quick: also regenerate the flood section of bench/RESULTS.md (a full run always does)`;

const THREADS = 2;

/** The variants: message rates at their maximum (none, in effect), then the defaults. */
const VARIANTS: ReadonlyArray<{ readonly name: string; readonly env: Readonly<Record<string, string>> }> = [
  { name: "limits off", env: { STREAM_MAX_MESSAGES_PER_SECOND: "100000", STREAM_MAX_KEY_MESSAGES_PER_SECOND: "1000000" } },
  { name: "defaults", env: {} },
];

function readOptions(argv: readonly string[]): Args {
  const text = { type: "string" } as const;
  const values = readArgs(
    argv,
    {
      connections: text,
      messages: text,
      duration: text,
      rounds: text,
      "wrk-connections": text,
      quick: { type: "boolean" },
      "write-summary": { type: "boolean" },
    },
    USAGE,
  );
  const quick = values.quick ?? false;
  return {
    connections: integerOption("--connections", values.connections, 1, 100) ?? 10,
    messages: integerOption("--messages", values.messages, 1, 1_000_000) ?? 20_000,
    durationS: integerOption("--duration", values.duration, 1, 600) ?? (quick ? 5 : 10),
    rounds: integerOption("--rounds", values.rounds, 1, 20) ?? (quick ? 1 : 3),
    wrkConnections: integerOption("--wrk-connections", values["wrk-connections"], 1, 10_000) ?? 16,
    quick,
    writeSummary: values["write-summary"] ?? false,
  };
}

/** A keys file with two keys of unlimited quota: the partner wrk speaks for, and the flooder. */
function writeKeys(): { file: string; partner: string; flooder: string } {
  const dir = mkdtempSync(join(tmpdir(), "lgw-bench-flood-keys-"));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  const partner = `lgw_bench_${randomBytes(24).toString("base64url")}`;
  const flooder = `lgw_bench_${randomBytes(24).toString("base64url")}`;
  const record = (id: string, key: string) => ({
    id,
    name: `benchmark ${id}`,
    sha256: createHash("sha256").update(key, "utf8").digest("hex"),
    status: "active",
    rateLimit: { requests: 1_000_000_000, windowSeconds: 60 },
  });
  const file = join(dir, "keys.json");
  writeFileSync(file, JSON.stringify({ keys: [record("partner", partner), record("flooder", flooder)] }, null, 2), { mode: 0o600 });
  return { file, partner, flooder };
}

/** The first pool of chain 8453 in the bundled sample. */
function poolPath(): string {
  const file = unpack(readFileSync(join(PROJECT_ROOT, "snapshots/chain-8453.msgpack"))) as SnapshotFile;
  return `/v1/pools/8453/${file.pools[0].address.toLowerCase()}`;
}

function startFlooder(): { child: ChildProcess; done: Promise<FloodReport> } {
  const script = join(fileURLToPath(new URL(".", import.meta.url)), "flood-client.js");
  const child = fork(script, [], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  onCleanup(() => {
    if (child.exitCode === null) child.kill("SIGKILL");
  });
  const done = new Promise<FloodReport>((resolve, reject) => {
    child.once("message", (report: FloodReport) => resolve(report));
    child.once("exit", (code) => reject(new Error(`the flooder exited (${code}) before reporting`)));
  });
  return { child, done };
}

async function wrkRun(
  wrk: WrkBinary,
  gateway: RunningGateway,
  key: string,
  path: string,
  durationS: number,
  connections: number,
  scratch: string,
  label: string,
): Promise<WrkRun> {
  const cpuBefore = readProcessCpu(gateway.child.pid);
  const r = await runWrk(wrk, {
    baseUrl: gateway.baseUrl,
    request: { method: "GET", path, headers: { Authorization: `Bearer ${key}` } },
    threads: 1,
    connections,
    durationS,
    timeoutS: 10,
    cpus: null,
    scratchDir: scratch,
  });
  const gatewayCpuS = readProcessCpu(gateway.child.pid) - cpuBefore;
  const run: WrkRun = {
    label,
    requests: r.requests,
    rps: r.rps,
    p50Ms: r.latencyMs.p50,
    p99Ms: r.latencyMs.p99,
    maxMs: r.latencyMs.max,
    errors: r.non2xx + r.socketErrors.connect + r.socketErrors.read + r.socketErrors.write + r.socketErrors.timeout,
    gatewayCpuS,
    cpuUsPerRequest: (gatewayCpuS * 1e6) / Math.max(1, r.requests),
  };
  log(
    `wrk ${label}: ${Math.round(run.rps)} req/s, p50 ${fmt(run.p50Ms, 2)} ms, p99 ${fmt(run.p99Ms, 2)} ms, max ${fmt(run.maxMs, 1)} ms, ${run.errors} errors; gateway CPU ${fmt(gatewayCpuS, 2)} s (${fmt(run.cpuUsPerRequest, 1)} µs/req)`,
  );
  return run;
}

/** One round on a running gateway: the pool route quiet, then during the flood. */
async function floodRound(
  wrk: WrkBinary,
  gateway: RunningGateway,
  keys: { partner: string; flooder: string },
  path: string,
  args: Args,
  scratch: string,
  label: string,
): Promise<Round> {
  const quiet = await wrkRun(wrk, gateway, keys.partner, path, args.durationS, args.wrkConnections, scratch, `${label}, quiet`);
  const flooder = startFlooder();
  const during = wrkRun(wrk, gateway, keys.partner, path, args.durationS, args.wrkConnections, scratch, `${label}, during the flood`);
  await new Promise((r) => setTimeout(r, 500));
  const command: FloodCommand = {
    type: "flood",
    port: gateway.port,
    key: keys.flooder,
    connections: args.connections,
    messages: args.messages,
    repeat: true,
  };
  flooder.child.send(command);
  const flooded = await during;
  flooder.child.send({ type: "stop" } satisfies FloodCommand);
  const flood = await flooder.done;
  flooder.child.kill();
  const round: Round = { quiet, flooded, flood };
  log(
    `${label}: ${flood.floods} floods, ${flood.sent} messages sent, ${flood.subscribed} subscribed, ${flood.errors} error events, the first ${fmt(flood.firstRoundMs, 0)} ms; closes ${JSON.stringify(flood.closes)}; ${flood.refusedOpens} openings refused${flood.firstRefusal === null ? "" : ` (${flood.firstRefusal})`}; p99 ${fmt(flooded.p99Ms, 2)} ms vs ${fmt(quiet.p99Ms, 2)} ms quiet: ${fmt(roundRatio(round), 2)}x`,
  );
  return round;
}

async function main(): Promise<void> {
  const args = readOptions(process.argv.slice(2));
  const started = Date.now();
  const machine = benchMachine();
  log(`machine: ${machine.cores} cores, ${machine.cpuModel}; node ${machine.node}; load average ${machine.loadAverageStart.join(" ")}`);
  const wrk = ensureWrk(log);
  const scratch = mkdtempSync(join(tmpdir(), "lgw-bench-flood-wrk-"));
  onCleanup(() => rmSync(scratch, { recursive: true, force: true }));
  const keys = writeKeys();
  const path = poolPath();

  const variants: Variant[] = [];
  for (const variant of VARIANTS) {
    const gateway = await startGateway({
      snapshotDir: join(PROJECT_ROOT, "snapshots"),
      keysFile: keys.file,
      timeoutMs: 120_000,
      threads: THREADS,
      env: variant.env,
      name: `gateway (${variant.name})`,
    });
    log(`${variant.name}: gateway ${gateway.baseUrl} ready in ${Math.round(gateway.startToReadyMs)} ms (pid ${gateway.child.pid})`);
    await wrkRun(wrk, gateway, keys.partner, path, 2, args.wrkConnections, scratch, `${variant.name}, warm-up`);
    const rounds: Round[] = [];
    for (let i = 1; i <= args.rounds; i++)
      rounds.push(await floodRound(wrk, gateway, keys, path, args, scratch, `${variant.name}, round ${i}`));
    await gateway.child.stop();
    const result: Variant = { name: variant.name, env: variant.env, rounds };
    const ratio = p99Ratio(result);
    log(
      `${variant.name}: pool route p99 ratio, flooded over quiet: median ${fmt(ratio.median, 2)}x (${fmt(ratio.min, 2)}-${fmt(ratio.max, 2)}x)`,
    );
    variants.push(result);
  }
  machine.loadAverageEnd = loadavg().map((v) => round(v, 2));

  const results: FloodResults = {
    startedAt: new Date(started).toISOString(),
    mode: args.quick ? "quick" : "full",
    durationS: (Date.now() - started) / 1000,
    machine,
    setup: {
      servingThreads: THREADS,
      connections: args.connections,
      messages: args.messages,
      rounds: args.rounds,
      wrk: { version: wrk.version, threads: 1, connections: args.wrkConnections, durationS: args.durationS, path },
    },
    variants,
  };
  publishResults("flood", SECTION_ID, results, (jsonPath) => renderSection(results, jsonPath), !args.quick || args.writeSummary);
}

runBench(main);
