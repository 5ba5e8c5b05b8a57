/**
 * Valid JSON nested deeper than MAX_JSON_DEPTH (issue 19 item 5): it is valid
 * JSON, so the answer is the one the route's validation gives on the whole
 * document, found on the body cut at the limit. Property-style: random deep
 * nests dropped into the request examples of every body route, compared with
 * the same validation run on JSON.parse of the whole text (the error envelope
 * a client would get, byte for byte). Invalid JSON stays MALFORMED_JSON.
 */
import fc from "fast-check";
import typia from "typia";
import { describe, expect, it } from "vitest";
import type {
  HistoricalPricesRequest,
  PoolSearchRequest,
  SingleChainTokenListRequest,
  SingleChainTokenSearchRequest,
  TokenListRequest,
  TokenPricesRequest,
  TokenSearchRequest,
} from "../../../src/api/wire.js";
import { errorBody } from "../../../src/http/envelope.js";
import { ApiError } from "../../../src/api/errors.js";
import { cutBelow, jsonNestingDepth, parseJsonBody, TOO_DEEP } from "../../../src/http/json-body.js";
import { MAX_BODY_BYTES, MAX_JSON_DEPTH } from "../../../src/api/limits.js";
import { ROUTES } from "../../../src/http/route-table.js";
import { searchRuleFailures } from "../../../src/http/search-rules.js";
import { tokenListsFailure } from "../../../src/http/token-address-lists.js";
import { validated } from "../../../src/http/validation-error.js";
import { componentName, type JsonSchema } from "../../../src/openapi/json-schema.js";
import {
  HISTORY_PRICES_REQUEST_EXAMPLE,
  POOL_SEARCH_REQUEST_EXAMPLE,
  SINGLE_CHAIN_LIST_REQUEST_EXAMPLE,
  SINGLE_CHAIN_SEARCH_REQUEST_EXAMPLE,
  TOKEN_LIST_REQUEST_EXAMPLE,
  TOKEN_PRICES_REQUEST_EXAMPLE,
  TOKEN_SEARCH_REQUEST_EXAMPLE,
} from "../../../src/openapi/examples.js";
import { buildWireSchemas } from "../../../src/openapi/wire-schemas.js";

/** Each body route's validation as its handler runs it (src/http/handlers/*). */
function checker<T>(validate: (input: unknown) => typia.IValidation<T>, kind: "plain" | "search" | { lists: readonly string[] }) {
  return (body: unknown): unknown => {
    if (kind === "plain") return validated(validate, body);
    if (kind === "search") return validated(validate, body, searchRuleFailures(body));
    const result = validate(body);
    if (result.success) return result.data;
    throw tokenListsFailure(body, result.errors, kind.lists);
  };
}

const BODY_ROUTES: ReadonlyArray<{ schema: string; example: object; check: (body: unknown) => unknown }> = [
  {
    schema: "TokenListRequest",
    example: TOKEN_LIST_REQUEST_EXAMPLE,
    check: checker(typia.createValidateEquals<TokenListRequest>(), "plain"),
  },
  {
    schema: "TokenSearchRequest",
    example: TOKEN_SEARCH_REQUEST_EXAMPLE,
    check: checker(typia.createValidateEquals<TokenSearchRequest>(), "search"),
  },
  {
    schema: "SingleChainTokenListRequest",
    example: SINGLE_CHAIN_LIST_REQUEST_EXAMPLE,
    check: checker(typia.createValidateEquals<SingleChainTokenListRequest>(), "plain"),
  },
  {
    schema: "SingleChainTokenSearchRequest",
    example: SINGLE_CHAIN_SEARCH_REQUEST_EXAMPLE,
    check: checker(typia.createValidateEquals<SingleChainTokenSearchRequest>(), "search"),
  },
  {
    schema: "TokenPricesRequest",
    example: TOKEN_PRICES_REQUEST_EXAMPLE,
    check: checker(typia.createValidateEquals<TokenPricesRequest>(), { lists: ["tokens"] }),
  },
  {
    schema: "HistoricalPricesRequest",
    example: HISTORY_PRICES_REQUEST_EXAMPLE,
    check: checker(typia.createValidateEquals<HistoricalPricesRequest>(), { lists: ["tokens"] }),
  },
  {
    schema: "PoolSearchRequest",
    example: POOL_SEARCH_REQUEST_EXAMPLE,
    check: checker(typia.createValidateEquals<PoolSearchRequest>(), { lists: ["tokensA", "tokensB"] }),
  },
];

