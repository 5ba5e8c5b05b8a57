import { describe, expect, test } from "vitest";
import { cleanName, containsSymbol, initialsMatchSymbol, jaccardSorted, nameWords } from "../../../src/tables/name-parity.js";

describe("name parity features", () => {
  test("cleaned name, words and initials", () => {
    expect(cleanName("  USD Coin (PoS)! ")).toBe("usd coin pos");
    expect(nameWords("  Wrapped  Ether ")).toEqual({ cleaned: "wrapped  ether", words: ["wrapped", "ether"], initials: "we" });
    expect(nameWords("***")).toEqual({ cleaned: "", words: [], initials: "" });
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
