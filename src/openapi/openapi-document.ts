/**
 * The OpenAPI 3.1 document of the gateway. Every schema comes from the wire
 * types (wire-schemas.ts) and every error status and title from
 * ERROR_CATALOGUE; what is written here is what no type states: the routes,
 * which error codes each can answer, security, and the prose.
 */
import { ACCESS_GROUPS } from "../api/access-groups.js";
import type { ErrorCode } from "../api/errors.js";
import { SUPPORTED_CHAIN_IDS_ASCENDING } from "../chains/chains.js";
import { errorEnvelopeSchemas, errorResponse, errorResponses } from "./error-responses.js";
import { componentRef, type JsonSchema } from "./json-schema.js";
import type { DocumentedRoute, ParameterDoc } from "./operation-doc.js";
import { ResponseHeaderCatalogue } from "./response-headers.js";
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
  "QUOTA_STORE_UNAVAILABLE",
];

/** Answered by every route that reads a JSON body, before its handler. */
const BODY: readonly ErrorCode[] = ["UNSUPPORTED_MEDIA_TYPE", "PAYLOAD_TOO_LARGE", "MALFORMED_JSON"];

/** Answered by public routes: the per-address limit. */
const PUBLIC: readonly ErrorCode[] = ["RATE_LIMIT_EXCEEDED"];

const DESCRIPTION = `Normalized DeFi liquidity data for seven EVM chains (${SUPPORTED_CHAIN_IDS_ASCENDING.join(", ")}), served from in-memory snapshots.

- Paths are relative to the gateway's base URL. Every \`/v1\` data route needs \`Authorization: Bearer <api-key>\`; \`/health\`, \`/ready\`, \`/metrics\`, this document and the AsyncAPI document of \`GET /v1/stream\` (\`/v1/asyncapi.json\`) are public (limited per client address, except the probes \`/health\` and \`/ready\`, which are never refused for rate).
- Every success is the envelope \`{statusCode, timestamp, path, traceId, data}\`; every error is \`{statusCode, timestamp, path, traceId, error: {code, title, message, details, metadata}}\` with the code also in the \`x-error-code\` header. Each operation lists the codes it can answer; \`metadata\` has a schema per code.
- Routing comes first: an unknown path is 404 \`ROUTE_NOT_FOUND\` (response \`RouteNotFound\`), another method on a known path 405 \`METHOD_NOT_ALLOWED\`, with or without a key. Then authentication, the key's quota and its route and chain allow-lists, then the request itself.
- Each key has a quota of requests per fixed window; authenticated responses carry \`RateLimit-Limit\`, \`RateLimit-Remaining\` and \`RateLimit-Reset\`, and every authenticated request counts, whatever its outcome.
- Send \`x-trace-id\` to choose the trace id echoed in the body and the \`x-trace-id\` header.
- \`HEAD\` is answered like \`GET\`, without a body.
- Bodies of at least 1 KiB are sent \`gzip\` or \`br\` when \`Accept-Encoding\` accepts it (\`Vary: Accept-Encoding\`). \`GET\` answers carry an \`ETag\`: send it back in \`If-None-Match\` to get 304 with no body while the data is unchanged (weak validators for enveloped answers: their \`timestamp\` and \`traceId\` differ on every response). \`Cache-Control: private, no-cache\` keeps keyed answers out of shared caches.
- Browsers: when the operator enables CORS (\`CORS_ORIGINS\`), allowed origins get \`Access-Control-Allow-Origin\` on every answer and preflights (\`OPTIONS\`) are answered 204 without a key.`;

const TAGS: Record<string, string> = {
  tokens: "Tokens: the cross-chain list, search, single-chain lists, lookups, prices and baskets.",
  pools: "Liquidity pools: details and search.",
  protocols: "Protocols with pools in the loaded snapshots.",
  stream: "Live data: what changed since a position, and the freshness of every chain.",
  operations: "Public endpoints: liveness, readiness, metrics, this document, the AsyncAPI document of the stream.",
};

class DocumentBuilder {
  readonly headers: ResponseHeaderCatalogue;

  constructor(readonly wire: WireSchemas) {
    this.headers = new ResponseHeaderCatalogue(wire.responseHeaders);
  }

  /** A media type; its example, when given, is named `sample`. */
  content(schema: JsonSchema, example: unknown, contentType = "application/json"): JsonSchema {
    return { [contentType]: { schema, ...(example === undefined ? {} : { examples: { sample: { value: example } } }) } };
  }

  schema(schema: string | Record<string, unknown>): JsonSchema {
    return typeof schema === "string" ? componentRef(schema) : schema;
  }

  parameter(p: ParameterDoc): JsonSchema {
    const carrier = this.wire.parameters[p.carrier];
    if (carrier === undefined || carrier[p.name] === undefined) throw new Error(`OpenAPI: no parameter ${p.name} in ${p.carrier}`);
    const { description, ...schema } = carrier[p.name];
    return {
      name: p.name,
      in: p.in,
      required: p.in === "path" || (this.wire.requiredParameters[p.carrier] ?? []).includes(p.name),
      description,
      schema,
      ...(p.example === undefined ? {} : { example: p.example }),
    };
  }

