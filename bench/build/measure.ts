/**
 * Snapshot build figures:
 * - `profileBuild(dir)`: in a child process, plain msgpackr decoding of each
 *   file (read + unpack, the reference the rebuild is compared with), then the
 *   gateway's own phases on one thread: decode + validate + defaults, compile
 *   of each chain, the cross-chain token index;
 * - `measureRebuilds(...)`: on a running gateway, the time from re-pushing every
 *   chain file (new generatedAt; copy under a temporary name, then rename) to
 *   the new snapshot serving, idle and then under load on the pool route, with
 *   the route's latency during the rebuild and swap against a run without one,
 *   and the process's peak RSS (VmHWM, reset just before the push) during the
 *   loaded re-push against its steady RSS just before it.
 */
import { createHash } from "node:crypto";
import { fork } from "node:child_process";
import { closeSync, copyFileSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { epochMs, type LoadResult } from "./load.js";
import { runWrk, startWrk, type RunningWrk, type WrkBinary, type WrkResult, type WrkSpec } from "../shared/wrk.js";
import { readMachineBusySeconds, readProcessCpu } from "../shared/proc-stat.js";
import { BenchChild } from "../shared/child.js";
import { buildDurations, waitForVersion, type RunningGateway } from "../targets/gateway.js";
import { clearPeakRss, readMemory } from "../shared/rss.js";
import { snapshotVersion, versionHex } from "../../src/api/snapshot-version.js";
import type { ChainId } from "../../src/chains/chains.js";
import { parseArgs } from "node:util";

const THIS_FILE = fileURLToPath(import.meta.url);
const SNAPSHOT_FILE = /^chain-\d+\.msgpack$/;

export function snapshotFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => SNAPSHOT_FILE.test(name))
    .sort();
}

// ------------------------------------------------------------------ profile (child process)

export interface FileProfile {
  readonly file: string;
  readonly bytes: number;
  readonly pools: number;
  readonly tokens: number;
  readonly readMs: number;
  /** Plain `unpack` of the bytes, same msgpackr options as the gateway. */
  readonly unpackMs: number;
  /** The gateway's decode + validate + token defaults (parseSnapshotBytes). */
  readonly parseMs: number;
  /** The gateway's compile of the chain into shared columns (compileChain). */
  readonly compileMs: number;
}

export interface BuildProfile {
  readonly files: FileProfile[];
  readonly bytes: number;
  readonly pools: number;
  readonly tokenInstances: number;
  /** Read + unpack of every file, one after the other on one thread. */
  readonly plainDecodeMs: number;
  readonly unpackMs: number;
  readonly parseMs: number;
  readonly compileMs: number;
  readonly tokenIndexMs: number;
  /** parse + compile of every chain + the token index, on one thread. */
  readonly oneThreadBuildMs: number;
}

export async function profileBuild(dir: string, timeoutMs: number): Promise<BuildProfile> {
  const process_ = fork(THIS_FILE, ["--profile", dir], {
    execArgv: ["--max-old-space-size=8192"],
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  const child = new BenchChild("build profiler", process_);
  try {
    const line = await child.waitForLine((l) => typeof l.profile === "object", timeoutMs);
    return line.profile as BuildProfile;
  } finally {
    await child.stop();
  }
}

async function profileInThisProcess(dir: string): Promise<BuildProfile> {
  const { Unpackr } = await import("msgpackr");
  const { chainIdFromSnapshotFileName, parseSnapshotBytes } = await import("../../src/snapshot/read-snapshot-file.js");
  const { compileChain } = await import("../../src/snapshot/compile-chain.js");
  const { DEFAULT_TOKEN_LOGO_TEMPLATE } = await import("../../src/snapshot/normalize-token.js");
  const { compileTokenIndex } = await import("../../src/snapshot/compile-token-index.js");
  // The gateway's decoder options (src/snapshot/decode-snapshot.ts), nothing else.
  const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true, int64AsType: "auto" as "number" });
  const files: FileProfile[] = [];
  const tokens = [];
  for (const file of snapshotFiles(dir)) {
    const path = join(dir, file);
    let t = performance.now();
    const bytes = readFileSync(path);
    const readMs = performance.now() - t;
    t = performance.now();
    let decoded: unknown = unpackr.unpack(bytes);
    const unpackMs = performance.now() - t;
    decoded = null;
    t = performance.now();
    const snapshot = parseSnapshotBytes(bytes, chainIdFromSnapshotFileName(file));
    const parseMs = performance.now() - t;
    t = performance.now();
    const chain = compileChain(snapshot, {
      file,
      fileBytes: bytes.length,
      sha256: createHash("sha256").update(bytes).digest("hex"),
      fileMtimeMs: statSync(path).mtimeMs,
      logoTemplate: DEFAULT_TOKEN_LOGO_TEMPLATE,
    });
    const compileMs = performance.now() - t;
    tokens.push({ chainId: chain.info.chainId, tokens: chain.tokens, run: chain.tokenRun });
    files.push({
      file,
      bytes: bytes.length,
      pools: chain.info.poolCount,
      tokens: chain.info.tokenCount,
      readMs,
      unpackMs,
      parseMs,
      compileMs,
    });
    void decoded;
  }
  const t = performance.now();
  const index = compileTokenIndex(tokens);
  const tokenIndexMs = performance.now() - t;
  const sum = (f: (p: FileProfile) => number) => files.reduce((n, p) => n + f(p), 0);
  const parseMs = sum((p) => p.parseMs);
  const compileMs = sum((p) => p.compileMs);
  return {
    files,
    bytes: sum((p) => p.bytes),
    pools: sum((p) => p.pools),
    tokenInstances: index.instanceCount,
    plainDecodeMs: sum((p) => p.readMs + p.unpackMs),
    unpackMs: sum((p) => p.unpackMs),
    parseMs,
    compileMs,
    tokenIndexMs,
    oneThreadBuildMs: parseMs + compileMs + tokenIndexMs,
  };
}

