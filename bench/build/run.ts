/**
 * The build and memory harness (issue 5): `npm run bench:build [-- --quick]
 * [--data DIR] [--duration S] [--connections N] [--write-summary]`.
 *
 * In one run on one machine: the snapshot build (start-up and rebuild against
 * plain msgpackr decoding, RSS, pool-route latency during a rebuild and swap),
 * the uncached filtered query's latency on one connection, and the tinybench
 * micro-benchmarks. The load here is autocannon (bench/build/load.ts): it records
 * every response's completion time, which gives the latency inside the
 * re-push-to-swap window, and it sends a distinct body per request for the
 * uncached query. Server CPU per request is `npm run bench` (wrk).
 * On the large set it then pushes the sample generator's series (bench/build/series.ts, issue 30): the largest
 * chain with 2, 5, 20 and 100 % of its records changed, idle and then with wrk started before the push, and every
 * file at 5 %; each push's time to serving, its builds' reuse, wait and priority, and the peak RSS over them.
 * Writes bench/results/build-<timestamp>.json; regenerates the "build" section
 * of bench/RESULTS.md from a full run (a quick run only with --write-summary).
 * Every process it starts is stopped at the end, also on failure.
 */
import { spawn } from "node:child_process";
import { copyFileSync, linkSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, release, tmpdir, totalmem } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { integerOption, readArgs } from "../shared/command-line.js";
import { log, onCleanup, round, runBench } from "../shared/entry.js";
import { PROJECT_ROOT } from "../../src/config/config.js";
import { SUPPORTED_CHAIN_IDS_ASCENDING } from "../../src/chains/chains.js";
import { measureRebuilds, profileBuild, snapshotFiles, type BuildProfile, type OneChainRepush } from "./measure.js";
import { runLoad } from "./load.js";
import { ensureWrk } from "../shared/wrk.js";
import { readMemory, RssSampler } from "../shared/rss.js";
import { BUILD_SECTION_ID, evaluateTargets, renderBuildSection, type BuildResults, type MachineInfo } from "./summary.js";
import { writeSection } from "../shared/results-md.js";
import { stopAllChildren } from "../shared/child.js";
import { servingThreads, startGateway, writeBenchKey, type RunningGateway } from "../targets/gateway.js";
import { runMicro } from "../micro/subprocess.js";
import { ensureSeries, measureSeries, type SeriesFigures } from "./series.js";
import { samplePoolAddresses } from "../targets/pool-addresses.js";

// ------------------------------------------------------------------ arguments

interface Args {
  quick: boolean;
  data: string | null;
  durationS: number | null;
  connections: number | null;
  writeSummary: boolean;
  seriesDir: string | null;
}

const USAGE = `usage: npm run bench:build -- [--quick] [--data DIR] [--duration S] [--connections N] [--write-summary]
  --quick          about a minute: the bundled snapshots/ (or --data DIR), short runs; the large set is skipped
  --data DIR       the large data set (default /tmp/lgw-bench-large; generated there with seed 7 when missing)
  --duration S     measured seconds of pool-route load without a rebuild and of the uncached query (default 3 quick, 8 full)
  --connections N  wrk connections for the pool-route load (default 32)
  --write-summary  with --quick: also regenerate the build section of bench/RESULTS.md (a full run always does)
  --series-dir DIR where the re-push series of the large set is cached (default <data>-series; generated when missing)`;

/** Distinct thresholds (50000 + n·1e-6) so every request misses the per-snapshot query cache. */
const UNCACHED_BODY = '{"filters":{"chainIds":[1,8453],"minimumTotalValuePooledUsd":__N__}}';
const UNIQUE = { placeholder: "__N__", start: 50000, step: 0.000001 };

