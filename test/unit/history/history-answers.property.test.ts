/**
 * History against a brute-force reference (test/support/reference-history.ts): a random series of chain
 * files (prices and values walking, records coming and going, files from the same second to days apart)
 * is served to the store as the gateway serves it, with restarts, batches and rollbacks, and compaction run
 * for a random number of steps in between; then every kind of answer (each timeframe and aggregate,
 * `before` anywhere, `limit`, `fill`, the price at a random time) equals the reference's recomputation from
 * the files themselves, before and after compaction has caught up.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { answerBuckets, priceAt, TIER_SPAN, type HistoryTier } from "../../../src/query/history-answer.js";
import { POOL, TOKEN } from "../../../src/query/history-units.js";
import { hexBytes } from "../../../src/history/observe.js";
import { compileFile, HistoryHarness, type Compiled } from "../../support/history-harness.js";
import { historySeries } from "../../support/history-series.js";
import { prng, type Prng } from "../../support/prng.js";
import type { Kind, ReferenceQuery } from "../../support/reference-history.js";

const AGGREGATES: Record<HistoryTier, number[]> = { raw: [1, 5, 15], hour: [1, 4, 12], day: [1] };

let harness: HistoryHarness | null = null;
afterEach(() => {
  harness?.close();
  harness = null;
});

/** Every answer of random queries, store against reference. */
function checkAnswers(h: HistoryHarness, rng: Prng, addresses: { token: string[]; pool: string[] }, queries: number): void {
  const ref = h.reference;
  if (ref.observed.length === 0) return;
  const chain = h.reads.chain(8453)!;
  expect(chain.info.maxT).toBe(ref.maxT);
  expect(chain.info.gaps).toEqual(ref.gaps);
  const first = ref.observed[0].t;
  for (let n = 0; n < queries; n++) {
    const kind: Kind = rng.chance(0.5) ? "token" : "pool";
    const list = addresses[kind];
    const address = rng.pick(list);
    const id = h.reads.entityId(8453, kind === "token" ? TOKEN : POOL, hexBytes(address));
    expect(id !== null, `${kind} ${address} known`).toBe(ref.knows(kind, address));
    if (id === null) continue;
    const tier = rng.pick(["raw", "hour", "day"] as const);
    const width = rng.pick(AGGREGATES[tier]) * TIER_SPAN[tier];
    const r = rng.next();
    const before =
      r < 0.3
        ? Infinity
        : r < 0.4
          ? first - rng.int(0, 10 * 86_400)
          : r < 0.5
            ? ref.maxT + rng.int(1, 10 * 86_400)
            : rng.int(first, ref.maxT + 1);
    const q: ReferenceQuery = { kind, address, tier, width, before, limit: rng.int(1, 40), fill: rng.chance(0.5) };
    const got = answerBuckets(chain, { kind: kind === "token" ? TOKEN : POOL, id, tier, width, before, limit: q.limit, fill: q.fill });
    const want = ref.candles(q);
    expect(
      {
        buckets: got.buckets.map((b) => ({ t: b.t, v: [...b.v], nObs: b.nObs, filled: b.filled })),
        coverage: got.coverage,
        closed: got.closed,
      },
      JSON.stringify(q),
    ).toEqual(want);
    if (kind === "token") {
      const at = rng.int(first - 86_400, ref.maxT + 86_400);
      expect(priceAt(chain, id, at), `price of ${address} at ${at}`).toEqual(ref.priceAt(address, at));
    }
  }
}

describe("history answers equal a brute-force recomputation from the files", () => {
  it("holds for random series, restarts, batches, rollbacks and any compaction progress", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        fc.integer({ min: 24, max: 30 }),
        fc.integer({ min: 1, max: 3 }),
        (seed, rawHours, hourDays) => {
          const rng = prng(seed);
          harness?.close();
          const h = (harness = new HistoryHarness({ rawHours, hourDays }));
          const files = historySeries(seed, {
            chainId: 8453,
            tokens: 6,
            looseTokens: 4,
            pools: 8,
            files: rng.int(10, 45),
            churn: rng.pick([0.1, 0.3, 0.6]),
            start: 1_750_000_000 + rng.int(0, 86_399),
          });
          const compiled: Compiled[] = files.map(compileFile);
          const addresses = {
            token: [...new Set(files.flatMap((f) => f.tokens.map((t) => t.address)))].concat(["0x" + "ab".repeat(20)]),
            pool: [...new Set(files.flatMap((f) => f.pools.map((p) => p.address)))].concat(["0x" + "cd".repeat(20)]),
          };
          for (let i = 0; i < compiled.length; i++) {
            const r = rng.next();
            if (r < 0.06) h.restart();
            if (r > 0.94 && i > 1) {
              h.serve(compiled[rng.int(0, i - 1)]); // a rollback (older file, allowed) or the same file again
            }
            if (r > 0.85 && r <= 0.94 && i + 1 < compiled.length) {
              h.serve(compiled[i], compiled[i + 1]); // accepted both, served the second
              i++;
            } else h.serve(compiled[i]);
            h.compact(rng.int(0, 40));
            if (rng.chance(0.15)) checkAnswers(h, rng, addresses, 10);
          }
          checkAnswers(h, rng, addresses, 40);
          h.compact(Infinity);
          checkAnswers(h, rng, addresses, 40);
        },
      ),
      { numRuns: 25 },
    );
  });
});
