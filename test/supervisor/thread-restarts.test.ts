/**
 * How the supervisor restarts serving threads (issue 19, item 3), run in this
 * process with the built serving-thread module and real HTTPS listeners (as
 * thread-replacement.test.ts does), so that a thread can be made to fail for
 * real:
 * - TLS files the first replacement cannot load restart nothing;
 * - a rolling restart whose replacement cannot start (garbage at the TLS
 *   paths the threads read) stops there: nothing else restarts, nothing
 *   respawns, and a later restart leaves exactly GATEWAY_THREADS threads;
 * - threads that crash again and again (a snapshot message every new thread
 *   fails on) are replaced with a growing delay, and once the cause is gone
 *   the supervisor is back to GATEWAY_THREADS listening threads.
 * Listening threads are counted from the kernel's listening sockets.
 */
import { copyFileSync, writeFileSync } from "node:fs";
import https from "node:https";
import path from "node:path";
import { Writable } from "node:stream";
import { pino } from "pino";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { holdTlsFiles, TLS_SETTING_NAMES } from "../../src/config/tls-files.js";
import { GatewayMetrics } from "../../src/metrics/gateway-metrics.js";
import { RestartStoppedError, Supervisor, type ServingTls } from "../../src/server/supervisor.js";
import { compileTokenIndex } from "../../src/snapshot/compile-token-index.js";
import { poolsFixture, tempDir } from "../support/fixtures.js";
import { listeningSockets } from "../support/gateway-process.js";
import { makeCa, makeServerCertificate, type ServerCertificate, type TestCa } from "../support/tls-certificates.js";
import { expectBuiltThreads, supervisorOfBuiltThreads } from "../support/built-threads.js";
import { compileFile, NO_SOURCE } from "../support/compiled-chains.js";
import { fingerprintOf, servedFingerprint } from "../support/tls-certificates.js";

const THREADS = 2;
const GARBAGE_PEM = "-----BEGIN CERTIFICATE-----\nnot a certificate\n-----END CERTIFICATE-----\n";

let dir: string;
let ca: TestCa;
let first: ServerCertificate;
let second: ServerCertificate;

beforeAll(() => {
  expectBuiltThreads();
  dir = tempDir("lgw-thread-restarts-");
  ca = makeCa(dir);
  first = makeServerCertificate(ca, dir, "first");
  second = makeServerCertificate(ca, dir, "second");
});

function healthStatus(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    https
      .get({ host: "127.0.0.1", port, path: "/health", ca: ca.pem, agent: false }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode!));
      })
      .on("error", reject);
  });
}

/** A supervisor over the real serving threads, its log lines and metrics. */
interface Harness {
  supervisor: Supervisor;
  metrics: GatewayMetrics;
  port: number;
  /** Log lines, parsed. */
  logs: Array<Record<string, unknown> & { time: number }>;
  events: (event: string) => Array<Record<string, unknown> & { time: number }>;
}

let running: Harness | null = null;
afterEach(async () => {
  await running?.supervisor.stop();
  running = null;
});

async function startSupervisor(servingTls: ServingTls): Promise<Harness> {
  const logs: Harness["logs"] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString("utf8").split("\n")) if (line.trim() !== "") logs.push(JSON.parse(line));
      done();
    },
  });
  const { supervisor, metrics } = supervisorOfBuiltThreads({
    threads: THREADS,
    log: pino({ level: "debug", timestamp: () => `,"time":${Date.now()}` }, sink),
    tls: servingTls,
  });
  const port = await supervisor.start();
  running = { supervisor, metrics, port, logs, events: (event) => logs.filter((l) => l.event === event) };
  return running;
}

