/**
 * The HTTP targets side by side: which requests go to which server, and one
 * measurement per target (same load generator, connections and duration for
 * all), with the CPU of the server, of the load generator and of every other
 * process on the machine meanwhile. The gateway / bare uWS / fastify triples
 * run in interleaved rounds (order rotating), so that background load on a
 * shared machine falls on all three alike.
 */
import { runLoad, type LatencySummary, type LoadRequest, type LoadResult, type LoadSpec } from "../load.js";
import { readCpuSeconds, readMachineBusySeconds } from "../rss.js";
import type { HttpTargetResult } from "../summary.js";

export type ServerName = HttpTargetResult["server"];

export interface TargetDef {
  readonly id: string;
  readonly server: ServerName;
  readonly label: string;
  readonly requests: LoadRequest[];
  readonly uniqueBody?: LoadSpec["uniqueBody"];
}

const FILTERED_BODY = '{"filters":{"chainIds":[1,8453],"minimumTotalValuePooledUsd":50000}}';
/** Distinct thresholds (50000 + n·1e-6) so every request misses the per-snapshot query cache. */
export const UNCACHED_BODY = '{"filters":{"chainIds":[1,8453],"minimumTotalValuePooledUsd":__N__}}';
export const UNIQUE = { placeholder: "__N__", start: 50000, step: 0.000001 };

export function httpTargets(poolPaths: string[]): TargetDef[] {
  const pool = poolPaths.map((path): LoadRequest => ({ method: "GET", path }));
  const tokens = (body: string): LoadRequest[] => [{ method: "POST", path: "/v1/tokens", body }];
  return [
    { id: "gateway-pool", server: "gateway", label: "gateway: pool route", requests: pool },
    { id: "bare-uws-pool", server: "bare-uws", label: "bare uWS: pool bytes", requests: pool },
    { id: "fastify-pool", server: "fastify", label: "fastify: pool bytes", requests: pool },
    { id: "gateway-tokens-default", server: "gateway", label: "gateway: token list {}", requests: tokens("{}") },
    { id: "bare-uws-tokens-default", server: "bare-uws", label: "bare uWS: token page bytes", requests: tokens("{}") },
    { id: "fastify-tokens-default", server: "fastify", label: "fastify: token page bytes", requests: tokens("{}") },
    { id: "gateway-tokens-limit10", server: "gateway", label: "gateway: token list limit 10", requests: tokens('{"config":{"limit":10}}') },
    { id: "gateway-tokens-limit500", server: "gateway", label: "gateway: token list limit 500", requests: tokens('{"config":{"limit":500}}') },
    { id: "gateway-tokens-filtered", server: "gateway", label: "gateway: filtered (cached)", requests: tokens(FILTERED_BODY) },
    { id: "gateway-tokens-uncached", server: "gateway", label: "gateway: filtered, uncached", requests: tokens(UNCACHED_BODY), uniqueBody: UNIQUE },
  ];
}

/** Targets measured in interleaved rounds; the rest run once each, after them. */
const COMPARED: ReadonlyArray<readonly string[]> = [
  ["gateway-pool", "bare-uws-pool", "fastify-pool"],
  ["gateway-tokens-default", "bare-uws-tokens-default", "fastify-tokens-default"],
];

export interface MatrixOptions {
  readonly servers: Readonly<Record<ServerName, { url: string; pid: number }>>;
  readonly headers: Readonly<Record<string, string>>;
  readonly connections: number;
  readonly durationS: number;
  readonly warmupS: number;
  readonly rounds: number;
  /** Bytes of one response of each target (for the table). */
  readonly responseBytes: Readonly<Record<string, number>>;
  readonly log: (line: string) => void;
}

interface Measurement {
  readonly result: LoadResult;
  readonly wallS: number;
  readonly serverCpuS: number;
  readonly otherCpuS: number;
}

