/**
 * The loader's build threads (src/snapshot/build-pool.ts): with a recording runner in place of piscina, which
 * tasks a build posts (a chain's task before its helper's, the ports each moves), the niceness cell and its
 * updates while tasks run, and when a file may build on two threads; then a tiny real piscina pool, so the
 * ports and the cell cross real threads.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { MessagePort } from "node:worker_threads";
import { pino } from "pino";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  BuildPool,
  BUSY_SERVING_LOAD,
  NICE_UPDATE_MS,
  SPLIT_FROM_BYTES,
  type BuildPoolOptions,
  type TaskRunner,
} from "../../../src/snapshot/build-pool.js";
import type {
  BuildTask,
  ChainFileInput,
  ChainTask,
  ChainTaskResult,
  EarlyTokens,
  PoolRangeTask,
} from "../../../src/snapshot/build-tasks.js";
import { tempDir } from "../../support/fixtures.js";
import type { KeptTokenIndex } from "../../../src/snapshot/compile-token-index.js";

const INPUT: ChainFileInput = {
  path: "/snapshots/chain-1.msgpack",
  logoTemplate: "https://logo/{chainId}/{address}",
  knownSha256: [],
  bounds: { maxGeneratedAt: 2_000_000_000, minGeneratedAt: null },
  maxBytes: 1 << 20,
  previous: null,
};
const KNOWN: ChainTaskResult = { status: "known", sha256: "a".repeat(64) };

/** Records every task posted; each is answered when the test settles it. */
class RecordingRunner implements TaskRunner {
  readonly posted: Array<{ task: BuildTask; transferList: MessagePort[] | undefined; niceAtPost: number }> = [];
  private readonly settle: Array<{ resolve: (v: unknown) => void; reject: (e: unknown) => void }> = [];
  destroyed = false;

  run(task: BuildTask, options?: { transferList: MessagePort[] }): Promise<unknown> {
    this.posted.push({ task, transferList: options?.transferList, niceAtPost: Atomics.load(task.nice, 0) });
    return new Promise((resolve, reject) => this.settle.push({ resolve, reject }));
  }
  answer(i: number, value: unknown): void {
    this.settle[i].resolve(value);
  }
  fail(i: number, error: Error): void {
    this.settle[i].reject(error);
  }
  async destroy(): Promise<void> {
    this.destroyed = true;
  }
}

function logs() {
  const lines: Record<string, unknown>[] = [];
  return { lines, log: pino({ level: "debug" }, { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) }) };
}

