/**
 * A build worker thread's end of the niceness cell (the loader's end is build-pool.ts): the thread runs at
 * the niceness its current task's cell asks for, looked at when the task starts and every NICE_CHECK_POOLS
 * pools. On Linux a thread's priority is its own: this sets the build worker's thread only, never the serving
 * threads of the same process.
 */
import { setPriority } from "node:os";
import type { PoolSource } from "./pool-stream.js";

/** Pools between two looks at the wanted niceness. */
export const NICE_CHECK_POOLS = 1024;

/** One per build worker thread. */
export class ThreadNiceness {
  private current = 0;
  private wanted: Int32Array | null = null;

  /** @param setThreadPriority sets this thread's niceness (throws when not permitted) */
  constructor(private readonly setThreadPriority: (nice: number) => void = (nice) => setPriority(nice)) {}

  /** A task starts: follow its cell (BuildTask.nice). */
  follow(cell: Int32Array): void {
    this.wanted = cell;
    this.check();
  }

  /** Runs at the niceness the current task's cell asks for now. */
  check(): void {
    if (this.wanted === null) return;
    const nice = Atomics.load(this.wanted, 0);
    if (nice === this.current) return;
    try {
      this.setThreadPriority(nice);
      this.current = nice;
    } catch {
      // Not permitted here (raising the priority back needs CAP_SYS_NICE): keep the current one.
    }
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
}
