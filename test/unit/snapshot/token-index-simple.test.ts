/**
 * The token index (src/snapshot/compile-token-index.ts) against the simplest index there is
 * (test/support/simple-token-index.ts: one sort, Maps of strings, the simple name-cleaning rule) over random
 * names (non-ASCII, edge whitespace included): built afresh, and built reusing the index before it over random
 * series of pushes (a chain's tokens edited, added or removed; a chain added or
 * removed; a chain pushed again unchanged). A reusing build equals a build afresh exactly, what it saves for the
 * next build included, and both equal the simple index column for column.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { SUPPORTED_CHAIN_IDS, type ChainId } from "../../../src/chains/chains.js";
import {
  compileKeptTokenIndex,
  compileTokenIndex,
  type ChainTokens,
  type KeptTokenIndex,
} from "../../../src/snapshot/compile-token-index.js";
import type { TokenIndexData } from "../../../src/tables/token-index.js";
import { addr, chainFile, token } from "../../support/fixtures.js";
import { compileFileAsRead } from "../../support/compiled-chains.js";
import { resolvedIndex, simpleTokenIndex, type ResolvedIndex } from "../../support/simple-token-index.js";

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
  "  Spaced  OUT  ",
  "-_- ",
  "USD-Coin",
  "a a",
];
const TVLS = [0, 1, 1, 2.5, 1e9, 3e-7];

interface TokenSpec {
  tag: number;
  symbol: string;
  name: string;
  tvl: number;
  price: number;
}
type Chains = Map<ChainId, TokenSpec[]>;

/** Pieces of random names: words that repeat, the two characters that lowercase to ASCII, Σ, other whitespace. */
const NAME_PIECES = ["usd", "Coin", " ", "  ", "İ", "\u212a", "Σ", "é", "𝐀", "\t", "\u00a0", "\u3000", "\ud800", "-", "9"];
const nameArb = fc.oneof(
  fc.constantFrom(...NAMES),
  fc.array(fc.constantFrom(...NAME_PIECES), { maxLength: 6 }).map((pieces) => pieces.join("")),
  fc.string({ unit: "binary", maxLength: 8 }),
);

const tokenArb = fc.record({
  tag: fc.integer({ min: 1, max: 60 }),
  symbol: fc.constantFrom(...SYMBOLS),
  name: nameArb,
  tvl: fc.constantFrom(...TVLS),
  price: fc.constantFrom(0, 1, 0.5),
});
const tokensArb = fc.uniqueArray(tokenArb, { selector: (t) => t.tag, minLength: 1, maxLength: 20 });
const chainArb = fc.integer({ min: 0, max: SUPPORTED_CHAIN_IDS.length - 1 }).map((c) => SUPPORTED_CHAIN_IDS[c] as ChainId);

/** One push: a chain's file replaced (tokens edited, added, removed), added, removed, or pushed again as it was. */
const stepArb = fc.oneof(
  fc.record({ kind: fc.constant("edit" as const), chainId: chainArb, at: fc.nat(), with: tokenArb }),
  fc.record({ kind: fc.constant("add-token" as const), chainId: chainArb, with: tokenArb }),
  fc.record({ kind: fc.constant("remove-token" as const), chainId: chainArb, at: fc.nat() }),
  fc.record({ kind: fc.constant("replace" as const), chainId: chainArb, tokens: tokensArb }),
  fc.record({ kind: fc.constant("remove-chain" as const), chainId: chainArb }),
  fc.record({ kind: fc.constant("same" as const), chainId: chainArb }),
);
type Step = typeof stepArb extends fc.Arbitrary<infer S> ? S : never;

function apply(chains: Chains, step: Step): Chains {
  const next = new Map(chains);
  const tokens = [...(chains.get(step.chainId) ?? [])];
  switch (step.kind) {
    case "edit":
      if (tokens.length > 0) tokens[step.at % tokens.length] = { ...step.with, tag: tokens[step.at % tokens.length].tag };
      break;
    case "add-token":
      if (!tokens.some((t) => t.tag === step.with.tag)) tokens.push(step.with);
      break;
    case "remove-token":
      if (tokens.length > 1) tokens.splice(step.at % tokens.length, 1);
      break;
    case "replace":
      next.set(step.chainId, step.tokens);
      return next;
    case "remove-chain":
      if (next.size > 1) next.delete(step.chainId);
      return next;
    case "same":
      return next;
  }
  if (tokens.length > 0) next.set(step.chainId, tokens);
  return next;
}

