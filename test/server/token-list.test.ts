/**
 * api-decisions.md §3 (POST /v1/tokens), rule by rule, against the hand-made data set of
 * fixtures.ts with expectations written by hand; and the cursor rules of §3.6-7.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHAINS, NATIVE_ADDRESS } from "../../src/chains/chains.js";
import {
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
  tokenListFixture,
} from "../support/fixtures.js";
import { expectError, expectSuccess, postTokens, startWithFixtures, walkTokenPages, type Gateway } from "../support/gateway-process.js";

let gw: Gateway;
let base: string;

beforeAll(async () => {
  gw = await startWithFixtures(tokenListFixture());
  base = gw.baseUrl;
});

afterAll(async () => {
  await gw?.stop();
});

type Entry = (typeof TL_EXPECTED)[string];
interface Query {
  config?: Record<string, unknown>;
  filters?: Record<string, unknown>;
}

/** The whole list in one page (limit 500). */
async function list(query: Query = {}): Promise<Entry[]> {
  const res = await postTokens(base, { ...query, config: { ...(query.config ?? {}), limit: 500 } });
  const data = expectSuccess<{ tokens: Entry[]; nextCursor: string | null }>(res);
  expect(data.nextCursor).toBeNull();
  return data.tokens;
}
const symbols = (entries: Entry[]) => entries.map((e) => e.symbol);
const bySymbol = (entries: Entry[]) => Object.fromEntries(entries.map((e) => [e.symbol, e])) as Record<string, Entry>;
const Z = NATIVE_ADDRESS;
const at = (chainId: number, address: string) => ({ chainId, address });

const MATCH_ALL_ORDER = [
  "ETH",
  "HYPE",
  "WETH",
  "PRC",
  "USDT0",
  "TIE",
  "TOP",
  "ZP",
  "eth",
  "MID",
  "ZQ",
  "CNT",
  "ABC",
  "CNU",
  "EQL",
  "JAC",
  "XYZ",
  "TA",
  "TB",
  "tA",
  "FAIL",
  "JAB",
  "JAW",
  "MON",
  "MIXD",
  "NOLOGO",
  "SWPUP",
  "VOLUP",
  "XPL",
  "LOW",
  "TVLUP",
];
const WITH_WRAPPED_ORDER = [
  "WETH",
  "ETH",
  "HYPE",
  "WHYPE",
  "PRC",
  "USDT0",
  "TOP",
  "ZP",
  "eth",
  "TIE",
  "MID",
  "ZQ",
  "CNT",
  "ABC",
  "CNU",
  "EQL",
  "JAC",
  "XYZ",
  "TA",
  "TB",
  "tA",
  "FAIL",
  "JAB",
  "JAW",
  "WMON",
  "MON",
  "MIXD",
  "NOLOGO",
  "SWPUP",
  "WXPL",
  "VOLUP",
  "XPL",
  "LOW",
  "TVLUP",
];

describe("whole lists", () => {
  it("default query: every entry exactly, in order", async () => {
    expect(await list()).toEqual(TL_DEFAULT_ORDER.map((s) => TL_EXPECTED[s]));
  });

  it("default page size is 10", async () => {
    const data = expectSuccess(await postTokens(base, {}));
    expect(data.tokens).toEqual(TL_DEFAULT_ORDER.slice(0, 10).map((s) => TL_EXPECTED[s]));
    expect(typeof data.nextCursor).toBe("string");
  });

  it("ascending: same entries, group TVL ascending, ties still by normalizedSymbol ascending", async () => {
    const asc = await list({ config: { orderBy: { field: "tvl", direction: "asc" } } });
    expect(symbols(asc)).toEqual(TL_DEFAULT_ORDER_ASC);
    expect(bySymbol(asc)).toEqual(TL_EXPECTED);
  });

  it("explicit orderBy {field: tvl, direction: desc} equals the default", async () => {
    expect(await list({ config: { orderBy: { field: "tvl", direction: "desc" } } })).toEqual(await list());
    expect(await list({ config: { orderBy: { direction: "desc" } } })).toEqual(await list());
    expect(await list({ config: { orderBy: {} } })).toEqual(await list());
  });

  it("matchAllSymbols: every passing instance; group TVLs grow (TIE now ties TOP and sorts first)", async () => {
    const all = await list({ config: { matchAllSymbols: true } });
    expect(symbols(all)).toEqual(MATCH_ALL_ORDER);
    const got = bySymbol(all);
    expect({ ...TL_EXPECTED, ...TL_EXPECTED_MATCH_ALL }).toEqual(got);
  });

  it("ignoreWrappedNative false: the wrapped natives join", async () => {
    const all = await list({ filters: { ignoreWrappedNative: false } });
    expect(symbols(all)).toEqual(WITH_WRAPPED_ORDER);
    expect(bySymbol(all)).toEqual({ ...TL_EXPECTED, ...TL_EXPECTED_WITH_WRAPPED });
  });
});

