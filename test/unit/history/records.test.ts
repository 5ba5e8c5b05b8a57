/**
 * The store's value encoding (format 3, docs/decisions/016-history-format-3.md): a value written against a
 * reference (deltaCode / deltaValue), records and units in their chunks, and shard blobs' narrow and wide
 * indexes. Every number read back is the number written, bit for bit (Object.is: -0, NaN, Infinity too).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ByteSink, decimalCode, deltaCode, deltaValue } from "../../../src/history/byte-codec.js";
import {
  findInShard,
  readRecordChunk,
  readUnitChunk,
  RecordChunkWriter,
  shardEntries,
  ShardBlobWriter,
  UnitChunkWriter,
} from "../../../src/history/records.js";
import type { HistoryUnit, RawRecord } from "../../../src/query/history-units.js";

/** Numbers as the store sees them: short decimals (prices, cents), walks of them, and the odd ones. */
const decimal = fc.tuple(fc.integer({ min: -(2 ** 48), max: 2 ** 48 }), fc.integer({ min: 0, max: 15 })).map(([m, k]) => m / 10 ** k);
const smallDecimal = fc.tuple(fc.integer({ min: -(2 ** 40), max: 2 ** 40 }), fc.integer({ min: 0, max: 15 })).map(([m, k]) => m / 10 ** k);
const odd = fc.constantFrom(0, -0, NaN, Infinity, -Infinity, Number.MIN_VALUE, Number.MAX_VALUE, 2 ** 48, 2 ** 48 + 1, 2 ** 53, 0.1 + 0.2);
const value = fc.oneof(decimal, fc.double(), odd);
const ref = fc.oneof(fc.constant(undefined), decimal, fc.double(), odd);

const codeBytes = (code: number) => {
  const sink = new ByteSink(16);
  sink.varint(code);
  return sink.at;
};

describe("deltaCode", () => {
  it("reads back every value it can write, against any reference", () => {
    fc.assert(
      fc.property(value, ref, (x, r) => {
        const code = deltaCode(x, r);
        if (code >= 0) {
          expect(Number.isSafeInteger(code)).toBe(true);
          expect(Object.is(deltaValue(code, r), x)).toBe(true);
        } else if (decimalCode(x) >= 0) {
          // Only a difference past a safe integer makes a decimal value float64.
          const k = decimalCode(x) % 16;
          expect(Math.abs(Math.round(x * 10 ** k) - Math.round(r! * 10 ** k))).toBeGreaterThan(2 ** 47);
        }
      }),
      { numRuns: 20_000 },
    );
  });

  it("reads back a value near its reference (a walk), in fewer bytes than its own code", () => {
    fc.assert(
      fc.property(smallDecimal, fc.integer({ min: -5000, max: 5000 }), (r, step) => {
        const k = decimalCode(r) % 16;
        const x = (Math.round(r * 10 ** k) + step) / 10 ** k;
        const code = deltaCode(x, r);
        expect(code).toBeGreaterThanOrEqual(0);
        expect(Object.is(deltaValue(code, r), x)).toBe(true);
        if (decimalCode(x) % 16 === k) expect(codeBytes(code)).toBeLessThanOrEqual(3);
      }),
      { numRuns: 5_000 },
    );
  });

  it("at the boundaries: no reference, mantissas reaching 2^48, a difference past 2^53", () => {
    expect(deltaCode(123.45, undefined)).toBe(decimalCode(123.45));
    expect(deltaValue(decimalCode(123.45), undefined)).toBe(123.45);
    // |m| = 2^48 has no decimal form (its code 2^53 + k would not be exact): float64.
    expect(decimalCode(2 ** 48)).toBe(-1);
    expect(deltaCode(2 ** 48 / 10, 1)).toBe(-1);
    const top = 2 ** 48 - 1;
    expect(Object.is(deltaValue(deltaCode(top / 10, undefined), undefined), top / 10)).toBe(true);
    // A reference reaching 2^48 at the value's scale: the value's own code.
    expect(deltaCode(top, 2 ** 48 + 2)).toBe(decimalCode(top));
    expect(deltaCode(top, top - 2)).toBe(4 * 16);
    expect(deltaValue(4 * 16, top - 2)).toBe(top);
    // -top against top: zigzag(-(2^49 - 2)) * 16 is past 2^53: float64.
    expect(deltaCode(-top, top)).toBe(-1);
    expect(deltaCode(-(2 ** 47), 2 ** 47)).toBe((2 ** 49 - 1) * 16);
    expect(deltaValue((2 ** 49 - 1) * 16, 2 ** 47)).toBe(-(2 ** 47));
    // A reference with more decimals than the value is rounded to the value's scale.
    expect(deltaCode(1.5, 1.4999)).toBe(1);
    expect(deltaValue(1, 1.4999)).toBe(1.5);
    for (const r of [NaN, Infinity, -Infinity, -0]) expect(deltaValue(deltaCode(7.25, r), r)).toBe(7.25);
  });
});

