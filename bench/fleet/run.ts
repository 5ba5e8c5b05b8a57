/**
 * The fleet benchmark (issue 29, Performance): `npm run bench:fleet [-- [--generations N] [--unpoked M]
 * [--idle S] [--poll-min S] [--poll-max S] [--no-summary]]`. Run it through the bench lock (cpu-exclusive).
 *
 *   1. One gateway (1 thread, no origin) on a copy of the bundled sample: N generations of the largest chain
 *      renamed into its directory, rename → its /ready version changed (the local push, the yardstick).
 *   2. An nginx origin (bench/targets/nginx.ts), Redis, and 3 instances (1 thread each, empty directories)
 *      pulling from it: the same N generations published with the poke, then M without it; publish start →
 *      the last instance serving it.
 *   3. The fleet idle for S seconds: polls by result and bytes received per instance.
 * Peak RSS growth of the local gateway and of each instance over the generations. Writes
 * bench/results/fleet-<timestamp>.json and the "fleet" section of bench/RESULTS.md. Every process it starts
 * is stopped at the end, also on failure.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { pack, unpack } from "msgpackr";
import type { SnapshotFile } from "../../src/api/snapshot-format.js";
import { PROJECT_ROOT } from "../../src/config/config.js";
import { sendPoke } from "../../src/origin/fleet-view.js";
import { parseOriginLocation } from "../../src/origin/origin-location.js";
import { createOriginWriter } from "../../src/origin/origin-writer.js";
import { publish } from "../../src/origin/publish.js";
import { FILE_LIMITS } from "../../src/util/operator-file.js";
import { integerOption, readArgs } from "../shared/command-line.js";
import { benchMachine, log, onCleanup, publishResults, round, runBench } from "../shared/entry.js";
import { clearPeakRss, readMemory } from "../shared/rss.js";
import { readiness, startGateway, writeBenchKey, type RunningGateway } from "../targets/gateway.js";
import { findNginx, openForNginxWorkers, originServer, runNginx, type NginxServer } from "../targets/nginx.js";
import { REDIS_SERVER_BINARY, startBenchRedis } from "../targets/redis-server.js";
import { lastServed, renderSection, SECTION_ID, verdicts, type FleetResults, type GenerationRun, type IdleInstance } from "./summary.js";

const USAGE = `usage: npm run bench:fleet -- [--generations N] [--unpoked M] [--idle S] [--poll-min S] [--poll-max S] [--no-summary]
  --generations N  generations published with the poke (and pushed locally) (default 10)
  --unpoked M      generations published without the poke afterwards (default 3)
  --idle S         seconds the fleet stays idle while its polls are counted (default 40)
  --poll-min S     ORIGIN_POLL_MIN_S of the instances (default 10, the gateway's default)
  --poll-max S     ORIGIN_POLL_MAX_S (default 20)
  --no-summary     do not rewrite the fleet section of bench/RESULTS.md`;

const INSTANCES = 3;
const CHANGED_POOLS = 100;
const SERVE_TIMEOUT_MS = 120_000;

interface Args {
  generations: number;
  unpoked: number;
  idleS: number;
  pollMinS: number;
  pollMaxS: number;
  summary: boolean;
}

function readOptions(argv: readonly string[]): Args {
  const text = { type: "string" } as const;
  const values = readArgs(
    argv,
    {
      generations: text,
      unpoked: text,
      idle: text,
      "poll-min": text,
      "poll-max": text,
      "no-summary": { type: "boolean" },
    },
    USAGE,
  );
  const pollMinS = integerOption("--poll-min", values["poll-min"], 1, 3600) ?? 10;
  const pollMaxS = integerOption("--poll-max", values["poll-max"], pollMinS, 3600) ?? Math.max(20, pollMinS);
  return {
    generations: integerOption("--generations", values.generations, 1, 100) ?? 10,
    unpoked: integerOption("--unpoked", values.unpoked, 0, 100) ?? 3,
    idleS: integerOption("--idle", values.idle, 1, 3600) ?? 40,
    pollMinS,
    pollMaxS,
    summary: !(values["no-summary"] ?? false),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

interface Largest {
  readonly chainId: number;
  readonly name: string;
  readonly file: SnapshotFile;
  readonly bytes: number;
}

/** The sample's largest chain (by pool count). */
function largestChain(sample: string): Largest {
  let best: Largest | null = null;
  for (const name of readdirSync(sample)) {
    const match = /^chain-(\d+)\.msgpack$/.exec(name);
    if (match === null) continue;
    const file = unpack(readFileSync(join(sample, name))) as SnapshotFile;
    if (best === null || file.pools.length > best.file.pools.length)
      best = { chainId: Number(match[1]), name, file, bytes: statSync(join(sample, name)).size };
  }
  if (best === null) throw new Error(`no chain file in ${sample}`);
  return best;
}

