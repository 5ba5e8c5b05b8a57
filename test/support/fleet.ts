/**
 * Fleet test helpers: generations of small chain files a test can tell apart, publishing them (in process, or
 * through the real `liquidity-gateway publish`), instances that pull from an origin, and reading their origin
 * status.
 */
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { ChainId } from "../../src/chains/chains.js";
import type { SnapshotFile } from "../../src/api/snapshot-format.js";
import { createOriginWriter } from "../../src/origin/origin-writer.js";
import { parseOriginLocation } from "../../src/origin/origin-location.js";
import { publish, type PublishResult } from "../../src/origin/publish.js";
import { FILE_LIMITS } from "../../src/util/operator-file.js";
import type { KeyObject } from "node:crypto";
import {
  addr,
  BIG_RATE_LIMIT,
  chainFile,
  KEYS,
  NATIVE_ADDRESS,
  nativeToken,
  packSnapshot,
  poolToken,
  protocol,
  sha256,
  standardKeys,
  tempDir,
  token,
  v2Pool,
  type TestKey,
} from "./fixtures.js";
import { MAIN_JS, PROJECT_ROOT, request, startGateway, waitFor, type Gateway } from "./gateway-process.js";

export const FLEET_KEY = "lgw_test_fleet_0123456789abcdef";
export const POOL = addr("abc1");
export const TOKEN = addr("1001");
/** generatedAt of generation 1's files; each generation is a minute later. */
export const BASE_GENERATED_AT = Math.floor(Date.now() / 1000) - 3600;

/** The standard keys and an operator's key for the fleet view. */
export function fleetKeys(): TestKey[] {
  return [...standardKeys(), { id: "test-fleet", key: FLEET_KEY, status: "active", routes: ["fleet"], rateLimit: BIG_RATE_LIMIT }];
}

/** The keys file's JSON (keys-file.md), as the gateway reads it. */
export function keysJson(keys: TestKey[] = fleetKeys()): string {
  return JSON.stringify({
    keys: keys.map((k) => ({
      id: k.id,
      name: `Test key ${k.id}`,
      sha256: sha256(k.key),
      status: k.status ?? "active",
      ...(k.expiresAt ? { expiresAt: k.expiresAt } : {}),
      ...(k.rateLimit ? { rateLimit: k.rateLimit } : {}),
      ...(k.routes ? { routes: k.routes } : {}),
    })),
  });
}

/** A chain file whose token's symbol names the generation (`G<n>`): a served generation shows in GET /v1/tokens/{chain}/{token}. */
export function generationChain(chainId: ChainId, generation: number, extraTokens = 0): SnapshotFile {
  const tokens = [nativeToken(chainId, { trackedTotalValuePooledUsd: 10 }), token(chainId, { address: TOKEN, symbol: `G${generation}` })];
  for (let i = 0; i < extraTokens; i++) tokens.push(token(chainId, { address: addr(`f${i.toString(16)}`), symbol: `X${i}` }));
  return chainFile(chainId, {
    generatedAt: BASE_GENERATED_AT + generation * 60,
    protocols: [protocol("p")],
    tokens,
    pools: [v2Pool({ address: POOL, protocolId: "p", tokens: [poolToken(NATIVE_ADDRESS, 1, 2), poolToken(TOKEN, 3, 4)] })],
  });
}

export interface GenerationFiles {
  readonly chains: readonly ChainId[];
  /** The generation number each chain's file names (default: `generation`). */
  readonly chainGenerations?: Partial<Record<ChainId, number>>;
  readonly keys?: string;
  readonly baskets?: unknown;
  /** Raw bytes to write as a chain file instead (a file the build rejects). */
  readonly raw?: Partial<Record<ChainId, Buffer>>;
}

/** Writes a generation's operator files into `dir` (emptied first). */
export function writeGeneration(dir: string, generation: number, files: GenerationFiles): string {
  mkdirSync(dir, { recursive: true });
  for (const name of readdirSync(dir)) rmSync(path.join(dir, name), { recursive: true, force: true });
  for (const chainId of files.chains) {
    const bytes = files.raw?.[chainId] ?? packSnapshot(generationChain(chainId, files.chainGenerations?.[chainId] ?? generation));
    writeFileSync(path.join(dir, `chain-${chainId}.msgpack`), bytes);
  }
  if (files.keys !== undefined) writeFileSync(path.join(dir, "keys.json"), files.keys);
  if (files.baskets !== undefined) writeFileSync(path.join(dir, "baskets.json"), JSON.stringify(files.baskets));
  return dir;
}