describe("step 1: eligibility", () => {
  it("thresholds are strict: exactly 10000 / 1000 / 100000 excluded, just above included", async () => {
    expect(symbols(await list({ filters: { chainIds: [143] } }))).toEqual(TL_THRESHOLDS_DEFAULT);
  });

  it("all thresholds 0: a zero-TVL token is still out (strictly greater than 0)", async () => {
    const got = await list({
      filters: {
        chainIds: [143],
        minimumTotalValuePooledUsd: 0,
        minimumSwapsCount: 0,
        minimumSwapVolumeUsd: 0,
        ignoreWrappedNative: false,
      },
    });
    expect(symbols(got)).toEqual(TL_THRESHOLDS_ZERO);
  });

  it("custom thresholds are strict too", async () => {
    expect(symbols(await list({ filters: { chainIds: [143], minimumTotalValuePooledUsd: 40_000 } }))).toEqual(["MON"]);
    expect(symbols(await list({ filters: { chainIds: [143], minimumSwapsCount: 999 } }))).toEqual([
      "MON",
      "SWPEQ",
      "SWPUP",
      "VOLUP",
      "TVLUP",
    ]);
    expect(symbols(await list({ filters: { chainIds: [143], minimumSwapVolumeUsd: 99_999.99 } }))).toEqual([
      "MON",
      "SWPUP",
      "VOLEQ",
      "VOLUP",
      "TVLUP",
    ]);
    expect(symbols(await list({ filters: { chainIds: [143], minimumTotalValuePooledUsd: 9_999.99 } }))).toEqual([
      "MON",
      "SWPUP",
      "VOLUP",
      "TVLUP",
      "TVLEQ",
    ]);
    expect(symbols(await list({ filters: { chainIds: [143], minimumTotalValuePooledUsd: 60_000 } }))).toEqual([]);
  });

  it("thresholds apply per single-chain instance, never to the sum", async () => {
    const got = bySymbol(await list());
    expect(got.SPLIT).toBeUndefined(); // 6,000 + 6,000 TVL
    expect(got.SPLITS).toBeUndefined(); // 600 + 600 swaps
    expect(got.MIXD).toEqual(TL_EXPECTED.MIXD); // 50,000 on chain 1 in, 9,000 on 8453 out
  });

  it("wrapped native left out by default; a same-symbol token at another address stays", async () => {
    const got = bySymbol(await list());
    expect(got.WETH).toEqual(TL_EXPECTED.WETH); // only the bridged WETH on 999
    for (const s of ["WHYPE", "WMON", "WXPL"]) expect(got[s]).toBeUndefined();
  });

  it("the native token (all-zero address) is an ordinary instance", async () => {
    const got = bySymbol(await list());
    expect(got.ETH!.addresses[0]).toEqual(at(1, Z));
    expect(got.HYPE).toEqual(TL_EXPECTED.HYPE);
    expect(got.MON).toEqual(TL_EXPECTED.MON);
    expect(got.XPL).toEqual(TL_EXPECTED.XPL);
  });

  it("filters.chainIds restricts instances (and the anchor is chosen among them)", async () => {
    const base8453 = bySymbol(await list({ filters: { chainIds: [8453] } }));
    expect(base8453.ETH).toEqual({ addresses: [at(8453, Z)], symbol: "ETH", name: "Ether", logoUrl: testLogo(8453, Z), chainIds: [8453] });
    expect(base8453.PRC).toEqual({
      addresses: [at(8453, TL.prc8453)],
      symbol: "PRC",
      name: "Price Token",
      logoUrl: testLogo(8453, TL.prc8453),
      chainIds: [8453],
    });
    expect(base8453.HYPE).toBeUndefined();

    // without chain 1, the 20.01%-off PRC on 130 is the anchor and everything near it passes
    const two = bySymbol(await list({ filters: { chainIds: [8453, 130] } }));
    expect(two.PRC).toEqual({
      addresses: [at(130, TL.prc130fail), at(8453, TL.prc8453)],
      symbol: "PRC",
      name: "Price Token",
      logoUrl: testLogo(130, TL.prc130fail),
      chainIds: [130, 8453],
    });
    const twoAll = bySymbol(await list({ filters: { chainIds: [8453, 130] }, config: { matchAllSymbols: true } }));
    expect(twoAll.PRC!.addresses).toEqual([at(130, TL.prc130fail), at(8453, TL.prc8453), at(8453, TL.prc8453b), at(130, TL.prc130)]);
  });

  it("the order of filters.chainIds does not matter", async () => {
    expect(await list({ filters: { chainIds: [534352, 9745, 1] } })).toEqual(await list({ filters: { chainIds: [1, 9745, 534352] } }));
  });
});

