/**
 * ByteStrings (src/snapshot/compile-search-strings.ts) against a Map<string>: ids by first use, equal bytes
 * equal ids, from several columns, with a table sized far too small (it grows), and the text it lays out is
 * the strings joined, with offsets in UTF-16 code units of the decoded text.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { ByteStrings } from "../../../src/snapshot/compile-search-strings.js";
import { encodeStringColumn } from "../../../src/tables/shared-columns.js";

const textArb = fc.oneof(
  fc.constantFrom("", "a", "usdc", "USDC", "É", "𝐀", "x\uD800", "\uDC00", "Ωmega token"),
  fc.string({ maxLength: 6, unit: "grapheme" }),
);

describe("ByteStrings", () => {
  test("ids by first use and the laid-out text equal a Map<string> over the decoded strings", () => {
    fc.assert(
      fc.property(fc.array(fc.array(textArb, { maxLength: 30 }), { minLength: 1, maxLength: 4 }), fc.nat(40), (lists, expected) => {
        const columns = lists.map((values) => encodeStringColumn(values));
        const decoded = columns.map((c) =>
          Array.from({ length: c.offsets.length - 1 }, (_, k) =>
            Buffer.from(c.bytes.subarray(c.offsets[k], c.offsets[k + 1])).toString("utf8"),
          ),
        );
        const strings = new ByteStrings(expected);
        const reference = new Map<string, number>();
        for (let k = 0; ; k++) {
          let any = false;
          for (let c = 0; c < columns.length; c++) {
            if (k >= decoded[c].length) continue;
            any = true;
            const text = decoded[c][k];
            if (!reference.has(text)) reference.set(text, reference.size);
            expect(strings.idOf(columns[c], k)).toBe(reference.get(text));
          }
          if (!any) break;
        }
        expect(strings.size).toBe(reference.size);
        const texts = [...reference.keys()];
        const { searchText, searchOffsets } = strings.text();
        const all = Buffer.from(searchText).toString("utf8");
        expect(all).toBe(texts.join(""));
        expect(Array.from(searchOffsets)).toEqual(texts.reduce((o, t) => [...o, o[o.length - 1] + t.length], [0]));
      }),
      { numRuns: 300 },
    );
  });
});
