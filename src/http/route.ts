/**
 * What a route is: one entry of the route table (src/http/route-table.ts) holds
 * everything the gateway derives from it — dispatch, 405/`Allow`, metrics
 * labels, the access group a key's `routes` names, the not-found text and the
 * OpenAPI operation — next to its handler.
 */
import type { KeyEntry } from "../access/key-store.js";
import type { AccessGroup } from "../api/access-groups.js";
import type { DocumentedRoute, OperationDoc, RouteAccess } from "../openapi/operation-doc.js";
import type { GatewayContext } from "./gateway-context.js";
import type { Reply } from "./reply.js";

export type { RouteAccess };

/** What every handler is given. Valid for the whole request, also after `await`. */
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
  /** The request headers the route names in `headers` (lowercase names; "" when absent). */
  readonly headers: Readonly<Record<string, string>>;
}

/** What a keyed route's handler is given: the request and its admitted key. */
export interface KeyedRequest extends RouteRequest {
  readonly key: KeyEntry;
}

/** Sync or async; throws (or rejects with) an ApiError for every refusal. */
export type RouteHandler<R extends RouteRequest = RouteRequest> = (request: R) => Reply | Promise<Reply>;

interface RouteSpecBase extends DocumentedRoute {
  /** Unique; the metrics label, the log field and the cursor scope. */
  readonly name: string;
  /** Reads a JSON body: Content-Type, size and nesting are checked before the handler runs. */
  readonly body: boolean;
  /** Request headers the handler reads (lowercase), copied before any asynchronous step. */
  readonly headers?: readonly string[];
  readonly doc: OperationDoc;
}

/** A route of an access group: admitted by key (quota, allow-lists); its handler gets the key. */
export interface KeyedRoute extends RouteSpecBase {
  readonly access: AccessGroup;
  readonly handler: RouteHandler<KeyedRequest>;
}

/** A public route: no key, limited per client address. */
export interface PublicRoute extends RouteSpecBase {
  readonly access: "public";
  readonly handler: RouteHandler;
}

export type RouteSpec = KeyedRoute | PublicRoute;