/** What a client receives for a body: the error envelope, or the validated value. */
function outcome(check: (body: unknown) => unknown, parse: () => unknown): string {
  let body: unknown;
  try {
    body = parse();
  } catch (error) {
    return `parse: ${errorBody({ path: "/p", traceId: "t" }, error as ApiError, "ts")}`;
  }
  try {
    return `valid: ${JSON.stringify(check(body))}`;
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return `invalid: ${errorBody({ path: "/p", traceId: "t" }, error as ApiError, "ts")}`;
  }
}

type Path = ReadonlyArray<string | number>;

/** Every place a value can go in `doc`: the root, each value, one past each array's end, a new key in each object. */
function slots(doc: unknown, path: Path = []): Path[] {
  const out: Path[] = [path];
  if (Array.isArray(doc)) {
    doc.forEach((item, i) => out.push(...slots(item, [...path, i])));
    out.push([...path, doc.length]);
  } else if (doc !== null && typeof doc === "object") {
    for (const [key, value] of Object.entries(doc)) out.push(...slots(value, [...path, key]));
    out.push([...path, "zzz"], [...path, "aaa"]);
  }
  return out;
}

function placed(doc: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value;
  const copy: any = Array.isArray(doc) ? [...doc] : { ...(doc as object) };
  copy[path[0]] = placed(copy[path[0]], path.slice(1), value);
  return copy;
}

const nest = fc.record({
  depth: fc.integer({ min: MAX_JSON_DEPTH - 2, max: 600 }),
  shape: fc.constantFrom("arrays", "objects", "mixed"),
  inner: fc.constantFrom("1", '"x"', "null", "true", "[]", "{}", "1.5", '"0x833589fcd6edb6e08f4c7c32d4f71b54bda02913"', "8453"),
  width: fc.integer({ min: 1, max: 3 }),
});

function nestText(n: { depth: number; shape: string; inner: string; width: number }): string {
  let text = n.inner;
  for (let level = 0; level < n.depth; level++) {
    const array = n.shape === "arrays" || (n.shape === "mixed" && level % 2 === 0);
    const siblings = level === n.depth - 1 ? Array(n.width - 1).fill("0") : [];
    text = array
      ? `[${[text, ...siblings].join(",")}]`
      : `{${[`"k"`]
          .map((k) => `${k}:${text}`)
          .concat(siblings.map((s, i) => `"s${i}":${s}`))
          .join(",")}}`;
  }
  return text;
}

/** A shallow value of the wrong type somewhere, so that the first failing property in document order matters. */
const shallow = fc.constantFrom<unknown>("x", 1.5, -1, null, true, {}, [], [1, 1], 5);