function pool(options: Partial<BuildPoolOptions> = {}, runner = new RecordingRunner()) {
  const { lines, log } = logs();
  const p = new BuildPool(
    { workerFile: "unused", workerMaxOldGenerationMb: null, threads: 2, serving: () => true, servingLoad: () => 0, ...options },
    log,
    runner,
  );
  return { pool: p, runner, lines };
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe("BuildPool with a recording runner", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("a one-thread build posts one chain task: the loader's input, the niceness cell, no helper", async () => {
    const { pool: p, runner } = pool();
    const result = p.buildChainFile(INPUT, null);
    expect(runner.posted).toHaveLength(1);
    const { task, transferList } = runner.posted[0];
    expect(task).toEqual({ kind: "chain", nice: expect.any(Int32Array), ...INPUT, helper: null, early: null });
    expect(transferList).toBeUndefined();
    runner.answer(0, KNOWN);
    expect(await result).toEqual(KNOWN);
  });

  it("a two-thread build posts the chain's task first, then its helper's, joined by one link; early tokens reach the loader", async () => {
    const { pool: p, runner } = pool();
    const early: EarlyTokens[] = [];
    const result = p.buildChainFile(INPUT, { onEarlyTokens: (t) => void early.push(t) });
    expect(runner.posted.map((r) => r.task.kind)).toEqual(["chain", "pool-range"]);
    const chain = runner.posted[0].task as ChainTask;
    const helper = runner.posted[1].task as PoolRangeTask;
    expect(chain.helper!.claim).toBe(helper.claim);
    expect(runner.posted[0].transferList).toEqual([chain.helper!.port, chain.early]);
    expect(runner.posted[1].transferList).toEqual([helper.port]);
    expect(helper.nice).toBe(chain.nice);
    const tokens = { chainId: 1, sha256: "b".repeat(64), tokens: null, run: null } as unknown as EarlyTokens;
    chain.early!.postMessage(tokens);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(early).toEqual([tokens]);
    runner.answer(0, KNOWN);
    expect(await result).toEqual(KNOWN);
    chain.helper!.port.close();
    chain.early!.close();
  });

  it("no early tokens wanted: no early port; a helper that fails is logged, not thrown", async () => {
    const { pool: p, runner, lines } = pool();
    const result = p.buildChainFile(INPUT, { onEarlyTokens: null });
    const chain = runner.posted[0].task as ChainTask;
    expect(chain.early).toBeNull();
    expect(runner.posted[0].transferList).toEqual([chain.helper!.port]);
    runner.fail(1, new Error("helper thread died"));
    runner.answer(0, KNOWN);
    expect(await result).toEqual(KNOWN);
    await settled();
    expect(lines.filter((l) => l.event === "build-helper-failed")).toHaveLength(1);
    chain.helper!.port.close();
  });

  it("niceness: none before a snapshot serves or while the serving threads are idle, BUILD_WORKER_NICE while busy", () => {
    let serving = false;
    let load = 1;
    const { pool: p } = pool({ serving: () => serving, servingLoad: () => load, workerNice: 7 });
    expect(p.nice()).toBe(0);
    serving = true;
    expect(p.nice()).toBe(7);
    load = BUSY_SERVING_LOAD - 0.01;
    expect(p.nice()).toBe(0);
    expect(pool({ servingLoad: undefined }).pool.nice()).toBe(10); // no load meter: always busy
  });

  it("niceness under load falls as the push ages: BUILD_WORKER_NICE when pushed, 0 at FRESHNESS_TARGET_S and after", () => {
    let clock = 1_000;
    let load = 1;
    const { pool: p } = pool({ servingLoad: () => load, workerNice: 10, freshnessTargetS: 20, now: () => clock });
    expect(p.nice()).toBe(10); // nothing pushed: a build of a scan in progress keeps the base
    p.pushed(clock);
    expect([p.nice(), p.pushedWaitMs()]).toEqual([10, 0]);
    clock += 5_000;
    expect([p.nice(), p.pushedWaitMs()]).toEqual([8, 5_000]);
    clock += 5_000;
    expect(p.nice()).toBe(5);
    clock += 9_000;
    expect(p.nice()).toBe(1);
    clock += 1_000;
    expect(p.nice()).toBe(0);
    clock += 60_000;
    expect(p.nice()).toBe(0);
    load = 0;
    expect(p.nice()).toBe(0);
    p.pushed(null);
    load = 1;
    expect([p.nice(), p.pushedWaitMs()]).toEqual([10, 0]);
    expect(pool({ servingLoad: () => 1, now: () => clock }).pool.nice()).toBe(10);
  });

  it("a file builds on two threads only with two workers, at SPLIT_FROM_BYTES or more, and idle serving threads", () => {
    let load = 0;
    const { pool: p } = pool({ servingLoad: () => load });
    expect(p.mayShare(SPLIT_FROM_BYTES)).toBe(true);
    expect(p.mayShare(SPLIT_FROM_BYTES - 1)).toBe(false);
    load = 1;
    expect(p.mayShare(SPLIT_FROM_BYTES)).toBe(false);
    expect(pool({ threads: 1 }).pool.mayShare(SPLIT_FROM_BYTES)).toBe(false);
    expect(pool({ splitFromBytes: 10 }).pool.mayShare(10)).toBe(true);
  });

  it("keeps the cell up to date every NICE_UPDATE_MS while tasks run, and stops its timer when none runs", async () => {
    vi.useFakeTimers();
    let load = 0;
    const { pool: p, runner } = pool({ servingLoad: () => load, workerNice: 5 });
    const a = p.buildTokenIndex([]);
    const b = p.buildChainFile(INPUT, null);
    const cell = runner.posted[0].task.nice;
    expect(runner.posted.map((r) => r.niceAtPost)).toEqual([0, 0]);
    load = 1;
    expect(Atomics.load(cell, 0)).toBe(0);
    vi.advanceTimersByTime(NICE_UPDATE_MS);
    expect(Atomics.load(cell, 0)).toBe(5);
    runner.answer(0, {});
    await a;
    expect(vi.getTimerCount()).toBe(1);
    runner.answer(1, KNOWN);
    await b;
    expect(vi.getTimerCount()).toBe(0);
  });

  it("a token index task carries each chain's token data and file hash, and what the served index saved; stop destroys the pool", async () => {
    const { pool: p, runner } = pool();
    const tokens = { chainId: 1, sha256: "c".repeat(64), tokens: { count: 0 }, run: { count: 0 } } as unknown as EarlyTokens;
    const saved = { reuse: { chains: [] } } as unknown as KeptTokenIndex;
    void p.buildTokenIndex([tokens]); // never settles: the recording runner answers only what a test settles
    void p.buildTokenIndex([tokens], saved);
    expect(runner.posted[0].task).toEqual({
      kind: "token-index",
      nice: expect.any(Int32Array),
      chains: [{ chainId: 1, sha256: "c".repeat(64), tokens: tokens.tokens, run: tokens.run }],
      previous: null,
    });
    expect(runner.posted[1].task).toMatchObject({ kind: "token-index", previous: saved });
    await p.stop();
    expect(runner.destroyed).toBe(true);
  });
});

