/**
 * The OpenAPI 3.1 document of the gateway. Every schema comes from the wire
 * types (wire-schemas.ts) and every error status and title from
 * ERROR_CATALOGUE; what is written here is what no type states: the routes,
 * which error codes each can answer, security, and the prose.
 */
import { SUPPORTED_CHAIN_IDS_ASCENDING } from "../chains/chains.js";
import type { ErrorCode } from "../http/errors.js";
import { errorEnvelopeSchemas, errorResponse, errorResponses } from "./error-responses.js";
import {
  HEALTH_RESPONSE_EXAMPLE,
  POOL_RESPONSE_EXAMPLE,
  PROTOCOLS_RESPONSE_EXAMPLE,
  READINESS_RESPONSE_EXAMPLE,
  TOKEN_LIST_REQUEST_EXAMPLE,
  TOKEN_LIST_RESPONSE_EXAMPLE,
} from "./examples.js";
import { componentRef, type JsonSchema } from "./json-schema.js";
import { ResponseHeaderCatalogue, type Presence } from "./response-headers.js";
import { buildWireSchemas, type WireSchemas } from "./wire-schemas.js";

/** The interface version of shared/spec/interface-spec.md. */
const INTERFACE_VERSION = "1.0.0";

const SECURITY_SCHEME = "bearerAuth";

/** Answered by every route: an ambiguous body length, another method on the path, and a server fault. */
const ANY_ROUTE: readonly ErrorCode[] = ["INVALID_REQUEST_FRAMING", "METHOD_NOT_ALLOWED", "UNKNOWN_ERROR"];

/** Answered by every authenticated route, before its own checks (api-decisions.md §5). */
const ACCESS: readonly ErrorCode[] = [
  "API_KEY_MISSING",
  "API_KEY_INVALID",
  "API_KEY_NOT_FOUND",
  "API_KEY_DISABLED",
  "API_KEY_EXPIRED",
  "API_KEY_FORBIDDEN",
  "RATE_LIMIT_EXCEEDED",
];

const TOKEN_LIST_ERRORS: readonly ErrorCode[] = [
  ...ANY_ROUTE,
  ...ACCESS,
  "UNSUPPORTED_MEDIA_TYPE",
  "PAYLOAD_TOO_LARGE",
  "MALFORMED_JSON",
  "VALIDATION_ERROR",
  "UNSUPPORTED_CHAIN_ID",
  "INVALID_PAGINATION_CURSOR",
  "CHAIN_DATA_UNAVAILABLE",
];

const POOL_ERRORS: readonly ErrorCode[] = [
  ...ANY_ROUTE,
  ...ACCESS,
  "VALIDATION_ERROR",
  "UNSUPPORTED_CHAIN_ID",
  "INVALID_POOL_ADDRESS",
  "CHAIN_DATA_UNAVAILABLE",
  "LIQUIDITY_POOL_NOT_FOUND",
];

const PROTOCOL_ERRORS: readonly ErrorCode[] = [...ANY_ROUTE, ...ACCESS];

const DESCRIPTION = `Normalized DeFi liquidity data for seven EVM chains (${SUPPORTED_CHAIN_IDS_ASCENDING.join(", ")}), served from in-memory snapshots.

- Paths are relative to the gateway's base URL. Every \`/v1\` data route needs \`Authorization: Bearer <api-key>\`; \`/health\`, \`/ready\` and this document are public.
- Every success is the envelope \`{statusCode, timestamp, path, traceId, data}\`; every error is \`{statusCode, timestamp, path, traceId, error: {code, title, message, details, metadata}}\` with the code also in the \`x-error-code\` header. Each operation lists the codes it can answer; \`metadata\` has a schema per code.
- Routing comes first: an unknown path is 404 \`ROUTE_NOT_FOUND\` (response \`RouteNotFound\`), another method on a known path 405 \`METHOD_NOT_ALLOWED\`, with or without a key. Then authentication, the key's quota and its route and chain allow-lists, then the request itself.
- Each key has a quota of requests per fixed window; authenticated responses carry \`RateLimit-Limit\`, \`RateLimit-Remaining\` and \`RateLimit-Reset\`, and every authenticated request counts, whatever its outcome.
- Send \`x-trace-id\` to choose the trace id echoed in the body and the \`x-trace-id\` header.
- \`HEAD\` is answered like \`GET\`, without a body.`;

