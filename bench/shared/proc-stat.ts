/**
 * CPU time of a process from `/proc/<pid>/stat` (Linux): user + system time of
 * the whole process, every thread included (threads that have exited too), in
 * clock ticks. `parseProcStat` is the pure parser; `readProcessCpu` reads it.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

export interface ProcStat {
  readonly pid: number;
  /** The command name, without the parentheses (it may contain spaces and parentheses itself). */
  readonly comm: string;
  readonly state: string;
  /** Field 14: user-mode time, clock ticks. */
  readonly utimeTicks: number;
  /** Field 15: kernel-mode time, clock ticks. */
  readonly stimeTicks: number;
  /** Fields 16-17: user and kernel time of children the process has waited for, clock ticks. */
  readonly cutimeTicks: number;
  readonly cstimeTicks: number;
  /** Field 20. */
  readonly numThreads: number;
}

/**
 * Parses one `/proc/<pid>/stat` line (proc(5)). The command name is the text
 * between the first "(" and the last ")": it may contain spaces and ")".
 */
export function parseProcStat(text: string): ProcStat {
  const open = text.indexOf("(");
  const close = text.lastIndexOf(")");
  if (open < 0 || close < open) throw new Error(`not a /proc/<pid>/stat line: '${text.slice(0, 80)}'`);
  const pid = Number(text.slice(0, open).trim());
  // Fields from 3 (state) on, after ") ".
  const rest = text
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  const field = (n: number): number => {
    const value = Number(rest[n - 3]);
    if (rest[n - 3] === undefined || !Number.isFinite(value))
      throw new Error(`/proc/<pid>/stat field ${n} missing or not a number in '${text.slice(0, 80)}'`);
    return value;
  };
  if (!Number.isInteger(pid)) throw new Error(`/proc/<pid>/stat without a pid: '${text.slice(0, 80)}'`);
  return {
    pid,
    comm: text.slice(open + 1, close),
    state: rest[0] ?? "",
    utimeTicks: field(14),
    stimeTicks: field(15),
    cutimeTicks: field(16),
    cstimeTicks: field(17),
    numThreads: field(20),
  };
}

let ticks: number | null = null;

/** Clock ticks per second (`getconf CLK_TCK`; 100 when it cannot be asked). */
export function clockTicksPerSecond(): number {
  if (ticks === null) {
    try {
      const n = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());
      ticks = Number.isInteger(n) && n > 0 ? n : 100;
    } catch {
      ticks = 100;
    }
  }
  return ticks;
}

/** utime + stime of a stat line, in seconds. */
export function cpuSecondsOf(stat: ProcStat, ticksPerSecond = clockTicksPerSecond()): number {
  return (stat.utimeTicks + stat.stimeTicks) / ticksPerSecond;
}

/** User + system CPU seconds the process (all its threads) has used so far; NaN when it is gone or this is not Linux. */
export function readProcessCpu(pid: number): number {
  try {
    return cpuSecondsOf(parseProcStat(readFileSync(`/proc/${pid}/stat`, "utf8")));
  } catch {
    return NaN;
  }
}

/** CPU seconds the whole machine has spent busy (every core; /proc/stat, not idle or iowait). */
export function readMachineBusySeconds(): number {
  try {
    const first = readFileSync("/proc/stat", "utf8").split("\n", 1)[0];
    const [user, nice, system, , , irq, softirq, steal] = first.trim().split(/\s+/).slice(1).map(Number);
    return (user + nice + system + irq + softirq + (steal || 0)) / clockTicksPerSecond();
  } catch {
    return NaN;
  }
}
