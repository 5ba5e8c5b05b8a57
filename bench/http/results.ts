/**
 * The results of `npm run bench` (the shape of bench/results/<timestamp>.json)
 * and the pure steps from measurements to verdicts: per target and server the
 * median of the rounds with their spread, the ratios of server CPU per request
 * (gateway / bare uWS, gateway / floor, paired round by round), the goals
 * judged, and what limits a missed goal as far as the figures tell.
 */
import type { Goal, ServerKind } from "./plan.js";
import { pairedRatio, summarise, type LatencySummary, type Spread } from "../shared/stats.js";

export interface Machine {
  readonly cpuModel: string;
  readonly cores: number;
  readonly memoryBytes: number;
  readonly node: string;
  /** `uname -r` */
  readonly kernel: string;
  readonly arch: string;
  readonly loadAverageStart: readonly number[];
  loadAverageEnd: readonly number[];
}

export interface Settings {
  readonly wrk: {
    readonly version: string;
    readonly threads: number;
    readonly connections: number;
    readonly timeoutS: number;
    readonly cpus: string | null;
  };
  readonly durationS: number;
  readonly warmupS: number;
  readonly rounds: number;
  /** `taskset -c` list every server runs on (null: unpinned). */
  readonly serverCpus: string | null;
  readonly dataDir: string;
  readonly keepAlive: string;
}

export interface ServerRun {
  readonly id: string;
  readonly label: string;
  readonly kind: ServerKind;
  readonly threads: number;
  readonly env: Readonly<Record<string, string>>;
}

export interface TargetRun {
  readonly name: string;
  readonly label: string;
  readonly method: string;
  /** With placeholders resolved. */
  readonly path: string;
  /** Besides Authorization. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | null;
  /** Of the reference gateway's response. */
  readonly responseBytes: number;
  readonly responseHeaders: readonly string[];
}

/** One wrk run of one target against one server. */
export interface Measurement {
  readonly target: string;
  readonly server: string;
  /** 0-based. */
  readonly round: number;
  readonly requests: number;
  /** wrk's run length. */
  readonly durationS: number;
  /** Wall time between the CPU readings (wrk start to exit). */
  readonly wallS: number;
  readonly rps: number;
  /** utime + stime of the whole server process (every thread) over the run. */
  readonly serverCpuS: number;
  readonly cpuUsPerRequest: number;
  /** serverCpuS / wallS, % of one core. */
  readonly serverCpuPercent: number;
  readonly wrkCpuS: number;
  readonly wrkCpuPercent: number;
  /** Every other process on the machine meanwhile (machine busy − server − wrk), % of one core. */
  readonly otherCpuPercent: number;
  readonly latencyMs: LatencySummary;
  readonly non2xx: number;
  readonly socketErrors: number;
}

/** One target on one server over all rounds. */
export interface Cell {
  readonly target: string;
  readonly server: string;
  readonly rounds: number;
  readonly rps: Spread;
  readonly cpuUsPerRequest: Spread;
  readonly serverCpuPercent: Spread;
  readonly wrkCpuPercent: Spread;
  readonly otherCpuPercent: Spread;
  /** Medians of the rounds. */
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly requests: number;
  readonly non2xx: number;
  readonly socketErrors: number;
}

/** Server CPU per request of `server` / `against` on one target, paired round by round. */
export interface Ratio {
  readonly target: string;
  readonly server: string;
  readonly against: string;
  readonly cpuPerRequest: Spread;
}

export interface Verdict {
  readonly goal: Goal;
  readonly ratio: Spread | null;
  readonly status: "met" | "missed" | "not measured" | "invalid";
  /** For a missed or invalid goal: what the figures say limits it. */
  readonly limit: string;
}

export interface HttpCpuResults {
  readonly schema: "http-cpu/1";
  readonly mode: "quick" | "full";
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly wallSeconds: number;
  readonly machine: Machine;
  readonly settings: Settings;
  readonly servers: readonly ServerRun[];
  readonly targets: readonly TargetRun[];
  readonly measurements: readonly Measurement[];
  readonly cells: readonly Cell[];
  readonly ratios: readonly Ratio[];
  readonly verdicts: readonly Verdict[];
  readonly notes: readonly string[];
}

/** Values of one target × server, indexed by round (NaN where a round is missing). */
function byRound(measurements: readonly Measurement[], target: string, server: string, value: (m: Measurement) => number): number[] {
  const out: number[] = [];
  for (const m of measurements) if (m.target === target && m.server === server) out[m.round] = value(m);
  for (let i = 0; i < out.length; i++) if (out[i] === undefined) out[i] = NaN;
  return out;
}

/** Every target × server that has measurements, in the order given. */
export function summariseCells(measurements: readonly Measurement[], targets: readonly string[], servers: readonly string[]): Cell[] {
  const cells: Cell[] = [];
  for (const target of targets) {
    for (const server of servers) {
      const runs = measurements.filter((m) => m.target === target && m.server === server);
      if (runs.length === 0) continue;
      const of = (f: (m: Measurement) => number) => summarise(runs.map(f));
      cells.push({
        target,
        server,
        rounds: runs.length,
        rps: of((m) => m.rps),
        cpuUsPerRequest: of((m) => m.cpuUsPerRequest),
        serverCpuPercent: of((m) => m.serverCpuPercent),
        wrkCpuPercent: of((m) => m.wrkCpuPercent),
        otherCpuPercent: of((m) => m.otherCpuPercent),
        p50Ms: of((m) => m.latencyMs.p50).median,
        p99Ms: of((m) => m.latencyMs.p99).median,
        requests: runs.reduce((n, m) => n + m.requests, 0),
        non2xx: runs.reduce((n, m) => n + m.non2xx, 0),
        socketErrors: runs.reduce((n, m) => n + m.socketErrors, 0),
      });
    }
  }
  return cells;
}

