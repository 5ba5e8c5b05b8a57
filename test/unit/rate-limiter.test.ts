import { describe, expect, test } from "vitest";
import type { KeyEntry } from "../../src/access/key-store.js";
import { FixedWindowRateLimiter } from "../../src/access/rate-limiter.js";

const entry = (id: string, rateLimit: KeyEntry["rateLimit"]) => ({ id, rateLimit }) as KeyEntry;

describe("fixed-window rate limiter", () => {
  test("allows exactly the quota per window, then reports the true reset", () => {
    const limiter = new FixedWindowRateLimiter({ requests: 100, windowSeconds: 60 });
    const key = entry("a", { requests: 3, windowSeconds: 60 });
    const start = 60_000 * 1000 + 15_500; // 15.5 s into a window
    const results = [0, 1, 2, 3].map(() => limiter.consume(key, start));
    expect(results.map((r) => r.allowed)).toEqual([true, true, true, false]);
    expect(results.map((r) => r.remaining)).toEqual([2, 1, 0, 0]);
    expect(results[3].resetSeconds).toBe(45);
    expect(limiter.consume(key, start + 44_400).allowed).toBe(false);
    expect(limiter.consume(key, start + 44_400).resetSeconds).toBe(1);
    expect(limiter.consume(key, start + 44_500).allowed).toBe(true); // next window
  });

  test("keys have separate quotas; keys without one use the default", () => {
    const limiter = new FixedWindowRateLimiter({ requests: 2, windowSeconds: 10 });
    const a = entry("a", null);
    const b = entry("b", null);
    expect([limiter.consume(a, 0), limiter.consume(a, 1), limiter.consume(a, 2)].map((r) => r.allowed)).toEqual([true, true, false]);
    expect(limiter.consume(b, 3)).toMatchObject({ allowed: true, limit: 2, remaining: 1, resetSeconds: 10 });
  });
});
