import typia from "typia";
import { describe, expect, test } from "vitest";
import type { TokenListRequest } from "../../../src/api/wire.js";
import type { ApiError } from "../../../src/api/errors.js";
import { validated } from "../../../src/http/validation-error.js";

const validateTokenListRequest = typia.createValidateEquals<TokenListRequest>();
const parseTokenListRequest = (body: unknown) => validated(validateTokenListRequest, body);

function failure(body: unknown): ApiError {
  try {
    parseTokenListRequest(body);
  } catch (error) {
    return error as ApiError;
  }
  throw new Error("expected a validation failure");
}

describe("token list request validation", () => {
  test("accepts the documented shapes", () => {
    expect(parseTokenListRequest({})).toEqual({});
    expect(() =>
      parseTokenListRequest({
        config: { matchAllSymbols: true, limit: 500, orderBy: { field: "tvl", direction: "asc" }, cursor: null },
        filters: {
          chainIds: [],
          minimumTotalValuePooledUsd: 0,
          minimumSwapsCount: 0,
          minimumSwapVolumeUsd: 0.5,
          ignoreWrappedNative: false,
        },
      }),
    ).not.toThrow();
  });

  test.each([
    [[], "body", "isObject"],
    [{ config: "x" }, "config", "isObject"],
    [{ config: { limit: "10" } }, "config.limit", "isNumber"],
    [{ config: { limit: 1.5 } }, "config.limit", "isInt"],
    [{ config: { limit: 0 } }, "config.limit", "min"],
    [{ config: { limit: 501 } }, "config.limit", "max"],
    [{ config: { limit: null } }, "config.limit", "isNumber"],
    [{ config: { cursor: 5 } }, "config.cursor", "isString"],
    [{ config: { orderBy: { direction: "up" } } }, "config.orderBy.direction", "isIn"],
    [{ config: { orderBy: { field: "price" } } }, "config.orderBy.field", "isIn"],
    [{ config: { matchAllSymbols: "false" } }, "config.matchAllSymbols", "isBoolean"],
    [{ filters: { chainIds: "1" } }, "filters.chainIds", "isArray"],
    [{ filters: { chainIds: [1, "x"] } }, "filters.chainIds.1", "isNumber"],
    [{ filters: { chainIds: [1.5] } }, "filters.chainIds.0", "isInt"],
    [{ filters: { chainIds: [1, 1] } }, "filters.chainIds", "uniqueItems"],
    [{ filters: { minimumSwapsCount: -1 } }, "filters.minimumSwapsCount", "min"],
    [{ filters: { minimumSwapsCount: 1.5 } }, "filters.minimumSwapsCount", "isInt"],
    [{ filters: { minimumSwapVolumeUsd: -0.1 } }, "filters.minimumSwapVolumeUsd", "min"],
    [{ filters: { ignoreWrappedNative: 1 } }, "filters.ignoreWrappedNative", "isBoolean"],
    [{ extra: 1 }, "extra", "whitelist"],
    [{ config: { orderBy: { direction: "asc", x: 1 } } }, "config.orderBy.x", "whitelist"],
  ])("%j → %s %s", (body, property, constraint) => {
    const error = failure(body);
    expect(error.code).toBe("VALIDATION_ERROR");
    expect(error.metadata.property).toBe(property);
    expect(Object.keys(error.metadata.constraints as object)).toEqual([constraint]);
  });

  test("the limit message states the bound of 500", () => {
    expect(failure({ config: { limit: 501 } }).metadata).toEqual({
      property: "config.limit",
      value: 501,
      constraints: { max: ["limit must not be greater than 500"] },
    });
  });

  test("reports the first failing property in document order", () => {
    expect(failure({ filters: { ignoreWrappedNative: "no" }, config: { limit: 0 } }).metadata.property).toBe("filters.ignoreWrappedNative");
    expect(failure({ config: { limit: 0 }, filters: { ignoreWrappedNative: "no" } }).metadata.property).toBe("config.limit");
    expect(failure({ zzz: 1, config: { limit: 0 } }).metadata.property).toBe("zzz");
  });

  test("unsupported chain ids get their own code, before duplicates", () => {
    const error = failure({ filters: { chainIds: [1, 5, 1, 7] } });
    expect(error.code).toBe("UNSUPPORTED_CHAIN_ID");
    expect(error.metadata).toMatchObject({ chainId: 5, unsupportedIds: [5, 7] });
    expect(error.metadata.supportedIds).toEqual([1, 130, 143, 999, 8453, 9745, 534352]);
  });

  test("value is omitted only when absent", () => {
    expect(failure({ config: { cursor: false } }).metadata).toMatchObject({ value: false });
  });
});
