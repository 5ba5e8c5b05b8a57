/**
 * A build worker thread's end of the niceness cell (the loader's end is build-pool.ts): the thread runs at
 * the niceness its current task's cell asks for, looked at when the task starts and every NICE_CHECK_POOLS
 * pools. On Linux a thread's priority is its own: this sets the build worker's thread only, never the serving
 * threads of the same process.
 *
 * Lowering a thread's niceness again (raising its priority: what a build does as it ages, FRESHNESS_TARGET_S)
 * needs CAP_SYS_NICE or an RLIMIT_NICE that allows it. Where the process has neither, the thread never raises
 * its niceness in the first place (it could not come back): it stays at 0 and yields the CPU instead, sleeping
 * after each stretch of work so that it runs about the share of the time the niceness would give it against a
 * busy thread at 0 (1.25^-nice: 11 % at 10). Each task's schedule is reported (taskReport): its thread's CPU
 * time, the niceness over its run, the time it yielded.
 */
import { readFileSync } from "node:fs";
import { setPriority } from "node:os";
import type { PoolSource } from "./pool-stream.js";

/** Pools between two looks at the wanted niceness. */
export const NICE_CHECK_POOLS = 1024;
/** The longest sleep of a yielding thread at one look (it looks again after its next stretch of work). */
const MAX_YIELD_MS = 250;
/** Linux's USER_HZ: /proc stat times are in hundredths of a second on every architecture it runs on. */
const TICKS_PER_SECOND = 100;
const CAP_SYS_NICE = 23;

/** How a task ran on its thread. */
export interface TaskSchedule {
  /** Wall time from the task's start to the report. */
  readonly wallMs: number;
  /** CPU time of the thread over it (null where /proc/thread-self is not readable). */
  readonly cpuMs: number | null;
  /** The niceness the task asked for, averaged over its wall time, and at its end. */
  readonly meanNice: number;
  readonly lastNice: number;
  /** Time slept to yield the CPU (a thread that cannot lower its niceness again: see above). */
  readonly yieldedMs: number;
}

export interface ThreadNicenessOptions {
  /**
   * Whether the thread may lower its niceness again (default: CAP_SYS_NICE or RLIMIT_NICE, from /proc, for the
   * system's setter; a setter the caller hands in is taken to be allowed to).
   */
  readonly canRaisePriority?: boolean;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => void;
  /** The thread's CPU time so far, ms (default /proc/thread-self/stat), or null. */
  readonly threadCpuMs?: () => number | null;
}

/** One per build worker thread. */
export class ThreadNiceness {
  private current = 0;
  private wanted: Int32Array | null = null;
  private readonly canRaise: boolean;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => void;
  private readonly threadCpuMs: () => number | null;
  /** The niceness asked for, and since when (the task's weighted niceness adds up from it). */
  private asked = 0;
  private askedSince = 0;
  private task: { startMs: number; cpuMs: number | null; niceMs: number; yieldedMs: number } | null = null;
  /** End of the last look (or sleep): the stretch of work since is what a yielding thread pays for. */
  private lastLook = 0;

  /** @param setThreadPriority sets this thread's niceness (throws when not permitted) */
  constructor(
    private readonly setThreadPriority: (nice: number) => void = setThreadNice,
    options: ThreadNicenessOptions = {},
  ) {
    this.canRaise = options.canRaisePriority ?? (setThreadPriority === setThreadNice ? canRaisePriority() : true);
    this.now = options.now ?? (() => performance.now());
    this.sleep = options.sleep ?? sleepFor;
    this.threadCpuMs = options.threadCpuMs ?? readThreadCpuMs;
  }

  /** A task starts: follow its cell (BuildTask.nice). */
  follow(cell: Int32Array): void {
    this.wanted = cell;
    const now = this.now();
    this.task = { startMs: now, cpuMs: this.threadCpuMs(), niceMs: 0, yieldedMs: 0 };
    this.asked = Atomics.load(cell, 0);
    this.askedSince = now;
    this.lastLook = now;
    this.check();
  }

