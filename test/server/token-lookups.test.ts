/**
 * GET /v1/tokens/{tokenAddress}, GET /v1/tokens/{chainId}/{tokenAddress},
 * GET /v1/tokens/prices/{chainId}/{tokenAddress}/usd and POST /v1/tokens/prices against the real
 * server on test/support/token-surface-fixture.ts.
 *
 * Rule → test (api-extended.md §8, §11; §7 common rules are in token-surface-common.test.ts):
 *  A1  by address: every loaded chain (or the listed ones) holding it, TVL desc then chain id,
 *      no eligibility filter, [] when none, query lists in every form .......... "by address"
 *  A2  by chain and address: metadata + totalValuePooledUsd last; 404
 *      TOKEN_NOT_FOUND {tokenAddress as sent, chainId}; the zero address only
 *      with a native record .................................................... "by chain and address"
 *  P1  price: trackedUsdPrice (0 is a price); zero address → wrapped native when
 *      the chain has no native record; unknown → 404 .......................... "price"
 *  P2  batch prices: 1..100 items, request order, null when missing, lowercase
 *      answers, the zero-address fallback, INVALID_BLOCKCHAIN_ADDRESS listing every
 *      bad item (address as sent, receivedCount), UNSUPPORTED_CHAIN_ID, shape
 *      errors first ............................................................ "batch prices"
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NATIVE_ADDRESS } from "../../src/chains/chains.js";
import { testLogo } from "../support/fixtures.js";
import {
  expectError,
  expectSuccess,
  expectValidation,
  postJson,
  request,
  startWithFixtures,
  type Gateway,
} from "../support/gateway-process.js";
import { TS, tokenSurfaceFixture } from "../support/token-surface-fixture.js";

let gw: Gateway;
let base: string;

beforeAll(async () => {
  gw = await startWithFixtures(tokenSurfaceFixture());
  base = gw.baseUrl;
});

afterAll(async () => {
  await gw?.stop();
});

const get = (path: string) => request(base, path);
const upper = (address: string) => "0x" + address.slice(2).toUpperCase();
const shared = (chainId: number) => ({
  chainId,
  address: TS.shared,
  decimals: 18,
  name: "Shared",
  symbol: "SHR",
  logoUrl: testLogo(chainId, TS.shared),
});

describe("by address (A1)", () => {
  it("every loaded chain holding the address, by TVL desc then chain id (any letter case)", async () => {
    expect(expectSuccess(await get(`/v1/tokens/${upper(TS.shared)}`))).toEqual({ tokens: [shared(1), shared(8453)] });
    const weth = expectSuccess(await get(`/v1/tokens/${TS.weth8453}`)).tokens;
    expect(weth.map((t: { chainId: number }) => t.chainId)).toEqual([8453, 130]); // 400,000 before 90,000
  });

  it("only the listed chains, in each list form", async () => {
    for (const query of [
      "chainIds=8453",
      "chainIds=8453,130",
      "chainIds=8453&chainIds=130",
      "chainIds[]=8453&chainIds[]=130",
      "chainIds[]=8453,130",
    ]) {
      const tokens = expectSuccess(await get(`/v1/tokens/${TS.shared}?${query}`)).tokens;
      expect(tokens, query).toEqual([shared(8453)]);
    }
    expect(expectSuccess(await get(`/v1/tokens/${TS.shared}?chainIds=130`))).toEqual({ tokens: [] });
  });

  it("no eligibility filter: a token without TVL is found; an unknown address is an empty list", async () => {
    expect(expectSuccess(await get(`/v1/tokens/${TS.nil1}`)).tokens.map((t: { symbol: string }) => t.symbol)).toEqual(["NIL"]);
    expect(expectSuccess(await get(`/v1/tokens/${TS.absent}`))).toEqual({ tokens: [] });
  });

  it("query lists follow §2: integers, supported, unique; a loaded chain when named", async () => {
    expectValidation(await get(`/v1/tokens/${TS.shared}?chainIds=abc`), "chainIds.0", "isNumber", "abc");
    expectValidation(await get(`/v1/tokens/${TS.shared}?chainIds=1.5`), "chainIds.0", "isInt", 1.5);
    expectValidation(await get(`/v1/tokens/${TS.shared}?chainIds=1,1`), "chainIds", "uniqueItems");
    expectValidation(await get(`/v1/tokens/${TS.shared}?chainIds=`), "chainIds.0", "isNumber", "");
    const err = expectError(await get(`/v1/tokens/${TS.shared}?chainIds=1,5,7`), 400, "UNSUPPORTED_CHAIN_ID");
    expect(err.metadata).toMatchObject({ chainId: 5, unsupportedIds: [5, 7] });
    expectError(await get(`/v1/tokens/${TS.shared}?chainIds=999`), 503, "CHAIN_DATA_UNAVAILABLE");
  });
});

describe("by chain and address (A2)", () => {
  it("the metadata, then totalValuePooledUsd (the tracked TVL) last", async () => {
    const res = await get(`/v1/tokens/1/${upper(TS.usdc1)}`);
    const { token } = expectSuccess(res);
    expect(token).toEqual({
      chainId: 1,
      address: TS.usdc1,
      decimals: 6,
      name: "USD Coin",
      symbol: "USDC",
      logoUrl: testLogo(1, TS.usdc1),
      totalValuePooledUsd: 700_000,
    });
    expect(Object.keys(token)).toEqual(["chainId", "address", "decimals", "name", "symbol", "logoUrl", "totalValuePooledUsd"]);
    expect(expectSuccess(await get(`/v1/tokens/1/${TS.nil1}`)).token.totalValuePooledUsd).toBe(0);
  });

  it("an unknown token is 404 TOKEN_NOT_FOUND with the address as sent", async () => {
    const sent = upper(TS.absent);
    const err = expectError(await get(`/v1/tokens/1/${sent}`), 404, "TOKEN_NOT_FOUND");
    expect(err.metadata).toEqual({ tokenAddress: sent, chainId: 1 });
    // the token exists on chain 1 only
    expect(expectError(await get(`/v1/tokens/8453/${TS.usdc1}`), 404, "TOKEN_NOT_FOUND").metadata).toEqual({
      tokenAddress: TS.usdc1,
      chainId: 8453,
    });
  });

  it("the zero address is the native record; a chain without one answers 404", async () => {
    expect(expectSuccess(await get(`/v1/tokens/1/${NATIVE_ADDRESS}`)).token).toMatchObject({
      address: NATIVE_ADDRESS,
      symbol: "ETH",
      totalValuePooledUsd: 900_000,
    });
    expectError(await get(`/v1/tokens/8453/${NATIVE_ADDRESS}`), 404, "TOKEN_NOT_FOUND");
  });
});

describe("price (P1)", () => {
  const price = (chainId: number | string, address: string) => get(`/v1/tokens/prices/${chainId}/${address}/usd`);

  it("the tracked USD price; 0 is a price", async () => {
    expect(expectSuccess(await price(1, upper(TS.usdc1)))).toEqual({ price: 1 });
    expect(expectSuccess(await price(1, TS.zeroPrice1))).toEqual({ price: 0 });
    expect(expectSuccess(await price(1, TS.impostor1))).toEqual({ price: 0.5 });
  });

  it("the zero address: the native record, else the wrapped native token", async () => {
    expect(expectSuccess(await price(1, NATIVE_ADDRESS))).toEqual({ price: 3000 });
    expect(expectSuccess(await price(8453, NATIVE_ADDRESS))).toEqual({ price: 2999 });
  });

  it("an unknown token is 404 TOKEN_NOT_FOUND", async () => {
    const err = expectError(await price(130, TS.usdc1), 404, "TOKEN_NOT_FOUND");
    expect(err.metadata).toEqual({ tokenAddress: TS.usdc1, chainId: 130 });
  });

  it("path rules: the address, the chain", async () => {
    expectValidation(await price(1, "0x1234"), "tokenAddress", "isEthereumAddress", "0x1234");
    expectError(await price(5, TS.usdc1), 400, "UNSUPPORTED_CHAIN_ID");
    expectError(await price(999, TS.usdc1), 503, "CHAIN_DATA_UNAVAILABLE");
  });
});

describe("batch prices (P2)", () => {
  const prices = (body: unknown) => postJson(base, "/v1/tokens/prices", body);

  it("one entry per token in request order, lowercase, null for a token the snapshot lacks, repeats allowed", async () => {
    const data = expectSuccess(
      await prices({
        tokens: [
          { chainId: 1, address: upper(TS.usdc1) },
          { chainId: 8453, address: NATIVE_ADDRESS },
          { chainId: 1, address: TS.absent },
          { chainId: 1, address: NATIVE_ADDRESS },
          { chainId: 1, address: TS.zeroPrice1 },
          { chainId: 1, address: TS.usdc1 },
        ],
      }),
    );
    expect(data).toEqual({
      prices: [
        { chainId: 1, address: TS.usdc1, price: 1 },
        { chainId: 8453, address: NATIVE_ADDRESS, price: 2999 },
        { chainId: 1, address: TS.absent, price: null },
        { chainId: 1, address: NATIVE_ADDRESS, price: 3000 },
        { chainId: 1, address: TS.zeroPrice1, price: 0 },
        { chainId: 1, address: TS.usdc1, price: 1 },
      ],
    });
  });

  it("1 to 100 tokens", async () => {
    expectValidation(await prices({ tokens: [] }), "tokens", "isNotEmpty");
    const many = Array.from({ length: 101 }, () => ({ chainId: 1, address: TS.usdc1 }));
    expectValidation(await prices({ tokens: many }), "tokens", "max");
    expect(expectSuccess(await prices({ tokens: many.slice(1) })).prices).toHaveLength(100);
    expectValidation(await prices({}), "tokens", "isArray");
    expectValidation(await prices({ tokens: [{ chainId: 1, address: TS.usdc1 }], extra: true }), "extra", "whitelist");
  });

  it("every malformed address is listed (as sent) in INVALID_BLOCKCHAIN_ADDRESS", async () => {
    const tokens = [
      { chainId: 1, address: TS.usdc1 },
      { chainId: 1, address: "0x1234" },
      { chainId: 8453, address: 42 },
      { chainId: 1, address: TS.usdc1.slice(2) },
      { chainId: 1, address: null },
    ];
    const err = expectError(await prices({ tokens }), 400, "INVALID_BLOCKCHAIN_ADDRESS");
    expect(err.metadata.receivedCount).toBe(5);
    expect(err.metadata.invalidAddresses.map((a: { address: unknown }) => a.address)).toEqual(["0x1234", 42, TS.usdc1.slice(2), null]);
    for (const item of err.metadata.invalidAddresses) expect(item.reason).toEqual(expect.any(String));
  });

  it("an unsupported chain is UNSUPPORTED_CHAIN_ID naming every unsupported id; after the addresses", async () => {
    const err = expectError(
      await prices({
        tokens: [
          { chainId: 1, address: TS.usdc1 },
          { chainId: 5, address: TS.usdc1 },
          { chainId: 7, address: TS.usdc1 },
        ],
      }),
      400,
      "UNSUPPORTED_CHAIN_ID",
    );
    expect(err.metadata).toMatchObject({ chainId: 5, unsupportedIds: [5, 7] });
    expectError(
      await prices({
        tokens: [
          { chainId: 5, address: TS.usdc1 },
          { chainId: 1, address: "0x1" },
        ],
      }),
      400,
      "INVALID_BLOCKCHAIN_ADDRESS",
    );
  });

  it("the body's shape is checked first (VALIDATION_ERROR in document order)", async () => {
    expectValidation(await prices({ tokens: [{ chainId: "1", address: "0x1" }] }), "tokens.0.chainId", "isNumber", "1");
    expectValidation(await prices({ tokens: [{ chainId: 1.5, address: TS.usdc1 }] }), "tokens.0.chainId", "isInt", 1.5);
    expectValidation(await prices({ tokens: [{ chainId: 1 }] }), "tokens.0.address", "isString");
    expectValidation(await prices({ tokens: [{ chainId: 1, address: TS.usdc1, symbol: "X" }] }), "tokens.0.symbol", "whitelist");
    expectValidation(await prices({ tokens: [5] }), "tokens.0", "isObject", 5);
  });

  it("a chain without data is 503", async () => {
    expectError(await prices({ tokens: [{ chainId: 999, address: TS.usdc1 }] }), 503, "CHAIN_DATA_UNAVAILABLE");
  });
});
