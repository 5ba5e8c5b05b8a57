/**
 * `npm run bench [-- --quick] [options]`: server CPU per request over HTTP,
 * measured with wrk (issue 14).
 *
 * Starts every server of http-targets.ts's SERVERS (the gateway with one and
 * with all serving threads, a bare uWS server answering the gateway's captured
 * bytes, a floor uWS server doing only the unavoidable work), each pinned to
 * the same CPUs and wrk to others. For every target of HTTP_TARGETS it warms
 * each server up, then runs rounds interleaved (A B C D A B C D ...); each run
 * records requests/s, the server process's CPU (utime + stime of every thread,
 * /proc/<pid>/stat) per completed request, wrk's own CPU and the rest of the
 * machine's. Writes bench/results/<timestamp>.json and .svg, and regenerates
 * the "http-cpu" section of bench/RESULTS.md from a full run (a quick run only
 * with --write-summary). Every process it starts is stopped at the end, also
 * on failure or an interrupt.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, release, tmpdir, totalmem } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { integerOption, readArgs } from "../shared/command-line.js";
import { log, onCleanup, round, runBench } from "../shared/entry.js";
import { PROJECT_ROOT } from "../../src/config/config.js";
import { renderChart } from "./chart.js";
import {
  cpuRatios,
  judgeGoals,
  summariseCells,
  type HttpCpuResults,
  type Machine,
  type Measurement,
  type ServerRun,
  type TargetRun,
} from "./results.js";
import { renderBrief, renderSection, SECTION_ID } from "./report.js";
import {
  GOALS,
  HTTP_TARGETS,
  pick,
  poolPlaceholders,
  resolveBody,
  resolvePath,
  SERVERS,
  tokenPlaceholders,
  type ServerDef,
} from "./plan.js";
import { readMachineBusySeconds, readProcessCpu } from "../shared/proc-stat.js";
import { writeSection } from "../shared/results-md.js";
import { cpuMicrosPerRequest } from "../shared/stats.js";
import { capture, writeCanned, type CannedResponse, type CannedTarget } from "../targets/canned.js";
import { startNode, stopAllChildren, type BenchChild } from "../shared/child.js";
import { freePort } from "../shared/free-port.js";
import { openIdleStreams } from "../targets/idle-streams.js";
import { startGateway, writeBenchKey } from "../targets/gateway.js";
import { startBenchRedis } from "../targets/redis-server.js";
import { samplePoolAddresses } from "../targets/pool-addresses.js";
import { tokenAddresses, type ChainAddress } from "../targets/token-addresses.js";
import { ensureTaskset, ensureWrk, runWrk, type WrkBinary, type WrkRequest } from "../shared/wrk.js";

// ------------------------------------------------------------------ arguments

interface Args {
  quick: boolean;
  data: string;
  rounds: number | null;
  durationS: number | null;
  warmupS: number | null;
  connections: number;
  wrkThreads: number | null;
  pin: boolean;
  serverCpus: string | null;
  wrkCpus: string | null;
  servers: string | null;
  targets: string | null;
  writeSummary: boolean;
  notes: string[];
  /** WebSocket subscribers kept open on each gateway's /v1/stream while it is measured (0: none). */
  idleStreams: number;
}

const USAGE = `usage: npm run bench -- [--quick] [options]
  --quick             about 1.5 minutes: 2 rounds of 2 s per server and target (full: 5 rounds of 5 s, about 8 minutes)
  --data DIR          snapshot directory the gateways serve (default: the bundled snapshots/)
  --rounds N          interleaved rounds per target
  --duration S        seconds per wrk run
  --warmup S          seconds of unmeasured load per server and target before its rounds
  --connections N     wrk connections (default 64)
  --wrk-threads N     wrk threads (default: the number of wrk CPUs)
  --server-cpus LIST  taskset CPU list for every server (default: every core but the last)
  --wrk-cpus LIST     taskset CPU list for wrk (default: the last core)
  --no-pin            pin nothing (servers and wrk share every core)
  --servers A,B       only these servers (ids in bench/http/plan.ts; a gateway is needed: it provides the bytes)
  --targets A,B       only these targets
  --note TEXT         a note to print with the results (repeatable)
  --write-summary     with --quick: also regenerate the http-cpu section of bench/RESULTS.md (a full run always does)
  --idle-streams N    keep N idle WebSocket subscribers open on each gateway's /v1/stream while measuring (opened by a
                      separate process on the wrk CPUs; STREAM_MAX_CONNECTIONS_PER_KEY and descriptor limits raised to fit)`;

