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
  /** Sent to every server as they are, beside the bench key's `Authorization: Bearer`. A body's `{tokens:SYMBOL}` becomes the JSON list of that symbol's highest-TVL token on every chain of the data set. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /**
   * Measured on the gateways only: bare and floor uWS answer canned bytes, which cannot stand for
   * work whose output differs per request inside an opaque body (e.g. a compressed envelope).
   */
  readonly gatewaysOnly?: true;
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
  {
    name: "tokens-limit-500",
    label: "token page, limit 500",
    method: "POST",
    path: "/v1/tokens",
    headers: JSON_BODY,
    body: '{"config":{"limit":500}}',
  },
  // The search routes (issues 11, 12).
  {
    name: "token-search",
    label: 'token search "usdc"',
    method: "POST",
    path: "/v1/tokens/search",
    headers: JSON_BODY,
    body: '{"search":"usdc"}',
  },
  {
    name: "pool-search-pair",
    label: "pool search USDC/WETH, all chains",
    method: "POST",
    path: "/v1/pools/search",
    headers: JSON_BODY,
    body: '{"tokensA":{tokens:USDC},"tokensB":{tokens:WETH}}',
  },
  // Compression (issue 13): the same requests asking for gzip / br. gzip is stitched around data compressed once per
  // snapshot (kept per thread); br is compressed per response.
  {
    name: "pool-gzip",
    label: "pool route, gzip",
    method: "GET",
    path: "/v1/pools/8453/{pool:8453}",
    headers: { "accept-encoding": "gzip" },
    gatewaysOnly: true,
  },
  {
    name: "pool-br",
    label: "pool route, br",
    method: "GET",
    path: "/v1/pools/8453/{pool:8453}",
    headers: { "accept-encoding": "br" },
    gatewaysOnly: true,
  },
  {
    name: "tokens-limit-500-gzip",
    label: "token page, limit 500, gzip",
    method: "POST",
    path: "/v1/tokens",
    headers: { ...JSON_BODY, "accept-encoding": "gzip" },
    body: '{"config":{"limit":500}}',
    gatewaysOnly: true,
  },
  {
    name: "tokens-limit-500-br",
    label: "token page, limit 500, br",
    method: "POST",
    path: "/v1/tokens",
    headers: { ...JSON_BODY, "accept-encoding": "br" },
    body: '{"config":{"limit":500}}',
    gatewaysOnly: true,
  },
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
  /**
   * Gateway only: needs a redis-server, started for the run (pinned like the
   * servers) and passed as REDIS_URL; its CPU counts as this server's.
   */
  readonly redis?: true;
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
  // Issue 15: the same gateway counting quotas in Redis (one script per request); CPU per request includes redis-server's.
  {
    id: "gateway-redis",
    label: "gateway, 1 serving thread, Redis quotas (+ redis-server CPU)",
    kind: "gateway",
    threads: 1,
    env: { QUOTA_STORE: "redis" },
    redis: true,
  },
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

/** Symbols named by `{tokens:SYMBOL}` placeholders in a body. */
export function tokenPlaceholders(body: string | undefined): string[] {
  return body === undefined ? [] : [...body.matchAll(/\{tokens:([A-Za-z0-9]+)\}/g)].map((m) => m[1]);
}

/** The body with each `{tokens:SYMBOL}` replaced by the JSON of `tokensOf(SYMBOL)`. */
export function resolveBody(body: string, tokensOf: (symbol: string) => unknown): string {
  return body.replace(/\{tokens:([A-Za-z0-9]+)\}/g, (_, symbol: string) => JSON.stringify(tokensOf(symbol)));
}

/** The path with each `{pool:CHAIN}` replaced by `addressOf(CHAIN)`. */
export function resolvePath(path: string, addressOf: (chainId: number) => string): string {
  return path.replace(/\{pool:(\d+)\}/g, (_, chain: string) => addressOf(Number(chain)));
}

/** The entries of `all` named in a comma-separated `--targets`/`--servers` list (all of them without one); throws on an unknown name. */
export function pick<T>(all: readonly T[], nameOf: (item: T) => string, list: string | null, flag: string): T[] {
  if (list === null) return [...all];
  const names = list
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  return names.map((name) => {
    const found = all.find((item) => nameOf(item) === name);
    if (!found) throw new Error(`${flag}: unknown '${name}' (known: ${all.map(nameOf).join(", ")})`);
    return found;
  });
}