function readOptions(argv: readonly string[]): Args {
  const values = readArgs(
    argv,
    {
      quick: { type: "boolean" },
      "write-summary": { type: "boolean" },
      data: { type: "string" },
      duration: { type: "string" },
      connections: { type: "string" },
      "series-dir": { type: "string" },
    },
    USAGE,
  );
  return {
    quick: values.quick ?? false,
    writeSummary: values["write-summary"] ?? false,
    data: values.data === undefined ? null : resolve(values.data),
    durationS: integerOption("--duration", values.duration, 1, 10_000) ?? null,
    connections: integerOption("--connections", values.connections, 1, 10_000) ?? null,
    seriesDir: values["series-dir"] === undefined ? null : resolve(values["series-dir"]),
  };
}

// ------------------------------------------------------------------ helpers

const DEFAULT_LARGE_DIR = "/tmp/lgw-bench-large";
const GENERATE_JS = join(PROJECT_ROOT, "dist/tools/generate-snapshots.js");

function machineInfo(): MachineInfo {
  const list = cpus();
  return {
    cores: list.length,
    availableParallelism: availableParallelism(),
    cpuModel: list[0]?.model.trim() ?? "unknown",
    cpuMHz: list[0]?.speed ?? 0, // 0 where the hypervisor does not report it
    totalMemoryBytes: totalmem(),
    node: process.version,
    platform: `${process.platform} ${release()} ${process.arch}`,
    loadAverageStart: loadavg().map((v) => round(v, 2)),
    loadAverageEnd: [],
  };
}

function hasFullSet(dir: string): boolean {
  return SUPPORTED_CHAIN_IDS_ASCENDING.every((id) => {
    try {
      return statSync(join(dir, `chain-${id}.msgpack`)).size > 0;
    } catch {
      return false;
    }
  });
}

async function ensureLargeSet(dir: string): Promise<{ generated: boolean; ms: number }> {
  if (hasFullSet(dir)) return { generated: false, ms: 0 };
  log(`generating the large data set into ${dir} (seed 7; about a minute)`);
  const started = performance.now();
  const child = spawn(process.execPath, [GENERATE_JS, "--seed", "7", "--scale", "large", "--out", dir], {
    cwd: PROJECT_ROOT,
    stdio: ["ignore", "inherit", "inherit"],
  });
  const killer = setTimeout(() => child.kill("SIGKILL"), 15 * 60_000);
  const code = await new Promise<number>((r) => child.on("exit", (c) => r(c ?? 1)));
  clearTimeout(killer);
  if (code !== 0 || !hasFullSet(dir)) throw new Error(`generate-snapshots exited with code ${code}`);
  return { generated: true, ms: Math.round(performance.now() - started) };
}

/** The gateway's SNAPSHOT_DIR: links (or copies, for files inside the repository) of the data set, so re-pushes never touch it. */
function scratchSnapshotDir(dataDir: string, scratch: string): string {
  const dir = join(scratch, "snapshots");
  mkdirSync(dir);
  const insideRepo = !relative(PROJECT_ROOT, dataDir).startsWith("..");
  for (const name of snapshotFiles(dataDir)) {
    const from = join(dataDir, name);
    const to = join(dir, name);
    if (insideRepo) copyFileSync(from, to);
    else {
      try {
        linkSync(from, to);
      } catch {
        copyFileSync(from, to);
      }
    }
  }
  return dir;
}

function oneChainFigures(profile: BuildProfile, repush: OneChainRepush): NonNullable<BuildResults["build"]["oneChain"]> {
  const file = profile.files.find((f) => f.file === repush.file);
  const w = repush.duringSwap.window;
  return {
    file: repush.file,
    plainDecodeMs: file ? round(file.readMs + file.unpackMs) : NaN,
    idleMs: round(repush.idleMs),
    loadedMs: round(repush.loadedMs),
    duringSwap: w
      ? { rps: w.rps, latencyMs: w.latencyMs, durationS: w.durationS }
      : { rps: repush.duringSwap.rps, latencyMs: repush.duringSwap.latencyMs, durationS: repush.duringSwap.durationS },
  };
}