describe("step 2: grouping and ranking", () => {
  it("groups by exact normalizedSymbol: 'eth' and 'ETH' are different groups", async () => {
    const got = bySymbol(await list());
    expect(got.eth).toEqual(TL_EXPECTED.eth);
    expect(got.ETH).toEqual(TL_EXPECTED.ETH);
  });

  it("anchor ties: lower chainId first, then lower address (canonical)", async () => {
    expect(bySymbol(await list()).TIE).toEqual(TL_EXPECTED.TIE);
  });

  it("anchor ties: lower chainId first, then lower address (matchAllSymbols)", async () => {
    expect(bySymbol(await list({ config: { matchAllSymbols: true } })).TIE).toEqual(TL_EXPECTED_MATCH_ALL.TIE);
  });

  it("an absent normalizedSymbol is transliterated: USD₮0 groups with USDT0", async () => {
    expect(bySymbol(await list()).USDT0).toEqual(TL_EXPECTED.USDT0);
  });

  it("entry symbol and name are the anchor's on-chain symbol and name", async () => {
    // on chain 1 alone the USD₮0 token (no normalized fields) is the anchor
    const only1 = await list({ filters: { chainIds: [1] } });
    const e = only1.find((x) => x.addresses.some((a) => a.address === TL.usdt0Unicode1));
    expect(e).toEqual({
      addresses: [at(1, TL.usdt0Unicode1)],
      symbol: "USD₮0",
      name: "USD₮0",
      logoUrl: testLogo(1, TL.usdt0Unicode1),
      chainIds: [1],
    });
  });
});

