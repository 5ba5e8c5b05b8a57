/**
 * POST /v1/tokens/search, POST /v1/tokens/{chainId} and POST /v1/tokens/{chainId}/search against
 * the real server on the hand-made data set of test/support/token-surface-fixture.ts.
 *
 * Rule → test (api-extended.md §8, §11; §7 common rules are in token-surface-common.test.ts):
 *  S1  `search` required, a string, 1..100 characters once trimmed ........ "search: the term"
 *  S2  response keys tokens, filters, nextCursor; search filter defaults
 *      0/0/0/false with strict `>`; config as §3 ................................ "search: defaults and shape"
 *  S3  substring of symbol, name, normalizedSymbol, normalizedName; case-
 *      insensitive; literal `%` `_`; trimmed; exact address ...................... "search: what matches"
 *  S4  groups exactly as §3 over eligible instances; listed when a listed
 *      member matches, with all its members; matchAllSymbols ...................... "search: groups"
 *  S5  order tvl as §3.5 (desc/asc, symbol tie-break); relevance tiers 1-4, a
 *      group's tier = its best listed member, then TVL desc, then symbol; word =
 *      run of letters and digits; relevance with asc → VALIDATION_ERROR ........... "search: order"
 *  S6  `filters` echo: keys in order, chainIds = chains searched ascending ....... "search: filters echo"
 *  S7  cursors bound to the effective query (after defaults and trimming) ........ "search: cursors"
 *  L1  single-chain list: eligibility §3.1 on the chain, defaults 10000/1000/
 *      100000/true, tvl desc/asc with the address tie-break in both directions,
 *      zero-price tokens listed (no early end), every page until null ............. "single-chain list"
 *  L2  single-chain list config/filters: matchAllSymbols and chainIds unknown,
 *      orderBy tvl only ............................................................ "single-chain list: strict input"
 *  L3  single-chain search: search defaults, matching rule, tvl or relevance
 *      (tier, TVL desc, address), filters echo of four keys ....................... "single-chain search"
 *  L4  SingleChainTokenMetadata key order; logo from the template when absent .... "single-chain list" (shape)
 * Property tests (every page of random requests vs a reference): token-search-property.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHAINS, NATIVE_ADDRESS } from "../../src/chains/chains.js";
import { KEYS, templateLogo, testLogo } from "../support/fixtures.js";
import {
  expectError,
  expectSuccess,
  expectValidation,
  postJson,
  startWithFixtures,
  walkPages,
  type Gateway,
} from "../support/gateway-process.js";
import { referenceChainTokens, referenceSearch } from "../support/reference-token-search.js";
import { TS, tokenSurfaceFixture } from "../support/token-surface-fixture.js";

const DATA = tokenSurfaceFixture();
let gw: Gateway;
let base: string;

beforeAll(async () => {
  gw = await startWithFixtures(DATA);
  base = gw.baseUrl;
});

afterAll(async () => {
  await gw?.stop();
});

const search = (body: unknown, key?: string) => postJson(base, "/v1/tokens/search", body, key === undefined ? {} : { key });
const searchData = async (body: unknown) => expectSuccess(await search(body));
const symbols = (tokens: { symbol: string }[]) => tokens.map((t) => t.symbol);
const chainList = (chainId: number | string, body: unknown) => postJson(base, `/v1/tokens/${chainId}`, body);
const chainSearch = (chainId: number | string, body: unknown) => postJson(base, `/v1/tokens/${chainId}/search`, body);

describe("search: the term (S1)", () => {
  it("is required and must be a string", async () => {
    expectValidation(await search({}), "search", "isString");
    expectValidation(await search({ search: 5 }), "search", "isString", 5);
    expectValidation(await search({ search: null }), "search", "isString", null);
  });

  it("must have 1 to 100 characters once trimmed (isNotEmpty / max)", async () => {
    expectValidation(await search({ search: "" }), "search", "isNotEmpty", "");
    expectValidation(await search({ search: " \t\n " }), "search", "isNotEmpty", " \t\n ");
    const long = "u".repeat(101);
    expectValidation(await search({ search: long }), "search", "max", long);
    expectSuccess(await search({ search: "u".repeat(100) }));
    expectSuccess(await search({ search: `   ${"u".repeat(100)}   ` }));
  });

  it("its errors come in document order with the type's errors", async () => {
    expectValidation(await search({ config: { limit: 0 }, search: "" }), "config.limit", "min");
    expectValidation(await search({ search: "", config: { limit: 0 } }), "search", "isNotEmpty");
    expectValidation(await search({ search: "usd", extra: 1 }), "extra", "whitelist");
  });
});

describe("search: defaults and shape (S2)", () => {
  it("answers {tokens, filters, nextCursor} in that order, 10 entries by default", async () => {
    const res = await search({ search: "u" });
    const data = expectSuccess(res);
    expect(Object.keys(data)).toEqual(["tokens", "filters", "nextCursor"]);
    expect(data.tokens.length).toBeLessThanOrEqual(10);
    expect(res.headers.get("x-snapshot-version")).toMatch(/^[0-9a-f]+$/);
  });

  it("filter defaults are 0 / 0 / 0 / wrapped native included, strictly greater (zero TVL stays out)", async () => {
    const data = await searchData({ search: "o", config: { limit: 500 } });
    const all = symbols(data.tokens);
    expect(all).toContain("LOW"); // 5,000 of TVL: under the token list's default, over the search's
    expect(all).not.toContain("NIL"); // zero TVL: not > 0
    expect(data.filters).toEqual({
      chainIds: [1, 130, 8453],
      minimumTotalValuePooledUsd: 0,
      minimumSwapsCount: 0,
      minimumSwapVolumeUsd: 0,
      ignoreWrappedNative: false,
    });
    expect(symbols((await searchData({ search: "weth" })).tokens)).toEqual(["WETH"]);
    expect((await searchData({ search: "weth", filters: { ignoreWrappedNative: true } })).tokens).toEqual([]);
    expect(
      symbols((await searchData({ search: "o", config: { limit: 500 }, filters: { minimumTotalValuePooledUsd: 5_000 } })).tokens),
    ).not.toContain("LOW");
  });

  it("config and filters follow §3's rules (limit 1..500, unknown keys, chainIds)", async () => {
    expectValidation(await search({ search: "u", config: { limit: 501 } }), "config.limit", "max", 501);
    expectValidation(await search({ search: "u", config: { orderBy: { field: "volume" } } }), "config.orderBy.field", "isIn");
    expectValidation(await search({ search: "u", filters: { chainIds: [1, 1] } }), "filters.chainIds", "uniqueItems");
    expectError(await search({ search: "u", filters: { chainIds: [5] } }), 400, "UNSUPPORTED_CHAIN_ID");
    expectError(await search({ search: "u", filters: { chainIds: [999] } }), 503, "CHAIN_DATA_UNAVAILABLE");
    expectValidation(await search({ search: "u", filters: { minimumSwapsCount: 1.5 } }), "filters.minimumSwapsCount", "isInt");
  });
});

describe("search: what matches (S3)", () => {
  it("a substring of symbol or name, case-insensitive, the term trimmed", async () => {
    const usd = await searchData({ search: "usd", config: { limit: 500 } });
    expect(symbols(usd.tokens)).toEqual(["USDC", "USDT", "usd+", "SUSD", "XUSD", "USD"]);
    expect((await searchData({ search: "  UsD  ", config: { limit: 500 } })).tokens).toEqual(usd.tokens);
    // "Tether USD": the name matches too, in the same group as its symbol
    expect(symbols((await searchData({ search: "tether" })).tokens)).toEqual(["USDT"]);
    // a name's inner piece
    expect(symbols((await searchData({ search: "score tok" })).tokens)).toEqual(["UND"]);
  });

  it("normalized forms match as well as the raw ones", async () => {
    const { startWithFixtures: start } = await import("../support/gateway-process.js");
    const { chainFile, token, addr } = await import("../support/fixtures.js");
    const other = await start([
      chainFile(1, {
        tokens: [
          token(1, { address: addr("f1"), symbol: "USD₮0", name: "USD₮0", normalizedSymbol: "USDT0", normalizedName: "Tether Zero" }),
          token(1, { address: addr("f2"), symbol: "ÜNI", name: "Ünïcode", normalizedSymbol: undefined, normalizedName: undefined }),
        ],
      }),
    ]);
    try {
      const find = async (term: string) =>
        symbols(expectSuccess(await postJson(other.baseUrl, "/v1/tokens/search", { search: term })).tokens);
      expect(await find("usdt0")).toEqual(["USD₮0"]); // normalizedSymbol
      expect(await find("₮")).toEqual(["USD₮0"]); // raw symbol
      expect(await find("zero")).toEqual(["USD₮0"]); // normalizedName
      expect(await find("unicode")).toEqual(["ÜNI"]); // derived normalizedName (any-ascii)
      expect(await find("ünï")).toEqual(["ÜNI"]); // raw name, lowercased
    } finally {
      await other.stop();
    }
  });

  it("% and _ are ordinary characters", async () => {
    expect(symbols((await searchData({ search: "%" })).tokens)).toEqual(["PCT"]);
    expect(symbols((await searchData({ search: "_" })).tokens)).toEqual(["UND"]);
    expect(symbols((await searchData({ search: "0% r" })).tokens)).toEqual(["PCT"]);
    expect((await searchData({ search: "u_d" })).tokens).toEqual([]);
  });

  it("an exact 0x + 40 hex address matches that address (any case), on every chain", async () => {
    const data = await searchData({ search: TS.shared.toUpperCase().replace("0X", "0x") });
    expect(data.tokens).toEqual([
      {
        addresses: [
          { chainId: 1, address: TS.shared },
          { chainId: 8453, address: TS.shared },
        ],
        symbol: "SHR",
        name: "Shared",
        logoUrl: testLogo(1, TS.shared),
        chainIds: [1, 8453],
      },
    ]);
    expect((await searchData({ search: TS.shared.slice(0, 30) })).tokens).toEqual([]);
    expect((await searchData({ search: "0x" + "9".repeat(40) })).tokens).toEqual([]);
  });

  it("a term matching nothing answers an empty list and a null cursor", async () => {
    expect(await searchData({ search: "no such token" })).toMatchObject({ tokens: [], nextCursor: null });
  });
});

describe("search: groups (S4)", () => {
  it("a group is built over every eligible instance and lists all its members (canonical: one per chain)", async () => {
    const [usdc] = (await searchData({ search: "usdc" })).tokens;
    expect(usdc).toEqual({
      addresses: [
        { chainId: 1, address: TS.usdc1 },
        { chainId: 8453, address: TS.usdc8453 },
        { chainId: 130, address: TS.usdc130 },
      ],
      symbol: "USDC",
      name: "USD Coin",
      logoUrl: testLogo(1, TS.usdc1),
      chainIds: [1, 8453, 130],
    });
  });

  it("matchAllSymbols lists every member passing parity (the impostor still fails it)", async () => {
    const [usdc] = (await searchData({ search: "usdc", config: { matchAllSymbols: true } })).tokens;
    expect(usdc.addresses).toEqual([
      { chainId: 1, address: TS.usdc1 },
      { chainId: 8453, address: TS.usdc8453 },
      { chainId: 8453, address: TS.bridged8453 },
      { chainId: 130, address: TS.usdc130 },
    ]);
    expect(usdc.chainIds).toEqual([1, 8453, 130]);
  });

  it("a group is listed when a listed member matches, even when its anchor does not", async () => {
    // "stargate" is only in the bridged member's name: listed with matchAllSymbols, not in the canonical view
    expect((await searchData({ search: "stargate" })).tokens).toEqual([]);
    const [usdc] = (await searchData({ search: "stargate", config: { matchAllSymbols: true } })).tokens;
    expect(usdc.symbol).toBe("USDC");
    expect(usdc.addresses).toHaveLength(4);
    // the impostor matches "legit" but is never a listed member
    expect((await searchData({ search: "legit", config: { matchAllSymbols: true } })).tokens).toEqual([]);
  });

  it("equals the reference for several terms and options", async () => {
    for (const request of [
      { search: "u" },
      { search: "e", config: { matchAllSymbols: true, orderBy: { direction: "asc" as const } } },
      { search: "usd", filters: { chainIds: [8453, 1], ignoreWrappedNative: true } },
      { search: "t", config: { orderBy: { field: "relevance" as const } } },
    ]) {
      expect((await walkPages(base, "/v1/tokens/search", request, 3)).tokens, JSON.stringify(request)).toEqual(
        referenceSearch(DATA, request),
      );
    }
  });
});

describe("search: order (S5)", () => {
  it("tvl: group TVL desc or asc, ties by normalized symbol", async () => {
    expect(
      symbols((await searchData({ search: "usd", config: { limit: 500, orderBy: { field: "tvl", direction: "asc" } } })).tokens),
    ).toEqual(["USD", "XUSD", "SUSD", "usd+", "USDT", "USDC"]);
    // TIEA and TIEB: 20,000 each
    expect(symbols((await searchData({ search: "tie" })).tokens)).toEqual(["TIEA", "TIEB"]);
    expect(symbols((await searchData({ search: "tie", config: { orderBy: { direction: "asc" } } })).tokens)).toEqual(["TIEA", "TIEB"]);
  });

  it("relevance: 1 symbol equals, 2 symbol starts with, 3 a name or a word of it starts with, 4 elsewhere; then TVL desc", async () => {
    const data = await searchData({ search: "usd", config: { limit: 500, orderBy: { field: "relevance" } } });
    // USD: tier 1; USDC, USDT, usd+: tier 2 by TVL; XUSD ("Dollar USD Token"): tier 3; SUSD ("Synth sUSD"): tier 4
    expect(symbols(data.tokens)).toEqual(["USD", "USDC", "USDT", "usd+", "XUSD", "SUSD"]);
    // a name's words: "Dollar USD Token" and "Generic Dollar" both have a word starting with "dollar"
    expect(symbols((await searchData({ search: "dollar", config: { orderBy: { field: "relevance" } } })).tokens)).toEqual(["XUSD", "USD"]);
    // "ollar" starts no word: tier 4 for both, TVL order
    expect(symbols((await searchData({ search: "ollar", config: { orderBy: { field: "relevance" } } })).tokens)).toEqual(["XUSD", "USD"]);
  });

  it("a group's tier is its best listed member's; members that are not listed do not count", async () => {
    // "b": USDC only through its bridged member's name ("Bridged USDC…", tier 3), TIEB through "Tie Bravo"
    // (tier 3), UNIBOT inside its symbol and name (tier 4)
    const relevance = { orderBy: { field: "relevance" as const } };
    expect(symbols((await searchData({ search: "b", config: { matchAllSymbols: true } })).tokens)).toEqual(["USDC", "UNIBOT", "TIEB"]);
    expect(symbols((await searchData({ search: "b", config: { matchAllSymbols: true, ...relevance } })).tokens)).toEqual([
      "USDC",
      "TIEB",
      "UNIBOT",
    ]);
    expect(symbols((await searchData({ search: "b", config: relevance })).tokens)).toEqual(["TIEB", "UNIBOT"]);
  });

  it("relevance orders descending only", async () => {
    expectSuccess(await search({ search: "usd", config: { orderBy: { field: "relevance", direction: "desc" } } }));
    expectValidation(
      await search({ search: "usd", config: { orderBy: { field: "relevance", direction: "asc" } } }),
      "config.orderBy.direction",
      "isIn",
      "asc",
    );
  });
});

describe("search: filters echo (S6)", () => {
  it("has the five keys in order; chainIds are the chains searched, ascending", async () => {
    const named = await searchData({ search: "usd", filters: { chainIds: [8453, 1], minimumSwapsCount: 7 } });
    expect(Object.keys(named.filters)).toEqual([
      "chainIds",
      "minimumTotalValuePooledUsd",
      "minimumSwapsCount",
      "minimumSwapVolumeUsd",
      "ignoreWrappedNative",
    ]);
    expect(named.filters).toEqual({
      chainIds: [1, 8453],
      minimumTotalValuePooledUsd: 0,
      minimumSwapsCount: 7,
      minimumSwapVolumeUsd: 0,
      ignoreWrappedNative: false,
    });
    expect((await searchData({ search: "usd", filters: { chainIds: [] } })).filters.chainIds).toEqual([1, 130, 8453]);
  });

  it("a chain-restricted key without chainIds searches its allowed loaded chains", async () => {
    const data = expectSuccess(await search({ search: "usdc", config: { matchAllSymbols: true } }, KEYS.chains1And999));
    expect(data.filters.chainIds).toEqual([1]);
    expect(data.tokens[0].chainIds).toEqual([1]);
  });
});

describe("search: cursors (S7)", () => {
  it("pages through the whole list; the cursor is bound to the effective query, not to its spelling", async () => {
    const first = await searchData({ search: "usd", config: { limit: 2 } });
    expect(first.nextCursor).toEqual(expect.any(String));
    // same effective query: trimmed term, defaults spelled out, another limit
    const next = await searchData({
      search: "  usd ",
      config: { limit: 3, cursor: first.nextCursor, matchAllSymbols: false, orderBy: { field: "tvl", direction: "desc" } },
      filters: { minimumSwapsCount: 0, ignoreWrappedNative: false },
    });
    expect(symbols([...first.tokens, ...next.tokens])).toEqual(["USDC", "USDT", "usd+", "SUSD", "XUSD"]);
  });

  it("a cursor used with another term, order, filter or grouping is INVALID_PAGINATION_CURSOR", async () => {
    const { nextCursor } = await searchData({ search: "usd", config: { limit: 2 } });
    for (const body of [
      { search: "USD", config: { cursor: nextCursor } },
      { search: "usd", config: { cursor: nextCursor, orderBy: { field: "relevance" } } },
      { search: "usd", config: { cursor: nextCursor, orderBy: { direction: "asc" } } },
      { search: "usd", config: { cursor: nextCursor, matchAllSymbols: true } },
      { search: "usd", config: { cursor: nextCursor }, filters: { chainIds: [1] } },
      { search: "usd", config: { cursor: nextCursor }, filters: { ignoreWrappedNative: true } },
    ]) {
      const err = expectError(await search(body), 400, "INVALID_PAGINATION_CURSOR");
      expect(err.metadata).toEqual({ receivedCursor: nextCursor });
    }
    const tampered = nextCursor.slice(0, -2) + (nextCursor.endsWith("A") ? "BB" : "AA");
    expectError(await search({ search: "usd", config: { cursor: tampered } }), 400, "INVALID_PAGINATION_CURSOR");
  });

  it("relevance pages carry the tier: walking at limit 1 equals one page", async () => {
    const body = { search: "usd", config: { orderBy: { field: "relevance" as const } } };
    expect((await walkPages(base, "/v1/tokens/search", body, 1)).tokens).toEqual(
      (await walkPages(base, "/v1/tokens/search", body, 500)).tokens,
    );
  });
});

describe("single-chain list (L1, L4)", () => {
  const CHAIN1_DESC = ["ETH", "USDC", "USDT", "SHR", "usd+", "PCT", "SUSD", "UND", "XUSD", "TIEA", "TIEB", "ZP", "NOLOGO", "USDC", "USD"];

  it("lists every token over the §3.1 defaults, by tracked TVL desc, ties by address (zero-price tokens included)", async () => {
    const { tokens, pages } = await walkPages(base, "/v1/tokens/1", {}, 2);
    expect(symbols(tokens)).toEqual(CHAIN1_DESC);
    expect(pages.at(-1)!.nextCursor).toBeNull();
    expect(pages.slice(0, -1).every((p) => p.tokens.length === 2)).toBe(true);
    expect(tokens).toEqual(referenceChainTokens(DATA, 1, {}));
  });

  it("asc: tracked TVL ascending, ties still by address ascending", async () => {
    const { tokens } = await walkPages(base, "/v1/tokens/1", { config: { orderBy: { direction: "asc" } } }, 4);
    expect(symbols(tokens)).toEqual([
      "USD",
      "USDC",
      "NOLOGO",
      "ZP",
      "TIEA",
      "TIEB",
      "XUSD",
      "UND",
      "SUSD",
      "PCT",
      "usd+",
      "SHR",
      "USDT",
      "USDC",
      "ETH",
    ]);
  });

  it("answers SingleChainTokenMetadata, keys in order, the logo from the template when the record has none", async () => {
    const data = expectSuccess(await chainList(1, { config: { limit: 500 } }));
    expect(Object.keys(data)).toEqual(["tokens", "nextCursor"]);
    expect(data.tokens[1]).toEqual({
      chainId: 1,
      address: TS.usdc1,
      decimals: 6,
      name: "USD Coin",
      symbol: "USDC",
      logoUrl: testLogo(1, TS.usdc1),
    });
    expect(Object.keys(data.tokens[1])).toEqual(["chainId", "address", "decimals", "name", "symbol", "logoUrl"]);
    expect(data.tokens.find((t: { address: string }) => t.address === TS.noLogo1).logoUrl).toBe(templateLogo(1, TS.noLogo1));
    expect(data.tokens[0]).toMatchObject({
      address: NATIVE_ADDRESS,
      symbol: CHAINS[1].nativeSymbol,
      name: CHAINS[1].nativeName,
      decimals: 18,
    });
  });

  it("filters: each threshold strictly greater; the wrapped native on request", async () => {
    const all = async (body: object) => symbols((await walkPages(base, "/v1/tokens/1", body, 500)).tokens);
    expect(await all({ filters: { minimumTotalValuePooledUsd: 20_000 } })).toEqual([
      "ETH",
      "USDC",
      "USDT",
      "SHR",
      "usd+",
      "PCT",
      "SUSD",
      "UND",
      "XUSD",
    ]);
    expect(
      await all({ filters: { minimumTotalValuePooledUsd: 0, minimumSwapsCount: 0, minimumSwapVolumeUsd: 0, ignoreWrappedNative: false } }),
    ).toEqual(
      symbols(
        referenceChainTokens(DATA, 1, {
          filters: { minimumTotalValuePooledUsd: 0, minimumSwapsCount: 0, minimumSwapVolumeUsd: 0, ignoreWrappedNative: false },
        }),
      ),
    );
    expect(await all({ filters: { ignoreWrappedNative: false } })).toContain("WETH");
    expect(await all({ filters: { minimumSwapsCount: 5_000 } })).toEqual([]);
  });

  it("a chain without the data is 503; path chain ids follow §2", async () => {
    expectError(await chainList(999, {}), 503, "CHAIN_DATA_UNAVAILABLE");
    expectError(await chainList(5, {}), 400, "UNSUPPORTED_CHAIN_ID");
    expectValidation(await chainList("01", {}), "chainId", "isInt", "01");
  });
});

describe("single-chain list: strict input (L2)", () => {
  it("matchAllSymbols, chainIds and relevance are not part of it", async () => {
    expectValidation(await chainList(1, { config: { matchAllSymbols: true } }), "config.matchAllSymbols", "whitelist");
    expectValidation(await chainList(1, { filters: { chainIds: [1] } }), "filters.chainIds", "whitelist");
    expectValidation(await chainList(1, { config: { orderBy: { field: "relevance" } } }), "config.orderBy.field", "isIn");
    expectValidation(await chainList(1, { search: "usd" }), "search", "whitelist");
    expectValidation(await chainList(1, { config: { limit: 0 } }), "config.limit", "min", 0);
  });

  it("a cursor is bound to the chain, the filters and the order", async () => {
    const { nextCursor } = expectSuccess(await chainList(1, { config: { limit: 2 } }));
    expect(expectSuccess(await chainList(1, { config: { limit: 2, cursor: nextCursor } })).tokens.length).toBe(2);
    expectError(await chainList(8453, { config: { cursor: nextCursor } }), 400, "INVALID_PAGINATION_CURSOR");
    expectError(await chainList(1, { config: { cursor: nextCursor, orderBy: { direction: "asc" } } }), 400, "INVALID_PAGINATION_CURSOR");
    expectError(
      await chainList(1, { config: { cursor: nextCursor }, filters: { minimumSwapsCount: 1 } }),
      400,
      "INVALID_PAGINATION_CURSOR",
    );
  });
});

describe("single-chain search (L3)", () => {
  it("search defaults (0/0/0/false) and the four filters echoed, in order", async () => {
    const data = expectSuccess(await chainSearch(1, { search: "o", config: { limit: 500 } }));
    expect(Object.keys(data)).toEqual(["tokens", "filters", "nextCursor"]);
    expect(data.filters).toEqual({
      minimumTotalValuePooledUsd: 0,
      minimumSwapsCount: 0,
      minimumSwapVolumeUsd: 0,
      ignoreWrappedNative: false,
    });
    expect(symbols(data.tokens)).toContain("LOW");
    expect(symbols(data.tokens)).not.toContain("NIL");
    expectValidation(await chainSearch(1, { search: "o", filters: { chainIds: [1] } }), "filters.chainIds", "whitelist");
  });

  it("no grouping: every matching token of the chain, by TVL then address", async () => {
    const data = expectSuccess(await chainSearch(1, { search: "usd", config: { limit: 500 } }));
    expect(symbols(data.tokens)).toEqual(["USDC", "USDT", "usd+", "SUSD", "XUSD", "USDC", "USD"]);
    expect(data.tokens[5].address).toBe(TS.impostor1);
  });

  it("relevance: tier, then TVL desc, then address", async () => {
    const data = expectSuccess(await chainSearch(1, { search: "usd", config: { limit: 500, orderBy: { field: "relevance" } } }));
    expect(symbols(data.tokens)).toEqual(["USD", "USDC", "USDT", "usd+", "USDC", "XUSD", "SUSD"]);
    const uni = expectSuccess(await chainSearch(8453, { search: "uni", config: { orderBy: { field: "relevance" } } }));
    expect(symbols(uni.tokens)).toEqual(["UNI", "UNIBOT"]);
    expect(symbols(expectSuccess(await chainSearch(8453, { search: "uni" })).tokens)).toEqual(["UNIBOT", "UNI"]);
    expectValidation(
      await chainSearch(8453, { search: "uni", config: { orderBy: { field: "relevance", direction: "asc" } } }),
      "config.orderBy.direction",
      "isIn",
    );
  });

  it("an address term finds the chain's token; the term rules of the multi-chain search hold", async () => {
    expect(symbols(expectSuccess(await chainSearch(8453, { search: TS.shared.toUpperCase().replace("0X", "0x") })).tokens)).toEqual([
      "SHR",
    ]);
    expect(symbols(expectSuccess(await chainSearch(1, { search: "%" })).tokens)).toEqual(["PCT"]);
    expectValidation(await chainSearch(1, { search: "  " }), "search", "isNotEmpty");
    expectValidation(await chainSearch(1, {}), "search", "isString");
  });

  it("cursors of the search are foreign to the list and to other terms", async () => {
    const { nextCursor } = expectSuccess(await chainSearch(1, { search: "u", config: { limit: 1 } }));
    expect(nextCursor).toEqual(expect.any(String));
    expectError(await chainList(1, { config: { cursor: nextCursor } }), 400, "INVALID_PAGINATION_CURSOR");
    expectError(await chainSearch(1, { search: "us", config: { cursor: nextCursor } }), 400, "INVALID_PAGINATION_CURSOR");
    expectError(await search({ search: "u", config: { cursor: nextCursor } }), 400, "INVALID_PAGINATION_CURSOR");
    const walked = await walkPages(base, "/v1/tokens/1/search", { search: " u " }, 1);
    expect(walked.tokens).toEqual(referenceChainTokens(DATA, 1, { search: "u" }));
  });
});
