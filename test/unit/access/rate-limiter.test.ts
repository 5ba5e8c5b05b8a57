import { Worker } from "node:worker_threads";
import { describe, expect, test } from "vitest";
import type { KeyEntry } from "../../../src/access/key-store.js";
import {
  consumeCell,
  createQuotaCounters,
  QUOTA_SLOT_CELLS,
  QuotaSlots,
  SharedRateLimiter,
} from "../../../src/access/shared-rate-limiter.js";

const entry = (id: string, rateLimit: KeyEntry["rateLimit"]) => ({ id, rateLimit }) as KeyEntry;

function limiter(defaultLimit = { requests: 100, windowSeconds: 60 }, ids = ["a", "b"]) {
  const counters = createQuotaCounters(8);
  const slots = new QuotaSlots(8, counters);
  return { limiter: new SharedRateLimiter(counters, slots.assign(ids), defaultLimit), slots, counters };
}

describe("shared fixed-window rate limiter", () => {
  test("allows exactly the quota per window, then reports the true reset", () => {
    const { limiter: l } = limiter();
    const key = entry("a", { requests: 3, windowSeconds: 60 });
    const start = 60_000 * 1000 + 15_500; // 15.5 s into a window
    const results = [0, 1, 2, 3].map(() => l.consume(key, start));
    expect(results.map((r) => r.allowed)).toEqual([true, true, true, false]);
    expect(results.map((r) => r.remaining)).toEqual([2, 1, 0, 0]);
    expect(results[3].resetSeconds).toBe(45);
    expect(l.consume(key, start + 44_400)).toMatchObject({ allowed: false, resetSeconds: 1 });
    expect(l.consume(key, start + 44_500)).toMatchObject({ allowed: true, remaining: 2 }); // the next window
  });

  test("keys have separate quotas; keys without one use the default", () => {
    const { limiter: l } = limiter({ requests: 2, windowSeconds: 10 });
    const a = entry("a", null);
    const b = entry("b", null);
    expect([l.consume(a, 0), l.consume(a, 1), l.consume(a, 2)].map((r) => r.allowed)).toEqual([true, true, false]);
    expect(l.consume(b, 3)).toMatchObject({ allowed: true, limit: 2, remaining: 1, resetSeconds: 10 });
  });

  test("a key keeps its slot (and count) across reloads; a removed key's slot is cleared before reuse", () => {
    const { limiter: l, slots } = limiter({ requests: 2, windowSeconds: 60 });
    const a = entry("a", null);
    l.consume(a, 0);
    l.setSlots(slots.assign(["a", "c"]));
    expect(l.consume(a, 1)).toMatchObject({ allowed: true, remaining: 0 });
    l.setSlots(slots.assign(["c", "d"]));
    expect(l.consume(entry("d", null), 2)).toMatchObject({ allowed: true, remaining: 1 });
  });

  test("a removed id's slot is taken only after every slot never used (a renamed key gets a slot of its own)", () => {
    const counters = createQuotaCounters(4);
    const slots = new QuotaSlots(4, counters);
    expect(slots.assign(["a", "b"])).toEqual({ a: 0, b: 1 });
    expect(slots.assign(["a2", "b"])).toEqual({ b: 1, a2: 2 });
    expect(slots.assign(["a2", "b", "c"])).toEqual({ b: 1, a2: 2, c: 3 });
    expect(slots.assign(["a2", "b", "c", "d"])).toEqual({ b: 1, a2: 2, c: 3, d: 0 });
  });

  /** Runs consumeCell in worker threads at once: each makes `perThread` attempts on slot 0 in `window`. */
  async function hammer(counters: SharedArrayBuffer, threads: number, perThread: number, window: number, limit: number): Promise<number[]> {
    const code = `
      const { workerData, parentPort } = require("node:worker_threads");
      const cells = new Int32Array(workerData.counters);
      const QUOTA_SLOT_CELLS = ${QUOTA_SLOT_CELLS};
      const CLAIMING = -1;
      ${consumeCell.toString()}
      let granted = 0;
      for (let i = 0; i < workerData.perThread; i++) if (consumeCell(cells, 0, workerData.window, workerData.limit) > 0) granted++;
      parentPort.postMessage(granted);`;
    const run = () =>
      new Promise<number>((resolve, reject) => {
        const w = new Worker(code, { eval: true, workerData: { counters, perThread, window, limit } });
        w.once("message", resolve);
        w.once("error", reject);
      });
    return Promise.all(Array.from({ length: threads }, run));
  }

  test("threads consuming one cell at once never lose or double a count", async () => {
    const counters = createQuotaCounters(1);
    const granted = await hammer(counters, 4, 20_000, 7, 1e9);
    expect(granted.reduce((a, b) => a + b, 0)).toBe(80_000);
    expect([...new Int32Array(counters).subarray(0, 2)]).toEqual([7, 80_000]);
  });

  test("threads racing past the limit: exactly the limit is granted, and the count rests at it", async () => {
    const counters = createQuotaCounters(1);
    new Int32Array(counters).set([6, 999]); // an older window's count: the first thread to see window 7 resets it
    const granted = await hammer(counters, 4, 20_000, 7, 30_001);
    expect(granted.reduce((a, b) => a + b, 0)).toBe(30_001);
    expect([...new Int32Array(counters).subarray(0, 2)]).toEqual([7, 30_001]);
  });

  test("a window of another length (the key's limit changed) is replaced, never counted into", () => {
    const counters = createQuotaCounters(1);
    const cells = new Int32Array(counters);
    cells.set([29_000_000, 40]); // a 60 s window's index
    expect(consumeCell(cells, 0, 480_000, 50)).toBe(1); // now an hourly window: a smaller index
    expect(consumeCell(cells, 0, 480_001, 50)).toBe(1);
    expect(consumeCell(cells, 0, 480_000, 50)).toBe(2); // a thread one window behind counts into the next one
  });
});
