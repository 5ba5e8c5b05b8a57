/**
 * Launches the REAL built gateway (`node dist/src/cli/main.js`) as a child process and talks
 * to it over REAL HTTP. One gateway per test file (beforeAll / afterAll).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { chownSync, existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import type { SnapshotFile } from "../../src/api/snapshot-format.js";
import { KEYS, standardKeys, tempDir, writeBasketsFile, writeKeysFile, writeSnapshotDir, type TestKey } from "./fixtures.js";

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const MAIN_JS = path.join(PROJECT_ROOT, "dist/src/cli/main.js");

const START_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 10_000;

/** Settings the harness controls; removed from the inherited environment so they never leak in. */
const CONTROLLED_ENV = [
  "PORT",
  "HOST",
  "SNAPSHOT_DIR",
  "API_KEYS_FILE",
  "BASKETS_FILE",
  "REBUILD_CRON",
  "LOG_LEVEL",
  "FAILED_AUTH_LIMIT",
  "PUBLIC_RATE_LIMIT",
  "GATEWAY_THREADS",
  "RATE_LIMIT_DEFAULT",
  "MAX_API_KEYS",
  "MAX_HELD_RESPONSE_MB",
  "TLS_CERT_FILE",
  "TLS_KEY_FILE",
  "TLS_KEY_PASSPHRASE",
  "TLS_CA_FILE",
  "CORS_ORIGINS",
  "COMPRESSION_MIN_BYTES",
  "COMPRESSION_CACHE_MB",
  "QUOTA_STORE",
  "REDIS_URL",
  "REDIS_KEY_PREFIX",
  "REDIS_TIMEOUT_MS",
  "QUOTA_FAILURE",
  "TRUSTED_PROXIES",
  "STREAM_MAX_BUFFER_BYTES",
  "STREAM_MAX_CONNECTIONS_PER_KEY",
  "STREAM_MAX_TOPICS",
  "STREAM_MAX_ADDRESSES",
  "STREAM_MAX_BAD_MESSAGES",
  "STREAM_MAX_MESSAGES_PER_SECOND",
  "STREAM_MAX_KEY_MESSAGES_PER_SECOND",
  "CHANGES_RETENTION",
  "CHANGES_MAX_MB",
  "HISTORY",
  "HISTORY_DIR",
  "HISTORY_RAW_HOURS",
  "HISTORY_HOUR_DAYS",
  "SNAPSHOT_ORIGIN",
  "ORIGIN_POLL_MIN_S",
  "ORIGIN_POLL_MAX_S",
  "ORIGIN_TIMEOUT_S",
  "ORIGIN_MAX_SKEW_S",
  "ORIGIN_PUBLIC_KEYS",
  "ORIGIN_READY",
  "INSTANCE_ID",
  "S3_ENDPOINT",
  "S3_REGION",
  "S3_FORCE_PATH_STYLE",
  "AWS_ACCESS_KEY_ID",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "AWS_SHARED_CREDENTIALS_FILE",
  "AWS_PROFILE",
  "NODE_EXTRA_CA_CERTS",
];

export type LogLine = Record<string, unknown>;

export interface Gateway {
  baseUrl: string;
  port: number;
  logs: () => LogLine[];
  stdout: () => string;
  stderr: () => string;
  stop: () => Promise<number>;
  process: ChildProcess;
}

export interface StartOptions {
  snapshotDir: string;
  /** Path of the API keys file; `undefined` leaves API_KEYS_FILE unset (the bundled sample file). */
  keysFile: string | undefined;
  env?: Record<string, string>;
  args?: string[];
  /** Run the gateway as this user (the suite must run as root to switch), e.g. to see file permissions as a non-root service does. */
  runAs?: { uid: number; gid: number };
}

function childEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of CONTROLLED_ENV) delete env[k];
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

function assertBuilt(): void {
  if (!existsSync(MAIN_JS)) {
    throw new Error(`${MAIN_JS} does not exist: build first with \`npx tspc -p tsconfig.json\``);
  }
}