// ------------------------------------------------------------------ re-push

const GENERATED_AT_KEY = Buffer.from("\xabgeneratedAt", "latin1");

/**
 * Copies a snapshot file to `to` with its top-level `generatedAt` (Unix
 * seconds) raised by `bump`, patched in place in the copy's header: the
 * value keeps its MessagePack width, so nothing else moves.
 */
function copyWithNewGeneratedAt(from: string, to: string, bump: number): void {
  copyFileSync(from, to);
  const fd = openSync(to, "r+");
  try {
    const head = Buffer.alloc(4096);
    const length = readSync(fd, head, 0, head.length, 0);
    const at = head.subarray(0, length).indexOf(GENERATED_AT_KEY);
    if (at < 0) throw new Error(`${from}: no generatedAt in the first ${length} bytes`);
    const valueAt = at + GENERATED_AT_KEY.length;
    const type = head[valueAt];
    const value = Buffer.alloc(9);
    value[0] = type;
    if (type === 0xce) value.writeUInt32BE(head.readUInt32BE(valueAt + 1) + bump, 1);
    else if (type === 0xcf) value.writeBigUInt64BE(head.readBigUInt64BE(valueAt + 1) + BigInt(bump), 1);
    else if (type === 0xd3) value.writeBigInt64BE(head.readBigInt64BE(valueAt + 1) + BigInt(bump), 1);
    else if (type === 0xd2) value.writeInt32BE(head.readInt32BE(valueAt + 1) + bump, 1);
    else throw new Error(`${from}: generatedAt has MessagePack type 0x${type.toString(16)}, which this bench does not patch`);
    const width = type === 0xce || type === 0xd2 ? 5 : 9;
    writeSync(fd, value, 0, width, valueAt);
  } finally {
    closeSync(fd);
  }
}

/** Every chain file of `dir` copied under a temporary name with a newer generatedAt, ready to rename over the live names. */
export class PreparedPush {
  private readonly pending: Array<{ tmp: string; live: string }>;
  /**
   * The version the gateway serves once every copy is served (versions derive
   * from the files' bytes): a re-push is served in batches, so the first new
   * version is not the end of it.
   */
  readonly finalVersion: string;

  /** @param only the file names to re-push (default every chain file); the others stay as they are. */
  constructor(dir: string, only: readonly string[] | null = null) {
    const contents: Array<{ chainId: ChainId; sha256: string }> = [];
    this.pending = [];
    for (const name of snapshotFiles(dir)) {
      const live = join(dir, name);
      const chainId = Number(/\d+/.exec(name)![0]) as ChainId;
      if (only !== null && !only.includes(name)) {
        contents.push({ chainId, sha256: createHash("sha256").update(readFileSync(live)).digest("hex") });
        continue;
      }
      const tmp = join(dir, `.${name}.bench-tmp`);
      copyWithNewGeneratedAt(live, tmp, 1);
      contents.push({ chainId, sha256: createHash("sha256").update(readFileSync(tmp)).digest("hex") });
      this.pending.push({ tmp, live });
    }
    this.finalVersion = versionHex(snapshotVersion(contents));
  }