function readOptions(argv: readonly string[]): Args {
  const text = { type: "string" } as const;
  const flag = { type: "boolean" } as const;
  const values = readArgs(
    argv,
    {
      quick: flag,
      data: text,
      rounds: text,
      duration: text,
      warmup: text,
      connections: text,
      "wrk-threads": text,
      "server-cpus": text,
      "wrk-cpus": text,
      "no-pin": flag,
      servers: text,
      targets: text,
      note: { type: "string", multiple: true },
      "write-summary": flag,
      "idle-streams": text,
    },
    USAGE,
  );
  const cpuList = (name: string, list: string | undefined): string | null => {
    if (list === undefined) return null;
    if (!/^\d+(-\d+)?(,\d+(-\d+)?)*$/.test(list)) throw new Error(`${name} must be a CPU list like 0 or 0-2 or 0,2, got '${list}'`);
    return list;
  };
  return {
    quick: values.quick ?? false,
    data: resolve(values.data ?? join(PROJECT_ROOT, "snapshots")),
    rounds: integerOption("--rounds", values.rounds, 1, 100) ?? null,
    durationS: integerOption("--duration", values.duration, 1, 600) ?? null,
    warmupS: integerOption("--warmup", values.warmup, 0, 600) ?? null,
    connections: integerOption("--connections", values.connections, 1, 10_000) ?? 64,
    wrkThreads: integerOption("--wrk-threads", values["wrk-threads"], 1, 256) ?? null,
    pin: !(values["no-pin"] ?? false),
    serverCpus: cpuList("--server-cpus", values["server-cpus"]),
    wrkCpus: cpuList("--wrk-cpus", values["wrk-cpus"]),
    servers: values.servers ?? null,
    targets: values.targets ?? null,
    writeSummary: values["write-summary"] ?? false,
    notes: values.note ?? [],
    idleStreams: integerOption("--idle-streams", values["idle-streams"], 0, 100_000) ?? 0,
  };
}

// ------------------------------------------------------------------ helpers

function cpuModel(): string {
  try {
    const match = /^model name\s*:\s*(.+)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"));
    if (match) return match[1].trim();
  } catch {
    // not Linux
  }
  return cpus()[0]?.model.trim() || "unknown CPU";
}

function machineInfo(): Machine {
  return {
    cpuModel: cpuModel(),
    cores: cpus().length,
    memoryBytes: totalmem(),
    node: process.version,
    kernel: release(),
    arch: process.arch,
    loadAverageStart: loadavg().map((v) => round(v, 2)),
    loadAverageEnd: [],
  };
}

/** Size of a taskset CPU list ("0", "0-2", "0,3"). */
function cpuCount(list: string): number {
  return list.split(",").reduce((n, part) => {
    const [a, b] = part.split("-").map(Number);
    return n + (b === undefined ? 1 : b - a + 1);
  }, 0);
}

interface Pinning {
  readonly serverCpus: string | null;
  readonly wrkCpus: string | null;
  readonly serverCores: number;
  readonly wrkCores: number;
}

function pinning(args: Args, cores: number): Pinning {
  if (!args.pin || cores < 2) return { serverCpus: null, wrkCpus: null, serverCores: cores, wrkCores: cores };
  const serverCpus = args.serverCpus ?? (cores === 2 ? "0" : `0-${cores - 2}`);
  const wrkCpus = args.wrkCpus ?? String(cores - 1);
  return { serverCpus, wrkCpus, serverCores: cpuCount(serverCpus), wrkCores: cpuCount(wrkCpus) };
}

