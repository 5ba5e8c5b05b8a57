/**
 * The token index built by src/snapshot/compile-token-index.ts (the order first, then each chain's pieces in
 * its rank order, then the ids in rank order; search strings and names found by their bytes) equals, column
 * for column and in its default list, the index built as before issue 30 (test/support/reference-token-index.ts:
 * an instance at a time, strings decoded and keyed in Maps), for random chains full of equal and colliding
 * symbols, names and TVLs, non-ASCII, astral and lone-surrogate text, and instances on several chains.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { SUPPORTED_CHAIN_IDS, type ChainId } from "../../../src/chains/chains.js";
import { compileTokenIndex } from "../../../src/snapshot/compile-token-index.js";
import type { CompiledChain } from "../../../src/tables/compiled-chain.js";
import { addr, chainFile, token } from "../../support/fixtures.js";
import { compileFile } from "../../support/compiled-chains.js";
import { referenceTokenIndex } from "../../support/reference-token-index.js";

const SYMBOLS = ["USDC", "usdc", "WETH", "A", "É", "𝐀", "B", "x\uD800", "Ωmega", ""];
const NAMES = [
  "USD Coin",
  "usd coin",
  "Wrapped Ether",
  "",
  "A-B c",
  "𝐀 token",
  "b b b a",
  "\uDC00 lone",
  "Ünïcødé  ẞ",
  "usdc",
  "İstanbul \u212Aelvin",
  "  Spaced  OUT  ",
  "-_- ",
  "USD-Coin",
  "USD Coin -",
  " usd coin",
];
const TVLS = [0, 1, 1, 2.5, 1e9, 3e-7];

const tokenArb = fc.record({
  tag: fc.integer({ min: 1, max: 60 }),
  symbol: fc.constantFrom(...SYMBOLS),
  name: fc.constantFrom(...NAMES),
  tvl: fc.constantFrom(...TVLS),
  price: fc.constantFrom(0, 1, 0.5),
});
const chainsArb = fc.array(fc.uniqueArray(tokenArb, { selector: (t) => t.tag, minLength: 1, maxLength: 25 }), {
  minLength: 1,
  maxLength: SUPPORTED_CHAIN_IDS.length,
});

function compile(data: { tag: number; symbol: string; name: string; tvl: number; price: number }[][]): CompiledChain[] {
  return data.map((tokens, c) => {
    const chainId = SUPPORTED_CHAIN_IDS[c] as ChainId;
    const file = chainFile(chainId, {
      tokens: tokens.map((t) =>
        token(chainId, {
          address: addr(t.tag.toString(16)),
          symbol: t.symbol,
          name: t.name,
          trackedTotalValuePooledUsd: t.tvl,
          trackedUsdPrice: t.price,
        }),
      ),
    });
    return compileFile(file);
  });
}

describe("token index equals the index built an instance at a time", () => {
  test("every column and the default list, for random chains", () => {
    fc.assert(
      fc.property(chainsArb, (data) => {
        const chains = compile(data).map((c) => ({ chainId: c.info.chainId, tokens: c.tokens, run: c.tokenRun }));
        expect(compileTokenIndex(chains)).toEqual(referenceTokenIndex(chains));
      }),
      { numRuns: 100 },
    );
  });
});
