/**
 * A serving thread that dies is replaced (issue 3). The supervisor runs in
 * this process (with the built serving-thread module) so the test can make
 * one thread fail for real: it receives a malformed snapshot message, throws,
 * closes its sockets and exits; the port keeps answering and a replacement
 * serving the current snapshot takes its place.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import http from "node:http";
import { pino } from "pino";
import { KEYS, poolsFixture } from "../support/fixtures.js";
import { getPool } from "../support/gateway-process.js";
import { GatewayMetrics } from "../../src/metrics/gateway-metrics.js";
import { Supervisor } from "../../src/server/supervisor.js";
import { compileTokenIndex } from "../../src/snapshot/compile-token-index.js";
import { expectBuiltThreads, supervisorOfBuiltThreads } from "../support/built-threads.js";
import { compileFile, NO_SOURCE } from "../support/compiled-chains.js";

/**
 * GET on a new connection each time: a dead thread's open connections die with
 * it, so what must keep answering is the port, as a reconnecting client sees it.
 */
function freshGet(url: string, key: string): Promise<{ status: number; version: string | undefined }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false, headers: { authorization: `Bearer ${key}` } }, (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode!, version: res.headers["x-snapshot-version"] as string | undefined }));
      })
      .on("error", reject);
  });
}

describe("a serving thread that dies", () => {
  let supervisor: Supervisor;
  let metrics: GatewayMetrics;
  let base: string;
  let poolAddress: string;

  beforeAll(async () => {
    expectBuiltThreads();
    ({ supervisor, metrics } = supervisorOfBuiltThreads({ threads: 2, log: pino({ level: "silent" }) }));
    const port = await supervisor.start();
    base = `http://127.0.0.1:${port}`;

    const file = poolsFixture()[0]!;
    poolAddress = file.pools[0]!.address;
    const chain = compileFile(file, { ...NO_SOURCE, file: "chain.msgpack", fileBytes: 1 });
    const tokenIndex = compileTokenIndex([{ chainId: chain.info.chainId, tokens: chain.tokens }]);
    supervisor.publishSnapshot(
      { type: "snapshot", version: 42, slot: 0, chainIds: [chain.info.chainId], chains: [chain], tokenIndex },
      { retired: [], poolsReleased: [] },
    );
    supervisor.markReady();
    const deadline = Date.now() + 5000;
    while ((await getPool(base, file.chainId, poolAddress, { key: KEYS.active })).status !== 200 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
  });

  afterAll(async () => {
    await supervisor?.stop();
  });

  it("is replaced; the port keeps answering and the replacement serves the current snapshot", async () => {
    const chainId = poolsFixture()[0]!.chainId;
    const before = supervisor.serving();
    expect(before).toHaveLength(2);
    const victim = before[0]!;
    const exited = new Promise<number>((resolve) => victim.worker.once("exit", resolve));

    // A real fault: a snapshot message without data makes the thread throw.
    victim.worker.postMessage({ type: "snapshot", version: 43, slot: 1, chainIds: null, chains: null, tokenIndex: null });
    expect(await exited).toBe(1);

    // Meanwhile and after, requests succeed (the other thread holds the port).
    for (let i = 0; i < 20; i++) expect((await freshGet(`${base}/v1/pools/${chainId}/${poolAddress}`, KEYS.active)).status).toBe(200);

    const deadline = Date.now() + 5000;
    while (supervisor.serving().length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const after = supervisor.serving();
    expect(after).toHaveLength(2);
    expect(after.map((t) => t.threadId)).not.toContain(victim.threadId);
    expect(await metrics.registry.getSingleMetricAsString("gateway_serving_thread_restarts_total")).toMatch(/ 1$/m);

    // Every thread, the replacement included, answers from snapshot 42.
    const versions = new Set<string | undefined>();
    for (let i = 0; i < 40; i++) {
      const res = await freshGet(`${base}/v1/pools/${chainId}/${poolAddress}`, KEYS.active);
      expect(res.status).toBe(200);
      versions.add(res.version);
    }
    expect([...versions]).toEqual(["00000000002a"]);
  });

  it("calls a publication's whenServed once, after every thread serves it (what history waits for)", async () => {
    const file = poolsFixture()[0]!;
    const chain = compileFile(file, { ...NO_SOURCE, file: "chain.msgpack", fileBytes: 1 });
    const tokenIndex = compileTokenIndex([{ chainId: chain.info.chainId, tokens: chain.tokens }]);
    let calls = 0;
    const served = new Promise<void>((resolve) => {
      supervisor.publishSnapshot(
        { type: "snapshot", version: 44, slot: 2, chainIds: [chain.info.chainId], chains: [chain], tokenIndex },
        { retired: [], poolsReleased: [] },
        () => {
          calls++;
          resolve();
        },
      );
    });
    // Posting does not call it: the threads have not answered yet.
    expect(calls).toBe(0);
    await served;
    // By then no thread answers from the earlier version.
    const versions = new Set<string | undefined>();
    for (let i = 0; i < 40; i++) versions.add((await freshGet(`${base}/v1/pools/${file.chainId}/${poolAddress}`, KEYS.active)).version);
    expect([...versions]).toEqual(["00000000002c"]);
    await new Promise((r) => setTimeout(r, 200));
    expect(calls).toBe(1);
  });
});