interface RunningServer {
  readonly def: ServerDef;
  readonly threads: number;
  readonly child: BenchChild;
  readonly baseUrl: string;
  /** Processes whose CPU counts as this server's (its redis-server). */
  readonly helpers?: readonly BenchChild[];
}

/**
 * Makes sure process `pid` may open `needed` descriptors: raises its soft limit (prlimit, util-linux) up to its
 * hard limit; throws when even the hard limit is lower.
 */
function raiseDescriptorLimit(pid: number, needed: number): void {
  const line = /^Max open files\s+(\d+|unlimited)\s+(\d+|unlimited)/m.exec(readFileSync(`/proc/${pid}/limits`, "utf8"));
  if (line === null) throw new Error(`cannot read the descriptor limit of process ${pid}`);
  const [soft, hard] = [line[1], line[2]].map((v) => (v === "unlimited" ? Infinity : Number(v)));
  if (soft >= needed) return;
  if (hard < needed)
    throw new Error(`--idle-streams needs ${needed} descriptors in the gateway; its hard limit is ${hard} (raise it: ulimit -Hn)`);
  execFileSync("prlimit", ["--pid", String(pid), `--nofile=${needed}:${hard === Infinity ? "unlimited" : hard}`]);
}

/** CPU seconds of a server's process and its helpers. */
function serverCpuSeconds(server: RunningServer): number {
  return [server.child, ...(server.helpers ?? [])].reduce((sum, child) => sum + readProcessCpu(child.pid), 0);
}

async function startUws(def: ServerDef, threads: number, cannedFile: string, cpusList: string | null): Promise<RunningServer> {
  const port = await freePort();
  const args = [
    join(PROJECT_ROOT, "dist/bench/targets/uws-server.js"),
    "--kind",
    def.kind,
    "--port",
    String(port),
    "--threads",
    String(threads),
    "--responses",
    cannedFile,
  ];
  const child = startNode(def.id, args, { cwd: PROJECT_ROOT }, cpusList);
  await child.waitForLine((l) => l.event === "listening", 20_000);
  return { def, threads, child, baseUrl: `http://127.0.0.1:${port}` };
}

function fetchTarget(baseUrl: string, request: WrkRequest): Promise<CannedResponse> {
  return capture(baseUrl, request);
}

