/**
 * The gateway whose GET /v1/openapi.json the OpenAPI tests hold to its live answers (test/server/openapi-document.test.ts,
 * test/server/openapi-live.test.ts): basicFixture with two baskets and one allowed CORS origin, the served document
 * registered in ajv, and the checks of a value or a live response against the document's schemas.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import ajvFormats from "ajv-formats";
import { afterAll, beforeAll, expect } from "vitest";
import { addr, basicFixture, P } from "./fixtures.js";
import { request, startWithBaskets, type Gateway, type HttpResponse } from "./gateway-process.js";

export type Json = Record<string, any>;

export let gw: Gateway;
export let base: string;
export let served: HttpResponse;
export let doc: Json;
let ajv: Ajv2020;

/** The document is registered in ajv under this id; its `#/components/...` refs resolve inside it. */
const DOC_ID = "https://gateway.test/openapi.json";

/** Baskets over basicFixture's tokens (chains 1, 8453, 130, 143, 9745, 534352 loaded; 999 not). */
const BASKETS = {
  baskets: [
    {
      id: "usd-stablecoins",
      name: "USD Stablecoins",
      description: "Dollars.",
      logoUrl: "https://logos.test/usd.png",
      addresses: { "1": [P.usdc1], "8453": [P.usdcBase] },
    },
    {
      id: "ghost-basket",
      name: "Ghost",
      description: "Nothing on 8453.",
      logoUrl: "https://logos.test/ghost.png",
      addresses: { "1": [addr("e0e0")] },
    },
  ],
};

/** Starts the documented gateway before the file's tests (and stops it after them); sets gw, base, served and doc. */
export function useDocumentedGateway(): void {
  beforeAll(async () => {
    gw = await startWithBaskets(basicFixture(), BASKETS, undefined, { CORS_ORIGINS: "https://app.example.com" });
    base = gw.baseUrl;
    served = await request(base, "/v1/openapi.json", { key: null });
    doc = served.body;
    ajv = new Ajv2020({ allErrors: true, strict: false });
    ajvFormats.default(ajv);
    ajv.addSchema({ $id: DOC_ID, components: doc.components });
  });

  afterAll(async () => {
    await gw?.stop();
  });
}

/** A copy of `schema` whose local refs point into the registered document. */
export function anchored(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema), (key, value) =>
    key === "$ref" && typeof value === "string" && value.startsWith("#/") ? DOC_ID + value : value,
  );
}

const compiled = new Map<string, ReturnType<Ajv2020["compile"]>>();

/** Validation errors of `value` against `schema` (a schema of the document), or null when valid. */
export function schemaErrors(schema: unknown, value: unknown): string | null {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (validate === undefined) {
    validate = ajv.compile(anchored(schema) as object);
    compiled.set(key, validate);
  }
  return validate(value) ? null : ajv.errorsText(validate.errors, { separator: "\n" });
}

export function expectMatches(schema: unknown, value: unknown, what: string): void {
  const errors = schemaErrors(schema, value);
  expect(errors, `${what} does not match its schema:\n${errors}\nvalue: ${JSON.stringify(value).slice(0, 2000)}`).toBeNull();
}

export function component(name: string): Json {
  const schema = doc.components.schemas[name];
  expect(schema, `components.schemas.${name}`).toBeDefined();
  return schema;
}

/** The `default`s a request schema declares, nested like the request. */
export function defaultsOf(schema: Json): Json {
  const out: Json = {};
  for (const [name, property] of Object.entries<Json>(schema.properties)) {
    if ("default" in property) out[name] = property.default;
    else if (property.$ref !== undefined) {
      const nested = defaultsOf(component(property.$ref.split("/").pop()));
      if (Object.keys(nested).length > 0) out[name] = nested;
    }
  }
  return out;
}

export function operations(): { template: string; method: string; operation: Json }[] {
  const list: { template: string; method: string; operation: Json }[] = [];
  for (const [template, item] of Object.entries<Json>(doc.paths)) {
    for (const [method, operation] of Object.entries<Json>(item)) list.push({ template, method, operation });
  }
  return list;
}

/** The documented response of this status; a 405 is documented on every operation of its path. */
export function documentedResponse(method: string, template: string, status: number): Json {
  const item: Json | undefined = doc.paths[template];
  expect(item, `path ${template} is documented`).toBeDefined();
  const operation: Json | undefined = status === 405 ? Object.values<Json>(item!)[0] : item![method.toLowerCase()];
  expect(operation, `${method} ${template} is documented`).toBeDefined();
  const response: Json | undefined = operation!.responses[String(status)];
  expect(response, `${method} ${template} documents status ${status}; it has ${Object.keys(operation!.responses)}`).toBeDefined();
  return response!;
}

/** Every header name the document mentions in any response. */
export function documentedHeaderNames(): Set<string> {
  const names = new Set<string>();
  const add = (response: Json) => Object.keys(response.headers ?? {}).forEach((n) => names.add(n.toLowerCase()));
  for (const { operation } of operations()) Object.values<Json>(operation.responses).forEach(add);
  Object.values<Json>(doc.components.responses ?? {}).forEach(add);
  return names;
}

/** A header value as the schema's type: integers are sent in base 10. */
export function headerValue(text: string, schema: Json): unknown {
  return schema.type === "integer" && /^(0|[1-9][0-9]*)$/.test(text) ? Number(text) : text;
}

/** The live response matches the documented response: body schema, required headers, header schemas, no undocumented known header. */
export function expectResponseMatches(response: Json, res: HttpResponse, what: string): void {
  if (response.content === undefined) expect(res.text, `${what}: no body`).toBe("");
  else expectMatches(response.content["application/json"].schema, res.body, `${what}: body`);
  const documented = new Map(Object.entries<Json>(response.headers ?? {}).map(([name, header]) => [name.toLowerCase(), header]));
  for (const [name, header] of documented) {
    const value = res.headers.get(name);
    if (header.required) expect(value, `${what}: required header ${name}`).not.toBeNull();
    if (value !== null) expectMatches(header.schema, headerValue(value, header.schema), `${what}: header ${name}=${value}`);
  }
  for (const name of documentedHeaderNames()) {
    if (res.headers.get(name) !== null)
      expect(documented.has(name), `${what}: header ${name} is sent but not documented for this response`).toBe(true);
  }
  if (res.status !== 200 && res.body?.error !== undefined) expect(res.headers.get("x-error-code")).toBe(res.body.error.code);
}

export function expectDocumented(method: string, template: string, res: HttpResponse): void {
  expectResponseMatches(documentedResponse(method, template, res.status), res, `${method} ${template} → ${res.status}`);
}

// ------------------------------------------------------------------ the document itself

export function expectSuccessData(res: HttpResponse): Json {
  expect(res.status, res.text.slice(0, 500)).toBe(200);
  return res.body.data;
}