  /** Renames every copy over its live name; returns the epoch ms just before the first rename. */
  commit(): number {
    const at = epochMs();
    for (const { tmp, live } of this.pending) renameSync(tmp, live);
    this.pending.length = 0;
    return at;
  }

  discard(): void {
    for (const { tmp } of this.pending) rmSync(tmp, { force: true });
    this.pending.length = 0;
  }
}

// ------------------------------------------------------------------ rebuilds on the running gateway

export interface RebuildFigures {
  /** Re-push of every file (idle gateway) to the new version serving; includes the 250 ms watch debounce. */
  readonly idleRebuildMs: number;
  /** CPU during the idle rebuild, % of one core: the gateway process (build workers included) and every other process. */
  readonly idleRebuildCpu: { readonly gatewayPercent: number; readonly otherPercent: number };
  /** The same under load on the pool route. */
  readonly loadedRebuildMs: number;
  /** Pool route without a rebuild (same connections). */
  readonly baseline: LoadResult;
  /** Pool route over a run that contains a re-push, rebuild and swap; `window` = push to swap. */
  readonly duringSwap: LoadResult;
  /** Build-duration histogram of the gateway (/metrics) after both rebuilds. */
  readonly gatewayBuildMetrics: Record<string, { sumSeconds: number; count: number }>;
  /** Memory of the whole gateway process around the loaded re-push. */
  readonly repushMemory: RepushMemory;
  /** The largest file alone re-pushed: idle, and under the same pool-route load (its latency from push to swap). */
  readonly oneChain: OneChainRepush;
}

export interface OneChainRepush {
  readonly file: string;
  readonly idleMs: number;
  readonly loadedMs: number;
  readonly duringSwap: LoadResult;
  readonly memory: RepushMemory;
}

export interface RepushMemory {
  /** VmRSS just before the push, the build workers gone (they exit when idle). */
  readonly steadyBytes: number;
  /** VmHWM from just before the push until the last new version serves and the previous ones are released. */
  readonly peakBytes: number;
  /** VmRSS at that point. */
  readonly afterBytes: number;
  /** False when the kernel refused to reset VmHWM (the peak then covers the whole run). */
  readonly peakReset: boolean;
}

/** How long the gateway's idle build worker lives after a build (src/snapshot/build-pool.ts), plus a margin. */
const BUILD_WORKER_EXIT_MS = 12_000;
/** After the last swap: the retention grace period, its check and the threads' collections (version-retention.ts). */
const RELEASE_SETTLE_MS = 4_000;

export interface RebuildOptions {
  readonly gateway: RunningGateway;
  /** The gateway's SNAPSHOT_DIR (a scratch copy: its files get replaced). */
  readonly servingDir: string;
  /**
   * Saturating load on the pool route (wrk, as `npm run bench` runs it); its durationS is the baseline
   * duration. During a re-push it runs from the push to the swap exactly (ended by SIGINT).
   */
  readonly poolLoad: { readonly wrk: WrkBinary; readonly spec: WrkSpec };
  /** Upper bound of one rebuild. */
  readonly rebuildTimeoutMs: number;
}

/** Re-pushes `only` (every file when null) and waits until the new version serves; the ms from the push. */
async function idleRepush(options: RebuildOptions, only: readonly string[] | null): Promise<number> {
  const push = new PreparedPush(options.servingDir, only);
  const pushedAt = push.commit();
  const swapped = await waitForVersion(options.gateway.baseUrl, push.finalVersion, options.rebuildTimeoutMs);
  return swapped.at + performance.timeOrigin - pushedAt;
}

interface LoadedRepush {
  readonly ms: number;
  /** The pool route from the push to the swap. */
  readonly duringSwap: LoadResult;
  readonly memory: RepushMemory;
}

/**
 * A re-push of `only` (every file when null) under saturating load on the pool route: the connections warm
 * for a second, then the measured wrk run starts with the push and is ended at the swap, so its figures are
 * those of the build-and-swap window alone.
 */