describe("valid JSON nested deeper than the limit", () => {
  it("gets the answer validation gives on the whole document, for random deep nests in every body route's example", () => {
    let deepBodies = 0;
    for (const route of BODY_ROUTES) {
      const places = slots(route.example);
      fc.assert(
        fc.property(
          fc.array(
            fc.record({
              at: fc.constantFrom(...places),
              value: fc.oneof(
                nest.map((n) => ({ nest: n })),
                shallow.map((v) => ({ plain: v })),
              ),
            }),
            { minLength: 1, maxLength: 4 },
          ),
          (edits) => {
            let doc: unknown = route.example;
            const nests: string[] = [];
            for (const edit of edits) {
              if ("nest" in edit.value) {
                doc = placed(doc, edit.at, `@@NEST${nests.length}@@`);
                nests.push(nestText(edit.value.nest));
              } else doc = placed(doc, edit.at, edit.value.plain);
            }
            let text = JSON.stringify(doc);
            nests.forEach((n, i) => (text = text.replace(`"@@NEST${i}@@"`, n)));
            if (text.length > MAX_BODY_BYTES) return;
            const bytes = Buffer.from(text);
            if (text.includes("@@NEST")) return; // a later edit replaced an earlier nest's parent
            const cut = outcome(route.check, () => parseJsonBody(bytes));
            const whole = outcome(route.check, () => JSON.parse(text));
            expect(cut, text.slice(0, 300)).toBe(whole);
            if (jsonNestingDepth(bytes) > MAX_JSON_DEPTH) deepBodies++;
          },
        ),
        { numRuns: 250 },
      );
    }
    expect(deepBodies).toBeGreaterThan(500);
  });

  it("the issue's examples: a top-level array is isObject on the body; a deep chain id item is that item's error", () => {
    const [tokenList] = BODY_ROUTES;
    const deep = (inner: string) => Buffer.from(inner);
    const arrays = (n: number) => "[".repeat(n) + "]".repeat(n);
    for (const [text, property, constraint] of [
      [arrays(5000), "body", "isObject"],
      [`{"filters":{"chainIds":${arrays(3000)}}}`, "filters.chainIds.0", "isNumber"],
      [`{"filters":{"chainIds":[1,${arrays(3000)}]}}`, "filters.chainIds.1", "isNumber"],
      [`{"config":{"limit":${arrays(100)}},"zzz":${arrays(100)}}`, "config.limit", "isNumber"],
      [`{"zzz":${arrays(100)},"config":{"limit":"x"}}`, "zzz", "whitelist"],
    ] as const) {
      let error: ApiError | undefined;
      try {
        tokenList.check(parseJsonBody(deep(text)));
      } catch (e) {
        error = e as ApiError;
      }
      expect(error?.code, text.slice(0, 80)).toBe("VALIDATION_ERROR");
      expect(error?.metadata.property, text.slice(0, 80)).toBe(property);
      expect(Object.keys(error?.metadata.constraints as object)).toEqual([constraint]);
    }
  });

  it("invalid JSON stays MALFORMED_JSON at any depth", () => {
    for (const text of [
      "[".repeat(100),
      "[".repeat(100) + "]".repeat(99),
      "[".repeat(100) + "1,]" + "]".repeat(99),
      `{"a":${"[".repeat(100)}}`,
      "[".repeat(100) + "]".repeat(100) + "x",
    ]) {
      let code: string | undefined;
      try {
        parseJsonBody(Buffer.from(text));
      } catch (e) {
        code = (e as ApiError).code;
      }
      expect(code, text.slice(-20)).toBe("MALFORMED_JSON");
    }
  });

  it("the cut keeps the levels within the limit and replaces what is below by TOO_DEEP, __proto__ keys included", () => {
    const text = `{"__proto__":${"[".repeat(MAX_JSON_DEPTH)}1${"]".repeat(MAX_JSON_DEPTH)},"ok":[[1]]}`;
    const value = parseJsonBody(Buffer.from(text)) as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    let node: unknown = value.__proto__;
    for (let level = 2; level <= MAX_JSON_DEPTH; level++) {
      expect(Array.isArray(node), `level ${level}`).toBe(true);
      node = (node as unknown[])[0];
    }
    expect(node).toBe(TOO_DEEP);
    expect(value.ok).toEqual([[1]]);
    expect(cutBelow({ a: { b: [1] } }, 2)).toEqual({ a: { b: TOO_DEEP } });
    expect(cutBelow([[]], 0)).toBe(TOO_DEEP);
    expect(cutBelow("x", 0)).toBe("x");
  });

  it("JSON.parse does not recurse: the deepest 64 KiB body parses", () => {
    const depth = MAX_BODY_BYTES / 2;
    const text = "[".repeat(depth) + "]".repeat(depth);
    expect(Array.isArray(JSON.parse(text))).toBe(true);
    let node = parseJsonBody(Buffer.from(text));
    for (let level = 1; level <= MAX_JSON_DEPTH; level++) node = (node as unknown[])[0];
    expect(node).toBe(TOO_DEEP);
  });

  it("no request body type nests anywhere near the cut, so the validator never reaches it", () => {
    const bodies = ROUTES.flatMap((r) => (r.doc.requestBody === undefined ? [] : [r.doc.requestBody.schema]));
    expect(new Set(bodies)).toEqual(new Set(BODY_ROUTES.map((r) => r.schema)));
    const { components } = buildWireSchemas(bodies);
    /** Levels of arrays and objects a value of `schema` may have (Infinity for a recursive type). */
    const depthOf = (schema: JsonSchema, seen: readonly string[]): number => {
      const ref = componentName(schema.$ref);
      if (ref !== undefined) return seen.includes(ref) ? Infinity : depthOf(components[ref], [...seen, ref]);
      let inner = 0;
      const children: JsonSchema[] = [
        ...Object.values((schema.properties as Record<string, JsonSchema> | undefined) ?? {}),
        ...(["anyOf", "oneOf", "allOf", "prefixItems"] as const).flatMap((k) => (schema[k] as JsonSchema[] | undefined) ?? []),
        ...(["items", "additionalProperties"] as const).flatMap((k) =>
          schema[k] !== null && typeof schema[k] === "object" ? [schema[k] as JsonSchema] : [],
        ),
      ];
      for (const child of children) inner = Math.max(inner, depthOf(child, seen));
      const container =
        schema.type === "object" || schema.type === "array" || schema.properties !== undefined || schema.items !== undefined;
      return inner + (container ? 1 : 0);
    };
    for (const body of bodies) {
      const depth = depthOf({ $ref: `#/components/schemas/${body}` }, []);
      // The validator looks at values one level below the schema's deepest container.
      expect(depth + 1, body).toBeLessThan(MAX_JSON_DEPTH);
      expect(depth, body).toBeGreaterThan(0);
    }
  });
});
