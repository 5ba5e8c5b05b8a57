import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { MAX_JSON_NUMBER_BYTES, writeJsonNumber } from "../../../src/util/json-number.js";

function text(value: number): string {
  const out = new Uint8Array(MAX_JSON_NUMBER_BYTES);
  const end = writeJsonNumber(out, 0, value);
  return Buffer.from(out.subarray(0, end)).toString("latin1");
}

describe("writeJsonNumber: the bytes of JSON.stringify(number)", () => {
  test("edge values", () => {
    const values = [
      0,
      -0,
      1,
      -1,
      0.1,
      0.2,
      0.30000000000000004,
      0.1 + 0.2,
      1.005,
      9.95,
      4.35,
      1234567.891,
      100,
      1200,
      -4321.75,
      1e-6,
      1.5e-6,
      9.99e-7,
      1e-7,
      5e-324,
      1e21,
      1e20,
      -1e21,
      123456789012345680000,
      2 ** 53,
      2 ** 53 - 1,
      2 ** 53 + 2,
      Number.MAX_VALUE,
      -Number.MAX_VALUE,
      Number.EPSILON,
      0.000123,
      12.5,
      1e-10,
      0.0000015,
      NaN,
      Infinity,
      -Infinity,
    ];
    for (const v of values) expect(text(v), String(v)).toBe(JSON.stringify(v));
  });

  test("the longest texts fit MAX_JSON_NUMBER_BYTES", () => {
    expect(text(-1.2345678901234567e-308)).toBe("-1.2345678901234567e-308");
    expect(text(-0.0000010000977337124721)).toBe("-0.0000010000977337124721");
    expect(JSON.stringify(-0.0000010000977337124721).length).toBe(MAX_JSON_NUMBER_BYTES);
    // Every double: at most 17 significant digits; the widest layouts are "-0.00000" + 17 digits
    // and "-d.dddddddddddddddde-308".
    fc.assert(
      fc.property(fc.double(), (v) => {
        expect(JSON.stringify(v).length).toBeLessThanOrEqual(MAX_JSON_NUMBER_BYTES);
      }),
      { numRuns: 20_000 },
    );
  });

  test("short decimals (prices, amounts, USD values)", () => {
    const decimal = fc.tuple(fc.integer({ min: -1e12, max: 1e12 }), fc.integer({ min: 0, max: 12 })).map(([m, f]) => m / 10 ** f);
    fc.assert(
      fc.property(decimal, (v) => {
        expect(text(v)).toBe(JSON.stringify(v));
      }),
      { numRuns: 20_000 },
    );
  });

  test("any double", () => {
    fc.assert(
      fc.property(fc.double(), (v) => {
        expect(text(v)).toBe(JSON.stringify(v));
      }),
      { numRuns: 20_000 },
    );
  });

  test("writes at the given position and returns the end", () => {
    const out = new Uint8Array(40).fill(0x20);
    const end = writeJsonNumber(out, 3, 6.25);
    expect(end).toBe(7);
    expect(Buffer.from(out.subarray(0, 8)).toString("latin1")).toBe("   6.25 ");
  });
});