/** Publishes `from` to a file: origin in process (src/origin/publish.ts). */
export async function publishDir(
  from: string,
  to: string,
  options: { sign?: { key: KeyObject; keyId: string }; expiresInSeconds?: number; now?: () => number; ca?: string } = {},
): Promise<PublishResult> {
  const location = parseOriginLocation(to.startsWith("/") ? `file:${to}` : to, true);
  const writer = createOriginWriter(location, {
    timeoutMs: 10_000,
    s3: { endpoint: undefined, region: "us-east-1", forcePathStyle: false },
    env: {},
    ...(options.ca === undefined ? {} : { ca: options.ca }),
  });
  try {
    return await publish({
      from,
      basketsFile: null,
      keysFile: null,
      writer,
      sign: options.sign ?? null,
      expiresInSeconds: options.expiresInSeconds ?? null,
      prune: null,
      limits: { chain: FILE_LIMITS.snapshot.maxBytes, baskets: FILE_LIMITS.baskets.maxBytes, keys: FILE_LIMITS.keys.maxBytes },
      now: options.now ?? Date.now,
      poke: null,
      say: () => {},
    });
  } finally {
    writer.close();
  }
}

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the built `liquidity-gateway publish` with these arguments. */
export function runPublish(args: readonly string[], env: Record<string, string> = {}): Promise<CliRun> {
  const child = spawn(process.execPath, [MAIN_JS, "publish", ...args], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
  child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

export interface Instance extends Gateway {
  readonly snapshotDir: string;
  readonly keysFile: string;
}

/** The settings of an instance pulling from `origin`, polling every 0.2-0.4 s, one serving thread. */
export function originEnv(origin: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    SNAPSHOT_ORIGIN: origin,
    ORIGIN_POLL_MIN_S: "0.2",
    ORIGIN_POLL_MAX_S: "0.4",
    ORIGIN_TIMEOUT_S: "2",
    GATEWAY_THREADS: "1",
    BUILD_START_WORKERS: "1",
    LOG_LEVEL: "info",
    ...extra,
  };
}

/** An instance pulling from `origin`; its keys file is written unless `keys` is null (then the origin must bring it). */
export async function startInstance(
  origin: string,
  options: { env?: Record<string, string>; snapshotDir?: string; keys?: string | null } = {},
): Promise<Instance> {
  const snapshotDir = options.snapshotDir ?? tempDir("lgw-fleet-dir-");
  const keysDir = tempDir("lgw-fleet-keys-");
  const keysFile = path.join(keysDir, "keys.json");
  if (options.keys !== null) writeFileSync(keysFile, options.keys ?? keysJson());
  const gw = await startGateway({ snapshotDir, keysFile, env: originEnv(origin, options.env) });
  return Object.assign(gw, { snapshotDir, keysFile });
}

/** `origin` of GET /v1/status (undefined while nothing serves: the route is then 503). */
export async function originOf(gw: Gateway): Promise<any> {
  const res = await request(gw.baseUrl, "/v1/status", { key: KEYS.active });
  return res.status === 200 ? res.body.data.origin : undefined;
}

/** The symbol of the generation token a chain serves (`G<n>`), or null. */
export async function servedSymbol(gw: Gateway, chainId: ChainId): Promise<string | null> {
  const res = await request(gw.baseUrl, `/v1/tokens/${chainId}/${TOKEN}`, { key: KEYS.active });
  return res.status === 200 ? res.body.data.token.symbol : null;
}

/** Waits until the instance serves generation `generation` of the origin (status) and its files (chain data). */
export async function waitForGeneration(gw: Gateway, generation: number, timeoutMs = 20_000): Promise<any> {
  return waitFor(
    `generation ${generation} on ${gw.baseUrl}`,
    async () => {
      const origin = await originOf(gw);
      return origin?.generation === generation ? origin : undefined;
    },
    timeoutMs,
  );
}

/** Waits until the instance's origin status satisfies `test`. */
export function waitForOrigin(gw: Gateway, what: string, test: (origin: any) => boolean, timeoutMs = 20_000): Promise<any> {
  return waitFor(
    what,
    async () => {
      const origin = await originOf(gw);
      return origin !== undefined && origin !== null && test(origin) ? origin : undefined;
    },
    timeoutMs,
  );
}
