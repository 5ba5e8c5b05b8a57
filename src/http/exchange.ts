/**
 * One request and its response: everything the pipeline learns about a
 * request lives here, never in module state. Created synchronously in the uWS
 * handler (an HttpRequest is only valid until that handler returns), so it
 * copies what it needs from the request at once.
 */
import type { AdmittedRequest } from "../access/admission.js";
import type { KeyEntry } from "../access/key-store.js";
import type { RateLimitDecision } from "../access/rate-limiter.js";
import type { GatewayContext } from "./gateway-context.js";
import type { KeyedRequest, RouteRequest } from "./route.js";
import { traceIdFor } from "./trace-id.js";
import type { CorsPolicy } from "./transport/cors.js";
import type { HttpRequest, HttpResponse } from "./uws.js";

export class Exchange implements RouteRequest, AdmittedRequest {
  /** The method as sent: methods are case-sensitive (RFC 9110 §9.1), so `get` is an unknown method, not GET. */
  readonly method: string;
  /** HEAD: answered like GET, without a body. */
  readonly head: boolean;
  /** Path without the query string. */
  readonly url: string;
  readonly query: string;
  /** Path with the query string, as envelopes echo it. */
  readonly path: string;
  readonly traceId: string;
  /** performance.now() at arrival. */
  readonly startedAt: number;
  /** Index of the matched route in the route table; -1 until routed (or never). */
  routeIndex = -1;
  routeName = "unmatched";
  params: readonly string[] = [];
  /** The admitted key (keyed routes); null until admitted, and on public routes. */
  key: KeyEntry | null = null;
  /** The key's quota decision: the RateLimit-* headers of every response once counted. */
  quota: RateLimitDecision | null = null;
  body: unknown = undefined;
  /** The headers the route names (route.ts `headers`), read once routed. */
  headers: Readonly<Record<string, string>> = NO_HEADERS;
  /** `x-snapshot-version` of the response unless the reply names another: the snapshot current at arrival. */
  readonly snapshotVersion: string | undefined;
  /** GET or HEAD: answers carry an ETag and honour If-None-Match. */
  readonly conditional: boolean;
  readonly acceptEncoding: string;
  /** If-None-Match ("" when absent or not a GET/HEAD). */
  readonly ifNoneMatch: string;
  /** The Access-Control-Allow-Origin this request's Origin gets; null without CORS or for another origin. */
  readonly corsOrigin: string | null;
  /** Origin header ("" when absent or CORS is off). */
  readonly origin: string;
  /** The client went away: nothing may touch `res` any more. */
  aborted = false;
  /** A status line has been written. */
  responded = false;
  /** The response is complete or aborted (counted once). */
  settled = false;
  /** Inside the uWS handler's synchronous run: the response is corked (set by the app). */
  corked = false;
  /** The request's framing cannot be trusted: the error answer closes the connection at once (response-writer.ts). */
  closeConnection = false;
  /** The body the socket has not taken yet (see response-writer.ts). */
  held: Buffer | null = null;
  private watchingAbort = false;

  constructor(
    readonly res: HttpResponse,
    req: HttpRequest,
    readonly ctx: GatewayContext,
    private readonly onAbort: (exchange: Exchange) => void,
    cors: CorsPolicy | null,
  ) {
    const method = req.getCaseSensitiveMethod();
    this.method = method;
    this.head = method === "HEAD";
    this.url = req.getUrl();
    this.query = req.getQuery() ?? "";
    this.path = this.query === "" ? this.url : `${this.url}?${this.query}`;
    this.traceId = traceIdFor(req.getHeader("x-trace-id"));
    this.conditional = this.head || method === "GET";
    this.acceptEncoding = req.getHeader("accept-encoding");
    this.ifNoneMatch = this.conditional ? req.getHeader("if-none-match") : "";
    this.origin = cors === null ? "" : req.getHeader("origin");
    this.corsOrigin = cors === null ? null : cors.allowOrigin(this.origin);
    this.startedAt = performance.now();
    this.snapshotVersion = ctx.store.current?.versionHex;
  }

  /**
   * Registers the abort handler: needed before the uWS handler returns without
   * a complete response (an async step, or a body waiting for the socket). Once.
   */
  watchAbort(): void {
    if (this.watchingAbort) return;
    this.watchingAbort = true;
    this.res.onAborted(() => {
      this.aborted = true;
      this.onAbort(this);
    });
  }
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/** Whether admission set the request's key: it is then what a keyed route's handler is given. */
export function hasKey(x: Exchange): x is Exchange & KeyedRequest {
  return x.key !== null;
}