  operation(route: DocumentedRoute): JsonSchema {
    const doc = route.doc;
    const authenticated = route.access !== "public";
    const errors: ErrorCode[] = [
      ...ANY_ROUTE,
      ...(authenticated ? ACCESS : route.probe === true ? [] : PUBLIC),
      ...(route.body ? BODY : []),
      ...doc.errors,
    ];
    const rateLimit = authenticated ? "always" : "never";
    const conditional = route.method === "GET" && doc.stream === undefined;
    const successHeaders = doc.stream === undefined ? this.headers.success(rateLimit, conditional) : this.headers.eventStream(rateLimit);
    const other: Record<string, JsonSchema> = {};
    if (doc.stream !== undefined) other["101"] = { description: doc.stream.upgrade, headers: this.headers.switchingProtocols() };
    if (conditional) {
      const headers = this.headers.notModified(rateLimit);
      if (doc.success.snapshotVersion === "always") headers["x-snapshot-version"] = this.headers.header("x-snapshot-version", true);
      if (doc.success.dataGeneratedAt) headers["x-data-generated-at"] = this.headers.header("x-data-generated-at", true);
      other["304"] = {
        description:
          "Not Modified: `If-None-Match` matches the answer's ETag (weak comparison); no body. Counted against the key's quota like any request.",
        headers,
      };
    }
    if (doc.success.snapshotVersion === "always") successHeaders["x-snapshot-version"] = this.headers.header("x-snapshot-version", true);
    if (doc.success.dataGeneratedAt) successHeaders["x-data-generated-at"] = this.headers.header("x-data-generated-at", true);
    for (const [status, response] of Object.entries(doc.otherResponses ?? {})) {
      other[status] = {
        description: response.description,
        headers: this.headers.success("never", false),
        content: this.content(componentRef(response.schema), undefined),
      };
    }
    return {
      operationId: doc.operationId,
      tags: [authenticated ? route.access : "operations"],
      summary: doc.summary,
      ...(doc.description === undefined ? {} : { description: doc.description }),
      ...(authenticated ? {} : { security: [] }),
      parameters: [
        { $ref: "#/components/parameters/TraceId" },
        { $ref: "#/components/parameters/AcceptEncoding" },
        ...(conditional ? [{ $ref: "#/components/parameters/IfNoneMatch" }] : []),
        ...(doc.parameters ?? []).map((p) => this.parameter(p)),
      ],
      ...(doc.requestBody === undefined
        ? {}
        : {
            requestBody: {
              required: true,
              description: doc.requestBody.description,
              content: this.content(componentRef(doc.requestBody.schema), doc.requestBody.example),
            },
          }),
      responses: {
        "200": {
          description: doc.success.description,
          headers: successHeaders,
          content: this.content(this.schema(doc.success.schema), doc.success.example, doc.success.contentType),
        },
        ...other,
        ...errorResponses([...new Set(errors)], authenticated, this.headers),
      },
    };
  }

  headerParameter(name: "x-trace-id" | "Accept-Encoding" | "If-None-Match"): JsonSchema {
    const { description, ...schema } = this.wire.requestHeaders[name];
    return { name, in: "header", required: false, description, schema };
  }
}

/** Builds the document of a route table (the gateway's: src/http/route-table.ts); the gateway does this once per serving thread. */
export function buildOpenApiDocument(routes: readonly DocumentedRoute[]): JsonSchema {
  const wire = buildWireSchemas(routes.flatMap((r) => (r.doc.requestBody === undefined ? [] : [r.doc.requestBody.schema])));
  const doc = new DocumentBuilder(wire);
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) (paths[route.path] ??= {})[route.method.toLowerCase()] = doc.operation(route);
  const tags = [...ACCESS_GROUPS, "operations"].filter((tag) =>
    routes.some((r) => (r.access === "public" ? "operations" : r.access) === tag),
  );
  return {
    openapi: "3.1.0",
    info: { title: "liquidity-gateway", version: INTERFACE_VERSION, description: DESCRIPTION },
    tags: tags.map((name) => ({ name, description: TAGS[name] })),
    security: [{ [SECURITY_SCHEME]: [] }],
    paths,
    components: {
      schemas: { ...wire.components, ...errorEnvelopeSchemas(wire.errorMetadata) },
      responses: { RouteNotFound: errorResponse(["ROUTE_NOT_FOUND"], false, doc.headers) },
      parameters: {
        TraceId: doc.headerParameter("x-trace-id"),
        AcceptEncoding: doc.headerParameter("Accept-Encoding"),
        IfNoneMatch: doc.headerParameter("If-None-Match"),
      },
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
