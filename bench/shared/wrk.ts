/**
 * The load generator: wrk (Debian package `wrk`, a C program; one event loop
 * per thread, a pre-formatted request, no per-request scripting). `ensureWrk`
 * finds it, or installs it with apt-get when running as root. `runWrk` runs
 * one measurement: a Lua script sets the method, headers and body once, and
 * its `done` hook prints the exact counts, latency percentiles and wrk's own
 * `/proc/self/stat` (its CPU time, every thread) on one line that
 * `parseWrkOutput` reads beside wrk's usual report.
 */
import { spawn, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { clockTicksPerSecond, cpuSecondsOf, parseProcStat } from "./proc-stat.js";
import type { LatencySummary } from "./stats.js";
import { BenchChild } from "./child.js";

export interface WrkRequest {
  readonly method: string;
  readonly path: string;
  /** Sent as they are (wrk adds Host and, with a body, Content-Length). */
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

export interface WrkSpec {
  /** `http://127.0.0.1:<port>` */
  readonly baseUrl: string;
  readonly request: WrkRequest;
  readonly threads: number;
  readonly connections: number;
  readonly durationS: number;
  /** wrk's per-request timeout. */
  readonly timeoutS: number;
  /** `taskset -c` CPU list for wrk, or null to leave it unpinned. */
  readonly cpus: string | null;
  /** Directory for the generated Lua script. */
  readonly scratchDir: string;
}

export interface WrkResult {
  /** Responses completed in the run. */
  readonly requests: number;
  /** Length of the run as wrk measured it. */
  readonly durationS: number;
  readonly rps: number;
  readonly bytesRead: number;
  /** Responses with a status outside 2xx and 3xx. */
  readonly non2xx: number;
  readonly socketErrors: { readonly connect: number; readonly read: number; readonly write: number; readonly timeout: number };
  /** Milliseconds (NaN where the output had no figure). */
  readonly latencyMs: LatencySummary;
  /** wrk's own user + system CPU seconds over its whole run (NaN without the done line). */
  readonly wrkCpuSeconds: number;
}

// ------------------------------------------------------------------ install

export interface WrkBinary {
  readonly path: string;
  readonly version: string;
}

function which(command: string): string | null {
  const found = spawnSync("sh", ["-c", `command -v ${command}`], { encoding: "utf8" });
  return found.status === 0 && found.stdout.trim() ? found.stdout.trim() : null;
}

export const WRK_INSTALL_HINT =
  "wrk is not installed: install the Debian package (`sudo apt-get install -y wrk`), or run the bench as root and it installs it itself";

/** The wrk binary; installs the Debian package when it is missing and this process is root, else throws how to install it. */
export function ensureWrk(log: (line: string) => void): WrkBinary {
  let path = which("wrk");
  if (!path) {
    if (process.getuid?.() !== 0) throw new Error(WRK_INSTALL_HINT);
    log("wrk is missing: apt-get install -y wrk");
    let install = spawnSync("apt-get", ["install", "-y", "wrk"], { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
    if (install.status !== 0) {
      log("apt-get install failed; apt-get update, then again");
      spawnSync("apt-get", ["update"], { stdio: ["ignore", "ignore", "pipe"] });
      install = spawnSync("apt-get", ["install", "-y", "wrk"], { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
    }
    path = which("wrk");
    if (!path) throw new Error(`apt-get install -y wrk failed (exit ${install.status}): ${install.stderr?.slice(-400) ?? ""}`);
  }
  // `wrk --version` prints its version and usage, and exits 1.
  const version = spawnSync(path, ["--version"], { encoding: "utf8" });
  const first = `${version.stdout ?? ""}${version.stderr ?? ""}`.split("\n")[0].trim();
  return { path, version: first.replace(/\s*Copyright.*$/, "") || "wrk (version unknown)" };
}

/** Throws unless `taskset` (util-linux) is there: pinning needs it. */
export function ensureTaskset(): void {
  if (!which("taskset")) throw new Error("taskset (Debian package util-linux) is missing: install it, or run with --no-pin");
}

// ------------------------------------------------------------------ script

/** A Lua string literal for any text (bytes other than printable ASCII escaped as \ddd). */
export function luaString(text: string): string {
  let out = '"';
  for (const byte of Buffer.from(text, "utf8")) {
    if (byte === 0x22 || byte === 0x5c) out += `\\${String.fromCharCode(byte)}`;
    else if (byte >= 0x20 && byte < 0x7f) out += String.fromCharCode(byte);
    else out += `\\${String(byte).padStart(3, "0")}`;
  }
  return `${out}"`;
}

/** The marker of the line the script's `done` hook prints. */
export const DONE_MARKER = "bench-wrk-done";

/** The Lua script of one request: method, headers and body set once (wrk pre-formats the request), and the done hook. */
export function wrkScript(request: WrkRequest): string {
  const lines = [`wrk.method = ${luaString(request.method)}`];
  if (request.body !== undefined) lines.push(`wrk.body = ${luaString(request.body)}`);
  for (const [name, value] of Object.entries(request.headers)) lines.push(`wrk.headers[${luaString(name)}] = ${luaString(value)}`);
  lines.push(
    "function done(summary, latency, requests)",
    '  local f = io.open("/proc/self/stat", "r")',
    '  local stat = ""',
    '  if f then stat = f:read("*l") or ""; f:close() end',
    "  local e = summary.errors",
    `  io.write(string.format("${DONE_MARKER} requests=%.0f duration_us=%.0f bytes=%.0f connect=%.0f read=%.0f write=%.0f status=%.0f timeout=%.0f ` +
      `mean_us=%.1f max_us=%.0f p50_us=%.0f p90_us=%.0f p99_us=%.0f p999_us=%.0f stat=%s\\n",`,
    "    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,",
    "    latency.mean, latency.max, latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9), stat))",
    "end",
  );
  return `${lines.join("\n")}\n`;
}

// ------------------------------------------------------------------ output

const TIME_UNITS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const BYTE_UNITS: Record<string, number> = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3, TB: 1024 ** 4 };

/** wrk's time figure (`501.23us`, `1.52ms`, `2.00s`, `1.00m`) in milliseconds. */
export function parseWrkTime(text: string): number {
  const match = /^([0-9.]+)(us|ms|s|m|h)$/.exec(text.trim());
  if (!match) throw new Error(`not a wrk time: '${text}'`);
  return Number(match[1]) * TIME_UNITS[match[2]];
}

function parseWrkBytes(text: string): number {
  const match = /^([0-9.]+)(B|KB|MB|GB|TB)$/.exec(text.trim());
  if (!match) throw new Error(`not a wrk byte count: '${text}'`);
  return Number(match[1]) * BYTE_UNITS[match[2]];
}

/**
 * wrk's stdout as figures. The done hook's line, when present, gives the exact
 * counts, percentiles and wrk's CPU; wrk's own report is read for the rest and
 * as the fallback (its requests line, Non-2xx, socket errors, latency
 * distribution). Throws when neither says how many requests completed.
 */
export function parseWrkOutput(stdout: string, ticksPerSecond = clockTicksPerSecond()): WrkResult {
  const summary = /^\s*(\d+) requests in ([0-9.]+(?:us|ms|s|m|h)), ([0-9.]+(?:B|KB|MB|GB|TB)) read/m.exec(stdout);
  const non2xx = /^\s*Non-2xx or 3xx responses: (\d+)/m.exec(stdout);
  const socket = /^\s*Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/m.exec(stdout);
  const distribution: Record<string, number> = {};
  for (const m of stdout.matchAll(/^\s+(50|75|90|99)(?:\.0+)?%\s+([0-9.]+(?:us|ms|s|m|h))\s*$/gm)) distribution[m[1]] = parseWrkTime(m[2]);
  const maxLine = /^\s+Latency\s+([0-9.]+(?:us|ms|s|m|h))\s+[0-9.]+(?:us|ms|s|m|h)\s+([0-9.]+(?:us|ms|s|m|h))/m.exec(stdout);

  const doneLine = stdout.split("\n").find((line) => line.startsWith(`${DONE_MARKER} `));
  if (doneLine) {
    const statAt = doneLine.indexOf(" stat=");
    const fields = new Map<string, number>();
    for (const pair of doneLine
      .slice(DONE_MARKER.length + 1, statAt < 0 ? undefined : statAt)
      .trim()
      .split(/\s+/)) {
      const [name, value] = pair.split("=");
      fields.set(name, Number(value));
    }
    const get = (name: string): number => {
      const v = fields.get(name);
      if (v === undefined || !Number.isFinite(v))
        throw new Error(`wrk done line without a number for ${name}: '${doneLine.slice(0, 200)}'`);
      return v;
    };
    const statText = statAt < 0 ? "" : doneLine.slice(statAt + 6).trim();
    let wrkCpuSeconds = NaN;
    if (statText) wrkCpuSeconds = cpuSecondsOf(parseProcStat(statText), ticksPerSecond);
    const requests = get("requests");
    const durationS = get("duration_us") / 1e6;
    return {
      requests,
      durationS,
      rps: durationS > 0 ? requests / durationS : NaN,
      bytesRead: get("bytes"),
      non2xx: get("status"),
      socketErrors: { connect: get("connect"), read: get("read"), write: get("write"), timeout: get("timeout") },
      latencyMs: {
        p50: get("p50_us") / 1000,
        p90: get("p90_us") / 1000,
        p99: get("p99_us") / 1000,
        p999: get("p999_us") / 1000,
        max: get("max_us") / 1000,
        mean: get("mean_us") / 1000,
      },
      wrkCpuSeconds,
    };
  }

  if (!summary) throw new Error(`wrk output without a requests line:\n${stdout.slice(0, 1000)}`);
  const requests = Number(summary[1]);
  const durationS = parseWrkTime(summary[2]) / 1000;
  return {
    requests,
    durationS,
    rps: durationS > 0 ? requests / durationS : NaN,
    bytesRead: parseWrkBytes(summary[3]),
    non2xx: non2xx ? Number(non2xx[1]) : 0,
    socketErrors: socket
      ? { connect: Number(socket[1]), read: Number(socket[2]), write: Number(socket[3]), timeout: Number(socket[4]) }
      : { connect: 0, read: 0, write: 0, timeout: 0 },
    latencyMs: {
      p50: distribution["50"] ?? NaN,
      p90: distribution["90"] ?? NaN,
      p99: distribution["99"] ?? NaN,
      p999: NaN,
      max: maxLine ? parseWrkTime(maxLine[2]) : NaN,
      mean: maxLine ? parseWrkTime(maxLine[1]) : NaN,
    },
    wrkCpuSeconds: NaN,
  };
}

// ------------------------------------------------------------------ run

let scriptCount = 0;

/** One wrk run; resolves with its figures, rejects on a non-zero exit or when it overruns its duration by 30 s (then it is killed). */
export function runWrk(wrk: WrkBinary, spec: WrkSpec): Promise<WrkResult> {
  return startWrk(wrk, spec).result;
}

export interface RunningWrk {
  readonly result: Promise<WrkResult>;
  /** Ends the run now: wrk stops on SIGINT and reports what it measured until then (its `done` hook included). */
  stop(): void;
}

/** A wrk run that can be ended before its duration (a run that lasts exactly as long as something else). */
export function startWrk(wrk: WrkBinary, spec: WrkSpec): RunningWrk {
  const script = join(spec.scratchDir, `wrk-${process.pid}-${++scriptCount}.lua`);
  writeFileSync(script, wrkScript(spec.request));
  const args = [
    `-t${spec.threads}`,
    `-c${spec.connections}`,
    `-d${spec.durationS}s`,
    `--timeout`,
    `${spec.timeoutS}s`,
    "--latency",
    "-s",
    script,
    spec.baseUrl + spec.request.path,
  ];
  const [command, argv] = spec.cpus === null ? [wrk.path, args] : ["taskset", ["-c", spec.cpus, wrk.path, ...args]];
  let stop: () => void = () => undefined;
  const result = new Promise<WrkResult>((resolve, reject) => {
    const child = spawn(command, argv, { stdio: ["ignore", "pipe", "pipe"] });
    stop = () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGINT");
    };
    new BenchChild("wrk", child); // registered, so an interrupted run stops it too
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr = (stderr + chunk).slice(-4000)));
    const killer = setTimeout(() => child.kill("SIGKILL"), (spec.durationS + 30) * 1000);
    child.on("error", (error) => {
      clearTimeout(killer);
      reject(error);
    });
    child.on("exit", (code, signal) => {
      clearTimeout(killer);
      if (code !== 0) {
        reject(new Error(`wrk exited with ${code ?? signal}: ${command} ${argv.join(" ")}\n${stderr}\n${stdout.slice(-1000)}`));
        return;
      }
      try {
        resolve(parseWrkOutput(stdout));
      } catch (error) {
        reject(error);
      }
    });
  });
  return { result, stop: () => stop() };
}
