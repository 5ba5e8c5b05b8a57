/**
 * The gateway's route table and matcher. Routing runs before authentication:
 * an unknown path is a 404 ROUTE_NOT_FOUND, a known path with another method
 * a 405 METHOD_NOT_ALLOWED with its `Allow` header.
 */
import { ApiError } from "./errors.js";

export type RouteName = "tokens" | "pools" | "protocols" | "health" | "ready" | "metrics" | "openapi";

export interface RouteMatch {
  readonly route: RouteName;
  /** Path parameters in order (pools: chainId, poolAddress). */
  readonly params: readonly string[];
}

interface Route {
  readonly name: RouteName;
  readonly method: string;
  /** Path segments; `:` marks a parameter. */
  readonly segments: readonly string[];
}

const ROUTES: readonly Route[] = [
  { name: "tokens", method: "POST", segments: ["v1", "tokens"] },
  { name: "pools", method: "GET", segments: ["v1", "pools", ":chainId", ":poolAddress"] },
  { name: "protocols", method: "GET", segments: ["v1", "protocols"] },
  { name: "health", method: "GET", segments: ["health"] },
  { name: "ready", method: "GET", segments: ["ready"] },
  { name: "openapi", method: "GET", segments: ["v1", "openapi.json"] },
  { name: "metrics", method: "GET", segments: ["metrics"] },
];

function matchSegments(route: Route, parts: readonly string[]): string[] | null {
  if (route.segments.length !== parts.length) return null;
  const params: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const expected = route.segments[i];
    if (expected[0] === ":") {
      if (parts[i].length === 0) return null;
      params.push(parts[i]);
    } else if (expected !== parts[i]) return null;
  }
  return params;
}

/** HEAD is answered like GET, without a body (RFC 9110 §9.3.2). */
export function matchRoute(requestMethod: string, url: string): RouteMatch {
  const method = requestMethod === "HEAD" ? "GET" : requestMethod;
  const parts = url.split("/").slice(1);
  const allowed: string[] = [];
  for (const route of ROUTES) {
    const params = matchSegments(route, parts);
    if (params === null) continue;
    if (route.method === method) return { route: route.name, params };
    allowed.push(route.method);
    if (route.method === "GET") allowed.push("HEAD");
  }
  if (allowed.length > 0) {
    throw new ApiError(
      "METHOD_NOT_ALLOWED",
      `${requestMethod} is not allowed on ${url}; use ${allowed.join(" or ")}.`,
      `Allowed methods: ${allowed.join(", ")}.`,
      { allowed },
      { allow: allowed.join(", ") },
    );
  }
  throw new ApiError("ROUTE_NOT_FOUND", `No route ${requestMethod} ${url}; see the API reference for the available routes.`, "Routes: POST /v1/tokens, GET /v1/pools/{chainId}/{poolAddress}, GET /v1/protocols.", { method: requestMethod });
}
