/**
 * What `npm run bench` measures, as tables: the HTTP targets (one entry each),
 * the servers compared on every target, and the issue-14 goals judged on the
 * results. Add a target, a server variant or a goal with one entry here.
 */

export interface HttpTarget {
  /** Short id: results JSON, `--targets`, RESULTS.md. */
  readonly name: string;
  readonly label: string;
  readonly method: "GET" | "POST";
  /**
   * Request path. `{pool:CHAIN}` is replaced by a real pool address of that
   * chain from the data set (the same address for every server and round).
   */
  readonly path: string;
  /** Sent to every server as they are, beside the bench key's `Authorization: Bearer`. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

const JSON_BODY = { "content-type": "application/json" } as const;

export const HTTP_TARGETS: readonly HttpTarget[] = [
  { name: "pool", label: "pool route", method: "GET", path: "/v1/pools/8453/{pool:8453}" },
  { name: "tokens-default", label: "default token page", method: "POST", path: "/v1/tokens", headers: JSON_BODY, body: "{}" },
  {
    name: "tokens-filtered",
    label: "filtered token page (cached: the same body repeated)",
    method: "POST",
    path: "/v1/tokens",
    headers: JSON_BODY,
    body: '{"filters":{"chainIds":[1,8453],"minimumTotalValuePooledUsd":50000}}',
  },
  { name: "tokens-limit-500", label: "token page, limit 500", method: "POST", path: "/v1/tokens", headers: JSON_BODY, body: '{"config":{"limit":500}}' },
  // Later, e.g.: a search route; { name: "pool-gzip", ..., headers: { "accept-encoding": "gzip" } }.
];

export type ServerKind = "gateway" | "bare" | "floor";

export interface ServerDef {
  /** Short id: results JSON, `--servers`, RESULTS.md. */
  readonly id: string;
  readonly label: string;
  readonly kind: ServerKind;
  /** Serving threads; "all" = the machine's cores (the gateway's production default). */
  readonly threads: number | "all";
  /** Extra environment (gateway only), e.g. a quota-store variant. */
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * The first gateway listed is the reference: the bare and floor servers answer
 * the bytes captured from it, and the ratios are of every gateway against the
 * bare and floor servers.
 */
export const SERVERS: readonly ServerDef[] = [
  { id: "gateway-1t", label: "gateway, 1 serving thread", kind: "gateway", threads: 1 },
  { id: "gateway-all", label: "gateway, all threads", kind: "gateway", threads: "all" },
  { id: "bare-uws", label: "bare uWS (same bytes)", kind: "bare", threads: 1 },
  { id: "floor-uws", label: "floor uWS (unavoidable work)", kind: "floor", threads: 1 },
  // Later, e.g.: { id: "gateway-redis", label: "gateway, Redis quotas", kind: "gateway", threads: 1, env: { ... } }.
];

export interface Goal {
  readonly target: string;
  /** The gateway server judged. */
  readonly server: string;
  /** The server it is compared with. */
  readonly against: string;
  /** Highest allowed ratio of server CPU per request (median of the paired rounds). */
  readonly maxRatio: number;
}

/** Issue 14: CPU per request of the gateway (one serving thread) against the floor and bare uWS. */
export const GOALS: readonly Goal[] = [
  { target: "pool", server: "gateway-1t", against: "floor-uws", maxRatio: 1.15 },
  { target: "pool", server: "gateway-1t", against: "bare-uws", maxRatio: 1.7 },
  { target: "tokens-default", server: "gateway-1t", against: "floor-uws", maxRatio: 1.25 },
];

/** Chain ids named by `{pool:CHAIN}` placeholders in a path. */
export function poolPlaceholders(path: string): number[] {
  return [...path.matchAll(/\{pool:(\d+)\}/g)].map((m) => Number(m[1]));
}

/** The path with each `{pool:CHAIN}` replaced by `addressOf(CHAIN)`. */
export function resolvePath(path: string, addressOf: (chainId: number) => string): string {
  return path.replace(/\{pool:(\d+)\}/g, (_, chain: string) => addressOf(Number(chain)));
}

/** The entries of `all` named in a comma-separated `--targets`/`--servers` list (all of them without one); throws on an unknown name. */
export function pick<T>(all: readonly T[], nameOf: (item: T) => string, list: string | null, flag: string): T[] {
  if (list === null) return [...all];
  const names = list.split(",").map((s) => s.trim()).filter(Boolean);
  return names.map((name) => {
    const found = all.find((item) => nameOf(item) === name);
    if (!found) throw new Error(`${flag}: unknown '${name}' (known: ${all.map(nameOf).join(", ")})`);
    return found;
  });
}
