/**
 * The load generator: autocannon, driven programmatically in a child process
 * of its own (`runLoad` forks this module), so it never shares an event loop
 * with the orchestrator or a server it measures. Every response's latency is
 * recorded at full resolution (autocannon's own histogram has 1 ms steps),
 * after an optional warm-up run that is not counted.
 */
import { fork } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type { LatencySummary } from "../shared/stats.js";
import { BenchChild } from "../shared/child.js";

export interface LoadRequest {
  readonly method: "GET" | "POST";
  readonly path: string;
  readonly body?: string;
}

export interface LoadSpec {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Sent with every request (Authorization, Content-Type). */
  readonly headers: Readonly<Record<string, string>>;
  /** Each connection cycles through these. */
  readonly requests: readonly LoadRequest[];
  /**
   * Makes every request body distinct (for uncached queries): `placeholder`
   * in each body is replaced by `start + n * step`, n counting requests.
   */
  readonly uniqueBody?: { readonly placeholder: string; readonly start: number; readonly step: number };
  readonly connections: number;
  /** Measured duration (upper bound when the caller stops the run early). */
  readonly durationS: number;
  /** Unmeasured run before it (JIT, caches, connection set-up). */
  readonly warmupS: number;
}

export interface LoadResult {
  /** Responses received in the measured run. */
  readonly responses: number;
  readonly durationS: number;
  /** responses / durationS */
  readonly rps: number;
  /** Of every response, in milliseconds. */
  readonly latencyMs: LatencySummary;
  readonly non2xx: number;
  readonly errors: number;
  readonly timeouts: number;
  readonly statusCodes: Record<string, number>;
  /** CPU time of the load-generator process during the measured run, in % of one core. */
  readonly clientCpuPercent: number;
  /** CPU seconds of the load-generator process from its start to the result (warm-up included). */
  readonly clientCpuSecondsTotal: number;
  /** The responses completed inside the window given to `stop` (absent without one). */
  readonly window?: { readonly responses: number; readonly durationS: number; readonly rps: number; readonly latencyMs: LatencySummary };
}

/** A span of wall-clock time, in epoch milliseconds (performance.timeOrigin + performance.now()). */
export interface TimeWindow {
  readonly startMs: number;
  readonly endMs: number;
}

/** Epoch milliseconds with sub-millisecond resolution, comparable across processes. */
export const epochMs = () => performance.timeOrigin + performance.now();

export interface RunningLoad {
  readonly result: Promise<LoadResult>;
  /**
   * Ends the measured run early (autocannon stops at its next 1 s tick); with
   * a window, the result also summarises the responses completed inside it.
   */
  stop(window?: TimeWindow): void;
}

const THIS_FILE = fileURLToPath(import.meta.url);

export function runLoad(spec: LoadSpec): RunningLoad {
  const process_ = fork(THIS_FILE, [], { stdio: ["ignore", "pipe", "pipe", "ipc"] });
  const child = new BenchChild("load generator", process_);
  const result = new Promise<LoadResult>((resolve, reject) => {
    process_.on("message", (message: { type: string; result?: LoadResult; error?: string }) => {
      if (message.type === "result" && message.result) resolve(message.result);
      if (message.type === "error") reject(new Error(`load generator: ${message.error}`));
    });
    // exited only resolves (with the exit code).
    void child.exited.then((code) => reject(new Error(`load generator exited with code ${code}\n${child.tails()}`)));
  });
  process_.send({ type: "run", spec });
  return {
    result: result.finally(() => void child.stop()), // stop() ends the child and resolves with its code
    stop: (window?: TimeWindow) => {
      if (child.running) process_.send({ type: "stop", window });
    },
  };
}

// ------------------------------------------------------------------ child side

interface AutocannonInstance {
  on(event: "response", listener: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void): void;
  stop(): void;
}
interface AutocannonResult {
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats: Record<string, { count: number }>;
  requests: { total: number };
}
type Autocannon = (options: Record<string, unknown>, done: (error: Error | null, result: AutocannonResult) => void) => AutocannonInstance;

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function summarise(latencies: Float64Array): LatencySummary {
  const sorted = latencies.slice().sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  const round = (v: number) => Math.round(v * 1000) / 1000;
  return {
    p50: round(percentile(sorted, 50)),
    p90: round(percentile(sorted, 90)),
    p99: round(percentile(sorted, 99)),
    p999: round(percentile(sorted, 99.9)),
    max: round(sorted[sorted.length - 1] ?? NaN),
    mean: round(sum / Math.max(1, sorted.length)),
  };
}