const recordValues = (n: number) => fc.array(value, { minLength: n, maxLength: n });

/** Records in time order: steps of 0-4000 s, a few of the same second (seq), some removals. */
const records = (n: number) =>
  fc
    .array(fc.tuple(fc.integer({ min: 0, max: 4000 }), fc.integer({ min: 0, max: 3 }), fc.option(recordValues(n), { freq: 6 })), {
      maxLength: 40,
    })
    .map((steps) => {
      let t = 1_750_000_000;
      return steps.map(([dt, seq, values]): RawRecord => {
        t += dt;
        return { t, seq, values };
      });
    });

/** A walking series: each record's values near the one before (what the store mostly writes). */
const walk = (n: number) =>
  fc
    .tuple(recordValues(n), fc.array(fc.array(fc.integer({ min: -3, max: 3 }), { minLength: n, maxLength: n }), { maxLength: 30 }))
    .map(([first, steps]) => {
      const out: RawRecord[] = [];
      let v = first;
      let t = 1_750_000_000;
      for (const step of [new Array<number>(n).fill(0), ...steps]) {
        v = v.map((x, i) => (Number.isFinite(x) ? Number((x * (1 + step[i] / 1000)).toPrecision(10)) : x));
        out.push({ t: (t += 60), seq: 0, values: v });
      }
      return out;
    });

function sameRecords(actual: RawRecord[], expected: RawRecord[]): void {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) {
    expect([actual[i].t, actual[i].seq]).toEqual([expected[i].t, expected[i].seq]);
    if (expected[i].values === null) expect(actual[i].values).toBeNull();
    else expect(actual[i].values!.every((x, j) => Object.is(x, expected[i].values![j]))).toBe(true);
  }
}

describe("record chunks", () => {
  for (const n of [2, 4]) {
    it(`read back what was written (${n} values a record)`, () => {
      fc.assert(
        fc.property(fc.oneof(records(n), walk(n)), (list) => {
          const sink = new ByteSink(64);
          const base = 1_750_000_000;
          const w = new RecordChunkWriter(sink, base);
          for (const r of list) w.add(r);
          const bytes = sink.take();
          const read: RawRecord[] = [];
          readRecordChunk(bytes, 0, bytes.length, base, n, (r) => read.push(r));
          sameRecords(read, list);
        }),
        { numRuns: 2_000 },
      );
    });
  }

  it("a record unchanged in a value takes no bytes for it; a walking price takes its step", () => {
    const sink = new ByteSink(64);
    const w = new RecordChunkWriter(sink, 0);
    w.add({ t: 60, seq: 0, values: [1234.567891, 52_000_123.45] });
    const first = sink.at;
    w.add({ t: 120, seq: 0, values: [1234.567891, 52_000_123.45] });
    expect(sink.at - first).toBe(2); // dt and head
    const second = sink.at;
    w.add({ t: 180, seq: 0, values: [1235.012345, 52_000_123.45] });
    // dt, head and a step of 444,454 millionths: 4 bytes where the price's own code takes 6
    expect(sink.at - second).toBe(2 + 4);
    expect(codeBytes(decimalCode(1235.012345))).toBe(6);
  });
});