async function measure(t: TargetDef, options: MatrixOptions): Promise<Measurement> {
  const server = options.servers[t.server];
  const json = t.requests[0].method === "POST";
  const spec: LoadSpec = {
    url: server.url,
    headers: json ? { ...options.headers, "content-type": "application/json" } : options.headers,
    requests: t.requests,
    uniqueBody: t.uniqueBody,
    connections: options.connections,
    durationS: options.durationS,
    warmupS: options.warmupS,
  };
  const cpuBefore = readCpuSeconds(server.pid);
  const busyBefore = readMachineBusySeconds();
  const wallBefore = performance.now();
  const result = await runLoad(spec).result;
  const wallS = (performance.now() - wallBefore) / 1000;
  const serverCpuS = readCpuSeconds(server.pid) - cpuBefore;
  const otherCpuS = Math.max(0, readMachineBusySeconds() - busyBefore - serverCpuS - result.clientCpuSecondsTotal);
  return { result, wallS, serverCpuS, otherCpuS };
}

const round = (v: number, digits = 1) => Math.round(v * 10 ** digits) / 10 ** digits;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Several rounds of one target as one row: requests/s over all rounds, latency percentiles as the median of the rounds. */
function combine(t: TargetDef, runs: Measurement[], options: MatrixOptions): HttpTargetResult {
  const sum = (f: (m: Measurement) => number) => runs.reduce((n, m) => n + f(m), 0);
  const responses = sum((m) => m.result.responses);
  const durationS = sum((m) => m.result.durationS);
  const rps = Math.round(responses / durationS);
  const wallS = sum((m) => m.wallS);
  const serverCpuPercent = (sum((m) => m.serverCpuS) / wallS) * 100;
  const latency = (key: keyof LatencySummary) => round(median(runs.map((m) => m.result.latencyMs[key])), 3);
  const first = t.requests[0];
  return {
    id: t.id,
    server: t.server,
    label: t.label,
    request: `${first.method} ${t.requests.length > 1 ? `/v1/pools/8453/<${t.requests.length} addresses>` : first.path}${first.body ? ` ${first.body}` : ""}`,
    connections: options.connections,
    durationS: round(durationS, 2),
    rounds: runs.map((m) => ({ rps: m.result.rps, p50: m.result.latencyMs.p50, p99: m.result.latencyMs.p99 })),
    rps,
    latencyMs: { p50: latency("p50"), p90: latency("p90"), p99: latency("p99"), p999: latency("p999"), max: Math.max(...runs.map((m) => m.result.latencyMs.max)), mean: latency("mean") },
    responses,
    non2xx: sum((m) => m.result.non2xx),
    errors: sum((m) => m.result.errors + m.result.timeouts),
    responseBytes: options.responseBytes[t.id] ?? 0,
    serverCpuPercent: round(serverCpuPercent),
    clientCpuPercent: round(median(runs.map((m) => m.result.clientCpuPercent))),
    otherCpuPercent: round((sum((m) => m.otherCpuS) / wallS) * 100),
    serverCpuUsPerRequest: round((serverCpuPercent / 100 / Math.max(1, rps)) * 1e6, 2),
  };
}

export async function runMatrix(targets: readonly TargetDef[], options: MatrixOptions): Promise<HttpTargetResult[]> {
  const byId = new Map(targets.map((t) => [t.id, t]));
  const runs = new Map<string, Measurement[]>(targets.map((t) => [t.id, []]));
  const report = (t: TargetDef, m: Measurement, suffix: string) => {
    const r = m.result;
    options.log(
      `${t.label.padEnd(30)}${suffix.padEnd(10)} ${String(r.rps).padStart(7)} req/s  p50 ${r.latencyMs.p50} ms  p99 ${r.latencyMs.p99} ms  ` +
        `server CPU ${round((m.serverCpuS / m.wallS) * 100)}%  load-gen CPU ${r.clientCpuPercent}%  others ${round((m.otherCpuS / m.wallS) * 100)}%` +
        `${r.non2xx + r.errors ? `  NON-2XX ${r.non2xx} ERRORS ${r.errors}` : ""}`,
    );
  };
  for (const group of COMPARED) {
    for (let r = 0; r < options.rounds; r++) {
      const order = group.map((_, i) => group[(i + r) % group.length]);
      for (const id of order) {
        const t = byId.get(id);
        if (!t) continue;
        const m = await measure(t, options);
        runs.get(id)!.push(m);
        report(t, m, options.rounds > 1 ? ` round ${r + 1}` : "");
      }
    }
  }
  const compared = new Set(COMPARED.flat());
  for (const t of targets) {
    if (compared.has(t.id)) continue;
    const m = await measure(t, options);
    runs.get(t.id)!.push(m);
    report(t, m, "");
  }
  return targets.map((t) => combine(t, runs.get(t.id)!, options));
}