describe("BuildPool on a tiny real piscina pool", () => {
  /** A worker that answers from what crossed the thread boundary: the cell's value, the early port, the link. */
  const WORKER = `
import { threadId } from "node:worker_threads";
let timersFired = 0;
export default async function (task) {
  if (task.kind === "token-index") {
    if (task.chains.length === 0) return new Promise(() => {}); // never answers: stop() must end it
    if (task.chains[0].chainId === 42) return { thread: threadId };
    if (task.chains[0].chainId === 43) {
      // What the build worker does to trim its heap once idle: a timer set by a task, after its answer.
      setTimeout(() => timersFired++, 10);
      return { thread: threadId, timersFired };
    }
    return { nice: Atomics.load(task.nice, 0) };
  }
  if (task.kind === "pool-range") {
    Atomics.store(task.claim, 0, 1);
    task.port.postMessage({ result: "helper ran" });
    task.port.close();
    return;
  }
  task.early?.postMessage({ chainId: 1, sha256: "d".repeat(64), tokens: null, run: null });
  task.early?.close();
  const reply = await new Promise((resolve) => task.helper.port.once("message", resolve));
  task.helper.port.close();
  return { status: "known", sha256: reply.result };
}
`;
  const pools: BuildPool[] = [];
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((p) => p.stop()));
  });

  function realPool(more: Partial<BuildPoolOptions> = {}): BuildPool {
    const dir = tempDir("lgw-pool-");
    const workerFile = path.join(dir, "worker.mjs");
    writeFileSync(workerFile, WORKER);
    const p = new BuildPool(
      { workerFile, workerMaxOldGenerationMb: null, threads: 2, serving: () => true, servingLoad: () => 1, workerNice: 3, ...more },
      pino({ level: "silent" }),
    );
    pools.push(p);
    return p;
  }

  it("moves the link and the early port to the worker threads, and the cell reads there", async () => {
    const p = realPool();
    const early: EarlyTokens[] = [];
    const result = await p.buildChainFile(INPUT, { onEarlyTokens: (t) => void early.push(t) });
    expect(result).toEqual({ status: "known", sha256: "helper ran" });
    expect(early.map((t) => t.sha256)).toEqual(["d".repeat(64)]);
    expect(await p.buildTokenIndex([{ chainId: 1, sha256: "", tokens: null!, run: null! }])).toEqual({ nice: 3 });
  });

  it("BUILD_WORKERS_KEPT: a kept worker outlives BUILD_WORKER_IDLE_S, so the next task runs on the same thread", async () => {
    const threadOf = async (p: BuildPool) =>
      ((await p.buildTokenIndex([{ chainId: 42 as never, sha256: "", tokens: null!, run: null! }])) as unknown as { thread: number })
        .thread;
    const later = () => new Promise((resolve) => setTimeout(resolve, 300));
    const kept = realPool({ workerIdleS: 0, workersKept: 1 });
    const first = await threadOf(kept);
    await later();
    expect(await threadOf(kept)).toBe(first);
    // None kept: the idle worker exits (at once with BUILD_WORKER_IDLE_S=0), and the next task starts a new thread.
    const none = realPool({ workerIdleS: 0, workersKept: 0 });
    const before = await threadOf(none);
    await later();
    expect(await threadOf(none)).not.toBe(before);
  });

  it("an idle kept worker's event loop runs: a timer a task left fires before the next task (the heap trim, issue 30)", async () => {
    const timers = async (p: BuildPool) =>
      (await p.buildTokenIndex([{ chainId: 43 as never, sha256: "", tokens: null!, run: null! }])) as unknown as {
        thread: number;
        timersFired: number;
      };
    const kept = realPool({ threads: 1, workersKept: 1 });
    const first = await timers(kept);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const second = await timers(kept);
    expect(second.thread).toBe(first.thread);
    // piscina's default parks an idle worker in Atomics.wait, its event loop stopped: the timer would fire only
    // after the next task had answered (0 here).
    expect(second.timersFired).toBe(first.timersFired + 1);
  });

  it("stop cancels a running task", async () => {
    const p = realPool();
    const running = p.buildTokenIndex([]).then(
      () => "answered",
      (error: Error) => error.message,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    await p.stop();
    expect(await running).toBe("Terminating worker thread");
  });
});
