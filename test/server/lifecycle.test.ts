/**
 * The snapshot lifecycle and multi-threaded serving (issue 3), over real HTTP
 * against the built gateway running two serving threads: swaps under load
 * without a failed request, every kind of bad push rejected (logged and
 * counted) while the last good data keeps serving, a page walk across several
 * swaps, thread replacement, and a clean SIGTERM under load.
 */
import { renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NATIVE_ADDRESS } from "../../src/chains/chains.js";
import type { SnapshotFile } from "../../src/api/snapshot-format.js";
import {
  addr,
  chainFile,
  KEYS,
  nativeToken,
  packSnapshot,
  poolToken,
  protocol,
  standardKeys,
  tempDir,
  token,
  v2Pool,
  writeChainFile,
  writeKeysFile,
} from "../support/fixtures.js";
import { expectSuccess, getPool, metricValue, postTokens, request, startGateway, type Gateway } from "../support/gateway-process.js";

const POOL = addr("7e57");
const T0 = 1_760_000_000;

/** A chain file whose pool's createdAtTimestamp and tokens carry the push number `n`. */
function chainAt(chainId: 1 | 8453 | 999, n: number, tokenCount = 40): SnapshotFile {
  const tokens = [
    nativeToken(chainId),
    ...Array.from({ length: tokenCount }, (_, i) =>
      token(chainId, {
        address: addr(`${chainId}${i}`.padStart(4, "0")),
        symbol: `S${i}`,
        trackedTotalValuePooledUsd: 1_000_000 + ((i * 7919 + n * 104729) % 900_000),
      }),
    ),
  ];
  return chainFile(chainId, {
    generatedAt: T0 + n,
    protocols: [protocol("swap-proto")],
    tokens,
    pools: [
      v2Pool({
        address: POOL,
        protocolId: "swap-proto",
        createdAtTimestamp: T0 + n,
        tokens: [poolToken(NATIVE_ADDRESS, 1, 2), poolToken(tokens[1]!.address, 3, 4)],
      }),
    ],
  });
}

/** Atomic push: a temporary name in the same directory, then rename over the live name. */
function push(dir: string, file: SnapshotFile): void {
  const tmp = writeChainFile(dir, file, `.chain-${file.chainId}.msgpack.${process.pid}.tmp`);
  renameSync(tmp, path.join(dir, `chain-${file.chainId}.msgpack`));
}

async function poolCreatedAt(base: string, chainId: number): Promise<number | null> {
  const res = await getPool(base, chainId, POOL, { key: KEYS.active });
  return res.status === 200 ? (res.body.data.pool.createdAtTimestamp as number) : null;
}

async function waitFor<T>(probe: () => Promise<T>, ok: (value: T) => boolean, timeoutMs: number): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  for (;;) {
    const value = await probe();
    if (ok(value) || Date.now() - started > timeoutMs) return { value, ms: Date.now() - started };
    await new Promise((r) => setTimeout(r, 20));
  }
}

interface LoadResult {
  ok: number;
  failures: string[];
}

