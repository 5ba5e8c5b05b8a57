/**
 * The reference implementation must be trustworthy on its own: tiny hand-computed cases,
 * then the hand-made token-list data set against its hand-written expectations.
 */
import { describe, expect, it } from "vitest";
import {
  addr,
  chainFile,
  nativeToken,
  TL,
  TL_DEFAULT_ORDER,
  TL_DEFAULT_ORDER_ASC,
  TL_EXPECTED,
  TL_EXPECTED_MATCH_ALL,
  TL_EXPECTED_WITH_WRAPPED,
  TL_ORDERING_ASC,
  TL_ORDERING_DESC,
  TL_ORDERING_DESC_WITH_WRAPPED,
  TL_THRESHOLDS_DEFAULT,
  TL_THRESHOLDS_ZERO,
  templateLogo,
  testLogo,
  token,
  tokenListFixture,
  wrappedNativeToken,
} from "./fixtures.js";
import { cleanName, namePasses, pricePasses, referenceTokenList } from "./reference-token-list.js";

describe("reference helpers", () => {
  it("cleans names: lowercase, only [a-z0-9 ], trimmed", () => {
    expect(cleanName("  USD Coin (PoS)! ")).toBe("usd coin pos");
    expect(cleanName("***")).toBe("");
    expect(cleanName("Ether")).toBe("ether");
  });

  it("price parity: 20% passes, 20.01% fails, anchor 0 passes all", () => {
    expect(pricePasses(1200, 1000)).toBe(true);
    expect(pricePasses(800, 1000)).toBe(true);
    expect(pricePasses(1200.1, 1000)).toBe(false);
    expect(pricePasses(799.9, 1000)).toBe(false);
    expect(pricePasses(123456, 0)).toBe(true);
    expect(pricePasses(0, 10)).toBe(false);
  });

  it("name parity branches", () => {
    expect(namePasses("***", "!!!", "EQL")).toBe(true); // equal (both empty once cleaned)
    expect(namePasses("Alpha Coin!", "alpha coin", "ZZZ")).toBe(true); // equal once cleaned
    expect(namePasses("My CNT wrapper", "Gamma", "CNT")).toBe(true); // contains symbol
    expect(namePasses("Zeta", "Cnu Dollar", "CNU")).toBe(true); // anchor contains symbol
    expect(namePasses("Alpha Beta Coin", "Zeta", "ABC")).toBe(true); // initials
    expect(namePasses("Omega", "Xeno Yield Zone", "XYZ")).toBe(true); // anchor initials
    expect(namePasses("Delta Red Green", "Delta Red Blue", "JAC")).toBe(true); // Jaccard 2/4 = 0.5
    expect(namePasses("Delta Red Green Pink", "Delta Red Blue", "JAB")).toBe(false); // 2/5 = 0.4
    expect(namePasses("Red Delta Blue", "Delta Red Blue", "JAW")).toBe(false); // first word differs
    expect(namePasses("Qux", "Foo Bar", "FAIL")).toBe(false);
  });
});