async function loadedRepush(options: RebuildOptions, only: readonly string[] | null): Promise<LoadedRepush> {
  const { gateway } = options;
  const { wrk, spec } = options.poolLoad;
  const push = new PreparedPush(options.servingDir, only);
  await new Promise((resolve) => setTimeout(resolve, BUILD_WORKER_EXIT_MS));
  let load: RunningWrk | null = null;
  let steadyBytes = NaN;
  let peakReset = false;
  let pushedAt: number;
  try {
    await runWrk(wrk, { ...spec, durationS: 1 });
    steadyBytes = readMemory(gateway.child.pid)?.rssBytes ?? NaN;
    peakReset = clearPeakRss(gateway.child.pid);
    load = startWrk(wrk, { ...spec, durationS: Math.ceil(options.rebuildTimeoutMs / 1000) + 5 });
    pushedAt = push.commit();
  } catch (error) {
    push.discard();
    load?.stop();
    throw error;
  }
  let swapped;
  try {
    swapped = await waitForVersion(gateway.baseUrl, push.finalVersion, options.rebuildTimeoutMs);
  } catch (error) {
    load.stop();
    await load.result.catch(() => undefined);
    throw error;
  }
  load.stop();
  const swappedAt = swapped.at + performance.timeOrigin;
  const duringSwap = loadResultOf(await load.result, true);
  await new Promise((resolve) => setTimeout(resolve, RELEASE_SETTLE_MS));
  const after = readMemory(gateway.child.pid);
  return {
    ms: swappedAt - pushedAt,
    duringSwap,
    memory: { steadyBytes, peakBytes: after?.peakRssBytes ?? NaN, afterBytes: after?.rssBytes ?? NaN, peakReset },
  };
}

/**
 * A wrk run's figures in the shape the build results keep (a load generator's result); `window`: the run was
 * the window itself (started at the push, ended at the swap), so its figures are also the window's.
 */
function loadResultOf(w: WrkResult, window = false): LoadResult {
  const { connect, read, write, timeout } = w.socketErrors;
  return {
    ...(window ? { window: { responses: w.requests, durationS: w.durationS, rps: w.rps, latencyMs: w.latencyMs } } : {}),
    responses: w.requests,
    durationS: w.durationS,
    rps: w.rps,
    latencyMs: w.latencyMs,
    non2xx: w.non2xx,
    errors: connect + read + write,
    timeouts: timeout,
    statusCodes: {},
    clientCpuPercent: (w.wrkCpuSeconds / w.durationS) * 100,
    clientCpuSecondsTotal: w.wrkCpuSeconds,
  };
}

export async function measureRebuilds(options: RebuildOptions): Promise<RebuildFigures> {
  const { gateway } = options;
  // 1. Idle: re-push every file, wait for the new version.
  const gatewayCpuBefore = readProcessCpu(gateway.child.pid);
  const busyBefore = readMachineBusySeconds();
  const idleRebuildMs = await idleRepush(options, null);
  const gatewayCpuS = readProcessCpu(gateway.child.pid) - gatewayCpuBefore;
  const idleRebuildCpu = {
    gatewayPercent: Math.round((gatewayCpuS / (idleRebuildMs / 1000)) * 100),
    otherPercent: Math.max(0, Math.round(((readMachineBusySeconds() - busyBefore - gatewayCpuS) / (idleRebuildMs / 1000)) * 100)),
  };

  // 2. Idle: re-push one chain (the largest file), the build worker started anew as after a quiet spell.
  const oneFile = largestFile(options.servingDir);
  await new Promise((resolve) => setTimeout(resolve, BUILD_WORKER_EXIT_MS));
  const oneChainIdleMs = await idleRepush(options, [oneFile]);

  // 3. Baseline latency on the pool route, no rebuild.
  await runWrk(options.poolLoad.wrk, { ...options.poolLoad.spec, durationS: 1 }); // warm-up
  const baseline = loadResultOf(await runWrk(options.poolLoad.wrk, options.poolLoad.spec));

  // 4. The same load with a re-push of that one chain, then of every file.
  const oneChainLoaded = await loadedRepush(options, [oneFile]);
  const everyLoaded = await loadedRepush(options, null);
  return {
    repushMemory: everyLoaded.memory,
    idleRebuildMs,
    idleRebuildCpu,
    loadedRebuildMs: everyLoaded.ms,
    baseline,
    duringSwap: everyLoaded.duringSwap,
    oneChain: {
      file: oneFile,
      idleMs: oneChainIdleMs,
      loadedMs: oneChainLoaded.ms,
      duringSwap: oneChainLoaded.duringSwap,
      memory: oneChainLoaded.memory,
    },
    gatewayBuildMetrics: await buildDurations(gateway.baseUrl),
  };
}

function largestFile(dir: string): string {
  return snapshotFiles(dir).reduce((x, y) => (statSync(join(dir, y)).size > statSync(join(dir, x)).size ? y : x));
}

const profileDir =
  process.argv[1] === THIS_FILE && process.send ? parseArgs({ options: { profile: { type: "string" } } }).values.profile : undefined;
if (profileDir !== undefined) {
  profileInThisProcess(profileDir)
    .then((profile) => process.stdout.write(`${JSON.stringify({ profile })}\n`, () => process.exit(0)))
    .catch((error: unknown) => {
      process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
      process.exit(1);
    });
}
