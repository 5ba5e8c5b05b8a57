/**
 * An unknown parameter is VALIDATION_ERROR `whitelist` naming it, whatever its
 * name and value (issue 19 item 5): a stray `chainId` or `chainIds` is not
 * read as a chain id, on every query carrier of the GET routes and in bodies.
 */
import typia from "typia";
import { describe, expect, it } from "vitest";
import type {
  NoQueryParameters,
  PoolSearchRequest,
  TokenBasketQuery,
  TokenBasketsQuery,
  TokenListRequest,
  TokensByAddressQuery,
} from "../../../src/api/wire.js";
import { ApiError } from "../../../src/api/errors.js";
import { parseQuery, type QueryLists } from "../../../src/http/query-params.js";
import { validated } from "../../../src/http/validation-error.js";

const CARRIERS: ReadonlyArray<{
  name: string;
  lists: QueryLists;
  validate: (input: unknown) => typia.IValidation<unknown>;
  known: readonly string[];
}> = [
  {
    name: "TokensByAddressQuery",
    lists: { chainIds: "numbers" },
    validate: typia.createValidateEquals<TokensByAddressQuery>(),
    known: ["chainIds"],
  },
  {
    name: "TokenBasketsQuery",
    lists: { chainIds: "numbers", basketIds: "strings" },
    validate: typia.createValidateEquals<TokenBasketsQuery>(),
    known: ["chainIds", "basketIds"],
  },
  {
    name: "TokenBasketQuery",
    lists: { chainIds: "numbers" },
    validate: typia.createValidateEquals<TokenBasketQuery>(),
    known: ["chainIds"],
  },
  { name: "NoQueryParameters", lists: {}, validate: typia.createValidateEquals<NoQueryParameters>(), known: [] },
];

/** Names a client might plausibly send by mistake, and values of every kind. */
const NAMES = ["chainId", "chainIds", "basketId", "basketIds", "tokenAddress", "limit", "0", "1", "chainIds.0", "constructor", "__proto__"];
const VALUES = ["1", "8453", "5", "0", "-1", "1.5", "x", "", "1,8453", "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913"];

function refusal(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error("expected a refusal");
}

describe("unknown query parameters", () => {
  for (const carrier of CARRIERS) {
    it(`${carrier.name}: any unknown name, any value, once or twice, is whitelist naming it`, () => {
      for (const name of NAMES.filter((n) => !carrier.known.includes(n))) {
        for (const value of VALUES) {
          for (const query of [
            `${encodeURIComponent(name)}=${encodeURIComponent(value)}`,
            `${encodeURIComponent(name)}=${encodeURIComponent(value)}&${encodeURIComponent(name)}=8453`,
          ]) {
            const error = refusal(() => parseQuery(query, carrier.lists, carrier.validate));
            expect(error.code, query).toBe("VALIDATION_ERROR");
            expect(error.metadata.property, query).toBe(name);
            expect(Object.keys(error.metadata.constraints as object), query).toEqual(["whitelist"]);
            expect((error.metadata.constraints as Record<string, string[]>).whitelist, query).toEqual([
              `property ${name} should not exist`,
            ]);
          }
        }
      }
    });
  }

  it("the issue's case: GET /v1/tokens/{address}?chainId=1", () => {
    const error = refusal(() => parseQuery("chainId=1", { chainIds: "numbers" }, CARRIERS[0].validate));
    expect(error.metadata).toEqual({ property: "chainId", value: "1", constraints: { whitelist: ["property chainId should not exist"] } });
  });
});

describe("unknown body properties", () => {
  const list = typia.createValidateEquals<TokenListRequest>();
  const search = typia.createValidateEquals<PoolSearchRequest>();

  it("a stray chainId or chainIds is whitelist, not a chain id (supported or not)", () => {
    for (const [validate, body, property] of [
      [list, { chainId: 1 }, "chainId"],
      [list, { chainId: 5 }, "chainId"],
      [list, { chainIds: [1, 8453] }, "chainIds"],
      [list, { chainIds: [5] }, "chainIds"],
      [list, { config: { chainId: 1 } }, "config.chainId"],
      [search, { tokensA: [{ chainId: 1, address: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913", chainIds: [5] }] }, "tokensA.0.chainIds"],
    ] as const) {
      const error = refusal(() => validated(validate as (input: unknown) => typia.IValidation<unknown>, body));
      expect(error.code, JSON.stringify(body)).toBe("VALIDATION_ERROR");
      expect(error.metadata.property, JSON.stringify(body)).toBe(property);
      expect(Object.keys(error.metadata.constraints as object), JSON.stringify(body)).toEqual(["whitelist"]);
    }
  });
});
