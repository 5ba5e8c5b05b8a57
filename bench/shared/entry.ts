/**
 * What the bench entry points (run.ts, build-run.ts) share: their log line,
 * rounding, and `runBench`, which runs a main and always stops every process
 * it started and removes its temporary files: at the end, on failure, and on
 * SIGINT/SIGTERM (a finally block does not run on process.exit).
 */
import { stopAllChildren } from "./child.js";

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
      // Whatever stopping gives, the process ends in the callback: nothing is left to report a rejection to.
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
