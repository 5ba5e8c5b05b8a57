/**
 * The query-string parser of GET routes (src/http/query-params.ts, api-extended.md §7): list forms,
 * numbers only where the carrier has number lists, unknown and repeated parameters, decoding.
 */
import typia from "typia";
import { describe, expect, it } from "vitest";
import type { TokenBasketsQuery } from "../../../src/api/wire.js";
import { ApiError } from "../../../src/api/errors.js";
import { parseQuery } from "../../../src/http/query-params.js";

const validate = typia.createValidateEquals<TokenBasketsQuery>();
const LISTS = { chainIds: "numbers", basketIds: "strings" } as const;
const parse = (query: string) => parseQuery(query, LISTS, validate);

function failure(query: string): { code: string; metadata: Record<string, unknown> } {
  try {
    parse(query);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error(`expected ${query} to be refused`);
}

describe("parseQuery", () => {
  it("no query is an empty carrier", () => {
    expect(parse("")).toEqual({});
  });

  it("a=1,2, a=1&a=2, a[]=1&a[]=2 and mixes are one list, in order", () => {
    for (const query of [
      "chainIds=1,8453",
      "chainIds=1&chainIds=8453",
      "chainIds[]=1&chainIds[]=8453",
      "chainIds[]=1,8453",
      "chainIds=1&chainIds[]=8453",
    ]) {
      expect(parse(query), query).toEqual({ chainIds: [1, 8453] });
    }
  });

  it("number lists hold numbers; string lists keep their text, digits included", () => {
    expect(parse("basketIds=123,usd-stablecoins&chainIds=130")).toEqual({ basketIds: ["123", "usd-stablecoins"], chainIds: [130] });
  });

  it("percent-encoding and + are decoded", () => {
    expect(parse("basketIds=a%2Cb,c&chainIds%5B%5D=1")).toEqual({ basketIds: ["a", "b", "c"], chainIds: [1] });
    expect(failure("basketIds=a+b&basketIds=a%20b").metadata).toMatchObject({
      property: "basketIds",
      constraints: { uniqueItems: expect.any(Array) },
    });
  });

  it("items that are not numbers stay text and are refused as such; fractions are refused as integers", () => {
    expect(failure("chainIds=1,x").metadata).toMatchObject({
      property: "chainIds.1",
      value: "x",
      constraints: { isNumber: expect.any(Array) },
    });
    expect(failure("chainIds=01").metadata).toMatchObject({ property: "chainIds.0", value: "01" });
    expect(failure("chainIds=1.5").metadata).toMatchObject({
      property: "chainIds.0",
      value: 1.5,
      constraints: { isInt: expect.any(Array) },
    });
    expect(failure("chainIds=").metadata).toMatchObject({ property: "chainIds.0", value: "" });
    const unsupported = failure("chainIds=1,5,7");
    expect(unsupported.code).toBe("UNSUPPORTED_CHAIN_ID");
    expect(unsupported.metadata).toMatchObject({ chainId: 5, unsupportedIds: [5, 7] });
  });

  it("an unknown parameter is whitelist, named; the first failure in query order wins", () => {
    expect(failure("foo=1").metadata).toMatchObject({ property: "foo", value: "1", constraints: { whitelist: expect.any(Array) } });
    expect(failure("foo[]=1&foo[]=2").metadata).toMatchObject({ property: "foo" });
    expect(failure("__proto__=1").metadata).toMatchObject({ property: "__proto__" });
    expect(failure("chainIds=x&foo=1").metadata).toMatchObject({ property: "chainIds.0" });
    expect(failure("foo=1&chainIds=x").metadata).toMatchObject({ property: "foo" });
  });

  it("a parameter without a value is an empty string", () => {
    expect(failure("chainIds").metadata).toMatchObject({ property: "chainIds.0", value: "" });
    expect(failure("x").metadata).toMatchObject({ property: "x", value: "" });
  });
});
