/**
 * The C allocator setting the gateway wants from its environment.
 *
 * glibc's malloc raises its mmap threshold each time a large block is freed
 * (up to 32 MiB), after which blocks below that size come from its arenas,
 * and freed arena memory mostly stays resident. A snapshot swap frees
 * hundreds of megabytes of columns: on the large data set, idle re-pushes
 * (a shell loop, not a bench script) left RSS at 1.59 → 1.87 → 1.92 → 1.94 GB
 * over three re-pushes. A fixed threshold turns the adjustment off; at 1 MiB
 * RSS stayed within ~40 MB of its first steady figure over two re-pushes (at
 * 128 KiB within 5 MB, at 4 MiB +140 MB), while per-request buffers (well
 * under 1 MiB) still come from the arenas (bench/RESULTS.md, "Issue 14, item 3"). glibc reads the setting only when the
 * process starts, so it belongs to the environment: `npm start` sets it, and
 * the gateway says so at start when it is missing.
 */
export const ALLOCATOR_TUNABLE = "glibc.malloc.mmap_threshold=1048576";

/** A warning for the log when the process runs on glibc without a fixed mmap threshold; null when nothing is to say. */
export function allocatorWarning(env: NodeJS.ProcessEnv, onGlibc: boolean): string | null {
  if (!onGlibc) return null;
  if ((env.GLIBC_TUNABLES ?? "").includes("glibc.malloc.mmap_threshold=") || env.MALLOC_MMAP_THRESHOLD_ !== undefined) return null;
  return (
    `glibc's malloc runs with its dynamic mmap threshold: memory freed when a snapshot is replaced may stay resident (~350 MB after a full re-push of the large set). ` +
    `Start the gateway with GLIBC_TUNABLES=${ALLOCATOR_TUNABLE} (npm start does).`
  );
}

/** True when this process runs on glibc. */
export function runsOnGlibc(): boolean {
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
  return typeof header?.glibcVersionRuntime === "string";
}
