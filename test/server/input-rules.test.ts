/**
 * api-decisions.md §2 (input rules): strict types, every constraint name, unknown
 * properties at any depth, the first failing property in document order, cursor types,
 * chainIds rules and the pool path rules.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SUPPORTED_CHAIN_IDS } from "../../src/chains/chains.js";
import { basicFixture, P } from "../support/fixtures.js";
import {
  expectError,
  expectSuccess,
  expectValidation,
  getPool,
  postTokens,
  request,
  startWithFixtures,
  type Gateway,
} from "../support/gateway-process.js";

let gw: Gateway;
let base: string;

beforeAll(async () => {
  gw = await startWithFixtures(basicFixture());
  base = gw.baseUrl;
});

afterAll(async () => {
  await gw?.stop();
});

const SUPPORTED_SORTED = [...SUPPORTED_CHAIN_IDS].sort((a, b) => a - b);
const NUMBER_TYPE = ["isNumber"];
const INT_TYPE = ["isInt", "isNumber"];

/** [label, raw JSON body, property, constraint name(s), expected value (omit = unchecked)] */
type Case = [string, string, string, string | string[], unknown?];
const j = (v: unknown) => JSON.stringify(v);

const VALIDATION_CASES: Case[] = [
  // body
  ["body is an array", "[]", "body", "isObject"],
  ["body is a string", '"x"', "body", "isObject"],
  ["body is a number", "1", "body", "isObject"],
  ["body is null", "null", "body", "isObject"],
  ["body is true", "true", "body", "isObject"],
  ["unknown top-level property", j({ foo: 1 }), "foo", "whitelist", 1],
  // config
  ["config is an array", j({ config: [] }), "config", "isObject"],
  ["config is null", j({ config: null }), "config", "isObject"],
  ["config is a string", j({ config: "x" }), "config", "isObject", "x"],
  ["limit as a string", j({ config: { limit: "10" } }), "config.limit", INT_TYPE, "10"],
  ["limit 1.5", j({ config: { limit: 1.5 } }), "config.limit", "isInt", 1.5],
  ["limit 0", j({ config: { limit: 0 } }), "config.limit", "min", 0],
  ["limit -1", j({ config: { limit: -1 } }), "config.limit", "min", -1],
  ["limit 501", j({ config: { limit: 501 } }), "config.limit", "max", 501],
  ["limit 1000", j({ config: { limit: 1000 } }), "config.limit", "max", 1000],
  ["limit null", j({ config: { limit: null } }), "config.limit", INT_TYPE, null],
  ["limit true", j({ config: { limit: true } }), "config.limit", INT_TYPE, true],
  ["limit 1e400 (Infinity)", '{"config":{"limit":1e400}}', "config.limit", ["isInt", "isNumber", "max"]],
  ["matchAllSymbols 'false'", j({ config: { matchAllSymbols: "false" } }), "config.matchAllSymbols", "isBoolean", "false"],
  ["matchAllSymbols 0", j({ config: { matchAllSymbols: 0 } }), "config.matchAllSymbols", "isBoolean", 0],
  ["matchAllSymbols null", j({ config: { matchAllSymbols: null } }), "config.matchAllSymbols", "isBoolean", null],
  ["orderBy a string", j({ config: { orderBy: "tvl" } }), "config.orderBy", "isObject", "tvl"],
  ["orderBy null", j({ config: { orderBy: null } }), "config.orderBy", "isObject", null],
  ["orderBy.field unknown", j({ config: { orderBy: { field: "volume" } } }), "config.orderBy.field", "isIn", "volume"],
  ["orderBy.field number", j({ config: { orderBy: { field: 1 } } }), "config.orderBy.field", ["isIn", "isString"], 1],
  ["orderBy.direction DESC", j({ config: { orderBy: { direction: "DESC" } } }), "config.orderBy.direction", "isIn", "DESC"],
  ["orderBy.direction null", j({ config: { orderBy: { direction: null } } }), "config.orderBy.direction", ["isIn", "isString"], null],
  ["orderBy unknown property", j({ config: { orderBy: { field: "tvl", foo: 1 } } }), "config.orderBy.foo", "whitelist", 1],
  ["cursor a number", j({ config: { cursor: 123 } }), "config.cursor", "isString", 123],
  ["cursor an object", j({ config: { cursor: {} } }), "config.cursor", "isString", {}],
  ["cursor true", j({ config: { cursor: true } }), "config.cursor", "isString", true],
  ["config unknown property", j({ config: { foo: "bar" } }), "config.foo", "whitelist", "bar"],
  // filters
  ["filters is an array", j({ filters: [] }), "filters", "isObject"],
  ["filters is null", j({ filters: null }), "filters", "isObject"],
  ["chainIds a string", j({ filters: { chainIds: "1" } }), "filters.chainIds", "isArray", "1"],
  ["chainIds a number", j({ filters: { chainIds: 1 } }), "filters.chainIds", "isArray", 1],
  ["chainIds null", j({ filters: { chainIds: null } }), "filters.chainIds", "isArray", null],
  ["chainIds an object", j({ filters: { chainIds: { 0: 1 } } }), "filters.chainIds", "isArray"],
  ["chainIds item a string", j({ filters: { chainIds: ["1"] } }), "filters.chainIds.0", INT_TYPE, "1"],
  ["chainIds item 1.5", j({ filters: { chainIds: [1, 1.5] } }), "filters.chainIds.1", INT_TYPE, 1.5],
  ["chainIds item null", j({ filters: { chainIds: [1, 8453, null] } }), "filters.chainIds.2", INT_TYPE, null],
  ["chainIds duplicates", j({ filters: { chainIds: [1, 1] } }), "filters.chainIds", "uniqueItems"],
  ["chainIds duplicates apart", j({ filters: { chainIds: [8453, 1, 8453] } }), "filters.chainIds", "uniqueItems"],
  ["minimumTotalValuePooledUsd -1", j({ filters: { minimumTotalValuePooledUsd: -1 } }), "filters.minimumTotalValuePooledUsd", "min", -1],
  [
    "minimumTotalValuePooledUsd '5'",
    j({ filters: { minimumTotalValuePooledUsd: "5" } }),
    "filters.minimumTotalValuePooledUsd",
    NUMBER_TYPE,
    "5",
  ],
  [
    "minimumTotalValuePooledUsd null",
    j({ filters: { minimumTotalValuePooledUsd: null } }),
    "filters.minimumTotalValuePooledUsd",
    NUMBER_TYPE,
    null,
  ],
  [
    "minimumTotalValuePooledUsd Infinity",
    '{"filters":{"minimumTotalValuePooledUsd":1e400}}',
    "filters.minimumTotalValuePooledUsd",
    ["isNumber", "max"],
  ],
  ["minimumSwapVolumeUsd Infinity", '{"filters":{"minimumSwapVolumeUsd":1e400}}', "filters.minimumSwapVolumeUsd", ["isNumber", "max"]],
  ["minimumSwapsCount Infinity", '{"filters":{"minimumSwapsCount":1e400}}', "filters.minimumSwapsCount", ["isInt", "isNumber", "max"]],
  ["minimumSwapsCount 1.5", j({ filters: { minimumSwapsCount: 1.5 } }), "filters.minimumSwapsCount", "isInt", 1.5],
  ["minimumSwapsCount -1", j({ filters: { minimumSwapsCount: -1 } }), "filters.minimumSwapsCount", "min", -1],
  ["minimumSwapsCount '5'", j({ filters: { minimumSwapsCount: "5" } }), "filters.minimumSwapsCount", INT_TYPE, "5"],
  ["minimumSwapVolumeUsd -0.01", j({ filters: { minimumSwapVolumeUsd: -0.01 } }), "filters.minimumSwapVolumeUsd", "min", -0.01],
  ["minimumSwapVolumeUsd true", j({ filters: { minimumSwapVolumeUsd: true } }), "filters.minimumSwapVolumeUsd", NUMBER_TYPE, true],
  ["ignoreWrappedNative 'false'", j({ filters: { ignoreWrappedNative: "false" } }), "filters.ignoreWrappedNative", "isBoolean", "false"],
  ["ignoreWrappedNative 0", j({ filters: { ignoreWrappedNative: 0 } }), "filters.ignoreWrappedNative", "isBoolean", 0],
  ["ignoreWrappedNative null", j({ filters: { ignoreWrappedNative: null } }), "filters.ignoreWrappedNative", "isBoolean", null],
  ["filters unknown property", j({ filters: { chainIds: [1], symbol: "ETH" } }), "filters.symbol", "whitelist", "ETH"],
  [
    "unknown property nested deeper",
    j({ filters: { chainIds: [1] }, config: { orderBy: { direction: "asc", nested: { a: 1 } } } }),
    "config.orderBy.nested",
    "whitelist",
  ],
];