/** Generation `v` of the chain: generatedAt + v, the first pools' 24 h volume moved. */
function generationBytes(chain: Largest, v: number): Buffer {
  const file = structuredClone(chain.file);
  file.generatedAt = chain.file.generatedAt + v;
  for (let i = 0; i < Math.min(CHANGED_POOLS, file.pools.length); i++) {
    const stats = file.pools[i].stats.stats24h;
    stats.swapVolumeUsd = Math.round((stats.swapVolumeUsd + v * 0.01) * 100) / 100;
  }
  return pack(file);
}

async function versionOf(gw: RunningGateway): Promise<string | null> {
  return (await readiness(gw.baseUrl))?.version ?? null;
}

/** Polls /ready of each gateway until its version differs from `before`; ms after `t0` per gateway. */
async function servedAfter(gateways: readonly RunningGateway[], before: readonly (string | null)[], t0: number): Promise<number[]> {
  const out: number[] = gateways.map(() => NaN);
  const deadline = performance.now() + SERVE_TIMEOUT_MS;
  while (out.some(Number.isNaN)) {
    if (performance.now() > deadline) throw new Error(`not every instance served the generation within ${SERVE_TIMEOUT_MS} ms`);
    await Promise.all(
      gateways.map(async (gw, i) => {
        if (!Number.isNaN(out[i])) return;
        const version = await versionOf(gw);
        if (version !== null && version !== before[i]) out[i] = performance.now() - t0;
      }),
    );
    await sleep(20);
  }
  return out;
}

function writeAtomically(path: string, bytes: Buffer): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, bytes);
  renameSync(tmp, path);
}

/** Counters of /metrics: polls by result and bytes received. */
async function originCounters(gw: RunningGateway): Promise<{ polls: Record<string, number>; bytes: number }> {
  const text = await (await fetch(`${gw.baseUrl}/metrics`)).text();
  const polls: Record<string, number> = {};
  for (const m of text.matchAll(/^gateway_origin_polls_total\{result="([a-z_]+)"\} (\S+)/gm)) polls[m[1]] = Number(m[2]);
  const bytes = Number(/^gateway_origin_bytes_total (\S+)/m.exec(text)?.[1] ?? NaN);
  return { polls, bytes };
}

/** RSS now (and the peak reset to it). */
function resetPeak(gw: RunningGateway): number {
  clearPeakRss(gw.child.pid);
  return readMemory(gw.child.pid)?.rssBytes ?? NaN;
}

const peakOf = (gw: RunningGateway) => readMemory(gw.child.pid)?.peakRssBytes ?? NaN;

function versionText(binary: string, args: string[]): string {
  const run = spawnSync(binary, args, { encoding: "utf8" });
  return `${run.stdout}${run.stderr}`.trim().split("\n")[0] ?? "unknown";
}

