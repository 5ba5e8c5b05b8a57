import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  cleanName,
  cleanNameBytes,
  containsSymbol,
  initialsMatchSymbol,
  jaccardSorted,
  nameWords,
} from "../../../src/tables/name-parity.js";
import { cleanName as simpleCleanName } from "../../support/reference-token-list.js";

/** Characters that test the rule's edges: ASCII, the two that lowercase to ASCII, Σ, other whitespace, lone surrogates. */
const EDGE_CHARACTERS = [
  "a",
  "Z",
  "0",
  "9",
  " ",
  "  ",
  "-",
  "(",
  "İ",
  "\u212a",
  "Σ",
  "ς",
  "É",
  "ẞ",
  "𝐀",
  "\t",
  "\n",
  "\u00a0",
  "\u2028",
  "\u3000",
  "\ud800",
  "\udc00",
  "\u0000",
  "\u007f",
  "\u0080",
];
const nameArb = fc.oneof(
  fc.array(fc.constantFrom(...EDGE_CHARACTERS), { maxLength: 12 }).map((parts) => parts.join("")),
  fc.string({ unit: "binary", maxLength: 16 }),
  fc.string({ maxLength: 16 }),
);

/** The simple rule's words: the cleaned name split at spaces, empty pieces left out. */
const simpleWords = (name: string) =>
  simpleCleanName(name)
    .split(" ")
    .filter((w) => w.length > 0);

describe("name parity features", () => {
  test("cleaned name, words and initials", () => {
    expect(cleanName("  USD Coin (PoS)! ")).toBe("usd coin pos");
    expect(nameWords("  Wrapped  Ether ")).toEqual({ cleaned: "wrapped  ether", words: ["wrapped", "ether"], initials: "we" });
    expect(nameWords("***")).toEqual({ cleaned: "", words: [], initials: "" });
    expect(nameWords("İstanbul \u212aoin")).toEqual({ cleaned: "istanbul koin", words: ["istanbul", "koin"], initials: "ik" });
  });

  test("every single character is cleaned as the simple rule cleans it (lowercase, keep [a-z0-9 ], trim)", () => {
    const mismatches: number[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      const text = `a${String.fromCodePoint(cp)}b`;
      if (cleanName(text) !== simpleCleanName(text)) mismatches.push(cp);
    }
    expect(mismatches).toEqual([]);
  });

  test("any name: the cleaned name and its words are the simple rule's (property)", () => {
    fc.assert(
      fc.property(nameArb, (name) => {
        expect(cleanName(name)).toBe(simpleCleanName(name));
        const words = simpleWords(name);
        expect(nameWords(name)).toEqual({ cleaned: simpleCleanName(name), words, initials: words.map((w) => w[0]).join("") });
      }),
      { numRuns: 2000 },
    );
  });

  test("any bytes, UTF-8 or not, within a larger buffer: the simple rule's cleaning of their text (property)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 24 }), fc.nat(4), fc.nat(4), (bytes, before, after) => {
        const buffer = new Uint8Array(before + bytes.length + after).fill(0x41);
        buffer.set(bytes, before);
        const out = new Uint8Array(bytes.length);
        const length = cleanNameBytes(buffer, before, before + bytes.length, out);
        expect(Buffer.from(out.subarray(0, length)).toString("latin1")).toBe(simpleCleanName(new TextDecoder().decode(bytes)));
      }),
      { numRuns: 2000 },
    );
  });

  test("symbol relations take the lowercased symbol", () => {
    const name = nameWords("My CNT wrapper");
    expect(containsSymbol(name, "cnt")).toBe(true);
    expect(containsSymbol(name, "xyz")).toBe(false);
    expect(initialsMatchSymbol(nameWords("Alpha Beta Coin"), "abc")).toBe(true);
    expect(initialsMatchSymbol(nameWords("Alpha Beta Coin"), "ab")).toBe(false);
  });

  test("Jaccard of sorted id lists", () => {
    const a = [1, 2, 3];
    const b = [2, 3, 4];
    expect(jaccardSorted(a, 0, 3, b, 0, 3)).toBe(0.5);
    expect(jaccardSorted(a, 0, 0, b, 0, 0)).toBe(1);
    expect(jaccardSorted(a, 0, 1, b, 0, 1)).toBe(0);
  });
});
