/**
 * The per-address table (failed authentication, public requests) and the quota
 * slots: no two addresses share a budget, counts are exact across threads, a
 * full table refuses a new address without disturbing anyone, and a keys file
 * that does not fit changes nothing.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { Worker } from "node:worker_threads";
import fc from "fast-check";
import ts from "typescript";
import { describe, expect, test } from "vitest";
import { AddressLimiter } from "../../../src/access/address-limiter.js";
import { AddressTable, createAddressTable } from "../../../src/access/address-table.js";
import type { KeyEntry } from "../../../src/access/key-store.js";
import { createQuotaCounters, QuotaSlots, SharedRateLimiter } from "../../../src/access/shared-rate-limiter.js";
import { ApiError } from "../../../src/api/errors.js";
import { PROJECT_ROOT } from "../../support/gateway-process.js";

const v4 = (a: number, b: number, c: number, d: number) => Uint8Array.of(a, b, c, d);
const v6 = (...words: number[]) => {
  const out = new Uint8Array(16);
  words.forEach((w, i) => {
    out[i * 2] = w >> 8;
    out[i * 2 + 1] = w & 0xff;
  });
  return out;
};

describe("AddressTable", () => {
  test("behaves like a map of (address, window) → count until a probe sequence is full", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            address: fc.integer({ min: 0, max: 40 }),
            window: fc.integer({ min: 0, max: 3 }),
            op: fc.constantFrom("add", "count", "take"),
          }),
          { minLength: 1, maxLength: 400 },
        ),
        (ops) => {
          const table = new AddressTable(createAddressTable(16));
          const reference = new Map<number, { window: number; count: number }>();
          let window = 0;
          for (const step of ops) {
            window = Math.max(window, step.window); // windows only move forward
            const address = v4(10, 0, step.address >> 8, step.address & 0xff);
            const known = reference.get(step.address);
            const current = known !== undefined && known.window === window ? known.count : 0;
            if (step.op === "count") {
              expect(table.count(address, window)).toBe(current);
            } else if (step.op === "add") {
              const result = table.add(address, window);
              if (result === -1)
                expect(current).toBe(0); // only a new address can find the table full
              else {
                expect(result).toBe(current + 1);
                reference.set(step.address, { window, count: current + 1 });
              }
            } else {
              const result = table.take(address, window, 3);
              if (result === "full") expect(current).toBe(0);
              else if (current >= 3) expect(result).toBe("over");
              else {
                expect(result).toBe("taken");
                reference.set(step.address, { window, count: current + 1 });
              }
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  test("IPv4 and IPv4-mapped IPv6 are one address; other addresses never share a count", () => {
    const table = new AddressTable(createAddressTable());
    table.add(v4(192, 0, 2, 1), 5);
    expect(table.count(v6(0, 0, 0, 0, 0, 0xffff, 0xc000, 0x0201), 5)).toBe(1);
    expect(table.count(v4(192, 0, 2, 2), 5)).toBe(0);
    expect(table.count(v6(0x2001, 0xdb8, 0, 0, 0, 0, 0xc000, 0x0201), 5)).toBe(0);
    for (let i = 0; i < 500; i++) table.add(v6(0x2001, 0xdb8, 0, 0, 0, 0, 0, i), 5);
    expect(table.count(v4(192, 0, 2, 1), 5)).toBe(1);
    for (let i = 0; i < 500; i++) expect(table.count(v6(0x2001, 0xdb8, 0, 0, 0, 0, 0, i), 5)).toBe(1);
  });

  test("a full table refuses new addresses until the window turns, and keeps every live count", () => {
    const table = new AddressTable(createAddressTable(8)); // one probe sequence covers the whole table
    for (let i = 0; i < 8; i++) expect(table.add(v4(10, 0, 0, i), 7)).toBe(1);
    expect(table.add(v4(10, 0, 0, 99), 7)).toBe(-1);
    expect(table.take(v4(10, 0, 0, 99), 7, 5)).toBe("full");
    for (let i = 0; i < 8; i++) expect(table.count(v4(10, 0, 0, i), 7)).toBe(1);
    expect(table.add(v4(10, 0, 0, 99), 8)).toBe(1); // the next window reuses a slot
    // Window 0 is a window like any other (a slot never used is not "in window 0").
    const zero = new AddressTable(createAddressTable(8));
    expect(zero.add(v4(10, 0, 0, 1), 0)).toBe(1);
    expect(zero.count(v4(10, 0, 0, 1), 0)).toBe(1);
    expect(zero.count(v4(10, 0, 0, 2), 0)).toBe(0);
  });

  test("threads adding the same addresses at once never lose, double or duplicate a count", async () => {
    const buffer = createAddressTable(4096);
    // The threads run the table's source (it imports nothing), compiled here: no build is needed.
    const source = readFileSync(resolve(PROJECT_ROOT, "src/access/address-table.ts"), "utf8");
    const compiled = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
    }).outputText;
    const module = `data:text/javascript;base64,${Buffer.from(compiled).toString("base64")}`;
    const perThread = 3000;
    const code = `
      const { workerData, parentPort } = require("node:worker_threads");
      import(workerData.module).then(({ AddressTable }) => {
        const table = new AddressTable(workerData.buffer);
        for (let i = 0; i < workerData.perThread; i++) table.add(Uint8Array.of(10, 1, 0, i % 50), 3);
        parentPort.postMessage("done");
      });`;
    const run = () =>
      new Promise<void>((done, fail) => {
        const w = new Worker(code, { eval: true, workerData: { buffer, module, perThread } });
        w.once("message", () => done());
        w.once("error", fail);
      });
    await Promise.all([run(), run(), run(), run()]);
    const table = new AddressTable(buffer);
    for (let a = 0; a < 50; a++) expect(table.count(Uint8Array.of(10, 1, 0, a), 3)).toBe((4 * perThread) / 50);
    // Each address lives in exactly one slot.
    const words = new Int32Array(buffer);
    let used = 0;
    for (let at = 8; at < words.length; at += 8) if (words[at + 5] === 3 + 1) used++; // stored as window + 1
    expect(used).toBe(50);
  });
});

describe("AddressLimiter", () => {
  test("failed attempts block only their own address; 429 carries a true Retry-After", () => {
    const limiter = new AddressLimiter(createAddressTable(64), { requests: 2, windowSeconds: 60 }, "failed authentication attempts");
    const attacker = v4(127, 0, 0, 2);
    const start = 60_000 * 100 + 15_000;
    limiter.record(attacker, start);
    limiter.record(attacker, start);
    let thrown: unknown;
    try {
      limiter.assertUnder(attacker, start);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect((thrown as ApiError).code).toBe("RATE_LIMIT_EXCEEDED");
    expect((thrown as ApiError).metadata).toEqual({ retryAfterSeconds: 45 });
    expect((thrown as ApiError).headers).toEqual({ "retry-after": "45" });
    expect(() => limiter.assertUnder(v4(127, 0, 0, 3), start)).not.toThrow();
    expect(() => limiter.assertUnder(attacker, start + 45_000)).not.toThrow();
  });

  test("a full table lets the request through and reports it", () => {
    let full = 0;
    const limiter = new AddressLimiter(
      createAddressTable(8),
      { requests: 1, windowSeconds: 60 },
      "requests without an API key",
      () => full++,
    );
    for (let i = 0; i < 8; i++) limiter.take(v4(10, 0, 0, i), 1000);
    expect(() => limiter.take(v4(10, 0, 0, 200), 1000)).not.toThrow();
    expect(full).toBe(1);
    expect(() => limiter.take(v4(10, 0, 0, 0), 1000)).toThrow(ApiError);
  });
});

describe("QuotaSlots", () => {
  test("a set of keys that does not fit changes nothing: no count reset, no slot moved", () => {
    const counters = createQuotaCounters(3);
    const slots = new QuotaSlots(3, counters);
    const first = slots.assign(["a", "b"]);
    const limiter = new SharedRateLimiter(counters, first, { requests: 10, windowSeconds: 60 });
    const a = { id: "a", rateLimit: null } as KeyEntry;
    for (let i = 0; i < 4; i++) limiter.consume(a, 1000);
    expect(() => slots.assign(["c", "d", "e", "f"])).toThrow(/MAX_API_KEYS/);
    expect(() => slots.assign(["a", "c", "d", "e"])).toThrow(/MAX_API_KEYS/);
    expect(limiter.consume(a, 1000)).toMatchObject({ allowed: true, remaining: 5 });
    expect(slots.assign(["a", "b"])).toEqual(first);
    // A set that fits still reuses the freed slots.
    const next = slots.assign(["a", "c", "d"]);
    expect(next.a).toBe(first.a);
    expect(new Set(Object.values(next)).size).toBe(3);
  });
});

describe("ConfirmedKeys", () => {
  test("a key is confirmed by its slot and its hash: a rotated key (same id, new hash) and a reassigned slot are not", async () => {
    const { ConfirmedKeys, createConfirmedKeys } = await import("../../../src/access/confirmed-keys.js");
    const buffer = createConfirmedKeys(4);
    const counters = createQuotaCounters(4);
    const slots = new QuotaSlots(4, counters, buffer);
    const keys = new ConfirmedKeys(buffer, slots.assign(["a", "b"]));
    const entry = (id: string, byte: number) => ({ id, digest: Buffer.alloc(32, byte) }) as unknown as KeyEntry;
    expect(keys.has(entry("a", 1))).toBe(false);
    keys.mark(entry("a", 1));
    expect(keys.has(entry("a", 1))).toBe(true);
    expect(keys.has(entry("a", 2))).toBe(false); // rotated
    expect(keys.has(entry("b", 1))).toBe(false);
    keys.setSlots(slots.assign(["b", "c"])); // "a" removed: its slot is cleared before reuse
    const reuse = new ConfirmedKeys(buffer, slots.assign(["b", "c", "d"]));
    for (const id of ["b", "c", "d"]) expect(reuse.has(entry(id, 1)), id).toBe(false);
  });
});
