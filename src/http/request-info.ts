/**
 * What a handler needs of the request, read synchronously in the uWS handler
 * (an HttpRequest is only valid until the handler returns).
 */
import type { HttpRequest } from "./uws.js";
import { traceIdFor } from "./trace-id.js";

export interface RequestInfo {
  /** Upper-case method. */
  readonly method: string;
  /** URL path without the query string. */
  readonly url: string;
  /** Path with the query string, as echoed in envelopes. */
  readonly path: string;
  readonly traceId: string;
  readonly authorization: string;
  readonly contentType: string;
  readonly contentLength: string;
  /** Headers every response to this request carries (set once authenticated: RateLimit-*). */
  responseHeaders: Record<string, string> | null;
  /** The matched route's name, for metrics ("unmatched" until routed). */
  route: string;
  /** performance.now() when the request arrived. */
  readonly startedAt: number;
  /** Version of the snapshot being served when the request arrived (the x-snapshot-version header). */
  snapshotVersion: string | undefined;
  /** Close the connection after the response (set when the request's framing cannot be trusted). */
  closeConnection: boolean;
}

export function readRequestInfo(req: HttpRequest): RequestInfo {
  const url = req.getUrl();
  const query = req.getQuery();
  return {
    method: req.getMethod().toUpperCase(),
    url,
    path: query ? `${url}?${query}` : url,
    traceId: traceIdFor(req.getHeader("x-trace-id")),
    authorization: req.getHeader("authorization"),
    contentType: req.getHeader("content-type"),
    contentLength: req.getHeader("content-length"),
    responseHeaders: null,
    route: "unmatched",
    startedAt: performance.now(),
    snapshotVersion: undefined,
    closeConnection: false,
  };
}
