/**
 * A REAL Prometheus (Debian's `prometheus`) for tests: started on a free loopback port with a generated
 * configuration (scrape targets, rule files), a temporary storage directory and a 1 s scrape interval, and
 * stopped by its process id (the directory removed). promtool runs the same way. When the binaries are missing the
 * test FAILS with the command to install them (npm test installs them: tools/check-system.mjs); it is never skipped.
 * Also: the metric names a PromQL expression reads, for the tests that hold the shipped rules and dashboard to the
 * metrics the gateway exports.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../../bench/shared/free-port.js";

const PROMETHEUS_BIN = process.env.PROMETHEUS_BIN ?? "prometheus";
const PROMTOOL_BIN = process.env.PROMTOOL_BIN ?? "promtool";
const INSTALL = "apt-get install -y --no-install-recommends prometheus (as root; npm test's system check does it: tools/check-system.mjs)";

/** Runs promtool; throws how to install it when it is missing. */
export function promtool(args: readonly string[]): { status: number; output: string } {
  const run = spawnSync(PROMTOOL_BIN, args, { encoding: "utf8", timeout: 60_000 });
  if (run.error) throw new Error(`promtool could not run (${run.error.message}): ${INSTALL}`);
  return { status: run.status ?? -1, output: `${run.stdout}${run.stderr}` };
}

export interface Prometheus {
  readonly baseUrl: string;
  readonly pid: number;
  /** GET /api/v1/<path> with query parameters; the parsed JSON (status "success" or "error"). */
  api(path: string, params?: Record<string, string>): Promise<{ status: string; data: any; error?: string; errorType?: string }>;
  /** Stops it (SIGTERM, SIGKILL after 10 s) and removes its directory. */
  stop(): Promise<void>;
}

export interface PrometheusOptions {
  /** `host:port` targets of the one scrape job. */
  readonly targets: readonly string[];
  /** The job's name (the `job` label). */
  readonly job: string;
  /** Absolute paths of rule files to load. */
  readonly ruleFiles?: readonly string[];
}

export async function startPrometheus(options: PrometheusOptions): Promise<Prometheus> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "lgw-prometheus-"));
  const config = join(dir, "prometheus.yml");
  // JSON is YAML: the configuration needs no YAML writer.
  writeFileSync(
    config,
    JSON.stringify({
      global: { scrape_interval: "1s", scrape_timeout: "1s", evaluation_interval: "1s" },
      rule_files: options.ruleFiles ?? [],
      scrape_configs: [{ job_name: options.job, metrics_path: "/metrics", static_configs: [{ targets: options.targets }] }],
    }),
  );
  let output = "";
  let child: ChildProcess;
  try {
    child = spawn(
      PROMETHEUS_BIN,
      [
        `--config.file=${config}`,
        `--storage.tsdb.path=${join(dir, "data")}`,
        `--web.listen-address=127.0.0.1:${port}`,
        "--storage.tsdb.retention.time=1h",
        "--log.level=warn",
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const collect = (chunk: string) => (output = (output + chunk).slice(-8000));
  child.stdout!.setEncoding("utf8").on("data", collect);
  child.stderr!.setEncoding("utf8").on("data", collect);
  let spawnError: Error | null = null;
  child.on("error", (error) => (spawnError = error));
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  const baseUrl = `http://127.0.0.1:${port}`;

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(killer);
    }
    rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 20_000;
  for (;;) {
    if (spawnError !== null) {
      await stop();
      throw new Error(`prometheus could not start (${(spawnError as Error).message}): ${INSTALL}`);
    }
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`prometheus exited at start (code ${child.exitCode}):\n${output}`);
    }
    const ready = await fetch(`${baseUrl}/-/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`prometheus was not ready within 20 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }

  return {
    baseUrl,
    pid: child.pid!,
    api: async (path, params = {}) => {
      const res = await fetch(`${baseUrl}/api/v1/${path}?${new URLSearchParams(params)}`);
      return (await res.json()) as { status: string; data: any; error?: string; errorType?: string };
    },
    stop,
  };
}

const PROMQL_KEYWORDS = new Set(["and", "or", "unless", "by", "without", "on", "ignoring", "group_left", "group_right", "offset", "bool"]);

/**
 * The metric names a PromQL expression selects (enough of PromQL for the shipped rules and dashboard): strings,
 * label matchers, ranges, grouping lists, numbers and Grafana variables are removed; what remains that is neither a
 * function or aggregation call nor a keyword is a metric name.
 */
export function promqlMetricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, "")
    .replace(/\$\{?\w+\}?/g, "")
    .replace(/\{[^}]*\}/g, "")
    .replace(/\[[^\]]*\]/g, "")
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, "")
    .replace(/(?<![A-Za-z0-9_:])\d+(?:\.\d+)?(?:[eE][+-]?\d+)?(?:ms|[smhdwy])?/g, "");
  const names = new Set<string>();
  for (const match of bare.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*/g)) {
    const after = bare.slice(match.index! + match[0].length).trimStart();
    if (after.startsWith("(") || PROMQL_KEYWORDS.has(match[0])) continue;
    names.add(match[0]);
  }
  return [...names];
}
