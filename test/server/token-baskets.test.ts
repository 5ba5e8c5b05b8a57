/**
 * GET /v1/tokens/baskets, GET /v1/tokens/baskets/{basketId}, GET /v1/tokens/baskets/{chainId}/{basketId}
 * and the operator's baskets file, against the real server on test/support/token-surface-fixture.ts.
 *
 * Rule → test (api-extended.md §9, §11; the file format's rules one by one: test/unit/baskets/basket-file.test.ts):
 *  B1  TokenBasket = {id, name, description, logoUrl, chainIds, addresses, tokens}: addresses chain asc then
 *      file order (lowercase), chainIds the chains in scope with an address, tokens the held ones by TVL
 *      desc, chain id, address ......................................................... "a basket"
 *  B2  list: by id; baskets without an address in scope left out; basketIds filter; unknown ids →
 *      400 INVALID_BASKET_ID {basketId: [unknown ids], supportedIds} ...................... "the list"
 *  B3  by id: unknown → 400 INVALID_BASKET_ID {basketId as sent}; nothing in scope → 404
 *      TOKEN_BASKET_NOT_FOUND {basketId, chainIds} ........................................ "one basket"
 *  B4  on one chain: 404 {basketId, chainId} ................................................ "one basket on one chain"
 *  B5  without chainIds: every supported chain (a chain-restricted key: its chains); a named chain
 *      the key may not use → 403; a named chain never loaded → 503 ........................ "scope"
 *  B6  literal segments win: /v1/tokens/baskets is never a token address .................. "the list"
 *  B7  the file: hot reload; a bad file keeps the last good baskets, logged and counted in /metrics;
 *      removed = no baskets; no file at start = no baskets ................................. "the baskets file"
 */
import { renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHAINS, NATIVE_ADDRESS } from "../../src/chains/chains.js";
import { KEYS, testLogo } from "../support/fixtures.js";
import {
  expectError,
  expectSuccess,
  expectValidation,
  request,
  startWithBaskets,
  startWithFixtures,
  waitFor,
  type Gateway,
} from "../support/gateway-process.js";
import { TS, tokenSurfaceBaskets, tokenSurfaceFixture } from "../support/token-surface-fixture.js";

let gw: Gateway & { snapshotDir: string };
let base: string;

beforeAll(async () => {
  gw = await startWithBaskets(tokenSurfaceFixture(), tokenSurfaceBaskets());
  base = gw.baseUrl;
});

afterAll(async () => {
  await gw?.stop();
});

const get = (urlPath: string, key?: string) => request(base, urlPath, key === undefined ? {} : { key });
const ids = (baskets: { id: string }[]) => baskets.map((b) => b.id);
const meta = (chainId: number, address: string, decimals: number, name: string, symbol: string) => ({
  chainId,
  address,
  decimals,
  name,
  symbol,
  logoUrl: testLogo(chainId, address),
});

const USD_ALL = {
  id: "usd-stablecoins",
  name: "USD Stablecoins",
  description: "Dollars.",
  logoUrl: "https://logos.test/baskets/usd.png",
  chainIds: [1, 130, 8453],
  addresses: [
    { chainId: 1, address: TS.usdt1 },
    { chainId: 1, address: TS.usdc1 },
    { chainId: 1, address: TS.absent },
    { chainId: 130, address: TS.usdc130 },
    { chainId: 8453, address: TS.usdc8453 },
  ],
  tokens: [
    meta(1, TS.usdc1, 6, "USD Coin", "USDC"),
    meta(1, TS.usdt1, 6, "Tether USD", "USDT"),
    meta(8453, TS.usdc8453, 6, "USD Coin", "USDC"),
    meta(130, TS.usdc130, 6, "USD Coin", "USDC"),
  ],
};

