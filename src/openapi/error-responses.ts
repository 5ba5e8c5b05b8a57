/**
 * The error side of the document: one envelope schema per error code (the
 * generated ErrorEnvelope narrowed to the code's status, title and metadata,
 * all taken from ERROR_CATALOGUE and the generated metadata schemas) and the
 * responses of an operation, grouped by status, with the headers each code's
 * responses carry.
 */
import { ERROR_CATALOGUE, type ErrorCode } from "../http/errors.js";
import { MAX_BODY_BYTES } from "../http/read-body.js";
import { ERROR_EXAMPLES } from "./examples.js";
import { componentRef, type JsonSchema } from "./json-schema.js";
import { combinedPresence, type HeaderObjects, type Presence, type ResponseHeaderCatalogue } from "./response-headers.js";

interface CodeFacts {
  /** When the code is answered (the response description). */
  readonly when: string;
  /** The key's RateLimit-* headers: only codes answered after the quota is counted carry them. */
  readonly rateLimitHeaders: Presence;
  /** `Retry-After` and `Allow`. */
  readonly retryAfter?: true;
  readonly allow?: true;
}

const CODES: Readonly<Record<ErrorCode, CodeFacts>> = {
  VALIDATION_ERROR: { when: "a parameter breaks the schema; metadata names the first failing property in document order", rateLimitHeaders: "always" },
  MALFORMED_JSON: { when: "the body is empty or not valid JSON", rateLimitHeaders: "always" },
  UNSUPPORTED_CHAIN_ID: { when: "a chain id is an integer but not a supported chain", rateLimitHeaders: "always" },
  INVALID_POOL_ADDRESS: { when: "`poolAddress` is neither 0x + 40 nor 0x + 64 hex digits", rateLimitHeaders: "always" },
  INVALID_PAGINATION_CURSOR: {
    when: "`config.cursor` was not issued by this gateway, was altered, or belongs to a request with other filters, matchAllSymbols or orderBy",
    rateLimitHeaders: "always",
  },
  INVALID_REQUEST_FRAMING: {
    when: "the body's length is ambiguous: several Content-Length headers, or a Transfer-Encoding other than exactly chunked; the connection is closed",
    rateLimitHeaders: "never",
  },
  API_KEY_MISSING: { when: "no Authorization header", rateLimitHeaders: "never" },
  API_KEY_INVALID: { when: "the Authorization header is not `Bearer <api-key>`", rateLimitHeaders: "never" },
  API_KEY_NOT_FOUND: { when: "the key is not known to this gateway", rateLimitHeaders: "never" },
  API_KEY_DISABLED: { when: "the key is disabled", rateLimitHeaders: "never" },
  API_KEY_EXPIRED: { when: "the key has expired", rateLimitHeaders: "never" },
  API_KEY_FORBIDDEN: { when: "the key may not use this route or one of the requested chains", rateLimitHeaders: "always" },
  LIQUIDITY_POOL_NOT_FOUND: { when: "the chain's loaded snapshot has no pool with this address", rateLimitHeaders: "always" },
  ROUTE_NOT_FOUND: { when: "no route has this path", rateLimitHeaders: "never" },
  METHOD_NOT_ALLOWED: { when: "another method was used on this path; `Allow` lists the methods it takes", rateLimitHeaders: "never", allow: true },
  PAYLOAD_TOO_LARGE: { when: `the body is larger than ${MAX_BODY_BYTES} bytes`, rateLimitHeaders: "always" },
  UNSUPPORTED_MEDIA_TYPE: { when: "the Content-Type is not application/json (a charset parameter is fine)", rateLimitHeaders: "always" },
  RATE_LIMIT_EXCEEDED: {
    when: "the key has used its quota of the current window; retry after `Retry-After` seconds (also `metadata.retryAfterSeconds`)",
    rateLimitHeaders: "always",
    retryAfter: true,
  },
  CHAIN_DATA_UNAVAILABLE: { when: "a requested chain has no loaded snapshot yet; retry after `Retry-After` seconds", rateLimitHeaders: "always", retryAfter: true },
  UNKNOWN_ERROR: { when: "a server fault; its trace id is in the gateway's logs", rateLimitHeaders: "sometimes" },
};

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
      description: `${code} (HTTP ${status}): ${CODES[code].when}.`,
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
  const facts = codes.map((code) => CODES[code]);
  const rateLimit = authenticated ? combinedPresence(facts.map((f) => f.rateLimitHeaders)) : "never";
  const headerObjects: HeaderObjects = {
    ...headers.common(rateLimit),
    "x-error-code": headers.header("x-error-code", true, { enum: [...codes] }),
  };
  const retryAfter = combinedPresence(facts.map((f) => (f.retryAfter ? "always" : "never")));
  if (retryAfter !== "never") headerObjects["Retry-After"] = headers.header("Retry-After", retryAfter === "always");
  const allow = combinedPresence(facts.map((f) => (f.allow ? "always" : "never")));
  if (allow !== "never") headerObjects.Allow = headers.header("Allow", allow === "always");

  const refs = codes.map((code) => componentRef(errorEnvelopeName(code)));
  const examples: Record<string, JsonSchema> = {};
  for (const code of codes) {
    const value = ERROR_EXAMPLES[code];
    if (value !== undefined) examples[code] = { summary: value.error.message, value };
  }
  return {
    description: codes.map((code) => `\`${code}\`: ${CODES[code].when}.`).join(" "),
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
export function errorResponses(codes: readonly ErrorCode[], authenticated: boolean, headers: ResponseHeaderCatalogue): Record<string, JsonSchema> {
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
