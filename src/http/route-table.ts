/**
 * The route table: every route of the gateway, declared once, next to its
 * handler. Dispatch, 405/`Allow`, the metrics route labels, the access group a
 * key's `routes` names, the not-found hint and the OpenAPI operations are all
 * derived from it. Adding a route is one entry here plus its handler.
 */
import {
  HEALTH_RESPONSE_EXAMPLE,
  POOL_RESPONSE_EXAMPLE,
  PROTOCOLS_RESPONSE_EXAMPLE,
  READINESS_RESPONSE_EXAMPLE,
  TOKEN_LIST_REQUEST_EXAMPLE,
  TOKEN_LIST_RESPONSE_EXAMPLE,
} from "../openapi/examples.js";
import { getOpenApiDocument } from "./handlers/openapi.js";
import { getHealth, getMetrics, getReadiness } from "./handlers/operations.js";
import { getPool } from "./handlers/pool-details.js";
import { listProtocols } from "./handlers/protocols.js";
import { listTokens } from "./handlers/token-list.js";
import type { RouteSpec } from "./route.js";

const TOKEN_LIST_DESCRIPTION = `One entry per asset across chains, ordered by total value locked (TVL), in pages linked by an opaque cursor.

1. Eligible instances: tokens on the requested chains whose tracked TVL, swap count and tracked swap volume are each strictly greater than the filter minimums (per single-chain instance). With \`ignoreWrappedNative\` each chain's wrapped native token is left out; the native asset (all-zero address) is an ordinary instance.
2. Instances are grouped by normalized symbol; the highest-TVL instance is the anchor. Others join when their tracked price is within 20 % of the anchor's and their name or symbol matches it (metadata parity). The canonical view (\`matchAllSymbols\` false) keeps the highest-TVL passing instance per chain; \`matchAllSymbols\` true keeps every passing instance.
3. Entries are ordered by the group's summed TVL, ties by normalized symbol ascending. The order is exact.
4. \`nextCursor\` is null exactly at the end. Send it as \`config.cursor\` with the same filters, \`matchAllSymbols\` and \`orderBy\` (\`limit\` may change): walking every page yields each entry once, even while snapshots change.

A chain that is named in \`chainIds\` but has no loaded snapshot is 503 \`CHAIN_DATA_UNAVAILABLE\`; without \`chainIds\` the list covers the loaded chains (a chain-restricted key: its allowed ones).`;

const pool = POOL_RESPONSE_EXAMPLE.data.pool;

export const ROUTES: readonly RouteSpec[] = [
  {
    name: "tokens.list",
    method: "POST",
    path: "/v1/tokens",
    access: "tokens",
    body: true,
    handler: listTokens,
    doc: {
      operationId: "listMultiChainTokens",
      summary: "Get a unified list of multi-chain assets",
      description: TOKEN_LIST_DESCRIPTION,
      requestBody: {
        schema: "TokenListRequest",
        description: "A JSON object (at most 64 KiB); `{}` asks for the first page with every default.",
        example: TOKEN_LIST_REQUEST_EXAMPLE,
      },
      success: { description: "One page of the list.", schema: "TokenListResponse", example: TOKEN_LIST_RESPONSE_EXAMPLE, snapshotVersion: "always" },
      errors: ["VALIDATION_ERROR", "UNSUPPORTED_CHAIN_ID", "INVALID_PAGINATION_CURSOR", "CHAIN_DATA_UNAVAILABLE"],
    },
  },
  {
    name: "pools.get",
    method: "GET",
    path: "/v1/pools/{chainId}/{poolAddress}",
    access: "pools",
    body: false,
    handler: getPool,
    doc: {
      operationId: "getPool",
      summary: "Get information about a single liquidity pool",
      description: "The pool as of the chain's loaded snapshot. Addresses are answered in lowercase.",
      parameters: [
        { in: "path", carrier: "PoolPathParameters", name: "chainId", example: pool.chainId },
        { in: "path", carrier: "PoolPathParameters", name: "poolAddress", example: pool.address },
      ],
      success: { description: "The pool.", schema: "PoolResponse", example: POOL_RESPONSE_EXAMPLE, snapshotVersion: "always" },
      errors: ["VALIDATION_ERROR", "UNSUPPORTED_CHAIN_ID", "INVALID_POOL_ADDRESS", "CHAIN_DATA_UNAVAILABLE", "LIQUIDITY_POOL_NOT_FOUND"],
    },
  },
  {
    name: "protocols.list",
    method: "GET",
    path: "/v1/protocols",
    access: "protocols",
    body: false,
    handler: listProtocols,
    doc: {
      operationId: "listProtocols",
      summary: "List the protocols that have a pool in the loaded snapshots",
      description: "Ordered by `id`; a protocol present on several chains is listed once, with the record of the lowest chain id.",
      success: {
        description: "The protocols (an empty list before any snapshot has loaded, then without `x-snapshot-version`).",
        schema: "ProtocolsResponse",
        example: PROTOCOLS_RESPONSE_EXAMPLE,
        snapshotVersion: "sometimes",
      },
      errors: [],
    },
  },
  {
    name: "health",
    method: "GET",
    path: "/health",
    access: "public",
    body: false,
    handler: getHealth,
    doc: {
      operationId: "getHealth",
      summary: "Liveness",
      success: { description: "The process is up (not enveloped).", schema: "HealthResponse", example: HEALTH_RESPONSE_EXAMPLE, snapshotVersion: "sometimes" },
      errors: [],
    },
  },
  {
    name: "ready",
    method: "GET",
    path: "/ready",
    access: "public",
    body: false,
    handler: getReadiness,
    doc: {
      operationId: "getReadiness",
      summary: "Readiness",
      success: {
        description: "The snapshot files present at start have loaded or been rejected (not enveloped).",
        schema: "ReadinessResponse",
        example: READINESS_RESPONSE_EXAMPLE,
        snapshotVersion: "sometimes",
      },
      otherResponses: { "503": { description: "Still loading the snapshot files present at start (not enveloped).", schema: "ReadinessResponse" } },
      errors: [],
    },
  },
  {
    name: "metrics",
    method: "GET",
    path: "/metrics",
    access: "public",
    body: false,
    handler: getMetrics,
    doc: {
      operationId: "getMetrics",
      summary: "Prometheus metrics of the whole gateway (every serving thread)",
      success: {
        description: "The Prometheus text exposition format.",
        contentType: "text/plain; version=0.0.4; charset=utf-8",
        schema: { type: "string" },
        snapshotVersion: "sometimes",
      },
      errors: [],
    },
  },
  {
    name: "openapi",
    method: "GET",
    path: "/v1/openapi.json",
    access: "public",
    body: false,
    handler: getOpenApiDocument,
    doc: {
      operationId: "getOpenApiDocument",
      summary: "This OpenAPI 3.1 document",
      success: { description: "The document.", schema: { type: "object", description: "An OpenAPI 3.1 document." }, snapshotVersion: "sometimes" },
      errors: [],
    },
  },
];

/** Route names in table order: the metrics labels (plus `unmatched` for requests no route takes). */
export const ROUTE_NAMES: readonly string[] = ROUTES.map((r) => r.name);