/** Each of `servers` against each of `against`, on every target both measured. */
export function cpuRatios(
  measurements: readonly Measurement[],
  targets: readonly string[],
  servers: readonly string[],
  against: readonly string[],
): Ratio[] {
  const out: Ratio[] = [];
  for (const target of targets) {
    for (const server of servers) {
      const mine = byRound(measurements, target, server, (m) => m.cpuUsPerRequest);
      if (mine.length === 0) continue;
      for (const other of against) {
        const theirs = byRound(measurements, target, other, (m) => m.cpuUsPerRequest);
        if (theirs.length === 0) continue;
        out.push({ target, server, against: other, cpuPerRequest: pairedRatio(mine, theirs) });
      }
    }
  }
  return out;
}

export interface LimitContext {
  readonly cells: readonly Cell[];
  /** CPUs each server may run on (the pinned set's size, or the machine's cores). */
  readonly serverCores: number;
  /** CPUs wrk may run on (threads it can keep busy). */
  readonly wrkCores: number;
  readonly labelOf: (server: string) => string;
  /** Serving threads of a server. */
  readonly threadsOf: (server: string) => number;
}

const f1 = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : "n/a");
const f2 = (v: number) => (Number.isFinite(v) ? v.toFixed(2) : "n/a");

/** What the figures say limits a goal's ratio: the CPU gap, and whether the server, wrk or other processes bounded the run. */
export function limitNote(goal: Goal, ratio: Spread | null, context: LimitContext): string {
  const cell = (server: string) => context.cells.find((c) => c.target === goal.target && c.server === server);
  const mine = cell(goal.server);
  const theirs = cell(goal.against);
  if (!mine || !theirs || !ratio) return "not measured in this run";
  const parts: string[] = [];
  const gap = mine.cpuUsPerRequest.median - theirs.cpuUsPerRequest.median;
  const allowed = theirs.cpuUsPerRequest.median * goal.maxRatio;
  parts.push(
    `${context.labelOf(goal.server)} spends ${f1(mine.cpuUsPerRequest.median)} µs of server CPU per request against ${f1(theirs.cpuUsPerRequest.median)} µs for ${context.labelOf(goal.against)} ` +
      `(+${f1(gap)} µs; the goal allows ${f1(allowed)} µs, so ${f1(mine.cpuUsPerRequest.median - allowed)} µs per request must go).`,
  );
  const capacity = (c: Cell) => 100 * Math.min(context.threadsOf(c.server), context.serverCores);
  const saturated = (c: Cell) => c.serverCpuPercent.median >= 0.9 * capacity(c);
  const wrkBound = (c: Cell) => c.wrkCpuPercent.median >= 90 * context.wrkCores;
  for (const c of [mine, theirs]) {
    if (wrkBound(c))
      parts.push(
        `wrk used ${f1(c.wrkCpuPercent.median)} % of its ${context.wrkCores} core(s) against ${context.labelOf(c.server)}: the load generator bounded that run.`,
      );
    else if (!saturated(c)) {
      const why =
        c.otherCpuPercent.median >= 25
          ? `other processes took ${f1(c.otherCpuPercent.median)} % of a core meanwhile, on the same cores`
          : "the load did not keep it busy";
      parts.push(
        `${context.labelOf(c.server)} was not saturated (${f1(c.serverCpuPercent.median)} % of one core, of ${capacity(c)} % it could use: ${why}), ` +
          "so its CPU per request includes waking up for fewer requests at a time (and, on shared cores, cache and scheduler interference).",
      );
    }
  }
  const others = Math.max(mine.otherCpuPercent.median, theirs.otherCpuPercent.median);
  if (others >= 10)
    parts.push(
      `Other processes used up to ${f1(others)} % of a core during these runs: the machine was shared, and these figures are not a clean measurement.`,
    );
  if (ratio.n > 1 && ratio.spreadPercent > 10)
    parts.push(
      `The paired rounds' ratios spread over ${f2(ratio.min)}-${f2(ratio.max)}x: more rounds or a quieter machine would tighten it.`,
    );
  return parts.join(" ");
}

export function judgeGoals(goals: readonly Goal[], ratios: readonly Ratio[], context: LimitContext): Verdict[] {
  return goals.map((goal) => {
    const ratio =
      ratios.find((r) => r.target === goal.target && r.server === goal.server && r.against === goal.against)?.cpuPerRequest ?? null;
    if (ratio === null || ratio.n === 0) return { goal, ratio, status: "not measured", limit: "" };
    const cells = context.cells.filter((c) => c.target === goal.target && (c.server === goal.server || c.server === goal.against));
    const failures = cells.reduce((n, c) => n + c.non2xx + c.socketErrors, 0);
    if (failures > 0)
      return {
        goal,
        ratio,
        status: "invalid",
        limit: `${failures} non-2xx responses or socket errors in these runs: the figures do not measure the intended work.`,
      };
    if (ratio.median <= goal.maxRatio) return { goal, ratio, status: "met", limit: "" };
    return { goal, ratio, status: "missed", limit: limitNote(goal, ratio, context) };
  });
}
