/**
 * A process the bench started: its JSON log lines, its output tails, and a
 * stop that always ends it (SIGTERM, then SIGKILL after 6 s). Every child is
 * registered so the orchestrator can stop whatever is left, also on failure.
 */
import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";

const KILL_AFTER_MS = 6000;
const TAIL_CHARS = 8000;

export type LogLine = Record<string, unknown>;

export class BenchChild {
  private stdoutTail = "";
  private stderrTail = "";
  private partial = "";
  private readonly waiters: Array<{ match: (line: LogLine) => boolean; resolve: (line: LogLine) => void }> = [];
  readonly exited: Promise<number>;
  private exitCode: number | null = null;

  constructor(
    readonly name: string,
    readonly process: ChildProcess,
  ) {
    live.add(this);
    this.exited = new Promise((resolve) => {
      process.on("exit", (code, signal) => {
        this.exitCode = code ?? (signal ? 128 : -1);
        live.delete(this);
        resolve(this.exitCode);
      });
      process.on("error", () => {
        if (this.exitCode === null && process.pid === undefined) {
          this.exitCode = -1;
          live.delete(this);
          resolve(-1);
        }
      });
    });
    process.stdout?.setEncoding("utf8").on("data", (chunk: string) => this.onStdout(chunk));
    process.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-TAIL_CHARS);
    });
  }

  get pid(): number {
    return this.process.pid ?? -1;
  }

  get running(): boolean {
    return this.exitCode === null;
  }

  /** The last output, for error messages. */
  tails(): string {
    return `--- ${this.name} stdout (tail) ---\n${this.stdoutTail}\n--- ${this.name} stderr (tail) ---\n${this.stderrTail}`;
  }

  /** Resolves with the first JSON line that matches; rejects when the process exits first or after `timeoutMs`. */
  waitForLine(match: (line: LogLine) => boolean, timeoutMs: number): Promise<LogLine> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${this.name}: no matching line within ${timeoutMs} ms\n${this.tails()}`)),
        timeoutMs,
      );
      const waiter = {
        match,
        resolve: (line: LogLine) => {
          clearTimeout(timer);
          resolve(line);
        },
      };
      this.waiters.push(waiter);
      // exited only resolves (with the exit code).
      void this.exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`${this.name} exited with code ${code} before it was ready\n${this.tails()}`));
      });
    });
  }

  /** SIGTERM, then SIGKILL after 6 s; resolves with the exit code. */
  async stop(): Promise<number> {
    if (this.exitCode !== null) return this.exitCode;
    this.process.kill("SIGTERM");
    const killer = setTimeout(() => this.process.kill("SIGKILL"), KILL_AFTER_MS);
    const code = await this.exited;
    clearTimeout(killer);
    return code;
  }

  private onStdout(chunk: string): void {
    this.stdoutTail = (this.stdoutTail + chunk).slice(-TAIL_CHARS);
    this.partial += chunk;
    let nl: number;
    while ((nl = this.partial.indexOf("\n")) >= 0) {
      const text = this.partial.slice(0, nl).trim();
      this.partial = this.partial.slice(nl + 1);
      if (!text.startsWith("{")) continue;
      let line: LogLine;
      try {
        line = JSON.parse(text) as LogLine;
      } catch {
        continue;
      }
      for (let i = this.waiters.length - 1; i >= 0; i--) {
        const waiter = this.waiters[i];
        if (waiter.match(line)) {
          this.waiters.splice(i, 1);
          waiter.resolve(line);
        }
      }
    }
  }
}

const live = new Set<BenchChild>();

/**
 * Starts `command <args>` with piped output; with `cpus`, pinned to that CPU
 * list by `taskset -c` (which execs the command, so the pid is the command's).
 */
export function startChild(
  name: string,
  command: string,
  args: readonly string[],
  options: SpawnOptions = {},
  cpus: string | null = null,
): BenchChild {
  const [file, argv] = cpus === null ? [command, args] : ["taskset", ["-c", cpus, command, ...args]];
  const child = spawn(file, argv, { stdio: ["ignore", "pipe", "pipe"], ...options });
  return new BenchChild(name, child);
}

/** Starts `node <args>` (see startChild). */
export function startNode(name: string, args: readonly string[], options: SpawnOptions = {}, cpus: string | null = null): BenchChild {
  return startChild(name, process.execPath, args, options, cpus);
}

/** Stops every child still running (all at once; each gets SIGTERM then SIGKILL after 6 s). */
export async function stopAllChildren(): Promise<void> {
  await Promise.all([...live].map((child) => child.stop()));
}