export function startGateway(opts: StartOptions): Promise<Gateway> {
  assertBuilt();
  // Each gateway its own history store (one writer per HISTORY_DIR), removed when it stops, unless the test names one.
  const ownHistory = opts.env?.HISTORY_DIR === undefined ? tempDir("lgw-gw-history-") : null;
  if (ownHistory !== null && opts.runAs !== undefined) chownSync(ownHistory, opts.runAs.uid, opts.runAs.gid);
  const env = childEnv({
    HISTORY_DIR: ownHistory ?? undefined,
    PORT: "0",
    HOST: "127.0.0.1",
    LOG_LEVEL: "info",
    // Suites send many deliberately bad keys from one address; the failed-auth
    // limit has its own test with a small budget.
    FAILED_AUTH_LIMIT: "1000000/60",
    PUBLIC_RATE_LIMIT: "1000000/60",
    SNAPSHOT_DIR: opts.snapshotDir,
    API_KEYS_FILE: opts.keysFile,
    ...opts.env,
  });
  const child = spawn(process.execPath, [MAIN_JS, ...(opts.args ?? [])], {
    cwd: PROJECT_ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
    ...(opts.runAs ?? {}),
  });
  const logLines: LogLine[] = [];
  let rawStdout = "";
  let rawStderr = "";
  let partial = "";
  let exitCode: number | null = null;
  let stopping = false;
  const exited = new Promise<number>((resolve) => {
    child.on("exit", (code, signal) => {
      exitCode = code ?? (signal ? 128 : -1);
      if (ownHistory !== null) rmSync(ownHistory, { recursive: true, force: true });
      if (!stopping) {
        // an unexpected exit: show why, since the tests will only see ECONNREFUSED
        console.error(
          `[gateway-process] gateway pid ${child.pid} exited unexpectedly (code ${code}, signal ${signal})\n` +
            `--- stdout (tail) ---\n${rawStdout.slice(-4000)}\n--- stderr (tail) ---\n${rawStderr.slice(-4000)}`,
        );
      }
      resolve(exitCode);
    });
  });

  return new Promise<Gateway>((resolve, reject) => {
    let port: number | null = null;
    let loaded = false;
    let settled = false;
    const fail = (why: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stopping = true;
      if (exitCode === null) child.kill("SIGKILL");
      reject(
        new Error(`gateway did not start: ${why}\n--- stdout ---\n${rawStdout.slice(-8000)}\n--- stderr ---\n${rawStderr.slice(-8000)}`),
      );
    };
    const maybeReady = () => {
      if (settled || port === null || !loaded) return;
      settled = true;
      clearTimeout(timer);
      const baseUrl = `http://127.0.0.1:${port}`;
      resolve({
        baseUrl,
        port,
        logs: () => logLines.slice(),
        stdout: () => rawStdout,
        stderr: () => rawStderr,
        process: child,
        stop: async () => {
          if (exitCode !== null) return exitCode;
          stopping = true;
          child.kill("SIGTERM");
          const killer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
          const code = await exited;
          clearTimeout(killer);
          return code;
        },
      });
    };
    const timer = setTimeout(
      () => fail(`timed out after ${START_TIMEOUT_MS} ms (listening port: ${port}, initial load complete: ${loaded})`),
      START_TIMEOUT_MS,
    );

    child.stdout!.setEncoding("utf8");
    child.stdout!.on("data", (chunk: string) => {
      rawStdout += chunk;
      partial += chunk;
      let nl: number;
      while ((nl = partial.indexOf("\n")) >= 0) {
        const line = partial.slice(0, nl).trim();
        partial = partial.slice(nl + 1);
        if (!line) continue;
        let obj: LogLine;
        try {
          obj = JSON.parse(line) as LogLine;
        } catch {
          continue;
        }
        logLines.push(obj);
        if (obj.event === "listening" && typeof obj.port === "number") port = obj.port;
        if (obj.event === "initial-load-complete") loaded = true;
        maybeReady();
      }
    });
    child.stderr!.setEncoding("utf8");
    child.stderr!.on("data", (chunk: string) => {
      rawStderr += chunk;
    });
    child.on("error", (err) => fail(`spawn error: ${err.message}`));
    void exited.then((code) => fail(`process exited with code ${code}`)); // exited only resolves
  });
}

