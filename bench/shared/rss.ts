/**
 * Process readings from /proc (Linux): resident memory now (VmRSS) and at its
 * peak (VmHWM), of a process (CPU time: proc-stat.ts).
 */
import { readFileSync, writeFileSync } from "node:fs";

export interface MemoryReading {
  readonly rssBytes: number;
  readonly peakRssBytes: number;
}

export function readMemory(pid: number): MemoryReading | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/status`, "utf8");
  } catch {
    return null; // gone, or not Linux
  }
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? NaN) * 1024;
  return { rssBytes: kb("VmRSS"), peakRssBytes: kb("VmHWM") };
}

/** Resets a process's VmHWM to its current RSS (Linux `clear_refs` 5); false when not permitted or not Linux. */
export function clearPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

/** Samples a process's RSS at an interval; keeps the highest VmRSS seen and the last reading. */
export class RssSampler {
  private timer: NodeJS.Timeout | null = null;
  maxRssBytes = 0;
  last: MemoryReading | null = null;

  constructor(
    private readonly pid: number,
    private readonly intervalMs = 200,
  ) {}

  start(): this {
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
    this.timer.unref();
    return this;
  }

  sample(): MemoryReading | null {
    const reading = readMemory(this.pid);
    if (reading) {
      this.last = reading;
      if (reading.rssBytes > this.maxRssBytes) this.maxRssBytes = reading.rssBytes;
    }
    return reading;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
