/**
 * bucketsJson (src/http/history-json.ts) writes exactly the bytes the history routes answered when they made
 * the JSON as text: the reference below is that text (a template per bucket, a number's JSON its String,
 * null when not finite), for random answers: any numbers (tiny, huge, negative, -0, NaN, ±Infinity), filled
 * buckets, gaps, no bucket at all.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { BucketAnswer } from "../../../src/query/history-answer.js";
import { bucketsJson, type BucketsHead } from "../../../src/http/history-json.js";

function referenceText(h: BucketsHead, a: BucketAnswer): string {
  let out = `{"chainId":${h.chainId},"address":"${h.address}","timeframe":"${h.timeframe}","aggregate":${h.aggregate},"source":"snapshots","${h.list}":[`;
  out += a.buckets.map((b) => `[${[b.t, ...b.v].map((x) => (Number.isFinite(x) ? String(x) : "null")).join(",")}]`).join(",");
  const filled = a.buckets.filter((b) => b.filled).map((b) => b.t);
  const { from, to, observations, gaps } = a.coverage;
  return `${out}],"filled":[${filled.join(",")}],"coverage":{"from":${from},"to":${to},"observations":${observations},"gaps":${JSON.stringify(gaps)}}}`;
}

const value = fc.oneof(
  fc.double(),
  fc.double({ min: -1e-5, max: 1e-5 }),
  fc.integer({ min: 0, max: 2 ** 40 }).map((n) => n / 1e10),
  fc.constantFrom(0, -0, NaN, Infinity, -Infinity, 1e21, 123456.789, 0.000001),
  // Values repeated within and across buckets (a quiet candle: open = high = low = close, as before).
  fc.constantFrom(1.0001, 0.99987654321, 2.5),
  fc.constantFrom(1.0001, 0.99987654321, 2.5),
);
const time = fc.integer({ min: 0, max: 4294967295 });

describe("bucketsJson", () => {
  it("writes the bytes of the JSON text the routes answered", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(4, 5),
        fc.array(fc.record({ t: time, nObs: fc.nat(100), filled: fc.boolean() }), { maxLength: 30 }),
        fc.array(value, { minLength: 150, maxLength: 150 }),
        fc.array(fc.tuple(time, time), { maxLength: 4 }),
        fc.record({ from: time, to: time, observations: fc.nat(1_000_000) }),
        fc.constantFrom("candles", "rows"),
        (values, buckets, numbers, gaps, coverage, list) => {
          const answer: BucketAnswer = {
            buckets: buckets.map((b, i) => ({ ...b, v: numbers.slice(i * values, i * values + values) })),
            coverage: { ...coverage, gaps },
            closed: false,
          };
          const head: BucketsHead = { chainId: 8453, address: "0x" + "ab".repeat(20), timeframe: "minute", aggregate: 15, list };
          const bytes = bucketsJson(head, answer);
          expect(bytes.toString("utf8")).toBe(referenceText(head, answer));
        },
      ),
      { numRuns: 500 },
    );
  });
});