/** Runs the CLI to completion (for configuration errors); kills it after `timeoutMs`. */
export function runGatewayExpectingExit(
  env: Record<string, string | undefined>,
  args: string[] = [],
  timeoutMs = 15_000,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string; timedOut: boolean }> {
  assertBuilt();
  const child = spawn(process.execPath, [MAIN_JS, ...args], {
    cwd: PROJECT_ROOT,
    env: childEnv({ PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info", HISTORY: "off", ...env }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (c: string) => (stdout += c));
  child.stderr!.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill("SIGKILL");
  }, timeoutMs);
  return new Promise((resolve) => {
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      // give the pipes a moment to flush
      setTimeout(() => resolve({ code, signal, stdout, stderr, timedOut }), 50);
    });
  });
}

/** Writes the snapshot files and a keys file into fresh temp dirs and starts a gateway on them. */
export async function startWithFixtures(
  files: SnapshotFile[],
  keys: TestKey[] = standardKeys(),
  env?: Record<string, string>,
): Promise<Gateway & { snapshotDir: string; keysFile: string }> {
  const snapshotDir = writeSnapshotDir(files);
  const keysFile = writeKeysFile(keys);
  const gw = await startGateway({ snapshotDir, keysFile, env });
  return Object.assign(gw, { snapshotDir, keysFile });
}

/** Like startWithFixtures, with `baskets` written as baskets.json into the snapshot directory. */
export async function startWithBaskets(
  files: SnapshotFile[],
  baskets: unknown,
  keys: TestKey[] = standardKeys(),
  env?: Record<string, string>,
): Promise<Gateway & { snapshotDir: string; keysFile: string }> {
  const snapshotDir = writeSnapshotDir(files);
  writeBasketsFile(snapshotDir, baskets);
  const keysFile = writeKeysFile(keys);
  const gw = await startGateway({ snapshotDir, keysFile, env });
  return Object.assign(gw, { snapshotDir, keysFile });
}

/** Polls `probe` (every 100 ms) until it answers something other than undefined. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// ------------------------------------------------------------------ HTTP helpers

export interface HttpResponse<T = any> {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON body (undefined when the body is not JSON). */
  body: T;
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  /** The API key; `null` sends no Authorization header. Defaults to the standard active key. */
  key?: string | null;
  /** Raw body; a string or bytes (bytes: fetch adds no Content-Type). */
  body?: string | Uint8Array;
}

export async function request<T = any>(baseUrl: string, urlPath: string, opts: RequestOptions = {}): Promise<HttpResponse<T>> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  const key = opts.key === undefined ? KEYS.active : opts.key;
  if (key !== null && !Object.keys(headers).some((h) => h.toLowerCase() === "authorization")) {
    headers["Authorization"] = `Bearer ${key}`;
  }
  const res = await fetch(baseUrl + urlPath, {
    method: opts.method ?? "GET",
    headers,
    body: opts.body as any,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: jsonOrUndefined(text) };
}