/** Exactly GATEWAY_THREADS threads listen: the kernel's listening sockets, the supervisor's count and the gauge. */
async function expectThreadCount(h: Harness): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (listeningSockets(h.port) !== THREADS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  for (let i = 0; i < 5; i++) {
    expect(listeningSockets(h.port)).toBe(THREADS);
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(h.supervisor.listening()).toBe(THREADS);
  expect(await h.metrics.registry.getSingleMetricAsString("gateway_serving_threads")).toMatch(
    new RegExp(`^gateway_serving_threads ${THREADS}$`, "m"),
  );
}

const threadIds = (h: Harness) =>
  h.supervisor
    .serving()
    .map((t) => t.threadId)
    .sort();

/** TLS files handed to the threads by path (as where /proc cannot name descriptors): uWS reads whatever is at the path when a thread starts. */
function byPath(cert: ServerCertificate, name: string): ServingTls & { released: () => number } {
  const certFile = path.join(dir, `${name}.pem`);
  const keyFile = path.join(dir, `${name}.key`);
  copyFileSync(cert.certFile, certFile);
  copyFileSync(cert.keyFile, keyFile);
  let released = 0;
  return { files: { certFile, keyFile }, release: () => void released++, released: () => released };
}

describe("TLS files a serving thread cannot load", () => {
  it("restart nothing: the first replacement fails, the threads and their certificate stay, the files are released", async () => {
    const held = holdTlsFiles({ certFile: first.certFile, keyFile: first.keyFile }, TLS_SETTING_NAMES);
    expect(held.pinned).toBe(true);
    const h = await startSupervisor(held);
    await expectThreadCount(h);
    const before = threadIds(h);

    // Files that pass no check, as if they had changed between the check and uWS's read.
    writeFileSync(path.join(dir, "garbage.pem"), GARBAGE_PEM);
    let released = 0;
    const outcome = await h.supervisor.replaceTls({
      files: { certFile: path.join(dir, "garbage.pem"), keyFile: first.keyFile },
      release: () => void released++,
    });
    expect(outcome.applied).toBe(false);
    expect(outcome.applied === false && outcome.reason).toMatch(/exited with code 1 before listening/);
    expect(released).toBe(1);

    await new Promise((r) => setTimeout(r, 1500));
    expect(threadIds(h)).toEqual(before);
    expect(h.events("serving-thread-exited")).toHaveLength(0);
    expect(h.events("serving-thread-replace-failed")).toHaveLength(0);
    expect(await servedFingerprint(h.port, ca.pem)).toBe(fingerprintOf(first.certFile));
    expect(await healthStatus(h.port)).toBe(200);
    await expectThreadCount(h);

    // Valid new files then apply, and the held ones are released once no thread needs them.
    const next = holdTlsFiles({ certFile: second.certFile, keyFile: second.keyFile }, TLS_SETTING_NAMES);
    expect((await h.supervisor.replaceTls(next)).applied).toBe(true);
    expect(await servedFingerprint(h.port, ca.pem)).toBe(fingerprintOf(second.certFile));
    expect(threadIds(h).some((id) => before.includes(id))).toBe(false);
    await expectThreadCount(h);
  });

  it("a rolling restart with garbage at the paths stops at the first replacement: nothing else restarts, nothing respawns; a later restart leaves exactly GATEWAY_THREADS", async () => {
    const files = byPath(first, "live");
    const h = await startSupervisor(files);
    await expectThreadCount(h);
    const before = threadIds(h);

    writeFileSync(files.files.certFile, GARBAGE_PEM);
    const error = await h.supervisor.restartThreads().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RestartStoppedError);
    expect((error as RestartStoppedError).replaced).toBe(0);
    // Several restarts asked for: each stops the same way.
    for (let i = 0; i < 3; i++) await expect(h.supervisor.restartThreads()).rejects.toBeInstanceOf(RestartStoppedError);

    await new Promise((r) => setTimeout(r, 2000));
    expect(threadIds(h)).toEqual(before);
    expect(h.events("serving-thread-exited")).toHaveLength(0);
    expect(h.events("serving-thread-replaced")).toHaveLength(0);
    expect(await h.metrics.registry.getSingleMetricAsString("gateway_serving_thread_restarts_total")).toMatch(/ 0$/m);
    expect(await servedFingerprint(h.port, ca.pem)).toBe(fingerprintOf(first.certFile));
    await expectThreadCount(h);

    // A valid renewal at the paths: the next restart replaces every thread, and no more than that.
    copyFileSync(second.keyFile, files.files.keyFile);
    copyFileSync(second.certFile, files.files.certFile);
    await h.supervisor.restartThreads();
    expect(await servedFingerprint(h.port, ca.pem)).toBe(fingerprintOf(second.certFile));
    expect(threadIds(h).some((id) => before.includes(id))).toBe(false);
    await expectThreadCount(h);
    await h.supervisor.stop();
    expect(files.released()).toBe(1);
    running = null;
  });
});

describe("a thread that crashes again and again", () => {
  it("is replaced with a growing delay (no CPU spin); once the cause is gone, GATEWAY_THREADS threads listen again", async () => {
    const h = await startSupervisor(holdTlsFiles({ certFile: first.certFile, keyFile: first.keyFile }, TLS_SETTING_NAMES));
    await expectThreadCount(h);

    // A real fault every thread meets: a snapshot message without data (each new thread is given it too).
    h.supervisor.publishSnapshot({ type: "snapshot", version: 43, slot: 1, chainIds: null, chains: null, tokenIndex: null } as never, {
      retired: [],
      poolsReleased: [],
    });
    const watchMs = 6000;
    await new Promise((r) => setTimeout(r, watchMs));
    const exits = h.events("serving-thread-exited");
    // Without a back-off each thread comes back within a few hundred ms and dies again: dozens of exits.
    expect(exits.length).toBeGreaterThanOrEqual(3);
    expect(exits.length).toBeLessThanOrEqual(10);
    const delays = exits.map((e) => Number(e.retryInMs));
    expect(delays[0]).toBe(0);
    for (let i = 1; i < delays.length; i++) expect(delays[i]).toBeGreaterThanOrEqual(delays[i - 1]!);
    expect(delays.at(-1)).toBeGreaterThanOrEqual(1000);

    // The cause goes: the bad version is retired and a good one published. The pending replacement then holds.
    const file = poolsFixture()[0]!;
    const chain = compileFile(file, { ...NO_SOURCE, file: "chain.msgpack", fileBytes: 1 });
    const tokenIndex = compileTokenIndex([{ chainId: chain.info.chainId, tokens: chain.tokens }]);
    h.supervisor.publishSnapshot(
      { type: "snapshot", version: 44, slot: 2, chainIds: [chain.info.chainId], chains: [chain], tokenIndex },
      { retired: [43], poolsReleased: [] },
    );
    h.supervisor.markReady();
    const deadline = Date.now() + 40_000;
    while (h.supervisor.listening() < THREADS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    await expectThreadCount(h);
    expect(await healthStatus(h.port)).toBe(200);
    const crashed = h.events("serving-thread-exited").length;
    await new Promise((r) => setTimeout(r, 1000));
    expect(h.events("serving-thread-exited")).toHaveLength(crashed);
  }, 90_000);
});