async function main(): Promise<void> {
  const args = readOptions(process.argv.slice(2));
  const started = Date.now();
  const startedAt = new Date(started).toISOString();
  const machine = benchMachine();
  const sample = join(PROJECT_ROOT, "snapshots");
  const chain = largestChain(sample);
  const total = args.generations + args.unpoked;
  log(`largest chain ${chain.chainId}: ${chain.file.pools.length} pools, ${chain.bytes} bytes; preparing ${total} generations`);
  const generations = Array.from({ length: total }, (_, i) => generationBytes(chain, i + 1));
  const key = writeBenchKey();

  // 1. The local push.
  const localDir = tempDir("lgw-bench-fleet-local-");
  for (const name of readdirSync(sample)) copyFileSync(join(sample, name), join(localDir, name));
  const local = await startGateway({ snapshotDir: localDir, keysFile: key.file, threads: 1, timeoutMs: 120_000, name: "local" });
  await sleep(1000);
  const localRss = resetPeak(local);
  const localPushMs: number[] = [];
  for (let g = 0; g < args.generations; g++) {
    const before = await versionOf(local);
    const t0 = performance.now();
    writeAtomically(join(localDir, chain.name), generations[g]);
    localPushMs.push((await servedAfter([local], [before], t0))[0]);
    log(`local push ${g + 1}: ${round(localPushMs.at(-1)!, 0)} ms`);
    await sleep(500);
  }
  const localPeakGrowthBytes = peakOf(local) - localRss;
  await local.child.stop();

  // 2. The fleet.
  const root = tempDir("lgw-bench-fleet-origin-");
  openForNginxWorkers(root); // nginx's workers run as nobody when the bench runs as root
  const source = tempDir("lgw-bench-fleet-source-");
  for (const name of readdirSync(sample)) copyFileSync(join(sample, name), join(source, name));
  const originDir = join(root, "o");
  const redis = await startBenchRedis(null);
  let nginx: NginxServer | null = null;
  onCleanup(() => {
    if (nginx !== null) process.kill(nginx.pid, "SIGTERM"); // the master stops its workers
  });
  const writer = createOriginWriter(parseOriginLocation(`file:${originDir}`, true), {
    timeoutMs: 30_000,
    s3: { endpoint: undefined, region: "us-east-1", forcePathStyle: false },
    env: {},
  });
  const publishOnce = (poke: boolean) =>
    publish({
      from: source,
      basketsFile: null,
      keysFile: null,
      writer,
      sign: null,
      expiresInSeconds: null,
      prune: null,
      limits: { chain: FILE_LIMITS.snapshot.maxBytes, baskets: FILE_LIMITS.baskets.maxBytes, keys: FILE_LIMITS.keys.maxBytes },
      now: Date.now,
      poke: poke ? (generation: number) => sendPoke(redis.url, "lgw", generation, 2000) : null,
      say: () => {},
    });
  try {
    await publishOnce(false);
    nginx = await runNginx(originServer({ root }));
    const env = {
      SNAPSHOT_ORIGIN: `http://127.0.0.1:${nginx.port}/o/`,
      ORIGIN_POLL_MIN_S: String(args.pollMinS),
      ORIGIN_POLL_MAX_S: String(args.pollMaxS),
      QUOTA_STORE: "redis",
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: "lgw",
    };
    const instances: RunningGateway[] = [];
    for (let i = 0; i < INSTANCES; i++)
      instances.push(
        await startGateway({
          snapshotDir: tempDir("lgw-bench-fleet-instance-"),
          keysFile: key.file,
          threads: 1,
          timeoutMs: 120_000,
          name: `instance-${i + 1}`,
          env: { ...env, INSTANCE_ID: `bench-${i + 1}` },
        }),
      );
    await sleep(1000);
    const instanceRss = instances.map(resetPeak);
    const runs: GenerationRun[] = [];
    for (let g = 0; g < total; g++) {
      const poke = g < args.generations;
      const before = await Promise.all(instances.map(versionOf));
      writeFileSync(join(source, chain.name), generations[g]);
      const t0 = performance.now();
      const result = await publishOnce(poke);
      const publishMs = performance.now() - t0;
      const servedMs = await servedAfter(instances, before, t0);
      const versions = new Set(await Promise.all(instances.map(versionOf)));
      runs.push({ generation: result.generation, poke, publishMs, servedMs, sameVersion: versions.size === 1 });
      log(
        `generation ${result.generation} (${poke ? "poke" : "no poke"}): publish ${round(publishMs, 0)} ms, served after ${servedMs.map((x) => round(x, 0)).join(", ")} ms`,
      );
      await sleep(500);
    }
    const instancePeakGrowthBytes = instances.map((gw, i) => peakOf(gw) - instanceRss[i]);

    // 3. Idle.
    log(`idle for ${args.idleS} s`);
    const before = await Promise.all(instances.map(originCounters));
    await sleep(args.idleS * 1000);
    const after = await Promise.all(instances.map(originCounters));
    const idle: IdleInstance[] = after.map((a, i) => ({
      polls: Object.fromEntries(Object.entries(a.polls).map(([result, n]) => [result, n - (before[i].polls[result] ?? 0)])),
      bytes: a.bytes - before[i].bytes,
    }));
    for (const gw of instances) await gw.child.stop();

    machine.loadAverageEnd = loadavg().map((x) => round(x, 2));
    const results: FleetResults = {
      startedAt,
      durationS: (Date.now() - started) / 1000,
      machine,
      setup: {
        instances: INSTANCES,
        threadsPerInstance: 1,
        chainId: chain.chainId,
        chainFileBytes: chain.bytes,
        chainPools: chain.file.pools.length,
        changedPoolsPerGeneration: Math.min(CHANGED_POOLS, chain.file.pools.length),
        pollMinS: args.pollMinS,
        pollMaxS: args.pollMaxS,
        nginx: versionText(findNginx(), ["-v"]),
        redis: versionText(REDIS_SERVER_BINARY, ["--version"]).split(" ").slice(0, 3).join(" "),
      },
      localPushMs,
      generations: runs,
      idle: { windowS: args.idleS, instances: idle },
      memory: { localPeakGrowthBytes, instancePeakGrowthBytes },
    };
    const v = verdicts(results);
    log(
      `local p99 ${round(v.local.p99, 0)} ms; poked p99 ${round(v.poked.p99, 0)} ms (target ${round(v.pokeTargetMs, 0)}); unpoked max ${round(v.unpoked.max, 0)} ms; last served ${runs
        .map(lastServed)
        .map((x) => round(x, 0))
        .join(" ")}`,
    );
    publishResults("fleet", SECTION_ID, results, (json) => renderSection(results, json), args.summary);
  } finally {
    writer.close();
    await nginx?.stop();
    nginx = null;
    await redis.child.stop();
  }
}

runBench(main);
