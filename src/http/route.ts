/**
 * What a route is: one entry of the route table (src/http/route-table.ts) holds
 * everything the gateway derives from it — dispatch, 405/`Allow`, metrics
 * labels, the access group a key's `routes` names, the not-found text and the
 * OpenAPI operation — next to its handler.
 */
import type { AccessGroup } from "../api/access-groups.js";
import type { KeyEntry } from "../access/key-store.js";
import type { ErrorCode } from "../api/errors.js";
import type { GatewayContext } from "./gateway-context.js";
import type { Reply } from "./reply.js";
import type { Presence } from "../api/presence.js";

/** `public` routes need no key (they are limited per client address instead). */
export type RouteAccess = AccessGroup | "public";

/** What a handler is given. Valid for the whole request, also after `await`. */
export interface RouteRequest {
  readonly ctx: GatewayContext;
  /** The route's path parameters, in the order of its path. */
  readonly params: readonly string[];
  /** The matched route's name (the scope of its cursors). */
  readonly routeName: string;
  /** The raw query string (without `?`; "" when none). */
  readonly query: string;
  /** The request path with its query string, as the envelope echoes it. */
  readonly path: string;
  /** The parsed JSON body (routes with `body: true`), else undefined. */
  readonly body: unknown;
  /** The authenticated key; null on public routes. */
  readonly key: KeyEntry | null;
}

/** Sync or async; throws (or rejects with) an ApiError for every refusal. */
export type RouteHandler = (request: RouteRequest) => Reply | Promise<Reply>;

/** A path or query parameter, documented from a property of a carrier type of src/api/wire.ts. */
export interface ParameterDoc {
  readonly in: "path" | "query";
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
  };
  /** The codes this route answers besides those of every route and of its access. */
  readonly errors: readonly ErrorCode[];
  /** Responses besides the success and the errors (e.g. /ready's 503), by status. */
  readonly otherResponses?: Readonly<Record<string, { readonly description: string; readonly schema: string }>>;
}

export interface RouteSpec {
  /** Unique; the metrics label, the log field and the cursor scope. */
  readonly name: string;
  readonly method: "GET" | "POST";
  /** Literal segments and `{parameters}`, e.g. `/v1/pools/{chainId}/{poolAddress}`. */
  readonly path: string;
  readonly access: RouteAccess;
  /** Reads a JSON body: Content-Type, size and nesting are checked before the handler runs. */
  readonly body: boolean;
  readonly handler: RouteHandler;
  readonly doc: OperationDoc;
}
