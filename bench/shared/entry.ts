/**
 * What the bench entry points (run.ts, build-run.ts) share: their log line,
 * rounding, and `runBench`, which runs a main and always stops every process
 * it started and removes its temporary files: at the end, on failure, and on
 * SIGINT/SIGTERM (a finally block does not run on process.exit).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg, release, totalmem } from "node:os";
import { join, relative } from "node:path";
import { PROJECT_ROOT } from "../../src/config/config.js";
import type { BenchMachine } from "../live/summary.js";
import { stopAllChildren } from "./child.js";
import { writeSection } from "./results-md.js";

export const log = (message: string) => process.stdout.write(`[bench] ${message}\n`);
export const round = (v: number, digits = 1) => Math.round(v * 10 ** digits) / 10 ** digits;

/** The machine a run is about to measure on, its load average now (`loadAverageEnd`: set it at the end). */
export function benchMachine(): BenchMachine {
  return {
    cores: cpus().length,
    cpuModel: cpus()[0]?.model.trim() ?? "unknown",
    totalMemoryBytes: totalmem(),
    node: process.version,
    platform: `${process.platform} ${release()} ${process.arch}`,
    loadAverageStart: loadavg().map((v) => round(v, 2)),
    loadAverageEnd: [],
  };
}

/**
 * A run's results: bench/results/<prefix>-<its start, to the second>.json, its section printed and, from a
 * full run (or when `summary`), written to bench/RESULTS.md under `sectionId`.
 */
export function publishResults(
  prefix: string,
  sectionId: string,
  results: { readonly startedAt: string },
  render: (jsonPath: string) => string,
  summary: boolean,
): void {
  const stamp = results.startedAt.replace(/\.\d+Z$/, "Z").replace(/:/g, "-");
  const resultsDir = join(PROJECT_ROOT, "bench/results");
  mkdirSync(resultsDir, { recursive: true });
  const jsonFile = join(resultsDir, `${prefix}-${stamp}.json`);
  writeFileSync(jsonFile, `${JSON.stringify(results, null, 2)}\n`);
  const section = render(relative(join(PROJECT_ROOT, "bench"), jsonFile));
  process.stdout.write(`\n${section}\n\n`);
  log(`wrote ${relative(PROJECT_ROOT, jsonFile)}`);
  if (!summary) return;
  writeSection(join(PROJECT_ROOT, "bench/RESULTS.md"), sectionId, section);
  log(`rewrote the ${sectionId} section of bench/RESULTS.md`);
}

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