describe("step 3: parity against the anchor", () => {
  it("price: exactly 20% above and below passes, 20.01% fails; canonical takes the best passing instance per chain", async () => {
    expect(bySymbol(await list()).PRC).toEqual(TL_EXPECTED.PRC);
  });

  it("price: matchAllSymbols lists every passing instance in rank order", async () => {
    expect(bySymbol(await list({ config: { matchAllSymbols: true } })).PRC).toEqual(TL_EXPECTED_MATCH_ALL.PRC);
  });

  it("price: an anchor price of 0 passes everything; a member price of 0 fails a priced anchor", async () => {
    const got = bySymbol(await list());
    expect(got.ZP).toEqual(TL_EXPECTED.ZP);
    expect(got.ZQ).toEqual(TL_EXPECTED.ZQ);
  });

  it("a same-symbol token with a far-off price is not listed at all", async () => {
    const eth = bySymbol(await list({ config: { matchAllSymbols: true } })).ETH!;
    expect(eth).toEqual(TL_EXPECTED_MATCH_ALL.ETH);
    expect(eth.addresses.map((a) => a.address)).not.toContain(TL.ethScam8453);
  });

  const nameCases: [string, string, boolean][] = [
    ["equal names once cleaned ('***' vs '!!!')", "EQL", true],
    ["candidate name contains the lowercased symbol", "CNT", true],
    ["anchor name contains the lowercased symbol", "CNU", true],
    ["initials of the candidate's words equal the symbol", "ABC", true],
    ["initials of the anchor's words equal the symbol", "XYZ", true],
    ["same first word and Jaccard exactly 0.5", "JAC", true],
    ["same first word but Jaccard 0.4", "JAB", false],
    ["Jaccard 1 but a different first word", "JAW", false],
    ["nothing in common", "FAIL", false],
  ];
  for (const [label, symbol, passes] of nameCases) {
    it(`name parity: ${label} → ${passes ? "joins" : "left out"}`, async () => {
      const e = bySymbol(await list())[symbol]!;
      expect(e).toEqual(TL_EXPECTED[symbol]);
      expect(e.chainIds.includes(8453)).toBe(passes);
    });
  }

  it("name contains the symbol as a substring, not only as a word ('supercntcoin')", async () => {
    expect(bySymbol(await list()).CNT!.addresses).toContainEqual(at(130, TL.cnt130));
  });
});

describe("step 4: entries", () => {
  it("symbol, name, logoUrl from the anchor; chainIds distinct in member order (not sorted)", async () => {
    const got = bySymbol(await list({ config: { matchAllSymbols: true } }));
    expect(got.USDT0!.chainIds).toEqual([8453, 1]);
    expect(got.PRC!.chainIds).toEqual([1, 8453, 999, 130]);
    expect(got.ETH!.chainIds).toEqual([1, 8453, 130]);
    expect(got.TIE!.logoUrl).toBe(testLogo(1, TL.tie1a));
  });

  it("a missing logoUrl is filled from the template", async () => {
    expect(bySymbol(await list()).NOLOGO!.logoUrl).toBe(templateLogo(1, TL.nologo1));
  });

  it("entry keys are exactly addresses, symbol, name, logoUrl, chainIds", async () => {
    for (const e of await list()) {
      expect(Object.keys(e).sort()).toEqual(["addresses", "chainIds", "logoUrl", "name", "symbol"]);
      for (const a of e.addresses) expect(Object.keys(a).sort()).toEqual(["address", "chainId"]);
    }
  });

  it("the wrapped native of chain 1 anchors WETH when wrapped natives are included", async () => {
    const got = bySymbol(await list({ filters: { ignoreWrappedNative: false } }));
    expect(got.WETH!.addresses[0]).toEqual(at(1, CHAINS[1].wrappedNative));
  });
});

describe("step 5: ordering", () => {
  it("desc with group TVL ties broken by normalizedSymbol code-unit order ('TA' < 'TB' < 'tA')", async () => {
    const got = await list({ filters: { chainIds: [9745, 534352] } });
    expect(symbols(got)).toEqual(TL_ORDERING_DESC);
    expect(got.find((e) => e.symbol === "TB")).toEqual(TL_EXPECTED.TB);
    expect(got.find((e) => e.symbol === "MID")).toEqual(TL_EXPECTED.MID);
  });

  it("asc keeps the same tie order", async () => {
    expect(symbols(await list({ filters: { chainIds: [9745, 534352] }, config: { orderBy: { direction: "asc" } } }))).toEqual(
      TL_ORDERING_ASC,
    );
  });

  it("desc with the wrapped native included", async () => {
    expect(symbols(await list({ filters: { chainIds: [534352, 9745], ignoreWrappedNative: false } }))).toEqual(
      TL_ORDERING_DESC_WITH_WRAPPED,
    );
  });

  it("'ZP' sorts before 'eth' on equal TVL (uppercase before lowercase)", async () => {
    const s = symbols(await list());
    expect(s.indexOf("ZP")).toBe(s.indexOf("eth") - 1);
  });
});