describe("VALIDATION_ERROR cases", () => {
  for (const [label, raw, property, constraint, ...rest] of VALIDATION_CASES) {
    it(`${label} → ${property} (${[constraint].flat().join("|")})`, async () => {
      const res = await postTokens(base, raw);
      if (rest.length > 0) expectValidation(res, property, constraint, rest[0]);
      else expectValidation(res, property, constraint);
    });
  }

  it("the max message for limit mentions 500", async () => {
    const m = expectValidation(await postTokens(base, { config: { limit: 501 } }), "config.limit", "max");
    expect(m.constraints.max.join(" ")).toContain("500");
  });

  it("the limit bounds 1 and 500 are accepted", async () => {
    expectSuccess(await postTokens(base, { config: { limit: 1 } }));
    expectSuccess(await postTokens(base, { config: { limit: 500 } }));
  });

  it("absent optional members are fine, and so are zeros and fractional minimums", async () => {
    for (const body of [
      {},
      { config: {} },
      { filters: {} },
      { config: { orderBy: {} } },
      { config: { orderBy: { field: "tvl", direction: "asc" } } },
      { filters: { minimumTotalValuePooledUsd: 0, minimumSwapsCount: 0, minimumSwapVolumeUsd: 0 } },
      { filters: { minimumTotalValuePooledUsd: 1.5, minimumSwapVolumeUsd: 0.25 } },
      { filters: { ignoreWrappedNative: false }, config: { matchAllSymbols: true } },
    ]) {
      expectSuccess(await postTokens(base, body));
    }
  });
});