describe("a basket (B1)", () => {
  it("addresses chain ascending then in file order, lowercase; tokens held, by TVL desc", async () => {
    const { basket } = expectSuccess(await get("/v1/tokens/baskets/usd-stablecoins"));
    expect(basket).toEqual(USD_ALL);
    expect(Object.keys(basket)).toEqual(["id", "name", "description", "logoUrl", "chainIds", "addresses", "tokens"]);
  });

  it("the zero address is the native record where there is one; ties in TVL go by chain id, then address", async () => {
    const { basket } = expectSuccess(await get("/v1/tokens/baskets/eth-pegged-tokens"));
    expect(basket.addresses).toEqual([
      { chainId: 1, address: NATIVE_ADDRESS },
      { chainId: 1, address: TS.weth1 },
      { chainId: 130, address: TS.weth130 },
      { chainId: 8453, address: TS.weth8453 },
      { chainId: 8453, address: NATIVE_ADDRESS },
    ]);
    expect(basket.tokens.map((t: { chainId: number; address: string }) => [t.chainId, t.address])).toEqual([
      [1, NATIVE_ADDRESS],
      [1, TS.weth1],
      [8453, TS.weth8453],
      [130, TS.weth130],
    ]);
    expect(basket.tokens[0]).toMatchObject({ symbol: CHAINS[1].nativeSymbol, name: CHAINS[1].nativeName, decimals: 18 });
  });

  it("addresses no snapshot holds are listed, without tokens", async () => {
    const { basket } = expectSuccess(await get("/v1/tokens/baskets/ghost-basket"));
    expect(basket).toMatchObject({ chainIds: [1], addresses: [{ chainId: 1, address: TS.absent }], tokens: [] });
  });
});

