/**
 * The search matcher (src/query/search-match.ts) in process: for random terms over names and
 * symbols full of word boundaries, letter case, non-ASCII letters, astral characters, `%`, `_`
 * and repeated substrings, each instance's tier (0 = no match) equals the reference's, which is
 * written from the spec text (test/support/reference-token-search.ts).
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { SUPPORTED_CHAIN_IDS, type ChainId } from "../../../src/chains/chains.js";
import { evaluateTokenList, restrictTokenList } from "../../../src/query/evaluate-token-list.js";
import { matchedGroups, matchSearchTerm, searchTerm } from "../../../src/query/search-match.js";
import { chainMask, SEARCH_FILTER_DEFAULTS } from "../../../src/query/token-query.js";
import { compileTokenIndex } from "../../../src/snapshot/compile-token-index.js";
import type { SnapshotFile } from "../../../src/api/snapshot-format.js";
import { ServingSnapshot } from "../../../src/serving/serving-snapshot.js";
import { addr, chainFile, token } from "../../support/fixtures.js";
import { toInstance } from "../../support/reference-token-list.js";
import { referenceTier } from "../../support/reference-token-search.js";
import { compileFile } from "../../support/compiled-chains.js";

const PIECES = ["usd", "USD", "coin", "Coin", " ", "-", "+", "%", "_", ".", "é", "É", "ü", "₮", "𝐀", "0", "1", "ab", "aba", "x"];

const textArb = fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 6 }).map((parts) => parts.join(""));

function build(names: { symbol: string; name: string; normalizedSymbol: string; normalizedName: string }[][]): {
  files: SnapshotFile[];
  snapshot: ServingSnapshot;
} {
  const files = names.map((tokens, c) =>
    chainFile(SUPPORTED_CHAIN_IDS[c] as ChainId, {
      tokens: tokens.map((t, i) => token(SUPPORTED_CHAIN_IDS[c]!, { address: addr((i + 1).toString(16)), ...t })),
    }),
  );
  const chains = files.map((f) => compileFile(f));
  const index = compileTokenIndex(chains.map((c) => ({ chainId: c.info.chainId, tokens: c.tokens })));
  return { files, snapshot: ServingSnapshot.of(1, chains, index) };
}

const tokenArb = fc.record({ symbol: textArb, name: textArb, normalizedSymbol: textArb, normalizedName: textArb });
const dataArb = fc.array(fc.array(tokenArb, { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 3 });
const termArb = fc.oneof(textArb, fc.constantFrom("usd", "US", "coin", "o", "%", "_", "é", "𝐀", "ab a", "usd coin", "+usd"));

describe("matchSearchTerm", () => {
  test("each instance's tier equals the reference's; untiered matching finds the same instances", () => {
    fc.assert(
      fc.property(dataArb, termArb, (data, rawTerm) => {
        const term = rawTerm.trim();
        fc.pre(term.length > 0);
        const { files, snapshot } = build(data);
        const ix = snapshot.tokenIndex;
        const all = chainMask([...SUPPORTED_CHAIN_IDS]);
        const tiered = matchSearchTerm(ix, snapshot.searchText, searchTerm(term), all, true);
        const plain = matchSearchTerm(ix, snapshot.searchText, searchTerm(term), all, false);
        for (let i = 0; i < ix.instanceCount; i++) {
          const chainId = ix.chainId[i];
          const address = "0x" + Buffer.from(ix.addressBytes.subarray(i * 20, i * 20 + 20)).toString("hex");
          const record = files.find((f) => f.chainId === chainId)!.tokens.find((t) => t.address === address)!;
          const expected = referenceTier(toInstance(chainId, record), term);
          expect(
            tiered.tier[i],
            `${JSON.stringify(term)} in ${JSON.stringify([record.symbol, record.normalizedSymbol, record.name, record.normalizedName])}`,
          ).toBe(expected);
          expect(plain.tier[i] > 0).toBe(expected > 0);
        }
        expect(tiered.count).toBe(plain.count);
        const { groups, groupCount } = matchedGroups(ix, tiered);
        const expectedGroups = [...new Set(Array.from(tiered.instances.subarray(0, tiered.count), (i) => ix.groupOf[i]))].sort(
          (a, b) => a - b,
        );
        expect(Array.from(groups.subarray(0, groupCount))).toEqual(expectedGroups);
      }),
      { numRuns: 300, seed: 9_271_025 },
    );
  });

  test("a search evaluated on its matching groups equals the list of its filters restricted to the matches", () => {
    fc.assert(
      fc.property(
        dataArb,
        termArb,
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom("desc" as const, "asc" as const),
        (data, rawTerm, relevance, matchAllSymbols, direction) => {
          const term = rawTerm.trim();
          fc.pre(term.length > 0);
          const { snapshot } = build(data);
          const ix = snapshot.tokenIndex;
          const mask = snapshot.loadedMask;
          const match = matchSearchTerm(ix, snapshot.searchText, searchTerm(term), mask, relevance);
          const query = { chainIds: [], ...SEARCH_FILTER_DEFAULTS, matchAllSymbols, direction: relevance ? ("desc" as const) : direction };
          const evaluated = evaluateTokenList(ix, query, mask, { tier: match.tier, ...matchedGroups(ix, match), byRelevance: relevance });
          const restricted = restrictTokenList(evaluateTokenList(ix, query, mask), match.tier, relevance);
          expect(restricted).toEqual(evaluated);
        },
      ),
      { numRuns: 200, seed: 5_151_025 },
    );
  });

  test("only chains in scope match; an address term matches that address on every chain in scope", () => {
    const { snapshot } = build([
      [{ symbol: "USDC", name: "USD Coin", normalizedSymbol: "USDC", normalizedName: "USD Coin" }],
      [{ symbol: "USDC", name: "USD Coin", normalizedSymbol: "USDC", normalizedName: "USD Coin" }],
    ]);
    const ix = snapshot.tokenIndex;
    const first = chainMask([SUPPORTED_CHAIN_IDS[0]]);
    expect(matchSearchTerm(ix, snapshot.searchText, searchTerm("usdc"), first, true).count).toBe(1);
    const byAddress = matchSearchTerm(
      ix,
      snapshot.searchText,
      searchTerm(addr("1").toUpperCase().replace("0X", "0x")),
      chainMask([...SUPPORTED_CHAIN_IDS]),
      true,
    );
    expect(byAddress.count).toBe(2);
    expect(Array.from(byAddress.tier).filter((t) => t > 0)).toEqual([4, 4]);
  });
});
