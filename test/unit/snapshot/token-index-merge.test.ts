/**
 * The cross-chain token index as a k-way merge of per-chain token runs (src/snapshot/compile-token-run.ts,
 * src/snapshot/compile-token-index.ts): for random chains full of equal symbols, equal TVLs, shared
 * addresses and colliding names, the index holds every instance once, in rank order (symbol asc, TVL desc,
 * chainId asc, address asc), equal name ids exactly for equal cleaned names, and each instance's search
 * strings; it does not depend on the order the chains come in, nor on whether a chain's run was built
 * with the chain or afresh.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { SUPPORTED_CHAIN_IDS, type ChainId } from "../../../src/chains/chains.js";
import { compileTokenIndex, INDEX_PROGRESS_INSTANCES } from "../../../src/snapshot/compile-token-index.js";
import { cleanName } from "../../../src/tables/name-parity.js";
import { columnStrings } from "../../../src/tables/shared-columns.js";
import { FIELD_NAME, FIELD_SYMBOL, instanceJson, type JsonPiece, type TokenIndexData } from "../../../src/tables/token-index.js";
import type { CompiledChain } from "../../../src/tables/compiled-chain.js";
import { addr, chainFile, token } from "../../support/fixtures.js";
import { compileFile } from "../../support/compiled-chains.js";

const SYMBOLS = ["USDC", "usdc", "WETH", "A", "É", "𝐀", "B"];
const NAMES = ["USD Coin", "usd coin", "Wrapped Ether", "", "A-B c", "𝐀 token"];
const TVLS = [0, 1, 1, 2.5, 1e9];

const tokenArb = fc.record({
  tag: fc.integer({ min: 1, max: 40 }),
  symbol: fc.constantFrom(...SYMBOLS),
  name: fc.constantFrom(...NAMES),
  tvl: fc.constantFrom(...TVLS),
});
const chainsArb = fc.array(fc.uniqueArray(tokenArb, { selector: (t) => t.tag, minLength: 1, maxLength: 12 }), {
  minLength: 1,
  maxLength: 4,
});

function compile(data: { tag: number; symbol: string; name: string; tvl: number }[][]): CompiledChain[] {
  return data.map((tokens, c) => {
    const chainId = SUPPORTED_CHAIN_IDS[c] as ChainId;
    const file = chainFile(chainId, {
      tokens: tokens.map((t) =>
        token(chainId, { address: addr(t.tag.toString(16)), symbol: t.symbol, name: t.name, trackedTotalValuePooledUsd: t.tvl }),
      ),
    });
    return compileFile(file);
  });
}

function compare(a: readonly (string | number)[], b: readonly (string | number)[]): number {
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return a[k] < b[k] ? -1 : 1;
  return 0;
}

function checkIndex(index: TokenIndexData, chains: readonly CompiledChain[]): void {
  const byChain = new Map(chains.map((c) => [c.info.chainId, c]));
  const strings = (c: CompiledChain) => ({
    address: columnStrings(c.tokens.address),
    symbol: columnStrings(c.tokens.symbol),
    name: columnStrings(c.tokens.name),
    normalizedSymbol: columnStrings(c.tokens.normalizedSymbol),
    normalizedName: columnStrings(c.tokens.normalizedName),
  });
  const columns = new Map(chains.map((c) => [c.info.chainId, strings(c)]));
  const n = index.instanceCount;
  expect(n).toBe(chains.reduce((s, c) => s + c.tokens.count, 0));
  const groupSymbols = columnStrings(index.groupSymbol);
  const seen = new Set<string>();
  const keyOf = (i: number) => {
    const cols = columns.get(index.chainId[i] as ChainId)!;
    const row = index.chainRow[i];
    return [cols.normalizedSymbol[row], -index.tvl[i], index.chainId[i], cols.address[row]];
  };
  const searchTexts = index.searchOffsets.length - 1;
  const text = new TextDecoder().decode(index.searchText);
  const searchString = (k: number) => text.slice(index.searchOffsets[k], index.searchOffsets[k + 1]);
  const pairsOf = new Map<number, Map<string, number>>();
  for (let k = 0; k < searchTexts; k++) {
    for (let p = index.postingStart[k]; p < index.postingStart[k + 1]; p++) {
      const at = index.postings[p] >>> 2;
      const fields = pairsOf.get(at) ?? new Map<string, number>();
      fields.set(searchString(k), index.postings[p] & 3);
      pairsOf.set(at, fields);
    }
  }
  const nameOfId = new Map<number, string>();
  for (let i = 0; i < n; i++) {
    const chain = byChain.get(index.chainId[i] as ChainId)!;
    const cols = columns.get(chain.info.chainId)!;
    const row = index.chainRow[i];
    const id = `${chain.info.chainId}:${row}`;
    expect(seen.has(id)).toBe(false);
    seen.add(id);
    expect(index.tvl[i]).toBe(chain.tokens.tvl[row]);
    if (i > 0) expect(compare(keyOf(i - 1), keyOf(i))).toBe(-1);
    const g = index.groupOf[i];
    expect(groupSymbols[g]).toBe(cols.normalizedSymbol[row]);
    expect(index.groupStart[g] <= i && i < index.groupStart[g + 1]).toBe(true);
    const piece = (name: JsonPiece) => new TextDecoder().decode(instanceJson(index, name, i));
    expect(JSON.parse(piece("metadataJson"))).toMatchObject({
      chainId: chain.info.chainId,
      address: cols.address[row],
      name: cols.name[row],
      symbol: cols.symbol[row],
    });
    // The JSON pieces are this instance's, whichever chains the ones around it came from.
    expect(JSON.parse(piece("addressJson"))).toEqual({ chainId: chain.info.chainId, address: cols.address[row] });
    expect(JSON.parse(`{${piece("headerJson")}}`)).toMatchObject({ symbol: cols.symbol[row], name: cols.name[row] });
    // Equal name ids exactly for equal cleaned names.
    const cleaned = cleanName(cols.normalizedName[row]);
    const known = nameOfId.get(index.nameId[i]);
    if (known === undefined) nameOfId.set(index.nameId[i], cleaned);
    else expect(known).toBe(cleaned);
    // The instance's search strings and their fields.
    const expected = new Map<string, number>();
    const add = (value: string, field: number) => {
      if (value.length > 0) expected.set(value.toLowerCase(), (expected.get(value.toLowerCase()) ?? 0) | field);
    };
    add(cols.symbol[row], FIELD_SYMBOL);
    add(cols.normalizedSymbol[row], FIELD_SYMBOL);
    add(cols.name[row], FIELD_NAME);
    add(cols.normalizedName[row], FIELD_NAME);
    expect(pairsOf.get(i) ?? new Map()).toEqual(expected);
  }
  expect(new Set(nameOfId.values()).size).toBe(nameOfId.size);
  expect(groupSymbols.length).toBe(new Set(groupSymbols).size);
  expect(index.groupStart[groupSymbols.length]).toBe(n);
}

describe("token index merged from per-chain runs", () => {
  test("rank order, every instance once, name ids, search strings; independent of chain order and of where runs were built", () => {
    fc.assert(
      fc.property(chainsArb, fc.integer({ min: 0, max: 1000 }), (data, seed) => {
        const chains = compile(data);
        const index = compileTokenIndex(chains.map((c) => ({ chainId: c.info.chainId, tokens: c.tokens, run: c.tokenRun })));
        checkIndex(index, chains);
        const shuffled = chains.map((c, i) => ({ c, k: (i * 7919 + seed) % 101 })).sort((x, y) => x.k - y.k);
        const again = compileTokenIndex(shuffled.map(({ c }) => ({ chainId: c.info.chainId, tokens: c.tokens })));
        expect(again).toEqual(index);
      }),
      { numRuns: 150 },
    );
  });

  test("onProgress every INDEX_PROGRESS_INSTANCES instances of the merge (a build worker looks at its niceness there)", () => {
    const n = INDEX_PROGRESS_INSTANCES * 2 + 5;
    const [a, b] = compile([
      Array.from({ length: n - 100 }, (_, k) => ({ tag: k + 1, symbol: SYMBOLS[k % SYMBOLS.length], name: "x", tvl: k })),
      Array.from({ length: 100 }, (_, k) => ({ tag: k + 1, symbol: "B", name: "y", tvl: k })),
    ]);
    let calls = 0;
    const index = compileTokenIndex(
      [a, b].map((c) => ({ chainId: c.info.chainId, tokens: c.tokens, run: c.tokenRun })),
      () => calls++,
    );
    expect(index.instanceCount).toBe(n);
    expect(calls).toBe(3);
  });
});