// ------------------------------------------------------------------ main

async function main(): Promise<void> {
  const args = readOptions(process.argv.slice(2));
  const mode = args.quick ? "quick" : "full";
  const startedAt = new Date();
  const machine = machineInfo();
  const durationS = args.durationS ?? (args.quick ? 3 : 8);
  const warmupS = args.quick ? 1 : 2;
  const connections = args.connections ?? 32;
  const notes: string[] = [
    `${machine.cores} cores (${machine.cpuModel}): the load generators and the gateway share them. The pool route's load (baseline and re-pushes under load) is wrk (one thread, saturating: as fast as the gateway answers); during a re-push its run starts with the push and is ended at the swap, so its figures are the window's. The uncached token query's probe is autocannon (a distinct body per request).`,
    `Gateway build settings: BUILD_WORKER_NICE ${process.env.BUILD_WORKER_NICE ?? "default (10)"}, BUILD_START_WORKERS ${process.env.BUILD_START_WORKERS ?? "default (2 with 2+ cores and 4 GiB free)"} (from the bench's environment).`,
  ];
  log(
    `mode ${mode}; machine: ${machine.cores} cores, ${machine.cpuModel}, node ${machine.node}; load average ${machine.loadAverageStart.join(" ")}`,
  );

  let dataDir: string;
  let largeSet = false;
  let generation = { generated: false, ms: 0 };
  if (args.quick && !args.data) {
    dataDir = join(PROJECT_ROOT, "snapshots");
    notes.push(
      `quick run: the bundled snapshots/ serve every measurement; the large set (${DEFAULT_LARGE_DIR}) was skipped, so the large-set targets (uncached filtered query p99, RSS <= 3 GB) are not judged.`,
    );
  } else {
    dataDir = args.data ?? DEFAULT_LARGE_DIR;
    if (args.quick && !hasFullSet(dataDir))
      throw new Error(`--quick --data ${dataDir}: the directory has no complete data set (a quick run never generates one)`);
    generation = await ensureLargeSet(dataDir);
    largeSet = true;
  }
  const seriesDir = args.seriesDir ?? `${dataDir}-series`;
  const seriesSteps = largeSet ? ensureSeries(dataDir, seriesDir, log) : null;

  const wrk = ensureWrk(log);
  const scratch = mkdtempSync(join(tmpdir(), "lgw-bench-build-"));
  const benchKey = writeBenchKey();
  const removeTemporaries = () => {
    rmSync(scratch, { recursive: true, force: true });
    rmSync(dirname(benchKey.file), { recursive: true, force: true });
  };
  onCleanup(removeTemporaries);
  const headers = { authorization: `Bearer ${benchKey.key}` };
  const jsonHeaders = { ...headers, "content-type": "application/json" };
  let results: BuildResults | null = null;
  try {
    const servingDir = scratchSnapshotDir(dataDir, scratch);

    // --- build profile (nothing else running)
    log(`profiling decode and build of ${dataDir} in one thread`);
    const profile = await profileBuild(dataDir, largeSet ? 15 * 60_000 : 120_000);
    log(`plain decode (read + unpack) ${round(profile.plainDecodeMs)} ms; one-thread build ${round(profile.oneThreadBuildMs)} ms`);
    const addresses = await samplePoolAddresses(dataDir, 8453, 1);
    const poolPaths = addresses.map((a) => `/v1/pools/8453/${a}`);

    // --- gateway
    // LOG_LEVEL info: the build lines (snapshot-accepted: reuse, wait, priority); the gateway logs nothing per request.
    log("starting the gateway (auth on, rate limiting on, default threads, LOG_LEVEL info)");
    const gateway: RunningGateway = await startGateway({
      snapshotDir: servingDir,
      keysFile: benchKey.file,
      timeoutMs: largeSet ? 10 * 60_000 : 60_000,
      env: { LOG_LEVEL: "info" },
    });
    const rss = new RssSampler(gateway.child.pid, 200).start();
    const atReady = readMemory(gateway.child.pid);
    const threads = (await servingThreads(gateway.baseUrl)) ?? availableParallelism();
    log(
      `gateway ready in ${round(gateway.startToReadyMs)} ms on port ${gateway.port} with ${threads} serving threads; RSS ${round((rss.sample()?.rssBytes ?? 0) / 2 ** 20)} MiB`,
    );

    // --- uncached filtered query, one connection: its service latency
    const probe = await runLoad({
      url: gateway.baseUrl,
      headers: jsonHeaders,
      requests: [{ method: "POST", path: "/v1/tokens", body: UNCACHED_BODY }],
      uniqueBody: { ...UNIQUE, start: UNIQUE.start + 0.5 },
      connections: 1,
      durationS,
      warmupS: 0,
    }).result;
    log(`uncached filtered query, 1 connection: ${probe.rps} req/s  p50 ${probe.latencyMs.p50} ms  p99 ${probe.latencyMs.p99} ms`);

    // --- RSS once loaded and serving (the two build workers kept by default included: BUILD_WORKERS_KEPT)
    const steady = readMemory(gateway.child.pid);
    const steadyAfterS = round((performance.now() - gateway.spawnedAt - gateway.startToReadyMs) / 1000);

    // The pool-route load both the re-pushes and the series run under.
    const poolLoad = {
      wrk,
      spec: {
        baseUrl: gateway.baseUrl,
        request: { method: "GET", path: poolPaths[0], headers },
        threads: 1,
        connections,
        durationS,
        timeoutS: 10,
        cpus: null,
        scratchDir: scratch,
      },
    };
    // --- rebuilds
    log("re-pushing every chain file: idle, then under load on the pool route");
    const rebuilds = await measureRebuilds({
      gateway,
      servingDir,
      poolLoad,
      rebuildTimeoutMs: largeSet ? 10 * 60_000 : 60_000,
    });
    log(
      `${rebuilds.oneChain.file} alone: idle ${round(rebuilds.oneChain.idleMs)} ms, under load ${round(rebuilds.oneChain.loadedMs)} ms; pool p99 ${rebuilds.oneChain.duringSwap.window?.latencyMs.p99} ms during`,
    );
    log(
      `rebuild: idle ${round(rebuilds.idleRebuildMs)} ms, under load ${round(rebuilds.loadedRebuildMs)} ms; pool p99 ${rebuilds.baseline.latencyMs.p99} ms without, ${rebuilds.duringSwap.window?.latencyMs.p99} ms during`,
    );
    const m = rebuilds.repushMemory;
    log(
      `re-push under load: RSS ${round(m.steadyBytes / 2 ** 20)} MiB before, peak ${round(m.peakBytes / 2 ** 20)} MiB (${round(m.peakBytes / m.steadyBytes, 2)}x), ${round(m.afterBytes / 2 ** 20)} MiB once released`,
    );
    let series: SeriesFigures | null = null;
    if (seriesSteps !== null) {
      log(`pushing the series of ${seriesDir}`);
      series = await measureSeries({
        gateway,
        servingDir,
        seriesDir,
        steps: seriesSteps,
        poolLoad,
        timeoutMs: 10 * 60_000,
        log,
      });
    }
    rss.sample();
    const peak = readMemory(gateway.child.pid);
    rss.stop();
    await gateway.child.stop();

    // --- micro-benchmarks (servers stopped)
    log("micro-benchmarks (tinybench, subprocess)");
    const micro = await runMicro(dataDir, args.quick ? 200 : 1000, largeSet ? 15 * 60_000 : 120_000);
    process.stdout.write(micro.raw);

    machine.loadAverageEnd = loadavg().map((v) => round(v, 2));
    const finishedAt = new Date();
    results = {
      schema: "build/1",
      mode,
      startedAt: startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
      wallSeconds: round((finishedAt.getTime() - startedAt.getTime()) / 1000),
      machine,
      notes,
      settings: {
        connections,
        durationS,
        warmupS,
        gatewayThreads: threads,
        loadGenerator:
          "pool route: wrk, one thread, HTTP/1.1 keep-alive; uncached token query: autocannon 8, one child process, 1 connection; Authorization: Bearer on every request",
        dataDir,
        largeSet,
        generatedDataSet: generation.generated ? { ms: generation.ms } : null,
        poolAddresses: addresses.length,
      },
      dataSet: { files: profile.files.length, bytes: profile.bytes, pools: profile.pools, tokenInstances: profile.tokenInstances },
      uncachedProbe: { connections: 1, durationS: probe.durationS, rps: probe.rps, latencyMs: probe.latencyMs, non2xx: probe.non2xx },
      micro,
      build: {
        profile,
        startToReadyMs: round(gateway.startToReadyMs),
        idleRebuildMs: round(rebuilds.idleRebuildMs),
        idleRebuildCpu: rebuilds.idleRebuildCpu,
        loadedRebuildMs: round(rebuilds.loadedRebuildMs),
        watchDebounceMs: 250,
        gatewayBuildMetrics: rebuilds.gatewayBuildMetrics,
        repushMemory: rebuilds.repushMemory,
        series,
        oneChain: oneChainFigures(profile, rebuilds.oneChain),
        rss: {
          readyBytes: atReady?.rssBytes ?? NaN,
          peakAtReadyBytes: atReady?.peakRssBytes ?? NaN,
          steadyBytes: steady?.rssBytes ?? NaN,
          steadyAfterReadyS: steadyAfterS,
          peakBytes: peak?.peakRssBytes ?? NaN,
          peakSampledBytes: rss.maxRssBytes,
          afterRebuildsBytes: peak?.rssBytes ?? NaN,
        },
        poolLatency: {
          baseline: { rps: rebuilds.baseline.rps, latencyMs: rebuilds.baseline.latencyMs, durationS: rebuilds.baseline.durationS },
          duringSwap: rebuilds.duringSwap.window
            ? {
                rps: rebuilds.duringSwap.window.rps,
                latencyMs: rebuilds.duringSwap.window.latencyMs,
                durationS: rebuilds.duringSwap.window.durationS,
              }
            : null,
          wholeSwapRun: {
            rps: rebuilds.duringSwap.rps,
            latencyMs: rebuilds.duringSwap.latencyMs,
            durationS: rebuilds.duringSwap.durationS,
          },
          non2xx: rebuilds.baseline.non2xx + rebuilds.duringSwap.non2xx,
        },
      },
      targets: [],
    };
    results.targets = evaluateTargets(results);
  } finally {
    await stopAllChildren();
    removeTemporaries();
  }

  const stamp = results.startedAt.replace(/[:]/g, "-").replace(/\.\d+Z$/, "Z");
  const resultsDir = join(PROJECT_ROOT, "bench/results");
  mkdirSync(resultsDir, { recursive: true });
  const jsonFile = join(resultsDir, `build-${stamp}.json`);
  writeFileSync(jsonFile, `${JSON.stringify(results, null, 2)}\n`);
  log(`results: ${relative(PROJECT_ROOT, jsonFile)}`);
  if (mode === "full" || args.writeSummary) {
    const summaryFile = join(PROJECT_ROOT, "bench/RESULTS.md");
    writeSection(summaryFile, BUILD_SECTION_ID, renderBuildSection(results, { jsonFile: relative(dirname(summaryFile), jsonFile) }));
    log(`summary: the ${BUILD_SECTION_ID} section of ${relative(PROJECT_ROOT, summaryFile)}`);
  } else log("quick run: bench/RESULTS.md left as it is (pass --write-summary to regenerate its build section from this run)");
  process.stdout.write(`\n${renderBuildSection(results, null, { brief: true })}\n`);
}

runBench(main);
