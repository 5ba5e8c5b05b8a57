/**
 * Which previous tokens an incremental build decodes although their record bytes are unchanged
 * (src/snapshot/reuse-tokens.ts, lossyRows): those whose symbol, name or logoUrl column value holds U+FFFD
 * (bytes EF BF BD), which may stand for a lone surrogate the columns cannot give back. Found by one search per
 * column: a row is marked exactly when one of its own three values holds the three bytes.
 */
import { describe, expect, it } from "vitest";
import { lossyRows } from "../../../src/snapshot/reuse-tokens.js";
import { fillTokenDefaults } from "../../../src/snapshot/normalize-token.js";
import { TokenColumnsBuilder } from "../../../src/snapshot/token-columns.js";
import { addr, token } from "../../support/fixtures.js";

const CHAIN = 8453;

function columns(texts: readonly { symbol: string; name?: string; logoUrl?: string }[]) {
  return TokenColumnsBuilder.of(texts.map((t, i) => fillTokenDefaults(token(CHAIN, { address: addr((i + 1).toString(16)), ...t }), CHAIN)));
}

describe("lossyRows", () => {
  it("marks the rows whose symbol, name or logoUrl holds U+FFFD, first, last and empty values around them", () => {
    const rows = lossyRows(
      columns([
        { symbol: "\ufffd" },
        { symbol: "", name: "" },
        { symbol: "A", name: "x\ufffd" },
        { symbol: "B", name: "B", logoUrl: "https://l.test/\ufffd.png" },
        { symbol: "C\u00ef", name: "\u00bf\u00bd" },
        { symbol: "a\ud800b" },
        { symbol: "D", name: "D" },
        { symbol: "\ufffd\ufffd", name: "E" },
      ]),
    );
    expect([...rows]).toEqual([1, 0, 1, 1, 0, 1, 0, 1]);
  });

  it("marks no row where no value holds the three bytes (characters whose UTF-8 holds BF or BD), nor in no rows", () => {
    // "\u00ef" is C3 AF and "\u00bf\u00bd" is C2 BF C2 BD.
    expect([...lossyRows(columns([{ symbol: "\u00ef" }, { symbol: "\u00bf\u00bd" }]))]).toEqual([0, 0]);
    expect([...lossyRows(columns([]))]).toEqual([]);
  });
});