/** `connections` client loops of pool and token-list requests until `stop()` resolves them. */
function startLoad(base: string, connections: number): { stop: () => Promise<LoadResult> } {
  let running = true;
  const result: LoadResult = { ok: 0, failures: [] };
  const loop = async (c: number) => {
    for (let i = 0; running; i++) {
      try {
        const res =
          i % 2 === 0
            ? await getPool(base, 1, POOL, { key: KEYS.active })
            : await postTokens(base, { config: { limit: 5 } }, { key: KEYS.active });
        if (res.status === 200) result.ok++;
        else result.failures.push(`connection ${c}: HTTP ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
      } catch (error) {
        result.failures.push(`connection ${c}: ${(error as Error).message} ${String((error as { cause?: unknown }).cause ?? "")}`);
      }
    }
  };
  const loops = Array.from({ length: connections }, (_, c) => loop(c));
  return {
    stop: async () => {
      running = false;
      await Promise.all(loops);
      return result;
    },
  };
}

describe("two serving threads, pushes under load", () => {
  let gw: Gateway;
  let dir: string;

  beforeAll(async () => {
    dir = tempDir("lgw-lifecycle-");
    push(dir, chainAt(1, 0));
    push(dir, chainAt(8453, 0));
    gw = await startGateway({ snapshotDir: dir, keysFile: writeKeysFile(standardKeys()), env: { GATEWAY_THREADS: "2" } });
  });

  afterAll(async () => {
    await gw?.stop();
  });

  it("replaces chain files many times under load: no failed request, each push visible within 2 s", async () => {
    const load = startLoad(gw.baseUrl, 6);
    const visibleAfter: number[] = [];
    for (let n = 1; n <= 8; n++) {
      push(dir, chainAt(1, n));
      const { value, ms } = await waitFor(
        () => poolCreatedAt(gw.baseUrl, 1),
        (v) => v === T0 + n,
        2000,
      );
      expect(value).toBe(T0 + n);
      visibleAfter.push(ms);
    }
    const result = await load.stop();
    expect(result.failures).toEqual([]);
    expect(result.ok).toBeGreaterThan(50);
    expect(Math.max(...visibleAfter)).toBeLessThanOrEqual(2000);
  });

  it("rejects every kind of bad push, logs and counts it, and keeps serving the last good data", async () => {
    const served = await poolCreatedAt(gw.baseUrl, 1);
    const before = (await request(gw.baseUrl, "/metrics")).text;
    const rejectedBefore = (reason: string) => metricValue(before, "gateway_snapshot_rejected_files_total", { reason });
    const logCount = () => gw.logs().filter((l) => l.event === "snapshot-rejected").length;
    const waitForRejection = async (reason: string, chainId: number) => {
      const { value } = await waitFor(
        async () => gw.logs().some((l) => l.event === "snapshot-rejected" && l.reason === reason && l.chainId === chainId),
        Boolean,
        3000,
      );
      expect(value, `a snapshot-rejected log line with reason ${reason} for chain ${chainId}`).toBe(true);
    };
    const startLogs = logCount();

    // Fails validation: a pool token that is not in tokens.
    const broken = chainAt(1, 100) as unknown as { pools: Array<{ tokens: Array<{ address: string }> }> };
    broken.pools[0].tokens[1].address = addr("dead");
    push(dir, broken as unknown as SnapshotFile);
    await waitForRejection("reference", 1);

    // Older than the one served.
    push(dir, chainAt(1, -5));
    await waitForRejection("out-of-order", 1);

    // A file for an unsupported chain.
    writeFileSync(path.join(dir, "chain-5.msgpack"), packSnapshot({ ...chainAt(1, 200), chainId: 5 }));
    await waitForRejection("unsupported-chain", 5);

    // A non-atomic copy: half the bytes now (rejected), the rest later (accepted on the change).
    const full = packSnapshot(chainAt(1, 300));
    writeFileSync(path.join(dir, "chain-1.msgpack"), full.subarray(0, full.length >> 1));
    await waitForRejection("decode", 1);
    expect(await poolCreatedAt(gw.baseUrl, 1)).toBe(served);
    writeFileSync(path.join(dir, "chain-1.msgpack"), full);
    expect(
      (
        await waitFor(
          () => poolCreatedAt(gw.baseUrl, 1),
          (v) => v === T0 + 300,
          3000,
        )
      ).value,
    ).toBe(T0 + 300);

    // A delete: the chain keeps its last good data.
    rmSync(path.join(dir, "chain-8453.msgpack"));
    await waitFor(async () => gw.logs().some((l) => l.event === "snapshot-file-removed" && l.chainId === 8453), Boolean, 3000);
    expect(await poolCreatedAt(gw.baseUrl, 8453)).toBe(T0);

    // A burst for several chains at once: all taken.
    push(dir, chainAt(1, 400));
    push(dir, chainAt(8453, 400));
    push(dir, chainAt(999, 400));
    for (const chainId of [1, 8453, 999]) {
      expect(
        (
          await waitFor(
            () => poolCreatedAt(gw.baseUrl, chainId),
            (v) => v === T0 + 400,
            3000,
          )
        ).value,
      ).toBe(T0 + 400);
    }

    expect(logCount() - startLogs).toBeGreaterThanOrEqual(4);
    const after = (await request(gw.baseUrl, "/metrics")).text;
    for (const reason of ["reference", "out-of-order", "unsupported-chain", "decode"]) {
      expect(metricValue(after, "gateway_snapshot_rejected_files_total", { reason }), reason).toBeGreaterThan(rejectedBefore(reason));
    }
    expect(metricValue(after, "gateway_snapshot_generated_at_seconds", { chain_id: "999" })).toBe(T0 + 400);
    expect(metricValue(after, "gateway_snapshot_pools", { chain_id: "1" })).toBe(1);
    expect(metricValue(after, "gateway_http_requests_total", { route: "pools.get", status: "200" })).toBeGreaterThan(0);
    expect(metricValue(after, "gateway_serving_threads")).toBe(2);
  });

  it("a page walk across several swaps yields each entry of its first snapshot exactly once", async () => {
    const query = { config: { limit: 3 }, filters: { chainIds: [1] } };
    const first = expectSuccess(await postTokens(gw.baseUrl, { ...query, config: { limit: 500 } }, { key: KEYS.active }));
    const expected = first.tokens.map((t: { symbol: string }) => t.symbol);
    const seen: string[] = [];
    let cursor: string | null = null;
    let page = 0;
    do {
      const body = { ...query, config: { ...query.config, cursor } };
      const res = await postTokens(gw.baseUrl, body, { key: KEYS.active });
      const data = expectSuccess(res);
      seen.push(...data.tokens.map((t: { symbol: string }) => t.symbol));
      cursor = data.nextCursor;
      if (page % 3 === 0) {
        // A new snapshot with other TVLs (so another order) while the walk goes on.
        push(dir, chainAt(1, 500 + page));
        await waitFor(
          () => poolCreatedAt(gw.baseUrl, 1),
          (v) => v === T0 + 500 + page,
          3000,
        );
      }
      page++;
    } while (cursor !== null);
    expect(page).toBeGreaterThan(6);
    expect(seen).toEqual(expected);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it("every response, success or error, carries the served snapshot's version", async () => {
    const ready = await request(gw.baseUrl, "/ready");
    const version = ready.body.version as string;
    expect(version).toMatch(/^[0-9a-f]{12}$/);
    const answers = [
      await getPool(gw.baseUrl, 1, POOL, { key: KEYS.active }),
      await getPool(gw.baseUrl, 1, addr("0bad"), { key: KEYS.active }),
      await postTokens(gw.baseUrl, { config: { limit: 0 } }, { key: KEYS.active }),
      await request(gw.baseUrl, "/v1/nowhere"),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 404, 400, 404]);
    for (const a of answers) expect(a.headers.get("x-snapshot-version")).toBe(version);
  });

  it("SIGUSR2 replaces every serving thread under load without a failed request", async () => {
    const load = startLoad(gw.baseUrl, 6);
    await new Promise((r) => setTimeout(r, 200));
    gw.process.kill("SIGUSR2");
    const { value } = await waitFor(async () => gw.logs().some((l) => l.event === "threads-restarted"), Boolean, 10_000);
    expect(value).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    const result = await load.stop();
    expect(result.failures).toEqual([]);
    expect(result.ok).toBeGreaterThan(50);
    expect(metricValue((await request(gw.baseUrl, "/metrics")).text, "gateway_serving_threads")).toBe(2);
  });
});

describe("a build worker that crashes", () => {
  it("is logged and counted, the current snapshot keeps serving, and a later good push is taken", async () => {
    const dir = tempDir("lgw-crash-");
    push(dir, chainAt(1, 0));
    const gw = await startGateway({
      snapshotDir: dir,
      keysFile: writeKeysFile(standardKeys()),
      // A heap limit the small file fits in and the pushed one does not: the worker dies out of memory.
      // The backstop schedule is pinned to once a year: a failed build is retried on each tick (next
      // test), and the default minute tick falling inside this test's window made it count 2 (CI, stop 24).
      env: { GATEWAY_THREADS: "1", BUILD_WORKER_MAX_MB: "24", REBUILD_CRON: "0 0 1 1 *" },
    });
    try {
      expect(await poolCreatedAt(gw.baseUrl, 1)).toBe(T0);
      push(dir, chainAt(1, 1, 150_000));
      const { value: failed } = await waitFor(
        async () => gw.logs().filter((l) => l.event === "build-failed").length,
        (n) => n > 0,
        20_000,
      );
      expect(failed).toBe(1);
      expect(await poolCreatedAt(gw.baseUrl, 1)).toBe(T0);
      const metrics = (await request(gw.baseUrl, "/metrics")).text;
      expect(metrics).toMatch(/^gateway_snapshot_build_failures_total 1$/m);
      // Not rebuilt again until the file changes or the schedule ticks. (A hot retry loop was seen,
      // and fixed, with a 48 MB generated file; this small fixture does not provoke it, so this
      // assertion guards the rule rather than reproducing that case.)
      await new Promise((r) => setTimeout(r, 2000));
      expect(gw.logs().filter((l) => l.event === "build-failed").length).toBe(1);
      // A good push afterwards is taken.
      push(dir, chainAt(1, 2));
      expect(
        (
          await waitFor(
            () => poolCreatedAt(gw.baseUrl, 1),
            (v) => v === T0 + 2,
            5000,
          )
        ).value,
      ).toBe(T0 + 2);
    } finally {
      await gw.stop();
    }
  });
});

describe("a build that crashed", () => {
  it("is tried again on the next REBUILD_CRON tick, though the file did not change", async () => {
    const dir = tempDir("lgw-crash-tick-");
    push(dir, chainAt(1, 0));
    const gw = await startGateway({
      snapshotDir: dir,
      keysFile: writeKeysFile(standardKeys()),
      // node-cron's six-field form: a tick every 3 seconds.
      env: { GATEWAY_THREADS: "1", BUILD_WORKER_MAX_MB: "24", REBUILD_CRON: "*/3 * * * * *" },
    });
    try {
      push(dir, chainAt(1, 1, 150_000));
      const { value: failed } = await waitFor(
        async () => gw.logs().filter((l) => l.event === "build-failed").length,
        (n) => n >= 2,
        30_000,
      );
      expect(failed).toBeGreaterThanOrEqual(2);
      // Every attempt was of the same file, and the first snapshot is still served.
      const files = new Set(
        gw
          .logs()
          .filter((l) => l.event === "build-failed")
          .map((l) => l.file),
      );
      expect(files.size).toBe(1);
      expect(await poolCreatedAt(gw.baseUrl, 1)).toBe(T0);
    } finally {
      await gw.stop();
    }
  });
});

describe("shutdown", () => {
  it("SIGTERM under load: in-flight requests complete, new connections are refused, exit 0 within 5 s", async () => {
    const dir = tempDir("lgw-shutdown-");
    push(dir, chainAt(1, 0));
    const gw = await startGateway({ snapshotDir: dir, keysFile: writeKeysFile(standardKeys()), env: { GATEWAY_THREADS: "2" } });
    const load = startLoad(gw.baseUrl, 6);
    await new Promise((r) => setTimeout(r, 300));
    const started = Date.now();
    const exited = new Promise<number | null>((resolve) => gw.process.once("exit", (code) => resolve(code)));
    gw.process.kill("SIGTERM");
    const code = await exited;
    const elapsed = Date.now() - started;
    const result = await load.stop();
    expect(code).toBe(0);
    expect(elapsed).toBeLessThan(5000);
    expect(result.ok).toBeGreaterThan(20);
    // Once the listen sockets close, a client can only fail to connect; nothing is cut off mid-response.
    const cutOff = result.failures.filter((f) => !/ECONNREFUSED/.test(f));
    expect(cutOff).toEqual([]);
    expect(gw.logs().some((l) => l.event === "stopped")).toBe(true);
  });
});