describe("cursor types", () => {
  it("null and empty string both mean the first page", async () => {
    const first = expectSuccess(await postTokens(base, { config: { limit: 2 } }));
    expect(expectSuccess(await postTokens(base, { config: { limit: 2, cursor: null } }))).toEqual(first);
    expect(expectSuccess(await postTokens(base, { config: { limit: 2, cursor: "" } }))).toEqual(first);
  });

  it("a string that is not one of ours → INVALID_PAGINATION_CURSOR with receivedCursor", async () => {
    for (const cursor of ["not-a-cursor", "!!!!", "eyJvZmZzZXQiOjEwfQ", "AAAA", " ", "x".repeat(2000)]) {
      const err = expectError(await postTokens(base, { config: { cursor } }), 400, "INVALID_PAGINATION_CURSOR");
      expect(err.metadata.receivedCursor).toBe(cursor);
    }
  });
});

describe("chainIds rules", () => {
  it("an empty array means all chains", async () => {
    const all = expectSuccess(await postTokens(base, { config: { limit: 500 } }));
    const empty = expectSuccess(await postTokens(base, { config: { limit: 500 }, filters: { chainIds: [] } }));
    expect(empty.tokens).toEqual(all.tokens);
  });

  it("an unsupported integer → UNSUPPORTED_CHAIN_ID with the offending item", async () => {
    const err = expectError(await postTokens(base, { filters: { chainIds: [5] } }), 400, "UNSUPPORTED_CHAIN_ID");
    expect(err.metadata.chainId).toBe(5);
    expect(err.metadata.unsupportedIds).toEqual([5]);
    expect([...err.metadata.supportedIds].sort((a: number, b: number) => a - b)).toEqual(SUPPORTED_SORTED);
  });

  it("several unsupported ids: chainId is the first, unsupportedIds lists them all", async () => {
    const err = expectError(await postTokens(base, { filters: { chainIds: [1, 5, 8453, 7] } }), 400, "UNSUPPORTED_CHAIN_ID");
    expect(err.metadata.chainId).toBe(5);
    expect(err.metadata.unsupportedIds).toEqual([5, 7]);
    expect([...err.metadata.supportedIds].sort((a: number, b: number) => a - b)).toEqual(SUPPORTED_SORTED);
  });

  it("0 and negative integers are unsupported chain ids, not type errors", async () => {
    for (const id of [0, -1, 10]) {
      const err = expectError(await postTokens(base, { filters: { chainIds: [id] } }), 400, "UNSUPPORTED_CHAIN_ID");
      expect(err.metadata.chainId).toBe(id);
    }
  });

  it("every supported chain id is accepted", async () => {
    // 999 has no snapshot in this data set (503); the others are loaded.
    for (const id of SUPPORTED_CHAIN_IDS.filter((c) => c !== 999)) {
      expectSuccess(await postTokens(base, { filters: { chainIds: [id] } }));
    }
  });
});