/** A response body with the envelope's per-request fields (timestamp, trace id) blanked. */
function withoutPerRequestFields(body: Buffer): string {
  return body.toString("utf8").replace(/^(\{"statusCode":\d+,"timestamp":")[^"]*(".*?"traceId":")[^"]*"/, '$1$2"');
}

/**
 * Every server must answer every target as the reference gateway did: same
 * status, header names and body length, and the same body bytes (bare uWS) or
 * the same body but for the timestamp and trace id (the others).
 */
async function checkAnswers(
  servers: readonly RunningServer[],
  requests: ReadonlyMap<string, WrkRequest>,
  reference: ReadonlyMap<string, CannedResponse>,
  serversFor: (target: string) => readonly RunningServer[],
): Promise<void> {
  const names = (r: CannedResponse) =>
    r.headers
      .map(([n]) => n)
      .sort()
      .join(",");
  for (const server of servers) {
    for (const [target, request] of requests) {
      if (!serversFor(target).includes(server)) continue;
      const expected = reference.get(target)!;
      const got = await fetchTarget(server.baseUrl, request);
      const problems: string[] = [];
      if (got.status !== expected.status) problems.push(`status ${got.status}, expected ${expected.status}`);
      if (names(got) !== names(expected)) problems.push(`headers [${names(got)}], expected [${names(expected)}]`);
      // A gateways-only target's body may be opaque (compressed): only its status and header names are compared.
      const opaque = serversFor(target).every((s) => s.def.kind === "gateway");
      if (!opaque) {
        if (got.body.length !== expected.body.length) problems.push(`body ${got.body.length} bytes, expected ${expected.body.length}`);
        if (server.def.kind === "bare" && !got.body.equals(expected.body)) problems.push("body bytes differ from the captured ones");
        else if (withoutPerRequestFields(got.body) !== withoutPerRequestFields(expected.body))
          problems.push("body differs beyond the timestamp and trace id");
      }
      if (problems.length > 0) {
        throw new Error(
          `${server.def.id} answers target '${target}' unlike the reference gateway: ${problems.join("; ")}. ` +
            (server.def.kind === "floor" ? "The gateway's envelope or headers changed: update bench/targets/floor.ts to match." : "") +
            `\n${got.body.toString("utf8").slice(0, 300)}`,
        );
      }
    }
  }
}

// ------------------------------------------------------------------ main

async function main(): Promise<void> {
  const args = readOptions(process.argv.slice(2));
  const mode = args.quick ? "quick" : "full";
  const startedAt = new Date();
  const machine = machineInfo();
  const rounds = args.rounds ?? (args.quick ? 2 : 5);
  const durationS = args.durationS ?? (args.quick ? 2 : 5);
  const warmupS = args.warmupS ?? (args.quick ? 1 : 2);
  const pin = pinning(args, machine.cores);
  const wrkThreads = args.wrkThreads ?? (pin.wrkCpus === null ? 1 : pin.wrkCores);
  log(
    `mode ${mode}; ${machine.cpuModel}, ${machine.cores} cores, Node ${machine.node}, Linux ${machine.kernel}; load average ${machine.loadAverageStart.join(" ")}`,
  );

  const wrk: WrkBinary = ensureWrk(log);
  if (pin.serverCpus !== null) ensureTaskset();
  log(
    `${wrk.version} at ${wrk.path}; servers on CPU ${pin.serverCpus ?? "any"}, wrk on CPU ${pin.wrkCpus ?? "any"} (${wrkThreads} thread(s), ${args.connections} connections)`,
  );

  const targets = pick(HTTP_TARGETS, (t) => t.name, args.targets, "--targets");
  const servers = pick(SERVERS, (s) => s.id, args.servers, "--servers");
  const reference = servers.find((s) => s.kind === "gateway");
  if (!reference) throw new Error("--servers: include a gateway; it provides the bytes the other servers answer");
  const threadsOf = (def: ServerDef) => (def.threads === "all" ? machine.cores : def.threads);

  const scratch = mkdtempSync(join(tmpdir(), "lgw-bench-wrk-"));
  const benchKey = writeBenchKey();
  onCleanup(() => {
    rmSync(scratch, { recursive: true, force: true });
    rmSync(dirname(benchKey.file), { recursive: true, force: true });
  });
  const notes = [...args.notes];
  if (args.quick) notes.push(`Quick run (${rounds} rounds of ${durationS} s): a smoke test of the harness; judge the goals on a full run.`);
  if (pin.serverCpus !== null && servers.some((s) => s.kind === "gateway" && threadsOf(s) > pin.serverCores)) {
    notes.push(
      `The all-threads gateway runs ${machine.cores} serving threads on the ${pin.serverCores} server CPU(s) (pinned like every server, so that wrk keeps its own core): ` +
        `its CPU per request includes what the extra threads cost, and its req/s cannot exceed what ${pin.serverCores} core(s) serve.`,
    );
  }

  let results: HttpCpuResults | null = null;
  try {
    // --- requests, with real pool addresses
    const addresses = new Map<number, string>();
    for (const chain of new Set(targets.flatMap((t) => poolPlaceholders(t.path)))) {
      const [address] = await samplePoolAddresses(args.data, chain, 1);
      if (!address) throw new Error(`no pool of chain ${chain} in ${args.data}`);
      addresses.set(chain, address);
    }
    // --- and real token addresses
    const tokens = new Map<string, ChainAddress[]>();
    for (const symbol of new Set(targets.flatMap((t) => tokenPlaceholders(t.body)))) {
      const found = await tokenAddresses(args.data, symbol);
      if (found.length === 0) throw new Error(`no token ${symbol} in ${args.data}`);
      tokens.set(symbol, found);
    }
    const requests = new Map<string, WrkRequest>(
      targets.map((t) => [
        t.name,
        {
          method: t.method,
          path: resolvePath(t.path, (chain) => addresses.get(chain)!),
          headers: { authorization: `Bearer ${benchKey.key}`, ...(t.headers ?? {}) },
          ...(t.body !== undefined ? { body: resolveBody(t.body, (symbol) => tokens.get(symbol)!) } : {}),
        },
      ]),
    );

    // --- servers: gateways first (they provide the bytes), then bare and floor
    const running: RunningServer[] = [];
    const cursorSecret = randomBytes(24).toString("base64url");
    for (const def of servers.filter((s) => s.kind === "gateway")) {
      log(`starting ${def.id}: ${threadsOf(def)} serving thread(s), auth and quotas on, LOG_LEVEL warn`);
      // One cursor secret for every gateway of the run (as a deployment configures one), so their next-page cursors match.
      const env: Record<string, string> = { CURSOR_SECRET: cursorSecret, ...(def.env ?? {}) };
      if (args.idleStreams > 0) env.STREAM_MAX_CONNECTIONS_PER_KEY = String(Math.max(100, args.idleStreams));
      const helpers: BenchChild[] = [];
      if (def.redis) {
        const redis = await startBenchRedis(pin.serverCpus);
        log(`${def.id}: redis-server ${redis.url} on CPU ${pin.serverCpus ?? "any"}; its CPU counts as ${def.id}'s`);
        env.REDIS_URL = redis.url;
        helpers.push(redis.child);
      }
      const gateway = await startGateway({
        snapshotDir: args.data,
        keysFile: benchKey.file,
        timeoutMs: 10 * 60_000,
        threads: threadsOf(def),
        env,
        cpus: pin.serverCpus,
        name: def.id,
      });
      running.push({ def, threads: threadsOf(def), child: gateway.child, baseUrl: gateway.baseUrl, helpers });
    }
    const referenceServer = running.find((s) => s.def.id === reference.id)!;
    const captured = new Map<string, CannedResponse>();
    for (const [name, request] of requests) {
      const answer = await fetchTarget(referenceServer.baseUrl, request);
      if (answer.status !== 200)
        throw new Error(
          `${reference.id}: ${request.method} ${request.path} ${request.body ?? ""} answered ${answer.status}: ${answer.body.toString("utf8").slice(0, 400)}`,
        );
      captured.set(name, answer);
    }
    const cannedFile = join(scratch, "canned.json");
    const gatewaysOnly = new Set(targets.filter((t) => t.gatewaysOnly).map((t) => t.name));
    // The uWS servers answer only the targets they are measured on: a gateways-only variant (the same route
    // with another Accept-Encoding) would make the route ambiguous to them, who tell targets apart by body only.
    const cannedTargets: CannedTarget[] = [...requests]
      .filter(([name]) => !gatewaysOnly.has(name))
      .map(([name, r]) => ({
        name,
        method: r.method.toLowerCase(),
        path: r.path,
        requestBody: r.body ?? "",
        response: captured.get(name)!,
      }));
    writeCanned(cannedFile, {
      targets: cannedTargets,
      keys: [{ key: benchKey.key, limit: benchKey.limit, windowSeconds: benchKey.windowSeconds }],
    });
    for (const def of servers.filter((s) => s.kind !== "gateway")) {
      log(`starting ${def.id}: ${threadsOf(def)} thread(s)`);
      running.push(await startUws(def, threadsOf(def), cannedFile, pin.serverCpus));
    }
    if (args.idleStreams > 0) {
      for (const server of running.filter((s) => s.def.kind === "gateway")) {
        raiseDescriptorLimit(server.child.pid, args.idleStreams + 4096);
        const idle = await openIdleStreams(server.baseUrl, benchKey.key, args.idleStreams, pin.wrkCpus);
        log(
          `${server.def.id}: ${idle.count} idle WebSocket subscribers open on /v1/stream (${idle.openMs} ms); they stay open while it is measured`,
        );
      }
      notes.push(
        `Each gateway held ${args.idleStreams} idle WebSocket subscribers on /v1/stream throughout (opened from a separate process on the wrk CPUs; the server answers their pings).`,
      );
    }
    // Measure in the order of SERVERS (as listed), not of start-up.
    running.sort((a, b) => servers.indexOf(a.def) - servers.indexOf(b.def));
    const serversFor = (target: string) => (gatewaysOnly.has(target) ? running.filter((s) => s.def.kind === "gateway") : running);
    await checkAnswers(running, requests, captured, serversFor);
    log(`every server answers every target like ${reference.id} (status, header names, body length)`);

    // --- measurements: per target, warm-up, then interleaved rounds
    const measurements: Measurement[] = [];
    const wrkSpec = (server: RunningServer, request: WrkRequest, seconds: number) => ({
      baseUrl: server.baseUrl,
      request,
      threads: wrkThreads,
      connections: args.connections,
      durationS: seconds,
      timeoutS: 10,
      cpus: pin.wrkCpus,
      scratchDir: scratch,
    });
    for (const [target, request] of requests) {
      if (warmupS > 0) {
        for (const server of serversFor(target)) {
          const warm = await runWrk(wrk, wrkSpec(server, request, warmupS));
          if (warm.non2xx > 0)
            throw new Error(`${server.def.id} answered ${warm.non2xx} non-2xx responses to '${target}' during the warm-up`);
        }
      }
      for (let r = 0; r < rounds; r++) {
        for (const server of serversFor(target)) {
          const cpuBefore = serverCpuSeconds(server);
          const busyBefore = readMachineBusySeconds();
          const wallBefore = performance.now();
          const result = await runWrk(wrk, wrkSpec(server, request, durationS));
          const wallS = (performance.now() - wallBefore) / 1000;
          const serverCpuS = serverCpuSeconds(server) - cpuBefore;
          const busyS = readMachineBusySeconds() - busyBefore;
          const wrkCpuS = result.wrkCpuSeconds;
          const m: Measurement = {
            target,
            server: server.def.id,
            round: r,
            requests: result.requests,
            durationS: round(result.durationS, 3),
            wallS: round(wallS, 3),
            rps: round(result.rps, 0),
            serverCpuS: round(serverCpuS, 3),
            cpuUsPerRequest: round(cpuMicrosPerRequest(serverCpuS, result.requests), 3),
            serverCpuPercent: round((serverCpuS / wallS) * 100),
            wrkCpuS: round(wrkCpuS, 3),
            wrkCpuPercent: round((wrkCpuS / result.durationS) * 100),
            otherCpuPercent: round(Math.max(0, ((busyS - serverCpuS - (Number.isFinite(wrkCpuS) ? wrkCpuS : 0)) / wallS) * 100)),
            latencyMs: result.latencyMs,
            non2xx: result.non2xx,
            socketErrors: result.socketErrors.connect + result.socketErrors.read + result.socketErrors.write + result.socketErrors.timeout,
          };
          measurements.push(m);
          log(
            `${target.padEnd(18)} ${server.def.id.padEnd(12)} round ${r + 1}/${rounds}: ${String(m.rps).padStart(7)} req/s  ${m.cpuUsPerRequest.toFixed(2).padStart(7)} µs CPU/req  ` +
              `server ${m.serverCpuPercent}%  wrk ${m.wrkCpuPercent}%  others ${m.otherCpuPercent}%  p99 ${m.latencyMs.p99.toFixed(2)} ms` +
              (m.non2xx + m.socketErrors > 0 ? `  NON-2XX ${m.non2xx} SOCKET ERRORS ${m.socketErrors}` : ""),
          );
        }
      }
    }

    // --- summary
    const targetNames = [...requests.keys()];
    const serverIds = running.map((s) => s.def.id);
    const cells = summariseCells(measurements, targetNames, serverIds);
    const gateways = running.filter((s) => s.def.kind === "gateway").map((s) => s.def.id);
    const baselines = running.filter((s) => s.def.kind !== "gateway").map((s) => s.def.id);
    const ratios = cpuRatios(measurements, targetNames, gateways, baselines);
    const labelOf = (id: string) => servers.find((s) => s.id === id)?.label ?? id;
    const verdicts = judgeGoals(GOALS, ratios, {
      cells,
      serverCores: pin.serverCores,
      wrkCores: pin.wrkCores,
      labelOf,
      threadsOf: (id) => running.find((s) => s.def.id === id)?.threads ?? 1,
    });
    machine.loadAverageEnd = loadavg().map((v) => round(v, 2));
    const finishedAt = new Date();
    const serverRuns: ServerRun[] = running.map((s) => ({
      id: s.def.id,
      label: s.def.label,
      kind: s.def.kind,
      threads: s.threads,
      env: s.def.env ?? {},
    }));
    const targetRuns: TargetRun[] = targets.map((t) => {
      const request = requests.get(t.name)!;
      const answer = captured.get(t.name)!;
      const { authorization: _, ...headers } = request.headers;
      return {
        name: t.name,
        label: t.label,
        method: t.method,
        path: request.path,
        headers,
        body: request.body ?? null,
        responseBytes: answer.body.length,
        responseHeaders: answer.headers.map(([n]) => n),
      };
    });
    results = {
      schema: "http-cpu/1",
      mode,
      startedAt: startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
      wallSeconds: round((finishedAt.getTime() - startedAt.getTime()) / 1000),
      machine,
      settings: {
        wrk: { version: wrk.version, threads: wrkThreads, connections: args.connections, timeoutS: 10, cpus: pin.wrkCpus },
        durationS,
        warmupS,
        rounds,
        serverCpus: pin.serverCpus,
        dataDir: relative(PROJECT_ROOT, args.data).startsWith("..") ? args.data : relative(PROJECT_ROOT, args.data) || ".",
        keepAlive: "HTTP/1.1 keep-alive, no pipelining",
      },
      servers: serverRuns,
      targets: targetRuns,
      measurements,
      cells,
      ratios,
      verdicts,
      notes,
    };
  } finally {
    await stopAllChildren();
  }

  const stamp = results.startedAt.replace(/[:]/g, "-").replace(/\.\d+Z$/, "Z");
  const resultsDir = join(PROJECT_ROOT, "bench/results");
  mkdirSync(resultsDir, { recursive: true });
  const jsonFile = join(resultsDir, `http-cpu-${stamp}.json`);
  const svgFile = join(resultsDir, `http-cpu-${stamp}.svg`);
  writeFileSync(jsonFile, `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(svgFile, renderChart(results));
  log(`results: ${relative(PROJECT_ROOT, jsonFile)}, chart: ${relative(PROJECT_ROOT, svgFile)}`);
  if (mode === "full" || args.writeSummary) {
    const summaryFile = join(PROJECT_ROOT, "bench/RESULTS.md");
    const rel = (file: string) => relative(dirname(summaryFile), file);
    writeSection(summaryFile, SECTION_ID, renderSection(results, { json: rel(jsonFile), svg: rel(svgFile) }));
    log(`summary: the ${SECTION_ID} section of ${relative(PROJECT_ROOT, summaryFile)}`);
  } else log("quick run: bench/RESULTS.md left as it is (--write-summary regenerates its http-cpu section from this run)");
  process.stdout.write(`\n${renderBrief(results)}\n`);
}

runBench(main);