describe("referenceTokenList on tiny cases", () => {
  it("thresholds are strict and per instance", () => {
    const f = chainFile(1, {
      tokens: [
        token(1, { address: addr("1"), symbol: "A", trackedTotalValuePooledUsd: 10_000 }),
        token(1, { address: addr("2"), symbol: "B", trackedTotalValuePooledUsd: 10_001 }),
        token(1, { address: addr("3"), symbol: "C", swapsCount: 1000 }),
        token(1, { address: addr("4"), symbol: "D", trackedSwapVolumeUsd: 100_000 }),
      ],
    });
    expect(referenceTokenList([f]).map((e) => e.symbol)).toEqual(["B"]);
    expect(
      referenceTokenList([f], { filters: { minimumTotalValuePooledUsd: 0, minimumSwapsCount: 0, minimumSwapVolumeUsd: 0 } }).map(
        (e) => e.symbol,
      ),
    ).toEqual(["C", "D", "B", "A"]);
  });

  it("wrapped native on/off; native is ordinary", () => {
    const f = chainFile(1, {
      tokens: [nativeToken(1, { trackedTotalValuePooledUsd: 20_000 }), wrappedNativeToken(1, { trackedTotalValuePooledUsd: 30_000 })],
    });
    expect(referenceTokenList([f]).map((e) => e.symbol)).toEqual(["ETH"]);
    expect(referenceTokenList([f], { filters: { ignoreWrappedNative: false } }).map((e) => e.symbol)).toEqual(["WETH", "ETH"]);
  });

  it("canonical vs matchAll, rank order, chainIds distinct", () => {
    const c1 = chainFile(1, {
      tokens: [
        token(1, { address: addr("a"), symbol: "X", trackedTotalValuePooledUsd: 100_000 }),
        token(1, { address: addr("b"), symbol: "X", trackedTotalValuePooledUsd: 300_000 }),
      ],
    });
    const c8453 = chainFile(8453, { tokens: [token(8453, { address: addr("c"), symbol: "X", trackedTotalValuePooledUsd: 200_000 })] });
    expect(referenceTokenList([c1, c8453])).toEqual([
      {
        addresses: [
          { chainId: 1, address: addr("b") },
          { chainId: 8453, address: addr("c") },
        ],
        symbol: "X",
        name: "X",
        logoUrl: testLogo(1, addr("b")),
        chainIds: [1, 8453],
      },
    ]);
    expect(referenceTokenList([c1, c8453], { config: { matchAllSymbols: true } })[0]!.addresses).toEqual([
      { chainId: 1, address: addr("b") },
      { chainId: 8453, address: addr("c") },
      { chainId: 1, address: addr("a") },
    ]);
    expect(referenceTokenList([c1, c8453], { config: { matchAllSymbols: true } })[0]!.chainIds).toEqual([1, 8453]);
  });

  it("absent normalized fields are transliterated; absent logo uses the template", () => {
    const f = chainFile(1, {
      tokens: [
        token(1, {
          address: addr("1"),
          symbol: "USD₮0",
          name: "USD₮0",
          normalizedSymbol: undefined,
          normalizedName: undefined,
          logoUrl: undefined,
        }),
      ],
    });
    const f2 = chainFile(8453, { tokens: [token(8453, { address: addr("2"), symbol: "USDT0", trackedTotalValuePooledUsd: 10_001 })] });
    const list = referenceTokenList([f, f2]);
    expect(list).toHaveLength(1);
    expect(list[0]!.logoUrl).toBe(templateLogo(1, addr("1")));
    expect(list[0]!.chainIds).toEqual([1, 8453]);
  });

  it("group ties by normalizedSymbol code units, both directions", () => {
    const f = chainFile(1, {
      tokens: [
        token(1, { address: addr("1"), symbol: "b" }),
        token(1, { address: addr("2"), symbol: "B" }),
        token(1, { address: addr("3"), symbol: "a" }),
        token(1, { address: addr("4"), symbol: "Z", trackedTotalValuePooledUsd: 60_000 }),
      ],
    });
    expect(referenceTokenList([f]).map((e) => e.symbol)).toEqual(["Z", "B", "a", "b"]);
    expect(referenceTokenList([f], { config: { orderBy: { direction: "asc" } } }).map((e) => e.symbol)).toEqual(["B", "a", "b", "Z"]);
  });
});

describe("referenceTokenList on the hand-made data set", () => {
  const files = tokenListFixture();
  const bySymbol = (list: { symbol: string }[]) => Object.fromEntries(list.map((e) => [e.symbol, e]));

  it("default query: every entry and the order", () => {
    const list = referenceTokenList(files);
    expect(list.map((e) => e.symbol)).toEqual(TL_DEFAULT_ORDER);
    expect(bySymbol(list)).toEqual(TL_EXPECTED);
  });

  it("ascending", () => {
    expect(referenceTokenList(files, { config: { orderBy: { direction: "asc" } } }).map((e) => e.symbol)).toEqual(TL_DEFAULT_ORDER_ASC);
  });

  it("matchAllSymbols", () => {
    const list = bySymbol(referenceTokenList(files, { config: { matchAllSymbols: true } }));
    for (const [sym, entry] of Object.entries(TL_EXPECTED_MATCH_ALL)) expect(list[sym]).toEqual(entry);
    expect(list.ZQ).toEqual(TL_EXPECTED.ZQ);
  });

  it("wrapped natives", () => {
    const list = bySymbol(referenceTokenList(files, { filters: { ignoreWrappedNative: false } }));
    for (const [sym, entry] of Object.entries(TL_EXPECTED_WITH_WRAPPED)) expect(list[sym]).toEqual(entry);
  });

  it("ordering chains and threshold chain", () => {
    const sym = (r: Parameters<typeof referenceTokenList>[1]) => referenceTokenList(files, r).map((e) => e.symbol);
    expect(sym({ filters: { chainIds: [9745, 534352] } })).toEqual(TL_ORDERING_DESC);
    expect(sym({ filters: { chainIds: [534352, 9745] }, config: { orderBy: { direction: "asc" } } })).toEqual(TL_ORDERING_ASC);
    expect(sym({ filters: { chainIds: [9745, 534352], ignoreWrappedNative: false } })).toEqual(TL_ORDERING_DESC_WITH_WRAPPED);
    expect(sym({ filters: { chainIds: [143] } })).toEqual(TL_THRESHOLDS_DEFAULT);
    expect(
      sym({
        filters: {
          chainIds: [143],
          minimumTotalValuePooledUsd: 0,
          minimumSwapsCount: 0,
          minimumSwapVolumeUsd: 0,
          ignoreWrappedNative: false,
        },
      }),
    ).toEqual(TL_THRESHOLDS_ZERO);
    expect(TL.zero).toBe(addr("f07"));
  });
});
