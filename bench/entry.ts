/**
 * What the bench entry points (run.ts, build-run.ts) share: their log line,
 * rounding, and `runBench`, which runs a main and always stops every process
 * it started and removes its temporary files: at the end, on failure, and on
 * SIGINT/SIGTERM (a finally block does not run on process.exit).
 */
import { stopAllChildren } from "./targets/child.js";

export const log = (message: string) => process.stdout.write(`[bench] ${message}\n`);
export const round = (v: number, digits = 1) => Math.round(v * 10 ** digits) / 10 ** digits;

const cleanups: Array<() => void> = [];

/** Registers a clean-up (removing temporary files) to run however the bench ends. */
export function onCleanup(cleanup: () => void): void {
  cleanups.push(cleanup);
}

function runCleanups(): void {
  for (const cleanup of cleanups.splice(0)) {
    try {
      cleanup();
    } catch (error) {
      process.stderr.write(`[bench] clean-up failed: ${(error as Error).message}\n`);
    }
  }
}

export function runBench(main: () => Promise<void>): void {
  let interrupted = false;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      if (interrupted) return;
      interrupted = true;
      process.stderr.write(`[bench] ${signal}: stopping every process the bench started\n`);
      void stopAllChildren().finally(() => {
        runCleanups();
        process.exit(130);
      });
    });
  }
  main()
    .then(runCleanups)
    .catch(async (error: unknown) => {
      process.stderr.write(`[bench] failed: ${(error as Error).stack ?? String(error)}\n`);
      await stopAllChildren();
      runCleanups();
      process.exit(1);
    });
}

/** Reads `--flag value` and `--flag=value` arguments one flag at a time. */
export class Flags {
  private index = -1;
  private inline: string | undefined;
  flag = "";

  constructor(private readonly argv: readonly string[]) {}

  /** Moves to the next flag; false at the end. */
  next(): boolean {
    this.index++;
    if (this.index >= this.argv.length) return false;
    [this.flag, this.inline] = this.argv[this.index].split(/=(.*)/s, 2);
    return true;
  }

  /** The current flag's value (inline or the next argument). */
  value(): string {
    const v = this.inline ?? this.argv[++this.index];
    if (v === undefined || v === "") throw new Error(`${this.flag} needs a value`);
    return v;
  }

  integer(min: number, max: number): number {
    const text = this.value();
    const n = Number(text);
    if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${this.flag} must be an integer ${min}-${max}, got '${text}'`);
    return n;
  }
}