const unit = (n: number) =>
  fc.record({
    nObs: fc.integer({ min: 0, max: 100 }),
    lastT: fc.integer({ min: 0, max: 3599 }),
    presentAtEnd: fc.boolean(),
    v: recordValues(n),
    one: fc.boolean(),
  });

describe("unit chunks", () => {
  for (const n of [5, 4]) {
    it(`read back what was written (${n === 5 ? "token" : "pool"} units)`, () => {
      fc.assert(
        fc.property(fc.array(unit(n), { maxLength: 24 }), (drawn) => {
          const day = 1_749_945_600;
          const units: HistoryUnit[] = drawn.map((u, h) => {
            const t = day + h * 3600;
            // One observation of a token: open, high, low and close are one price.
            const v = n === 5 && u.one ? [u.v[0], u.v[0], u.v[0], u.v[0], u.v[4]] : u.v;
            return u.nObs === 0
              ? { t, nObs: 0, lastT: t, presentAtEnd: u.presentAtEnd, v: [] }
              : { t, nObs: u.nObs, lastT: t + u.lastT, presentAtEnd: u.presentAtEnd, v };
          });
          const sink = new ByteSink(64);
          const w = new UnitChunkWriter(sink);
          units.forEach((u, h) => w.add(u, h, u.t));
          const bytes = sink.take();
          const read: HistoryUnit[] = [];
          readUnitChunk(
            bytes,
            0,
            bytes.length,
            n,
            (h) => day + h * 3600,
            (_, u) => read.push(u),
          );
          expect(read.length).toBe(units.length);
          for (let i = 0; i < units.length; i++) {
            const { v, ...rest } = read[i];
            const { v: want, ...wantRest } = units[i];
            expect(rest).toEqual(wantRest);
            expect(v.length).toBe(want.length);
            expect(v.every((x, j) => Object.is(x, want[j]))).toBe(true);
          }
        }),
        { numRuns: 2_000 },
      );
    });
  }

  it("a token's hour of one observation writes its price once", () => {
    const sink = new ByteSink(64);
    new UnitChunkWriter(sink).add(
      { t: 0, nObs: 1, lastT: 60, presentAtEnd: true, v: [1234.567891, 1234.567891, 1234.567891, 1234.567891, 99.5] },
      0,
      0,
    );
    // index, flags, nObs, lastT, head (2 bytes), the price (6 bytes), the pooled value (2 bytes)
    expect(sink.at).toBe(1 + 1 + 1 + 1 + 2 + 6 + 2);
  });
});

describe("shard blobs", () => {
  it("find every chunk, narrow (u8 ids, u16 ends) and wide (u16 ids, u32 ends), and miss the ids they lack", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 1023 }), { maxLength: 200 }),
        fc.integer({ min: 0, max: 800 }),
        (drawn, size) => {
          const ids = drawn.sort((a, b) => a - b);
          const blob = new ShardBlobWriter();
          for (const id of ids) {
            blob.begin(id);
            for (let i = 0; i < size; i++) blob.data.u8((id + i) & 0xff);
            blob.end();
          }
          const bytes = blob.take();
          const narrow = ids.length === 0 || ids[ids.length - 1] <= 0xff;
          const index = 3 + ids.length * ((narrow ? 1 : 2) + (ids.length * size > 0xffff ? 4 : 2));
          expect(bytes.length).toBe(index + ids.length * size);
          expect([...shardEntries(bytes)].map(([id]) => id)).toEqual(ids);
          for (const id of ids) {
            const at = findInShard(bytes, id)!;
            expect(at[1] - at[0]).toBe(size);
            if (size > 0) expect([bytes[at[0]], bytes[at[1] - 1]]).toEqual([id & 0xff, (id + size - 1) & 0xff]);
          }
          for (const miss of [1024, ...[0, 1, 255, 256, 1023].filter((x) => !ids.includes(x))]) expect(findInShard(bytes, miss)).toBeNull();
        },
      ),
      { numRuns: 300 },
    );
  });
});
