/**
 * The matcher compiled from the route table. Routing runs before
 * authentication: an unknown path is 404 ROUTE_NOT_FOUND, a known path with
 * another method 405 METHOD_NOT_ALLOWED with its `Allow` header. Literal path
 * segments win over parameters (api-extended.md §9): the most specific path
 * that matches decides, and only its methods are allowed.
 */
import { ApiError } from "../api/errors.js";
import type { RouteSpec } from "./route.js";

export interface RouteMatch {
  /** Index of the route in the table. */
  readonly index: number;
  /** Path parameters, in path order. */
  readonly params: string[];
}

/** A node of the segment tree: literal children, one parameter child, and the routes ending here by method. */
interface Node {
  readonly literal: Map<string, Node>;
  param: Node | null;
  /** Method → route index; HEAD maps to the GET route. */
  readonly methods: Map<string, number>;
}

function newNode(): Node {
  return { literal: new Map(), param: null, methods: new Map() };
}

/** `/v1/pools/{chainId}/{address}` → ["v1", "pools", "{chainId}", "{address}"]. */
export function pathSegments(path: string): string[] {
  if (!path.startsWith("/")) throw new Error(`route path ${path} must start with /`);
  return path.split("/").slice(1);
}

const SLASH = 0x2f;

function isParam(segment: string): boolean {
  return segment.startsWith("{") && segment.endsWith("}");
}

export class Router {
  private readonly root = newNode();
  private readonly notFoundHint: string;

  constructor(private readonly routes: readonly RouteSpec[]) {
    const names = new Set<string>();
    routes.forEach((route, index) => {
      if (names.has(route.name)) throw new Error(`route name ${route.name} is declared twice`);
      names.add(route.name);
      let node = this.root;
      for (const segment of pathSegments(route.path)) {
        if (isParam(segment)) node = node.param ??= newNode();
        else {
          let next = node.literal.get(segment);
          if (next === undefined) node.literal.set(segment, (next = newNode()));
          node = next;
        }
      }
      if (node.methods.has(route.method)) throw new Error(`${route.method} ${route.path} is declared twice`);
      node.methods.set(route.method, index);
      if (route.method === "GET") node.methods.set("HEAD", index);
    });
    this.notFoundHint = `Routes: ${routes.map((r) => `${r.method} ${r.path}`).join(", ")}.`;
  }

  /** The route of a request, or throws ROUTE_NOT_FOUND / METHOD_NOT_ALLOWED. */
  match(method: string, url: string): RouteMatch {
    const params: string[] = [];
    const node = url.charCodeAt(0) === SLASH ? this.find(this.root, url, 1, params) : null;
    if (node === null) {
      throw new ApiError(
        "ROUTE_NOT_FOUND",
        `No route ${method} ${url.slice(0, 200)}; see the API reference for the available routes.`,
        this.notFoundHint,
        { method },
      );
    }
    const index = node.methods.get(method);
    if (index !== undefined) return { index, params };
    const allowed = [...node.methods.keys()];
    throw new ApiError(
      "METHOD_NOT_ALLOWED",
      `${method} is not allowed on ${url.slice(0, 200)}; use ${allowed.join(" or ")}.`,
      `Allowed methods: ${allowed.join(", ")}.`,
      { allowed },
      { allow: allowed.join(", ") },
    );
  }

  /** The methods of the most specific route path matching `url` (HEAD with GET); null when none matches. */
  methodsOf(url: string): string[] | null {
    const node = url.charCodeAt(0) === SLASH ? this.find(this.root, url, 1, []) : null;
    return node === null ? null : [...node.methods.keys()];
  }

  /**
   * Depth-first, literal before parameter: the first complete path found is the
   * most specific. `at` is where the segment after a `/` starts; past the end
   * of the URL, the path is complete.
   */
  private find(node: Node, url: string, at: number, params: string[]): Node | null {
    if (at > url.length) return node.methods.size > 0 ? node : null;
    let end = url.indexOf("/", at);
    if (end < 0) end = url.length;
    const segment = url.slice(at, end);
    const literal = node.literal.get(segment);
    if (literal !== undefined) {
      const found = this.find(literal, url, end + 1, params);
      if (found !== null) return found;
    }
    if (node.param !== null && end > at) {
      params.push(segment);
      const found = this.find(node.param, url, end + 1, params);
      if (found !== null) return found;
      params.pop();
    }
    return null;
  }

  route(index: number): RouteSpec {
    return this.routes[index];
  }
}
