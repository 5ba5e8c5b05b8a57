import type { EventLoopUtilization } from "node:perf_hooks";
import type { Worker } from "node:worker_threads";

/** How often the serving threads' load is sampled: a reading covers the last one to two of these. */
const LOAD_SAMPLE_MS = 250;

/**
 * How busy the serving threads are now: the largest event-loop utilization among them over the last
 * 250-500 ms (0 idle, 1 never idle), from samples taken every LOAD_SAMPLE_MS until `stop`. A build yields the
 * CPU while they are busy (BUILD_WORKER_NICE) and takes a second build worker only while they are idle: both
 * decisions need the load of the moment, not since whenever the last build asked.
 */
export class ServingLoadMeter {
  /** Per worker, the samples of the last two ticks (older, newer). */
  private readonly samples = new WeakMap<Worker, [EventLoopUtilization, EventLoopUtilization]>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly workers: () => readonly Worker[]) {
    this.tick();
    this.timer = setInterval(() => this.tick(), LOAD_SAMPLE_MS);
    this.timer.unref();
  }

  load(): number {
    let load = 0;
    for (const worker of this.workers()) {
      const older = this.samples.get(worker)?.[0];
      const now = worker.performance.eventLoopUtilization();
      const delta = older === undefined ? now : worker.performance.eventLoopUtilization(now, older);
      if (delta.idle + delta.active > 0) load = Math.max(load, delta.utilization);
    }
    return load;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private tick(): void {
    for (const worker of this.workers()) {
      const now = worker.performance.eventLoopUtilization();
      const seen = this.samples.get(worker);
      this.samples.set(worker, seen === undefined ? [now, now] : [seen[1], now]);
    }
  }
}
