import { Worker } from "node:worker_threads";
import { describe, expect, test } from "vitest";
import type { KeyEntry } from "../../src/access/key-store.js";
import { consumeCell, createQuotaCounters, QuotaSlots, SharedRateLimiter } from "../../src/access/shared-rate-limiter.js";

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

  test("threads consuming one cell at once never lose or double a count", async () => {
    const counters = createQuotaCounters(1);
    const perThread = 20_000;
    const code = `
      const { workerData, parentPort } = require("node:worker_threads");
      const cells = new BigInt64Array(workerData.counters);
      const COUNT_BITS = 32n;
      const COUNT_MASK = (1n << COUNT_BITS) - 1n;
      ${consumeCell.toString()}
      let granted = 0;
      for (let i = 0; i < workerData.perThread; i++) if (consumeCell(cells, 0, 7, 1e9) > 0) granted++;
      parentPort.postMessage(granted);`;
    const run = () =>
      new Promise<number>((resolve, reject) => {
        const w = new Worker(code, { eval: true, workerData: { counters, perThread } });
        w.once("message", resolve);
        w.once("error", reject);
      });
    const granted = await Promise.all([run(), run(), run(), run()]);
    expect(granted.reduce((a, b) => a + b, 0)).toBe(4 * perThread);
    const cell = new BigInt64Array(counters)[0];
    expect(Number(cell & 0xffffffffn)).toBe(4 * perThread);
    expect(Number(cell >> 32n)).toBe(7);
  });
});
