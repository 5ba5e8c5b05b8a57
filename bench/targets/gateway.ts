/**
 * Launches the real built gateway (`node dist/src/cli/main.js`) as in
 * production: auth on with a bench key in a temporary keys file (very high
 * quota), rate limiting on, the default serving-thread count, LOG_LEVEL warn,
 * listening on 127.0.0.1 only. With info logs off, readiness and the served
 * snapshot version are read from GET /ready.
 */
import { ALLOCATOR_TUNABLE } from "../../src/config/allocator.js";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PROJECT_ROOT } from "../../src/config/config.js";
import { startNode, type BenchChild } from "../shared/child.js";
import { freePort } from "../shared/free-port.js";

export const MAIN_JS = join(PROJECT_ROOT, "dist/src/cli/main.js");

/** Settings the bench controls: never inherited from the caller's environment. */
const CONTROLLED_ENV = [
  "PORT",
  "HOST",
  "SNAPSHOT_DIR",
  "API_KEYS_FILE",
  "REBUILD_CRON",
  "LOG_LEVEL",
  "FAILED_AUTH_LIMIT",
  "GATEWAY_THREADS",
  "RATE_LIMIT_DEFAULT",
  "PUBLIC_RATE_LIMIT",
  "MAX_API_KEYS",
  "BUILD_WORKER_MAX_MB",
  "CURSOR_SECRET",
  "SNAPSHOT_MAX_VERSIONS",
  "CURSOR_RETENTION_SECONDS",
  "TOKEN_LOGO_URL_TEMPLATE",
  "HISTORY",
  "HISTORY_DIR",
  "HISTORY_RAW_HOURS",
  "HISTORY_HOUR_DAYS",
];

export interface BenchKey {
  readonly key: string;
  readonly file: string;
  /** Its quota: requests per window. */
  readonly limit: number;
  readonly windowSeconds: number;
}

/** A keys file (in a fresh temporary directory) holding one active key with a quota no run can exhaust. */
export function writeBenchKey(): BenchKey {
  const key = `lgw_bench_${randomBytes(24).toString("base64url")}`;
  const file = join(mkdtempSync(join(tmpdir(), "lgw-bench-keys-")), "keys.json");
  const record = {
    id: "bench",
    name: "benchmark harness",
    sha256: createHash("sha256").update(key, "utf8").digest("hex"),
    status: "active",
    rateLimit: { requests: 1_000_000_000, windowSeconds: 60 },
  };
  writeFileSync(file, JSON.stringify({ keys: [record] }, null, 2), { mode: 0o600 });
  return { key, file, limit: record.rateLimit.requests, windowSeconds: record.rateLimit.windowSeconds };
}

export interface Readiness {
  readonly ready: boolean;
  readonly version: string | null;
  readonly chains: number[];
}

export async function readiness(baseUrl: string): Promise<Readiness | null> {
  let response: Response;
  try {
    response = await fetch(`${baseUrl}/ready`, { signal: AbortSignal.timeout(2000) });
  } catch {
    return null; // not listening yet
  }
  // A refused poll would read as "not yet": every figure timed by polling would silently include the wait.
  if (response.status === 429) throw new Error(`${baseUrl}/ready answered 429: the bench's polling exceeded the gateway's public quota`);
  try {
    return (await response.json()) as Readiness;
  } catch {
    return null;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface RunningGateway {
  readonly child: BenchChild;
  readonly port: number;
  readonly baseUrl: string;
  /** performance.now() at spawn. */
  readonly spawnedAt: number;
  /** Spawn to the first 200 of /ready (the initial load is complete). */
  readonly startToReadyMs: number;
  readonly version: string;
  readonly chains: number[];
}

export interface GatewayOptions {
  readonly snapshotDir: string;
  readonly keysFile: string;
  readonly timeoutMs: number;
  readonly pollMs?: number;
  /** GATEWAY_THREADS; the gateway's default (available cores) when absent. */
  readonly threads?: number;
  /** Extra environment, applied last (e.g. a quota store variant). */
  readonly env?: Readonly<Record<string, string>>;
  /** `taskset -c` CPU list, or null/absent for none. */
  readonly cpus?: string | null;
  /** Name in error messages. */
  readonly name?: string;
}

export async function startGateway(options: GatewayOptions): Promise<RunningGateway> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of CONTROLLED_ENV) delete env[name];
  // As `npm start` runs it (src/config/allocator.ts).
  Object.assign(env, {
    PORT: String(port),
    HOST: "127.0.0.1",
    LOG_LEVEL: "warn",
    // The harness polls /ready every 20 ms while it times a build: the per-address quota of requests
    // without a key (default 1200/60) must not throttle it (it did: the build rows then included the wait).
    PUBLIC_RATE_LIMIT: "999999999/60",
    SNAPSHOT_DIR: options.snapshotDir,
    API_KEYS_FILE: options.keysFile,
    GLIBC_TUNABLES: ALLOCATOR_TUNABLE,
  });
  // Each gateway its own history store, unless the caller names one or turns history off (bench:history does).
  if (options.env?.HISTORY_DIR === undefined && options.env?.HISTORY !== "off")
    env.HISTORY_DIR = mkdtempSync(join(tmpdir(), "lgw-bench-history-"));
  if (options.threads !== undefined) env.GATEWAY_THREADS = String(options.threads);
  Object.assign(env, options.env ?? {});
  const spawnedAt = performance.now();
  const child = startNode(options.name ?? "gateway", [MAIN_JS], { cwd: PROJECT_ROOT, env }, options.cpus ?? null);
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = spawnedAt + options.timeoutMs;
  for (;;) {
    if (!child.running) throw new Error(`the gateway exited during start-up\n${child.tails()}`);
    const state = await readiness(baseUrl);
    if (state?.ready && state.version) {
      return {
        child,
        port,
        baseUrl,
        spawnedAt,
        startToReadyMs: performance.now() - spawnedAt,
        version: state.version,
        chains: state.chains,
      };
    }
    if (performance.now() > deadline) {
      await child.stop();
      throw new Error(`the gateway was not ready within ${options.timeoutMs} ms\n${child.tails()}`);
    }
    await sleep(options.pollMs ?? 20);
  }
}

/** Polls /ready until the served version is `version`; resolves with performance.now() of the observation. */
export async function waitForVersion(
  baseUrl: string,
  version: string,
  timeoutMs: number,
  pollMs = 20,
): Promise<{ version: string; at: number }> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const state = await readiness(baseUrl);
    if (state?.version === version) return { version, at: performance.now() };
    if (performance.now() > deadline)
      throw new Error(`version ${version} not served within ${timeoutMs} ms (still ${state?.version ?? "unknown"})`);
    await sleep(pollMs);
  }
}

/** The gateway's own count of serving threads (`gateway_serving_threads` in /metrics). */
export async function servingThreads(baseUrl: string): Promise<number | null> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const match = /^gateway_serving_threads(?:\{[^}]*\})? (\d+)/m.exec(text);
  return match ? Number(match[1]) : null;
}

/** Build-duration histogram sums and counts by phase, from /metrics. */
export async function buildDurations(baseUrl: string): Promise<Record<string, { sumSeconds: number; count: number }>> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const out: Record<string, { sumSeconds: number; count: number }> = {};
  for (const match of text.matchAll(/^gateway_snapshot_build_duration_seconds_(sum|count)\{phase="([^"]+)"\} ([0-9.eE+-]+)/gm)) {
    const entry = (out[match[2]] ??= { sumSeconds: 0, count: 0 });
    if (match[1] === "sum") entry.sumSeconds = Number(match[3]);
    else entry.count = Number(match[3]);
  }
  return out;
}