describe("first failing property in document order", () => {
  const cases: Case[] = [
    ["filters before config", '{"filters":{"minimumSwapsCount":-1},"config":{"limit":0}}', "filters.minimumSwapsCount", "min"],
    ["config before filters", '{"config":{"limit":0},"filters":{"minimumSwapsCount":-1}}', "config.limit", "min"],
    ["matchAllSymbols before limit", '{"config":{"matchAllSymbols":"x","limit":0}}', "config.matchAllSymbols", "isBoolean"],
    ["limit before matchAllSymbols", '{"config":{"limit":0,"matchAllSymbols":"x"}}', "config.limit", "min"],
    ["unknown before a bad value", '{"config":{"zzz":1,"limit":0}}', "config.zzz", "whitelist"],
    ["bad value before unknown", '{"config":{"limit":0,"zzz":1}}', "config.limit", "min"],
    ["top-level unknown first", '{"extra":1,"config":{"limit":0}}', "extra", "whitelist"],
    ["top-level unknown last", '{"config":{"limit":0},"extra":1}', "config.limit", "min"],
    ["first bad chainIds item", '{"filters":{"chainIds":[1,"a",1.5]}}', "filters.chainIds.1", INT_TYPE],
    ["direction before field", '{"config":{"orderBy":{"direction":"up","field":"x"}}}', "config.orderBy.direction", "isIn"],
    ["field before direction", '{"config":{"orderBy":{"field":"x","direction":"up"}}}', "config.orderBy.field", "isIn"],
    [
      "ignoreWrappedNative before chainIds",
      '{"filters":{"ignoreWrappedNative":1,"chainIds":"x"}}',
      "filters.ignoreWrappedNative",
      "isBoolean",
    ],
    ["cursor before limit", '{"config":{"cursor":5,"limit":9999}}', "config.cursor", "isString"],
  ];
  for (const [label, raw, property, constraint] of cases) {
    it(`${label} → ${property}`, async () => {
      expectValidation(await postTokens(base, raw), property, constraint);
    });
  }
});