describe("pagination", () => {
  const ORDERING = { filters: { chainIds: [9745, 534352] } };

  it("pages of 2 over 7 entries: nextCursor null exactly on the last page", async () => {
    const { pages, tokens } = await walkTokenPages(base, ORDERING, 2);
    expect(pages.map((p) => symbols(p.tokens))).toEqual([["TOP", "MID"], ["TA", "TB"], ["tA", "XPL"], ["LOW"]]);
    expect(pages.slice(0, -1).every((p) => typeof p.nextCursor === "string")).toBe(true);
    expect(pages.at(-1)!.nextCursor).toBeNull();
    expect(symbols(tokens)).toEqual(TL_ORDERING_DESC);
  });

  it("when the last page is exactly full, its nextCursor is null (no empty trailing page)", async () => {
    const seven = expectSuccess(await postTokens(base, { ...ORDERING, config: { limit: 7 } }));
    expect(symbols(seven.tokens)).toEqual(TL_ORDERING_DESC);
    expect(seven.nextCursor).toBeNull();
    const { pages } = await walkTokenPages(base, { filters: { chainIds: [534352, 9745], ignoreWrappedNative: false } }, 4);
    expect(pages.map((p) => p.tokens.length)).toEqual([4, 4]);
    expect(pages[1]!.nextCursor).toBeNull();
    const six = expectSuccess(await postTokens(base, { ...ORDERING, config: { limit: 6 } }));
    expect(six.nextCursor).not.toBeNull();
  });

  it("nextCursor is an opaque base64url string", async () => {
    const data = expectSuccess(await postTokens(base, { config: { limit: 1 } }));
    expect(data.nextCursor).toMatch(/^[A-Za-z0-9_-]+={0,2}$/);
  });

  it("an empty result has no cursor", async () => {
    const data = expectSuccess(await postTokens(base, { filters: { minimumTotalValuePooledUsd: 1e12 } }));
    expect(data).toEqual({ tokens: [], nextCursor: null });
  });

  it("walking the default list at several limits yields every entry once, in order", async () => {
    const expected = TL_DEFAULT_ORDER.map((s) => TL_EXPECTED[s]);
    for (const limit of [1, 3, 10, 30, 31, 500]) {
      const { tokens, pages } = await walkTokenPages(base, {}, limit);
      expect(tokens, `limit ${limit}`).toEqual(expected);
      expect(pages.length).toBe(Math.ceil(expected.length / limit));
    }
  });

  it("limit may change between pages", async () => {
    const limits = [2, 5, 1, 3, 500];
    const { tokens } = await walkTokenPages(base, { config: { matchAllSymbols: true } }, (i) => limits[i] ?? 500);
    expect(symbols(tokens)).toEqual(MATCH_ALL_ORDER);
  });

  it("asc pages walk the ascending order", async () => {
    const { tokens } = await walkTokenPages(base, { config: { orderBy: { direction: "asc" } } }, 4);
    expect(symbols(tokens)).toEqual(TL_DEFAULT_ORDER_ASC);
  });

  it("the same cursor can be used twice and gives the same page", async () => {
    const first = expectSuccess(await postTokens(base, { config: { limit: 3 } }));
    const a = expectSuccess(await postTokens(base, { config: { limit: 3, cursor: first.nextCursor } }));
    const b = expectSuccess(await postTokens(base, { config: { limit: 3, cursor: first.nextCursor } }));
    expect(a).toEqual(b);
    expect(symbols(a.tokens)).toEqual(TL_DEFAULT_ORDER.slice(3, 6));
  });

  describe("a cursor used with a different query → INVALID_PAGINATION_CURSOR", () => {
    const original = {
      filters: { chainIds: [1, 8453], minimumSwapsCount: 10 },
      config: { matchAllSymbols: false, orderBy: { direction: "desc" } },
    };
    const variants: [string, Query][] = [
      ["different chainIds", { ...original, filters: { ...original.filters, chainIds: [1] } }],
      ["chainIds absent", { ...original, filters: { minimumSwapsCount: 10 } }],
      ["different minimumSwapsCount", { ...original, filters: { ...original.filters, minimumSwapsCount: 11 } }],
      ["different minimumTotalValuePooledUsd", { ...original, filters: { ...original.filters, minimumTotalValuePooledUsd: 5 } }],
      ["different minimumSwapVolumeUsd", { ...original, filters: { ...original.filters, minimumSwapVolumeUsd: 5 } }],
      ["different ignoreWrappedNative", { ...original, filters: { ...original.filters, ignoreWrappedNative: false } }],
      ["different matchAllSymbols", { ...original, config: { ...original.config, matchAllSymbols: true } }],
      ["different orderBy direction", { ...original, config: { ...original.config, orderBy: { direction: "asc" } } }],
    ];
    for (const [label, variant] of variants) {
      it(label, async () => {
        const first = expectSuccess(await postTokens(base, { ...original, config: { ...original.config, limit: 2 } }));
        expect(first.nextCursor).not.toBeNull();
        const cursor = first.nextCursor as string;
        const res = await postTokens(base, { ...variant, config: { ...(variant.config ?? {}), limit: 2, cursor } });
        const err = expectError(res, 400, "INVALID_PAGINATION_CURSOR", "/v1/tokens");
        expect(err.metadata.receivedCursor).toBe(cursor);
        // and the original query still accepts it
        expectSuccess(await postTokens(base, { ...original, config: { ...original.config, limit: 2, cursor } }));
      });
    }
  });

  it("a tampered cursor (one character flipped, anywhere) → INVALID_PAGINATION_CURSOR", async () => {
    const first = expectSuccess(await postTokens(base, { config: { limit: 2 } }));
    const cursor = first.nextCursor as string;
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const positions = new Set([0, 1, Math.floor(cursor.length / 3), Math.floor(cursor.length / 2), cursor.length - 3]);
    for (const i of positions) {
      const c = cursor[i]!;
      const swapped = alphabet[(alphabet.indexOf(c) + 17) % 64]!;
      const tampered = cursor.slice(0, i) + swapped + cursor.slice(i + 1);
      const err = expectError(await postTokens(base, { config: { limit: 2, cursor: tampered } }), 400, "INVALID_PAGINATION_CURSOR");
      expect(err.metadata.receivedCursor).toBe(tampered);
    }
    for (const tampered of [cursor.slice(0, -4), cursor + "AAAA", cursor.slice(4)]) {
      expectError(await postTokens(base, { config: { limit: 2, cursor: tampered } }), 400, "INVALID_PAGINATION_CURSOR");
    }
  });
});

describe("concurrency", () => {
  it("200 concurrent requests of mixed queries all answer the same as sequential ones", async () => {
    const queries: Query[] = [
      {},
      { config: { matchAllSymbols: true } },
      { config: { orderBy: { direction: "asc" } } },
      { filters: { chainIds: [9745, 534352] } },
      { filters: { ignoreWrappedNative: false, chainIds: [143] } },
    ];
    const expected = await Promise.all(queries.map((q) => list(q)));
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        postTokens(base, { ...queries[i % queries.length]!, config: { ...(queries[i % queries.length]!.config ?? {}), limit: 500 } }),
      ),
    );
    results.forEach((res, i) => expect(expectSuccess(res).tokens).toEqual(expected[i % queries.length]));
  });
});