/** `text` parsed as JSON, or undefined when it is not JSON. */
export function jsonOrUndefined(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** POST /v1/tokens with a JSON body (any value, serialized with JSON.stringify unless already a string). */
export function postTokens<T = any>(
  baseUrl: string,
  body: unknown,
  opts: Omit<RequestOptions, "method" | "body"> = {},
): Promise<HttpResponse<T>> {
  return request<T>(baseUrl, "/v1/tokens", {
    ...opts,
    method: "POST",
    headers: { "Content-Type": "application/json", ...(opts.headers ?? {}) },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** POST /v1/pools/search with a JSON body (any value, serialized with JSON.stringify unless already a string). */
export function postPoolSearch<T = any>(
  baseUrl: string,
  body: unknown,
  opts: Omit<RequestOptions, "method" | "body"> = {},
): Promise<HttpResponse<T>> {
  return postJson<T>(baseUrl, "/v1/pools/search", body, opts);
}

export interface PoolSearchPage {
  pools: any[];
  filters: Record<string, unknown>;
  nextCursor: string | null;
  limit: number;
  /** The whole response. */
  response: HttpResponse;
}

/** Follows nextCursor of a pool search from the first page until null. */
export async function walkPoolPages(
  baseUrl: string,
  body: { config?: Record<string, unknown>; [k: string]: unknown },
  limits: number | ((pageIndex: number) => number),
  opts: Omit<RequestOptions, "method" | "body"> = {},
  maxPages = 10_000,
): Promise<{ pools: any[]; pages: PoolSearchPage[] }> {
  const pages: PoolSearchPage[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < maxPages; i++) {
    const limit = typeof limits === "number" ? limits : limits(i);
    const config: Record<string, unknown> = { ...(body.config ?? {}), limit };
    if (cursor !== null) config.cursor = cursor;
    const res = await postPoolSearch(baseUrl, { ...body, config }, opts);
    if (res.status !== 200) throw new Error(`page ${i} of ${JSON.stringify(body)} answered ${res.status}: ${res.text}`);
    const data = res.body.data as { pools: any[]; filters: Record<string, unknown>; nextCursor: string | null };
    pages.push({ ...data, limit, response: res });
    if (data.nextCursor === null) break;
    cursor = data.nextCursor;
  }
  return { pools: pages.flatMap((p) => p.pools), pages };
}

export function getPool<T = any>(baseUrl: string, chainId: number | string, address: string, opts: Omit<RequestOptions, "method"> = {}) {
  return request<T>(baseUrl, `/v1/pools/${chainId}/${address}`, { ...opts, method: "GET" });
}

export function getProtocols<T = any>(baseUrl: string, opts: Omit<RequestOptions, "method"> = {}) {
  return request<T>(baseUrl, "/v1/protocols", { ...opts, method: "GET" });
}

/** POST a JSON body (any value, serialized with JSON.stringify unless already a string) to any route. */
export function postJson<T = any>(
  baseUrl: string,
  urlPath: string,
  body: unknown,
  opts: Omit<RequestOptions, "method" | "body"> = {},
): Promise<HttpResponse<T>> {
  return request<T>(baseUrl, urlPath, {
    ...opts,
    method: "POST",
    headers: { "Content-Type": "application/json", ...(opts.headers ?? {}) },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/**
 * Walks a cursor-paged POST route (token list, searches, single-chain lists): the body as given with
 * `config.limit` (and `config.cursor` after the first page) set, following nextCursor until null.
 */
export async function walkPages(
  baseUrl: string,
  urlPath: string,
  body: { config?: Record<string, unknown>; [field: string]: unknown },
  limits: number | ((pageIndex: number) => number),
  opts: Omit<RequestOptions, "method" | "body"> = {},
  maxPages = 10_000,
): Promise<{ tokens: any[]; pages: { tokens: any[]; nextCursor: string | null; limit: number; data: any }[] }> {
  const pages: { tokens: any[]; nextCursor: string | null; limit: number; data: any }[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < maxPages; i++) {
    const limit = typeof limits === "number" ? limits : limits(i);
    const config: Record<string, unknown> = { ...(body.config ?? {}), limit };
    if (cursor !== null) config.cursor = cursor;
    const sent = { ...body, config };
    const res = await postJson(baseUrl, urlPath, sent, opts);
    if (res.status !== 200) throw new Error(`page ${i} of ${urlPath} ${JSON.stringify(sent)} answered ${res.status}: ${res.text}`);
    const data = res.body.data as { tokens: any[]; nextCursor: string | null };
    pages.push({ tokens: data.tokens, nextCursor: data.nextCursor, limit, data });
    if (data.nextCursor === null) break;
    cursor = data.nextCursor;
  }
  return { tokens: pages.flatMap((p) => p.tokens), pages };
}

/** Follows nextCursor from the first page until null; returns every page's data. */
export async function walkTokenPages(
  baseUrl: string,
  query: { config?: Record<string, unknown>; filters?: Record<string, unknown> },
  limits: number | ((pageIndex: number) => number),
  maxPages = 10_000,
): Promise<{ tokens: any[]; pages: { tokens: any[]; nextCursor: string | null; limit: number }[] }> {
  const pages: { tokens: any[]; nextCursor: string | null; limit: number }[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < maxPages; i++) {
    const limit = typeof limits === "number" ? limits : limits(i);
    const config: Record<string, unknown> = { ...(query.config ?? {}), limit };
    if (cursor !== null) config.cursor = cursor;
    const body: Record<string, unknown> = { config };
    if (query.filters !== undefined) body.filters = query.filters;
    const res = await postTokens(baseUrl, body);
    if (res.status !== 200) {
      throw new Error(`page ${i} of ${JSON.stringify(body)} answered ${res.status}: ${res.text}`);
    }
    const data = res.body.data as { tokens: any[]; nextCursor: string | null };
    pages.push({ tokens: data.tokens, nextCursor: data.nextCursor, limit });
    if (data.nextCursor === null) break;
    cursor = data.nextCursor;
  }
  return { tokens: pages.flatMap((p) => p.tokens), pages };
}

/** The value of one series of a Prometheus exposition text (0 when absent). */
export function metricValue(text: string, name: string, labels: Record<string, string> = {}): number {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split("\n")) {
    if (!line.startsWith(name)) continue;
    const [series, value] = line.split(" ");
    if (series === name || (series.startsWith(`${name}{`) && want.every((w) => series.includes(w)))) return Number(value);
  }
  return 0;
}

/** VmRSS of a process, bytes (Linux). */
export function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

/**
 * Sockets listening on 127.0.0.1:`port` (Linux, /proc/net/tcp): one per
 * serving thread, since each thread's uWS app has its own listen socket on the
 * shared port (SO_REUSEPORT). Counted from the kernel, not from the gateway.
 */
export function listeningSockets(port: number): number {
  const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, "0")}`;
  let n = 0;
  for (const line of readFileSync("/proc/net/tcp", "utf8").split("\n").slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields[1] === local && fields[3] === "0A") n++; // 0A: LISTEN
  }
  return n;
}

/** CPU time (user + system) a process has used so far, seconds (Linux, /proc/<pid>/stat). */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
}

// ------------------------------------------------------------------ envelope assertions

/** Titles of api-decisions.md §1, copied from the spec table. */
export const ERROR_TITLES: Record<string, [number, string]> = {
  VALIDATION_ERROR: [400, "Invalid Parameters"],
  MALFORMED_JSON: [400, "Invalid Parameters"],
  UNSUPPORTED_CHAIN_ID: [400, "Invalid Parameters"],
  INVALID_POOL_ADDRESS: [400, "Invalid Parameters"],
  INVALID_PAGINATION_CURSOR: [400, "Invalid Parameters"],
  INVALID_BLOCKCHAIN_ADDRESS: [400, "Invalid Parameters"],
  INVALID_BASKET_ID: [400, "Invalid Parameters"],
  INVALID_PROTOCOL_ID: [400, "Invalid Parameters"],
  API_KEY_MISSING: [401, "Authentication Failed"],
  API_KEY_INVALID: [401, "Authentication Failed"],
  API_KEY_NOT_FOUND: [401, "Authentication Failed"],
  API_KEY_DISABLED: [403, "Authentication Failed"],
  API_KEY_EXPIRED: [403, "Authentication Failed"],
  API_KEY_FORBIDDEN: [403, "Forbidden"],
  LIQUIDITY_POOL_NOT_FOUND: [404, "Not Found"],
  ROUTE_NOT_FOUND: [404, "Route Not Found"],
  METHOD_NOT_ALLOWED: [405, "Method Not Allowed"],
  PAYLOAD_TOO_LARGE: [413, "Payload Too Large"],
  UNSUPPORTED_MEDIA_TYPE: [415, "Unsupported Media Type"],
  RATE_LIMIT_EXCEEDED: [429, "Rate Limit Exceeded"],
  CHAIN_DATA_UNAVAILABLE: [503, "Service Unavailable"],
  QUOTA_STORE_UNAVAILABLE: [503, "Service Unavailable"],
  UNKNOWN_ERROR: [500, "Unknown Error"],
  // api-extended.md §7, §11
  TOKEN_NOT_FOUND: [404, "Not Found"],
  TOKEN_BASKET_NOT_FOUND: [404, "Not Found"],
  // live.md §12-§15
  INVALID_POSITION: [400, "Invalid Parameters"],
  NOT_ACCEPTABLE: [406, "Not Acceptable"],
  // issue 27: the WebSocket handshake (RFC 6455 §4.2)
  INVALID_WEBSOCKET_HANDSHAKE: [400, "Bad Request"],
  UNSUPPORTED_WEBSOCKET_VERSION: [426, "Upgrade Required"],
};

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

function expectCommonEnvelope(res: HttpResponse, status: number, path?: string): void {
  expect(res.headers.get("content-type") ?? "", `content-type of ${res.text}`).toMatch(/^application\/json\b/);
  expect(res.body, `body is JSON: ${res.text}`).toBeTypeOf("object");
  expect(res.body.statusCode).toBe(status);
  expect(res.body.timestamp).toMatch(ISO_UTC);
  expect(Math.abs(Date.parse(res.body.timestamp) - Date.now())).toBeLessThan(120_000);
  expect(typeof res.body.traceId).toBe("string");
  expect(res.body.traceId.length).toBeGreaterThan(0);
  expect(res.headers.get("x-trace-id")).toBe(res.body.traceId);
  if (path !== undefined) expect(res.body.path).toBe(path);
}

/** Asserts an error envelope with this status and code; returns `error`. */
export function expectError(
  res: HttpResponse,
  status: number,
  code: string,
  path?: string,
): { code: string; title: string; message: string; details: string; metadata: Record<string, any> } {
  expect(res.status, `status of ${res.text}`).toBe(status);
  expectCommonEnvelope(res, status, path);
  expect(Object.keys(res.body)).toEqual(["statusCode", "timestamp", "path", "traceId", "error"]);
  const err = res.body.error;
  expect(Object.keys(err)).toEqual(["code", "title", "message", "details", "metadata"]);
  expect(err.code).toBe(code);
  expect(res.headers.get("x-error-code")).toBe(code);
  const known = ERROR_TITLES[code];
  if (known) {
    expect(known[0]).toBe(status);
    expect(err.title).toBe(known[1]);
  }
  expect(typeof err.message).toBe("string");
  expect(err.message.length).toBeGreaterThan(0);
  expect(typeof err.details).toBe("string");
  expect(err.details.length).toBeGreaterThan(0);
  expect(err.metadata).toBeTypeOf("object");
  expect(err.metadata).not.toBeNull();
  expect(Array.isArray(err.metadata)).toBe(false);
  return err;
}

/** Asserts a success envelope (HTTP 200); returns `data`. */
export function expectSuccess<T = any>(res: HttpResponse, path?: string): T {
  expect(res.status, `status of ${res.text}`).toBe(200);
  expectCommonEnvelope(res, 200, path);
  expect(Object.keys(res.body)).toEqual(["statusCode", "timestamp", "path", "traceId", "data"]);
  expect(res.headers.get("x-error-code")).toBeNull();
  return res.body.data as T;
}

/**
 * Asserts a VALIDATION_ERROR naming `property`, with constraint `constraint` (or one of
 * several acceptable names). `value`: expected offending value; pass ABSENT to require
 * that metadata has no `value`; omit to not check it.
 */
export const ABSENT = Symbol("absent");
export function expectValidation(res: HttpResponse, property: string, constraint: string | string[], value?: unknown): Record<string, any> {
  const err = expectError(res, 400, "VALIDATION_ERROR");
  const m = err.metadata;
  expect(m.property, JSON.stringify(m)).toBe(property);
  expect(m.constraints).toBeTypeOf("object");
  const names = Object.keys(m.constraints);
  expect(names.length).toBeGreaterThan(0);
  for (const n of names) {
    expect(Array.isArray(m.constraints[n])).toBe(true);
    for (const msg of m.constraints[n]) expect(typeof msg).toBe("string");
  }
  const wanted = Array.isArray(constraint) ? constraint : [constraint];
  expect(
    names.some((n) => wanted.includes(n)),
    `constraints ${JSON.stringify(m.constraints)} should include one of ${wanted}`,
  ).toBe(true);
  if (value === ABSENT) expect("value" in m, JSON.stringify(m)).toBe(false);
  else if (arguments.length >= 4) expect(m.value).toEqual(value);
  return m;
}
