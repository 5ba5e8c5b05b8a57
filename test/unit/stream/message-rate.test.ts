import { describe, expect, it } from "vitest";
import { MessageRates, type MessageVerdict } from "../../../src/stream/message-rate.js";

/** The verdicts of `n` messages sent at once at `at` ms. */
function burst(rates: MessageRates, rate: ReturnType<MessageRates["opened"]>, n: number, at: number): MessageVerdict[] {
  return Array.from({ length: n }, () => rates.take(rate, at));
}

const counts = (verdicts: MessageVerdict[]) =>
  verdicts.reduce<Record<string, number>>((all, v) => ({ ...all, [v]: (all[v] ?? 0) + 1 }), {});

describe("message rates", () => {
  it("a connection: r messages at once are taken, the next r refused, the one after closes it", () => {
    const rates = new MessageRates(5, 1000);
    const conn = rates.opened("k", 0);
    expect(burst(rates, conn, 11, 0)).toEqual([...Array(5).fill("take"), ...Array(5).fill("refuse-connection"), "close"]);
  });

  it("drains at r per second: refused messages count too; a client that waits is served again", () => {
    const rates = new MessageRates(5, 1000);
    const conn = rates.opened("k", 0);
    expect(counts(burst(rates, conn, 8, 0))).toEqual({ take: 5, "refuse-connection": 3 }); // level 8
    expect(rates.take(conn, 200)).toBe("refuse-connection"); // 8 - 1 + 1
    expect(rates.take(conn, 1400)).toBe("take"); // 8 - 6 + 1 = 3
    expect(counts(burst(rates, conn, 8, 1400))).toEqual({ take: 2, "refuse-connection": 5, close: 1 });
  });

  it("a steady sender at the rate is always taken; at twice the rate it is closed within about two seconds", () => {
    const rates = new MessageRates(10, 1000);
    const steady = rates.opened("a", 0);
    const verdicts: MessageVerdict[] = [];
    for (let t = 0; t < 10_000; t += 100) verdicts.push(rates.take(steady, t));
    expect(new Set(verdicts)).toEqual(new Set(["take"]));
    const flood = rates.opened("b", 0);
    let closedAt = -1;
    for (let t = 0; t < 5000 && closedAt < 0; t += 50) if (rates.take(flood, t) === "close") closedAt = t;
    expect(closedAt).toBeGreaterThan(1000);
    expect(closedAt).toBeLessThanOrEqual(2100);
  });

  it("a key's connections share its bucket on the thread; its refusals never close a connection", () => {
    const rates = new MessageRates(10, 15);
    const [a, b, other] = [rates.opened("k", 0), rates.opened("k", 0), rates.opened("other", 0)];
    expect(counts(burst(rates, a, 10, 0))).toEqual({ take: 10 });
    expect(counts(burst(rates, b, 10, 0))).toEqual({ take: 5, "refuse-key": 5 });
    expect(counts(burst(rates, other, 10, 0))).toEqual({ take: 10 }); // another key is not touched
    expect(rates.take(a, 1000)).toBe("take"); // the key drained 15 in a second
  });

  it("a key's bucket outlives its connections until drained: closing and reopening sockets does not refill it", () => {
    const rates = new MessageRates(10, 15);
    const a = rates.opened("k", 0);
    burst(rates, a, 10, 0);
    rates.closed(a);
    const b = rates.opened("k", 0);
    expect(counts(burst(rates, b, 10, 0))).toEqual({ take: 5, "refuse-key": 5 }); // still the key's bucket
    rates.closed(b);
    const c = rates.opened("k", 500); // 15 - 7.5 drained: 7 more fit
    expect(counts(burst(rates, c, 10, 500))).toEqual({ take: 7, "refuse-key": 3 });
  });

  it("buckets of keys without connections are dropped once drained, as new keys arrive (amortised)", () => {
    const rates = new MessageRates(10, 10);
    for (let i = 0; i < 63; i++) {
      const rate = rates.opened(`idle-${i}`, 0);
      rates.take(rate, 0);
      rates.closed(rate);
    }
    const busy = rates.opened("busy", 0);
    rates.take(busy, 0);
    expect(rates.keysHeld).toBe(64); // kept: none has drained at 0 ms
    rates.opened("late", 2000); // the 65th key: a sweep (at 64) drops the 63 drained ones
    expect(rates.keysHeld).toBe(2);
    expect(rates.take(busy, 2000)).toBe("take"); // a key with a connection is never dropped
  });
});