describe("the list (B2, B6)", () => {
  it("every basket with an address in scope, by id", async () => {
    const { baskets } = expectSuccess(await get("/v1/tokens/baskets"));
    expect(ids(baskets)).toEqual(["eth-pegged-tokens", "ghost-basket", "hype-pegged-tokens", "usd-stablecoins"]);
    expect(baskets[3]).toEqual(USD_ALL);
    // hype: chain 999 is in scope (every supported chain) but never loaded: its address, no token
    expect(baskets[2]).toMatchObject({ chainIds: [999], addresses: [{ chainId: 999, address: CHAINS[999].wrappedNative }], tokens: [] });
  });

  it("chainIds narrow the scope; baskets left without an address are left out", async () => {
    for (const query of ["chainIds=8453", "chainIds[]=8453"]) {
      const { baskets } = expectSuccess(await get(`/v1/tokens/baskets?${query}`));
      expect(ids(baskets), query).toEqual(["eth-pegged-tokens", "usd-stablecoins"]);
      expect(baskets[1]).toMatchObject({
        chainIds: [8453],
        addresses: [{ chainId: 8453, address: TS.usdc8453 }],
        tokens: [meta(8453, TS.usdc8453, 6, "USD Coin", "USDC")],
      });
    }
  });

  it("basketIds choose baskets, in any list form; the answer stays by id", async () => {
    for (const query of [
      "basketIds=usd-stablecoins,ghost-basket",
      "basketIds=usd-stablecoins&basketIds=ghost-basket",
      "basketIds[]=usd-stablecoins&basketIds[]=ghost-basket",
    ]) {
      expect(ids(expectSuccess(await get(`/v1/tokens/baskets?${query}`)).baskets), query).toEqual(["ghost-basket", "usd-stablecoins"]);
    }
    expect(ids(expectSuccess(await get("/v1/tokens/baskets?basketIds=ghost-basket&chainIds=8453")).baskets)).toEqual([]);
  });

  it("unknown basket ids → 400 INVALID_BASKET_ID listing them", async () => {
    const err = expectError(await get("/v1/tokens/baskets?basketIds=nope,usd-stablecoins,Usd-Stablecoins"), 400, "INVALID_BASKET_ID");
    expect(err.metadata).toEqual({
      basketId: ["nope", "Usd-Stablecoins"],
      supportedIds: ["eth-pegged-tokens", "ghost-basket", "hype-pegged-tokens", "usd-stablecoins"],
    });
    expectValidation(await get("/v1/tokens/baskets?basketIds=a,a"), "basketIds", "uniqueItems");
  });

  it("/v1/tokens/baskets is never a token address", async () => {
    expectSuccess(await get("/v1/tokens/baskets"));
    expectError(
      await request(base, "/v1/tokens/baskets", { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" }),
      405,
      "METHOD_NOT_ALLOWED",
    );
  });
});

describe("one basket (B3)", () => {
  it("unknown id → 400 INVALID_BASKET_ID with the id as sent", async () => {
    const err = expectError(await get("/v1/tokens/baskets/USD-Stablecoins"), 400, "INVALID_BASKET_ID");
    expect(err.metadata).toEqual({
      basketId: "USD-Stablecoins",
      supportedIds: ["eth-pegged-tokens", "ghost-basket", "hype-pegged-tokens", "usd-stablecoins"],
    });
  });

  it("nothing in scope → 404 TOKEN_BASKET_NOT_FOUND {basketId, chainIds}", async () => {
    const err = expectError(await get("/v1/tokens/baskets/ghost-basket?chainIds=8453,130"), 404, "TOKEN_BASKET_NOT_FOUND");
    expect(err.metadata).toEqual({ basketId: "ghost-basket", chainIds: [130, 8453] });
  });

  it("chainIds in each list form", async () => {
    for (const query of ["chainIds=130,1", "chainIds=130&chainIds=1", "chainIds[]=130&chainIds[]=1"]) {
      const { basket } = expectSuccess(await get(`/v1/tokens/baskets/usd-stablecoins?${query}`));
      expect(basket.chainIds, query).toEqual([1, 130]);
    }
  });
});

describe("one basket on one chain (B4)", () => {
  it("the basket's addresses and tokens on that chain", async () => {
    const { basket } = expectSuccess(await get("/v1/tokens/baskets/1/usd-stablecoins"));
    expect(basket).toMatchObject({
      chainIds: [1],
      addresses: [
        { chainId: 1, address: TS.usdt1 },
        { chainId: 1, address: TS.usdc1 },
        { chainId: 1, address: TS.absent },
      ],
      tokens: [meta(1, TS.usdc1, 6, "USD Coin", "USDC"), meta(1, TS.usdt1, 6, "Tether USD", "USDT")],
    });
  });

  it("nothing on that chain → 404 {basketId, chainId}; unknown id → 400", async () => {
    expect(expectError(await get("/v1/tokens/baskets/8453/ghost-basket"), 404, "TOKEN_BASKET_NOT_FOUND").metadata).toEqual({
      basketId: "ghost-basket",
      chainId: 8453,
    });
    expect(expectError(await get("/v1/tokens/baskets/8453/nope"), 400, "INVALID_BASKET_ID").metadata).toMatchObject({ basketId: "nope" });
    expectError(await get("/v1/tokens/baskets/5/usd-stablecoins"), 400, "UNSUPPORTED_CHAIN_ID");
    expectValidation(await get("/v1/tokens/baskets/01/usd-stablecoins"), "chainId", "isInt", "01");
  });
});

describe("scope (B5)", () => {
  it("a chain-restricted key without chainIds covers its chains", async () => {
    const { baskets } = expectSuccess(await get("/v1/tokens/baskets", KEYS.chain1Only));
    expect(ids(baskets)).toEqual(["eth-pegged-tokens", "ghost-basket", "usd-stablecoins"]);
    expect(baskets.every((b: { chainIds: number[] }) => b.chainIds.join() === "1")).toBe(true);
    const { basket } = expectSuccess(await get("/v1/tokens/baskets/hype-pegged-tokens", KEYS.chains1And999));
    expect(basket.chainIds).toEqual([999]);
  });

  it("a named chain the key may not use → 403; a named chain never loaded → 503", async () => {
    expectError(await get("/v1/tokens/baskets?chainIds=1,8453", KEYS.chain1Only), 403, "API_KEY_FORBIDDEN");
    expectError(await get("/v1/tokens/baskets/usd-stablecoins?chainIds=8453", KEYS.chain1Only), 403, "API_KEY_FORBIDDEN");
    expectError(await get("/v1/tokens/baskets/8453/usd-stablecoins", KEYS.chain1Only), 403, "API_KEY_FORBIDDEN");
    expectError(await get("/v1/tokens/baskets?chainIds=999"), 503, "CHAIN_DATA_UNAVAILABLE");
    expectError(await get("/v1/tokens/baskets/hype-pegged-tokens?chainIds=999"), 503, "CHAIN_DATA_UNAVAILABLE");
    expectError(await get("/v1/tokens/baskets/999/hype-pegged-tokens"), 503, "CHAIN_DATA_UNAVAILABLE");
  });
});

// ------------------------------------------------------------------ the file

/** The operator's way: a temporary file in the same directory, renamed over baskets.json. */
function pushBaskets(dir: string, text: string): void {
  const tmp = path.join(dir, `.baskets.json.${process.pid}.tmp`);
  writeFileSync(tmp, text);
  renameSync(tmp, path.join(dir, "baskets.json"));
}

async function rejectionsCounted(): Promise<number> {
  const text = (await request(base, "/metrics", { key: null })).text;
  const m = /^gateway_baskets_file_rejections_total (\d+)/m.exec(text);
  return m === null ? -1 : Number(m[1]);
}

describe("the baskets file (B7)", () => {
  const listed = async () => ids(expectSuccess(await get("/v1/tokens/baskets")).baskets).join(",");
  const GOOD = "eth-pegged-tokens,ghost-basket,hype-pegged-tokens,usd-stablecoins";

  it("a bad file keeps the last good baskets, logged and counted; each kind of problem", async () => {
    const good = tokenSurfaceBaskets();
    const broken: [string, string][] = [
      ["invalid JSON", '{"baskets": [}'],
      ["unknown chain key", JSON.stringify({ baskets: [{ ...good.baskets[0], addresses: { "5": [TS.usdc1] } }] })],
      ["duplicate id", JSON.stringify({ baskets: [good.baskets[0], good.baskets[0]] })],
      ["bad address", JSON.stringify({ baskets: [{ ...good.baskets[0], addresses: { "1": ["0x12"] } }] })],
      ["bad id", JSON.stringify({ baskets: [{ ...good.baskets[0], id: "USD" }] })],
      ["unknown property", JSON.stringify({ baskets: [{ ...good.baskets[0], tags: [] }] })],
    ];
    for (const [what, text] of broken) {
      const before = await rejectionsCounted();
      const logged = gw.logs().filter((l) => l.event === "baskets-file-rejected").length;
      pushBaskets(gw.snapshotDir, text);
      await waitFor(`the ${what} file to be rejected`, async () => ((await rejectionsCounted()) === before + 1 ? true : undefined));
      const line = gw.logs().filter((l) => l.event === "baskets-file-rejected")[logged];
      expect(String(line?.error), what).toMatch(/baskets\.json: /);
      expect(await listed(), what).toBe(GOOD);
    }
  });

  it("a valid change is applied without a restart; a removed file means no baskets; a new one is picked up", async () => {
    const next = { baskets: [{ ...tokenSurfaceBaskets().baskets[1], id: "ether", addresses: { "130": [NATIVE_ADDRESS] } }] };
    pushBaskets(gw.snapshotDir, JSON.stringify(next));
    await waitFor("the new baskets", async () => ((await listed()) === "ether" ? true : undefined));
    expect(expectSuccess(await get("/v1/tokens/baskets/ether")).basket.tokens).toEqual([
      {
        chainId: 130,
        address: NATIVE_ADDRESS,
        decimals: 18,
        name: CHAINS[130].nativeName,
        symbol: CHAINS[130].nativeSymbol,
        logoUrl: testLogo(130, NATIVE_ADDRESS),
      },
    ]);
    expect((await request(base, "/metrics", { key: null })).text).toMatch(/^gateway_baskets 1$/m);

    rmSync(path.join(gw.snapshotDir, "baskets.json"));
    await waitFor("no baskets", async () => ((await listed()) === "" ? true : undefined));
    expect(expectError(await get("/v1/tokens/baskets/ether"), 400, "INVALID_BASKET_ID").metadata).toEqual({
      basketId: "ether",
      supportedIds: [],
    });

    pushBaskets(gw.snapshotDir, JSON.stringify(tokenSurfaceBaskets()));
    await waitFor("the baskets again", async () => ((await listed()) === GOOD ? true : undefined));
  });

  it("no file at start: no baskets, everything else serves", async () => {
    const bare = await startWithFixtures(tokenSurfaceFixture());
    try {
      expect(expectSuccess(await request(bare.baseUrl, "/v1/tokens/baskets"))).toEqual({ baskets: [] });
      expect(
        expectError(await request(bare.baseUrl, "/v1/tokens/baskets/usd-stablecoins"), 400, "INVALID_BASKET_ID").metadata.supportedIds,
      ).toEqual([]);
      expect(bare.logs().some((l) => l.event === "baskets-file-absent")).toBe(true);
    } finally {
      await bare.stop();
    }
  });
});
