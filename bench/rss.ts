/**
 * Process readings from /proc (Linux): resident memory now (VmRSS) and at its
 * peak (VmHWM), and CPU time, of a process and all its threads.
 */
import { readFileSync } from "node:fs";

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

/** User + system CPU seconds the process has used so far (clock ticks of 1/100 s). */
export function readCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may contain spaces) start at ") ".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime
  } catch {
    return NaN;
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

/** CPU seconds the whole machine has spent busy (every core; /proc/stat, not idle or iowait). */
export function readMachineBusySeconds(): number {
  try {
    const first = readFileSync("/proc/stat", "utf8").split("\n", 1)[0];
    const [user, nice, system, , , irq, softirq, steal] = first.trim().split(/\s+/).slice(1).map(Number);
    return (user + nice + system + irq + softirq + (steal || 0)) / 100;
  } catch {
    return NaN;
  }
}