/** Each chain compiled as read from its file (with the file's SHA-256); an unchanged chain keeps its compiled data. */
function compile(
  chains: Chains,
  before: Map<ChainId, { specs: TokenSpec[]; input: ChainTokens }>,
): Map<ChainId, { specs: TokenSpec[]; input: ChainTokens }> {
  const out = new Map<ChainId, { specs: TokenSpec[]; input: ChainTokens }>();
  for (const [chainId, specs] of chains) {
    const kept = before.get(chainId);
    if (kept !== undefined && kept.specs === specs) {
      out.set(chainId, kept);
      continue;
    }
    const file = chainFile(chainId, {
      tokens: specs.map((t) =>
        token(chainId, {
          address: addr(t.tag.toString(16)),
          symbol: t.symbol,
          name: t.name,
          trackedTotalValuePooledUsd: t.tvl,
          trackedUsdPrice: t.price,
        }),
      ),
    });
    const c = compileFileAsRead(file);
    out.set(chainId, { specs, input: { chainId, tokens: c.tokens, run: c.tokenRun, sha256: c.info.sha256 } });
  }
  return out;
}

/** The index as the simple index has it: its JSON pieces read per instance. */
function comparable(index: TokenIndexData): ResolvedIndex {
  return resolvedIndex(index);
}

/** A kept index without the count of chains its build reused (which differs between afresh and reusing builds). */
function withoutCount({ index, reuse }: KeptTokenIndex): Omit<KeptTokenIndex, "reusedChains"> {
  return { index, reuse };
}

const initialArb = fc
  .uniqueArray(fc.tuple(chainArb, tokensArb), { selector: ([c]) => c, minLength: 1, maxLength: SUPPORTED_CHAIN_IDS.length })
  .map((entries) => new Map(entries));

describe("token index against the simple index", () => {
  test("built afresh: every column and the default list", () => {
    fc.assert(
      fc.property(initialArb, (chains) => {
        const inputs = [...compile(chains, new Map()).values()].map((c) => c.input);
        expect(comparable(compileTokenIndex(inputs))).toEqual(simpleTokenIndex(inputs));
      }),
      { numRuns: 100 },
    );
  });

  test("built reusing the index before it, over random series of pushes: equal to afresh and to the simple index", () => {
    fc.assert(
      fc.property(initialArb, fc.array(stepArb, { minLength: 1, maxLength: 8 }), (initial, steps) => {
        let chains = initial;
        let compiled = compile(chains, new Map());
        let kept = compileKeptTokenIndex([...compiled.values()].map((c) => c.input));
        for (const step of steps) {
          const files = new Map([...compiled.values()].map(({ input }) => [input.chainId, input.sha256]));
          chains = apply(chains, step);
          compiled = compile(chains, compiled);
          const inputs = [...compiled.values()].map((c) => c.input);
          const reusing = compileKeptTokenIndex(inputs, () => {}, kept);
          const afresh = compileKeptTokenIndex(inputs);
          expect(withoutCount(reusing)).toEqual(withoutCount(afresh));
          expect(comparable(reusing.index)).toEqual(simpleTokenIndex(inputs));
          // Every chain whose file is the one the previous index was built with is reused.
          expect(reusing.reusedChains).toBe(inputs.filter((input) => files.get(input.chainId) === input.sha256).length);
          expect(afresh.reusedChains).toBe(0);
          kept = reusing;
        }
      }),
      { numRuns: 60 },
    );
  });

  test("a chain whose file's SHA-256 differs is not reused, whatever the previous index saved for it", () => {
    const chains: Chains = new Map([
      [SUPPORTED_CHAIN_IDS[0] as ChainId, [{ tag: 1, symbol: "A", name: "alpha coin", tvl: 1, price: 1 }]],
      [SUPPORTED_CHAIN_IDS[1] as ChainId, [{ tag: 2, symbol: "B", name: "beta coin", tvl: 2, price: 1 }]],
    ]);
    const first = [...compile(chains, new Map()).values()].map((c) => c.input);
    const before = compileKeptTokenIndex(first);
    // The same names and strings counts but other strings: a stale reuse would give the old names' ids.
    const edited = apply(chains, {
      kind: "edit",
      chainId: SUPPORTED_CHAIN_IDS[1] as ChainId,
      at: 0,
      with: { tag: 2, symbol: "C", name: "gamma coin", tvl: 2, price: 1 },
    });
    const second = [...compile(edited, new Map()).values()].map((c) => c.input);
    const built = compileKeptTokenIndex(second, () => {}, before);
    expect(built.reusedChains).toBe(1);
    expect(comparable(built.index)).toEqual(simpleTokenIndex(second));
    // Without a SHA-256 a chain is never reused either.
    const unnamed = second.map(({ chainId, tokens, run }) => ({ chainId, tokens, run }));
    expect(compileTokenIndex(unnamed, () => {}, before)).toEqual(compileTokenIndex(unnamed));
  });
});