describe("pool path rules", () => {
  const GOOD = P.v3;

  for (const chainId of ["abc", "01", "-1", "1.0", "+1", "1e3", "0x1", "1a", "%20"]) {
    it(`chainId '${chainId}' → VALIDATION_ERROR on chainId`, async () => {
      expectValidation(await getPool(base, chainId, GOOD), "chainId", ["isInt", "isNumber", "isIn", "min"]);
    });
  }

  for (const chainId of ["5", "0", "10", "1337"]) {
    it(`chainId ${chainId} (integer, unsupported) → UNSUPPORTED_CHAIN_ID`, async () => {
      const err = expectError(await getPool(base, chainId, GOOD), 400, "UNSUPPORTED_CHAIN_ID");
      expect([Number(chainId), chainId]).toContainEqual(err.metadata.chainId);
      expect([...err.metadata.supportedIds].sort((a: number, b: number) => a - b)).toEqual(SUPPORTED_SORTED);
    });
  }

  const badAddresses = [
    "0x123",
    "0x" + "a".repeat(41),
    "0x" + "a".repeat(39),
    "0x" + "a".repeat(63),
    "0x" + "a".repeat(65),
    "0x" + "g".repeat(40),
    "a".repeat(40),
    "0x",
    "abc",
    "0x" + "a".repeat(38) + "-1",
  ];
  for (const address of badAddresses) {
    it(`address '${address.length > 20 ? address.slice(0, 12) + "…(" + address.length + ")" : address}' → INVALID_POOL_ADDRESS`, async () => {
      const err = expectError(await getPool(base, 1, address), 400, "INVALID_POOL_ADDRESS", `/v1/pools/1/${address}`);
      expect(err.metadata.liquidityPoolAddress).toBe(address);
    });
  }

  it("chainId is checked before the address", async () => {
    expectValidation(await getPool(base, "abc", "0x123"), "chainId", ["isInt", "isNumber", "isIn", "min"]);
  });

  it("a well-formed unknown address → 404 LIQUIDITY_POOL_NOT_FOUND, address as sent", async () => {
    for (const address of ["0x" + "1".repeat(40), "0x" + "AbCdEf".repeat(6) + "0000", "0x" + "2".repeat(64), "0x" + "F".repeat(64)]) {
      const err = expectError(await getPool(base, 1, address), 404, "LIQUIDITY_POOL_NOT_FOUND");
      expect(err.metadata.liquidityPoolAddress).toBe(address);
      expect(err.metadata.chainId).toBe(1);
    }
  });

  it("0 and the supported ids parse as chain ids (no VALIDATION_ERROR for '0')", async () => {
    expectError(await getPool(base, "0", GOOD), 400, "UNSUPPORTED_CHAIN_ID");
    expectSuccess(await getPool(base, "1", GOOD));
  });
});

describe("no 5xx for arbitrary input", () => {
  const keyNames = ["config", "filters", "limit", "cursor", "chainIds", "matchAllSymbols", "orderBy", "x"];
  const anyValue = fc.jsonValue({ maxDepth: 3 });
  const bodyArb = fc.oneof(
    anyValue,
    fc.record({
      config: fc.option(
        fc.oneof(fc.dictionary(fc.constantFrom("limit", "cursor", "matchAllSymbols", "orderBy", "y"), anyValue, { maxKeys: 4 }), anyValue),
        { nil: undefined },
      ),
      filters: fc.option(
        fc.oneof(
          fc.dictionary(
            fc.constantFrom(
              "chainIds",
              "minimumTotalValuePooledUsd",
              "minimumSwapsCount",
              "minimumSwapVolumeUsd",
              "ignoreWrappedNative",
              "z",
            ),
            fc.oneof(anyValue, fc.array(fc.oneof(fc.constantFrom(...SUPPORTED_CHAIN_IDS), fc.integer(), anyValue), { maxLength: 4 })),
            { maxKeys: 5 },
          ),
          anyValue,
        ),
        { nil: undefined },
      ),
    }),
    fc.dictionary(fc.constantFrom(...keyNames), anyValue, { maxKeys: 3 }),
  );

  it("random JSON bodies get 200, a 400 of the catalogue, or 503 for the unloaded chain", async () => {
    await fc.assert(
      fc.asyncProperty(bodyArb, async (body) => {
        const res = await postTokens(base, JSON.stringify(body) ?? "null");
        expect(res.status, res.text).not.toBeGreaterThanOrEqual(500);
        if (res.status === 200) {
          expectSuccess(res);
        } else if (res.status === 503) {
          // chain 999 has no snapshot in this data set
          expect(res.body.error.code).toBe("CHAIN_DATA_UNAVAILABLE");
          expect(res.body.error.metadata.chainId).toBe(999);
        } else {
          expect(res.status, res.text).toBe(400);
          expect(["VALIDATION_ERROR", "UNSUPPORTED_CHAIN_ID", "INVALID_PAGINATION_CURSOR"]).toContain(res.body.error.code);
        }
      }),
      { numRuns: 300, seed: 4242 },
    );
  });

  it("random path segments on the pool route get 200, 400, 404 or 503", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 20 }), fc.string({ minLength: 1, maxLength: 70 }), async (a, b) => {
        const res = await request(base, `/v1/pools/${encodeURIComponent(a)}/${encodeURIComponent(b)}`);
        expect([200, 400, 404, 503], res.text).toContain(res.status);
        expect(res.body?.statusCode).toBe(res.status);
      }),
      { numRuns: 200, seed: 99 },
    );
  });
});
