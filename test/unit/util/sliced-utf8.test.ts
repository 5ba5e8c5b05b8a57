/** SlicedUtf8 (src/util/sliced-utf8.ts): a text decoded a slice at a time is the text decoded at once. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SlicedUtf8 } from "../../../src/util/sliced-utf8.js";

describe("SlicedUtf8", () => {
  it("gives Buffer's decoding of the bytes, whatever the slice size and however many steps ran first (property)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 200 }), fc.integer({ min: 1, max: 17 }), fc.nat(40), (text, slice, steps) => {
        const bytes = Buffer.from(text, "utf8");
        const sliced = new SlicedUtf8(bytes, slice);
        for (let i = 0; i < steps; i++) sliced.step();
        expect(sliced.text()).toBe(bytes.toString("utf8"));
        expect(sliced.step()).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it("steps until the text is decoded, then says so", () => {
    const sliced = new SlicedUtf8(Buffer.from("añb€c"), 2);
    let steps = 0;
    while (sliced.step()) steps++;
    expect(steps).toBe(3); // 8 bytes in slices of 2: the fourth step decodes the last two and reports the end
    expect(sliced.text()).toBe("añb€c");
    expect(new SlicedUtf8(new Uint8Array(0)).text()).toBe("");
  });

  it("refuses a slice size that would never finish", () => {
    expect(() => new SlicedUtf8(new Uint8Array(1), 0)).toThrow(RangeError);
  });
});