function autocannonOptions(spec: LoadSpec, durationS: number): Record<string, unknown> {
  let n = 0;
  const unique = spec.uniqueBody;
  const requests = spec.requests.map((r) => ({
    method: r.method,
    path: r.path,
    body: r.body,
    ...(unique && r.body !== undefined
      ? {
          setupRequest: (request: Record<string, unknown>) => ({
            ...request,
            body: r.body!.replace(unique.placeholder, String(unique.start + n++ * unique.step)),
          }),
        }
      : {}),
  }));
  return { url: spec.url, connections: spec.connections, duration: durationS, headers: spec.headers, requests, pipelining: 1 };
}

interface StopSignal {
  stop?: () => void;
  stopped: boolean;
  window?: TimeWindow;
}

async function runChild(autocannon: Autocannon, spec: LoadSpec, stopSignal: StopSignal): Promise<LoadResult> {
  if (spec.warmupS > 0) {
    await new Promise<void>((resolve, reject) =>
      autocannon(autocannonOptions(spec, spec.warmupS), (error) => (error ? reject(error) : resolve())),
    );
  }
  let latencies = new Float64Array(1 << 16);
  let completedAt = new Float64Array(1 << 16);
  let count = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const result = await new Promise<AutocannonResult>((resolve, reject) => {
    const instance = autocannon(autocannonOptions(spec, spec.durationS), (error, r) => (error ? reject(error) : resolve(r)));
    instance.on("response", (_client, _status, _bytes, responseTime) => {
      if (count === latencies.length) {
        latencies = grow(latencies);
        completedAt = grow(completedAt);
      }
      completedAt[count] = epochMs();
      latencies[count++] = responseTime;
    });
    stopSignal.stop = () => instance.stop();
    if (stopSignal.stopped) instance.stop();
  });
  const wallS = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const durationS = result.duration > 0 ? result.duration : wallS;
  const statusCodes: Record<string, number> = {};
  for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = stats.count;
  return {
    responses: count,
    durationS,
    rps: Math.round(count / durationS),
    latencyMs: summarise(latencies.subarray(0, count)),
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes,
    clientCpuPercent: Math.round(((cpu.user + cpu.system) / 1e6 / wallS) * 1000) / 10,
    clientCpuSecondsTotal: cpuSecondsSoFar(),
    ...(stopSignal.window
      ? { window: windowSummary(latencies.subarray(0, count), completedAt.subarray(0, count), stopSignal.window) }
      : {}),
  };
}

function cpuSecondsSoFar(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
}

function grow(array: Float64Array): Float64Array {
  const grown = new Float64Array(array.length * 2);
  grown.set(array);
  return grown;
}

function windowSummary(latencies: Float64Array, completedAt: Float64Array, window: TimeWindow): NonNullable<LoadResult["window"]> {
  const inside: number[] = [];
  for (let i = 0; i < latencies.length; i++)
    if (completedAt[i] >= window.startMs && completedAt[i] <= window.endMs) inside.push(latencies[i]);
  const durationS = (window.endMs - window.startMs) / 1000;
  return {
    responses: inside.length,
    durationS,
    rps: Math.round(inside.length / durationS),
    latencyMs: summarise(Float64Array.from(inside)),
  };
}

if (process.argv[1] === THIS_FILE && process.send) {
  const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon;
  const stopSignal: StopSignal = { stopped: false };
  process.on("message", (message: { type: string; spec?: LoadSpec; window?: TimeWindow }) => {
    if (message.type === "stop") {
      stopSignal.stopped = true;
      stopSignal.window = message.window;
      stopSignal.stop?.();
      return;
    }
    if (message.type !== "run" || !message.spec) return;
    runChild(autocannon, message.spec, stopSignal)
      .then((result) => process.send!({ type: "result", result }, () => process.exit(0)))
      .catch((error: unknown) => process.send!({ type: "error", error: (error as Error).stack ?? String(error) }, () => process.exit(1)));
  });
}