const TOKEN_LIST_DESCRIPTION = `One entry per asset across chains, ordered by total value locked (TVL), in pages linked by an opaque cursor.

1. Eligible instances: tokens on the requested chains whose tracked TVL, swap count and tracked swap volume are each strictly greater than the filter minimums (per single-chain instance). With \`ignoreWrappedNative\` each chain's wrapped native token is left out; the native asset (all-zero address) is an ordinary instance.
2. Instances are grouped by normalized symbol; the highest-TVL instance is the anchor. Others join when their tracked price is within 20 % of the anchor's and their name or symbol matches it (metadata parity). The canonical view (\`matchAllSymbols\` false) keeps the highest-TVL passing instance per chain; \`matchAllSymbols\` true keeps every passing instance.
3. Entries are ordered by the group's summed TVL, ties by normalized symbol ascending. The order is exact.
4. \`nextCursor\` is null exactly at the end. Send it as \`config.cursor\` with the same filters, \`matchAllSymbols\` and \`orderBy\` (\`limit\` may change): walking every page yields each entry once, even while snapshots change.

A chain that is named in \`chainIds\` but has no loaded snapshot is 503 \`CHAIN_DATA_UNAVAILABLE\`; without \`chainIds\` the list covers the loaded chains (a chain-restricted key: its allowed ones).`;

interface OperationSpec {
  readonly operationId: string;
  readonly tag: string;
  readonly summary: string;
  readonly description?: string;
  /** Needs a key (counts against its quota). */
  readonly authenticated: boolean;
  readonly success: { readonly description: string; readonly schema: JsonSchema; readonly example?: unknown; readonly snapshotVersion: Presence };
  readonly errors: readonly ErrorCode[];
  readonly parameters?: readonly JsonSchema[];
  readonly requestBody?: JsonSchema;
  /** Responses besides the success and the errors (e.g. /ready's 503). */
  readonly otherResponses?: Record<string, JsonSchema>;
}

class DocumentBuilder {
  readonly headers: ResponseHeaderCatalogue;

  constructor(readonly wire: WireSchemas) {
    this.headers = new ResponseHeaderCatalogue(wire.responseHeaders);
  }

  /** A JSON media type; its example, when given, is named `sample`. */
  jsonContent(schema: JsonSchema, example: unknown): JsonSchema {
    return { "application/json": { schema, ...(example === undefined ? {} : { examples: { sample: { value: example } } }) } };
  }

  operation(spec: OperationSpec): JsonSchema {
    const successHeaders = this.headers.common(spec.authenticated ? "always" : "never");
    if (spec.success.snapshotVersion === "always") successHeaders["x-snapshot-version"] = this.headers.header("x-snapshot-version", true);
    return {
      operationId: spec.operationId,
      tags: [spec.tag],
      summary: spec.summary,
      ...(spec.description === undefined ? {} : { description: spec.description }),
      ...(spec.authenticated ? {} : { security: [] }),
      parameters: [{ $ref: "#/components/parameters/TraceId" }, ...(spec.parameters ?? [])],
      ...(spec.requestBody === undefined ? {} : { requestBody: spec.requestBody }),
      responses: {
        "200": { description: spec.success.description, headers: successHeaders, content: this.jsonContent(spec.success.schema, spec.success.example) },
        ...(spec.otherResponses ?? {}),
        ...errorResponses(spec.errors, spec.authenticated, this.headers),
      },
    };
  }

  /** A path parameter from a PoolPathParameters property: its JSDoc is the description. */
  pathParameter(name: keyof WireSchemas["poolPathParameters"], example: unknown): JsonSchema {
    const { description, ...schema } = this.wire.poolPathParameters[name];
    return { name, in: "path", required: true, description, schema, example };
  }

  traceIdParameter(): JsonSchema {
    const { description, ...schema } = this.wire.requestHeaders["x-trace-id"];
    return { name: "x-trace-id", in: "header", required: false, description, schema };
  }
}

