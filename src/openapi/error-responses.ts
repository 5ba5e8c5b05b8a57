/**
 * The error side of the document: one envelope schema per error code (the
 * generated ErrorEnvelope narrowed to the code's status, title and metadata,
 * all taken from ERROR_CATALOGUE and the generated metadata schemas) and the
 * responses of an operation, grouped by status, with the headers each code's
 * responses carry.
 */
import { ERROR_CATALOGUE, type ErrorCode, type ErrorCodeFacts } from "../api/errors.js";
import { ERROR_EXAMPLES } from "./examples.js";
import { componentRef, type JsonSchema } from "./json-schema.js";
import { combinedPresence } from "../api/presence.js";
import type { HeaderObjects, ResponseHeaderCatalogue } from "./response-headers.js";

/** `API_KEY_MISSING` → `ApiKeyMissingEnvelope`. */
export function errorEnvelopeName(code: ErrorCode): string {
  const pascal = code
    .toLowerCase()
    .split("_")
    .map((word) => word[0].toUpperCase() + word.slice(1))
    .join("");
  return `${pascal}Envelope`;
}

/** `components.schemas` entries: the error envelope of each code. */
export function errorEnvelopeSchemas(metadata: Readonly<Record<ErrorCode, JsonSchema>>): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {};
  for (const code of Object.keys(ERROR_CATALOGUE) as ErrorCode[]) {
    const { status, title } = ERROR_CATALOGUE[code];
    schemas[errorEnvelopeName(code)] = {
      description: `${code} (HTTP ${status}): ${ERROR_CATALOGUE[code].when}.`,
      allOf: [componentRef("ErrorEnvelope")],
      type: "object",
      properties: {
        statusCode: { const: status },
        error: {
          type: "object",
          properties: { code: { const: code }, title: { const: title }, metadata: metadata[code] },
        },
      },
    };
  }
  return schemas;
}

/** The response object of `codes`, which share one status. */
export function errorResponse(codes: readonly ErrorCode[], authenticated: boolean, headers: ResponseHeaderCatalogue): JsonSchema {
  const facts: ErrorCodeFacts[] = codes.map((code) => ERROR_CATALOGUE[code]);
  const rateLimit = authenticated ? combinedPresence(facts.map((f) => f.rateLimitHeaders)) : "never";
  const headerObjects: HeaderObjects = {
    ...headers.error(rateLimit),
    "x-error-code": headers.header("x-error-code", true, { enum: [...codes] }),
  };
  const retryAfter = combinedPresence(facts.map((f) => (f.retryAfter ? "always" : "never")));
  if (retryAfter !== "never") headerObjects["Retry-After"] = headers.header("Retry-After", retryAfter === "always");
  const allow = combinedPresence(facts.map((f) => (f.allow ? "always" : "never")));
  if (allow !== "never") headerObjects.Allow = headers.header("Allow", allow === "always");
  const upgrade = combinedPresence(facts.map((f) => (f.upgrade ? "always" : "never")));
  if (upgrade !== "never")
    for (const name of ["Upgrade", "Sec-WebSocket-Version"] as const) headerObjects[name] = headers.header(name, upgrade === "always");

  const refs = codes.map((code) => componentRef(errorEnvelopeName(code)));
  const examples: Record<string, JsonSchema> = {};
  for (const code of codes) {
    const value = ERROR_EXAMPLES[code];
    if (value !== undefined) examples[code] = { summary: value.error.message, value };
  }
  return {
    description: codes.map((code) => `\`${code}\`: ${ERROR_CATALOGUE[code].when}.`).join(" "),
    headers: headerObjects,
    content: {
      "application/json": {
        schema: refs.length === 1 ? refs[0] : { anyOf: refs },
        ...(Object.keys(examples).length > 0 ? { examples } : {}),
      },
    },
  };
}

/** The responses of `codes` keyed by status, ascending. */
export function errorResponses(
  codes: readonly ErrorCode[],
  authenticated: boolean,
  headers: ResponseHeaderCatalogue,
): Record<string, JsonSchema> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_CATALOGUE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, JsonSchema> = {};
  for (const status of [...byStatus.keys()].sort((a, b) => a - b)) {
    responses[String(status)] = errorResponse(byStatus.get(status)!, authenticated, headers);
  }
  return responses;
}
