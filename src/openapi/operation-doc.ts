/**
 * What the OpenAPI document needs of a route: its method, path, access and
 * body, and the operation's prose (what no type states). The route table
 * (src/http/route-table.ts) declares one per route, next to its handler, and
 * hands the table to buildOpenApiDocument.
 */
import type { AccessGroup } from "../api/access-groups.js";
import type { ErrorCode } from "../api/errors.js";
import type { Presence } from "../api/presence.js";

/** `public` routes need no key (they are limited per client address instead). */
export type RouteAccess = AccessGroup | "public";

/** A path, query or header parameter, documented from a property of a carrier type of src/api/wire.ts. */
export interface ParameterDoc {
  readonly in: "path" | "query" | "header";
  /** The carrier type (e.g. `PoolPathParameters`) and its property. */
  readonly carrier: string;
  readonly name: string;
  readonly example?: unknown;
}

/** The OpenAPI operation of a route: what no type states. */
export interface OperationDoc {
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  readonly parameters?: readonly ParameterDoc[];
  /** The component schema of the JSON body (routes with `body: true`). */
  readonly requestBody?: { readonly schema: string; readonly description: string; readonly example?: unknown };
  readonly success: {
    readonly description: string;
    /** The media type; JSON when absent. */
    readonly contentType?: string;
    /** A component schema name, or an inline schema. */
    readonly schema: string | Record<string, unknown>;
    readonly example?: unknown;
    readonly snapshotVersion: Presence;
    /** The answer is about one chain: it (and its 304) carries `x-data-generated-at`. */
    readonly dataGeneratedAt?: true;
  };
  /** The codes this route answers besides those of every route and of its access. */
  readonly errors: readonly ErrorCode[];
  /** Responses besides the success and the errors (e.g. /ready's 503), by status. */
  readonly otherResponses?: Readonly<Record<string, { readonly description: string; readonly schema: string }>>;
  /**
   * The route opens a stream (GET /v1/stream): the 200 is an event stream (no ETag, no 304, no content coding,
   * `X-Accel-Buffering`), and `upgrade` describes its 101 (a WebSocket: its messages are in the AsyncAPI document).
   */
  readonly stream?: { readonly upgrade: string };
}

/** A route as the document sees it. */
export interface DocumentedRoute {
  readonly method: "GET" | "POST";
  /** Literal segments and `{parameters}`, e.g. `/v1/pools/{chainId}/{poolAddress}`. */
  readonly path: string;
  readonly access: RouteAccess;
  /** Reads a JSON body. */
  readonly body: boolean;
  /**
   * A health probe (`/health`, `/ready`): public, and never counted against the per-address budget of
   * requests without a key, so never refused for rate (no 429).
   */
  readonly probe?: true;
  readonly doc: OperationDoc;
}