/** Builds the document; the gateway does this once at start-up. */
export function buildOpenApiDocument(): JsonSchema {
  const wire = buildWireSchemas();
  const doc = new DocumentBuilder(wire);
  const pool = POOL_RESPONSE_EXAMPLE.data.pool;
  return {
    openapi: "3.1.0",
    info: { title: "liquidity-gateway", version: INTERFACE_VERSION, description: DESCRIPTION },
    tags: [
      { name: "tokens", description: "The cross-chain token list." },
      { name: "pools", description: "Liquidity pool details." },
      { name: "protocols", description: "Protocols with pools in the loaded snapshots." },
      { name: "operations", description: "Public endpoints: liveness, readiness, this document." },
    ],
    security: [{ [SECURITY_SCHEME]: [] }],
    paths: {
      "/v1/tokens": {
        post: doc.operation({
          operationId: "listMultiChainTokens",
          tag: "tokens",
          summary: "Get a unified list of multi-chain assets",
          description: TOKEN_LIST_DESCRIPTION,
          authenticated: true,
          requestBody: {
            required: true,
            description: "A JSON object (at most 64 KiB); `{}` asks for the first page with every default.",
            content: doc.jsonContent(componentRef("TokenListRequest"), TOKEN_LIST_REQUEST_EXAMPLE),
          },
          success: { description: "One page of the list.", schema: componentRef("TokenListResponse"), example: TOKEN_LIST_RESPONSE_EXAMPLE, snapshotVersion: "always" },
          errors: TOKEN_LIST_ERRORS,
        }),
      },
      "/v1/pools/{chainId}/{poolAddress}": {
        get: doc.operation({
          operationId: "getPool",
          tag: "pools",
          summary: "Get information about a single liquidity pool",
          description: "The pool as of the chain's loaded snapshot. Addresses are answered in lowercase.",
          authenticated: true,
          parameters: [doc.pathParameter("chainId", pool.chainId), doc.pathParameter("poolAddress", pool.address)],
          success: { description: "The pool.", schema: componentRef("PoolResponse"), example: POOL_RESPONSE_EXAMPLE, snapshotVersion: "always" },
          errors: POOL_ERRORS,
        }),
      },
      "/v1/protocols": {
        get: doc.operation({
          operationId: "listProtocols",
          tag: "protocols",
          summary: "List the protocols that have a pool in the loaded snapshots",
          description: "Ordered by `id`; a protocol present on several chains is listed once, with the record of the lowest chain id.",
          authenticated: true,
          success: {
            description: "The protocols (an empty list before any snapshot has loaded, then without `x-snapshot-version`).",
            schema: componentRef("ProtocolsResponse"),
            example: PROTOCOLS_RESPONSE_EXAMPLE,
            snapshotVersion: "sometimes",
          },
          errors: PROTOCOL_ERRORS,
        }),
      },
      "/health": {
        get: doc.operation({
          operationId: "getHealth",
          tag: "operations",
          summary: "Liveness",
          authenticated: false,
          success: { description: "The process is up (not enveloped).", schema: componentRef("HealthResponse"), example: HEALTH_RESPONSE_EXAMPLE, snapshotVersion: "sometimes" },
          errors: ANY_ROUTE,
        }),
      },
      "/ready": {
        get: doc.operation({
          operationId: "getReadiness",
          tag: "operations",
          summary: "Readiness",
          authenticated: false,
          success: {
            description: "The snapshot files present at start have loaded or been rejected (not enveloped).",
            schema: componentRef("ReadinessResponse"),
            example: READINESS_RESPONSE_EXAMPLE,
            snapshotVersion: "sometimes",
          },
          otherResponses: {
            "503": {
              description: "Still loading the snapshot files present at start (not enveloped).",
              headers: doc.headers.common("never"),
              content: doc.jsonContent(componentRef("ReadinessResponse"), undefined),
            },
          },
          errors: ANY_ROUTE,
        }),
      },
      "/v1/openapi.json": {
        get: doc.operation({
          operationId: "getOpenApiDocument",
          tag: "operations",
          summary: "This OpenAPI 3.1 document",
          authenticated: false,
          success: { description: "The document.", schema: { type: "object", description: "An OpenAPI 3.1 document." }, snapshotVersion: "sometimes" },
          errors: ANY_ROUTE,
        }),
      },
    },
    components: {
      schemas: { ...wire.components, ...errorEnvelopeSchemas(wire.errorMetadata) },
      responses: { RouteNotFound: errorResponse(["ROUTE_NOT_FOUND"], false, doc.headers) },
      parameters: { TraceId: doc.traceIdParameter() },
      securitySchemes: {
        [SECURITY_SCHEME]: {
          type: "http",
          scheme: "bearer",
          description: "`Authorization: Bearer <api-key>`: the word `Bearer` (case-sensitive), one space, then the key.",
        },
      },
    },
  };
}