  /** Runs at the niceness the current task's cell asks for now (or yields its share of the CPU: see above). */
  check(): void {
    if (this.wanted === null) return;
    const nice = Atomics.load(this.wanted, 0);
    const now = this.now();
    this.noteAsked(nice, now);
    if (this.canRaise) {
      this.lastLook = now;
      if (nice === this.current) return;
      try {
        this.setThreadPriority(nice);
        this.current = nice;
      } catch {
        // Not permitted here (raising the priority back needs CAP_SYS_NICE): keep the current one.
      }
      return;
    }
    const worked = now - this.lastLook;
    if (nice > 0 && worked > 0) {
      const ms = Math.min(MAX_YIELD_MS, worked * (Math.pow(1.25, nice) - 1));
      this.sleep(ms);
      if (this.task !== null) this.task.yieldedMs += ms;
    }
    this.lastLook = this.now();
  }

  /** A function to call once per pool: it looks at the wanted niceness every NICE_CHECK_POOLS calls. */
  perPool(): () => void {
    let taken = 0;
    return () => {
      if (++taken % NICE_CHECK_POOLS === 0) this.check();
    };
  }

  /** The pools as they are taken, looking at the wanted niceness every NICE_CHECK_POOLS pools. */
  pools(pools: PoolSource): PoolSource {
    const perPool = this.perPool();
    return {
      count: pools.count,
      next() {
        perPool();
        return pools.next();
      },
    };
  }

  /** How the current task ran so far. */
  taskReport(): TaskSchedule {
    const now = this.now();
    const task = this.task ?? { startMs: now, cpuMs: null, niceMs: 0, yieldedMs: 0 };
    const asked = this.wanted === null ? this.asked : Atomics.load(this.wanted, 0);
    this.noteAsked(asked, now);
    const wallMs = now - task.startMs;
    const cpuNow = task.cpuMs === null ? null : this.threadCpuMs();
    return {
      wallMs,
      cpuMs: cpuNow === null || task.cpuMs === null ? null : cpuNow - task.cpuMs,
      meanNice: wallMs > 0 ? task.niceMs / wallMs : asked,
      lastNice: asked,
      yieldedMs: task.yieldedMs,
    };
  }

  /** Adds the time since the niceness last asked for, at that niceness, to the task's weighted niceness. */
  private noteAsked(nice: number, now: number): void {
    if (this.task !== null) this.task.niceMs += this.asked * (now - this.askedSince);
    this.asked = nice;
    this.askedSince = now;
  }
}

/** os.setPriority on the calling thread (Linux: per thread). */
function setThreadNice(nice: number): void {
  setPriority(nice);
}

const sleepCell = new Int32Array(new SharedArrayBuffer(4));

function sleepFor(ms: number): void {
  Atomics.wait(sleepCell, 0, 0, ms);
}

/** Whether this process may lower a thread's niceness again: CAP_SYS_NICE, or an RLIMIT_NICE down to 0 (Linux). */
export function canRaisePriority(): boolean {
  try {
    const status = readFileSync("/proc/self/status", "utf8");
    const caps = /^CapEff:\s*([0-9a-f]+)/m.exec(status);
    if (caps !== null && (BigInt(`0x${caps[1]}`) >> BigInt(CAP_SYS_NICE)) & 1n) return true;
    const limits = readFileSync("/proc/self/limits", "utf8");
    const nice = /^Max nice priority\s+(\S+)/m.exec(limits);
    return nice !== null && (nice[1] === "unlimited" || Number(nice[1]) >= 20);
  } catch {
    return false;
  }
}

/** This thread's user + system CPU time (ms), from /proc/thread-self/stat; null where it cannot be read. */
function readThreadCpuMs(): number | null {
  try {
    const stat = readFileSync("/proc/thread-self/stat", "utf8");
    // Fields after the command (which may hold spaces): state is field 3, utime 14, stime 15.
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(rest[11]) + Number(rest[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}
