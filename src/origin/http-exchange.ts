/**
 * One HTTP(S) request to an origin and its answer as a stream (fleet.md §18): the mechanism every origin
 * client uses. Bounded in time (ORIGIN_TIMEOUT_S: no byte for that long while connecting, waiting for
 * the answer or reading its body ends the request), abortable (shutdown never waits for an origin),
 * keep-alive connections, and redirects by redirectTarget's rules: at most 3, never from https to http,
 * and the request's credentials (Basic or a signature) only ever to the same origin.
 */
import http from "node:http";
import https from "node:https";
import { createReadStream } from "node:fs";
import { Readable } from "node:stream";

export type ExchangeProblem = "unreachable" | "timeout" | "too-many-redirects" | "insecure-redirect" | "aborted";

export class ExchangeError extends Error {
  override name = "ExchangeError";
  constructor(
    readonly code: ExchangeProblem,
    message: string,
  ) {
    super(message);
  }
}

export const MAX_REDIRECTS = 3;

export interface ExchangeOptions {
  /** Longest wait for a byte (connect, answer, body), ms. */
  readonly timeoutMs: number;
  /** Extra trusted CA certificates (PEM); default: Node's store (and NODE_EXTRA_CA_CERTS). */
  readonly ca?: string;
}

export interface ExchangeRequest {
  readonly method: "GET" | "HEAD" | "PUT" | "DELETE";
  readonly url: URL;
  readonly headers?: Readonly<Record<string, string>>;
  /** A PUT's body: bytes, or a file streamed from disk. */
  readonly body?: Buffer | { readonly file: string; readonly size: number };
  /** The headers that authenticate a request to `url` (asked again for a redirect to the same origin, never for another). */
  readonly auth?: (url: URL) => Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
}

export interface ExchangeResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  /** The body: read it to its end, or destroy it. */
  readonly body: Readable;
  /** Where the answer came from (after redirects). */
  readonly url: URL;
}

/**
 * Where a redirect leads, or why it is not followed. `sameOrigin`: the credentials may go along
 * (protocol, host and port unchanged).
 */
export function redirectTarget(from: URL, location: string | undefined, hops: number): { url: URL; sameOrigin: boolean } {
  if (hops >= MAX_REDIRECTS)
    throw new ExchangeError("too-many-redirects", `more than ${MAX_REDIRECTS} redirects (last from ${shown(from)})`);
  if (location === undefined) throw new ExchangeError("unreachable", `a redirect from ${shown(from)} without a Location`);
  let url: URL;
  try {
    url = new URL(location, from);
  } catch {
    throw new ExchangeError("unreachable", `a redirect from ${shown(from)} to an invalid Location`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw new ExchangeError("insecure-redirect", `a redirect from ${shown(from)} to a ${url.protocol} URL`);
  if (from.protocol === "https:" && url.protocol === "http:")
    throw new ExchangeError("insecure-redirect", `a redirect from https to http (${shown(url)}) is never followed`);
  url.username = "";
  url.password = "";
  return { url, sameOrigin: url.origin === from.origin };
}

/** A URL as logs show it: no credentials, no query. */
export function shown(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

export class HttpExchange {
  private readonly agents = {
    http: new http.Agent({ keepAlive: true, maxSockets: 8 }),
    https: new https.Agent({ keepAlive: true, maxSockets: 8 }),
  };

  constructor(private readonly options: ExchangeOptions) {}

  /** Sends the request, following redirects of a GET or HEAD; rejects with ExchangeError when no answer comes. */
  async request(request: ExchangeRequest): Promise<ExchangeResponse> {
    let url = request.url;
    let auth = request.auth;
    for (let hops = 0; ; hops++) {
      const response = await this.once(request, url, auth);
      const redirect = response.status >= 300 && response.status < 400 && response.status !== 304;
      if (!redirect || (request.method !== "GET" && request.method !== "HEAD")) return response;
      response.body.resume();
      const location = response.headers.location;
      const next = redirectTarget(url, Array.isArray(location) ? location[0] : location, hops);
      url = next.url;
      if (!next.sameOrigin) auth = undefined;
    }
  }

  /** Closes the kept-alive connections. */
  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  private once(request: ExchangeRequest, url: URL, auth: ExchangeRequest["auth"]): Promise<ExchangeResponse> {
    const { timeoutMs } = this.options;
    const secure = url.protocol === "https:";
    const headers: Record<string, string> = { ...request.headers, ...auth?.(url) };
    const body = request.body;
    if (body !== undefined) headers["content-length"] = String(Buffer.isBuffer(body) ? body.length : body.size);
    return new Promise<ExchangeResponse>((resolve, reject) => {
      const signal = request.signal;
      if (signal?.aborted) return reject(new ExchangeError("aborted", "stopped"));
      const options: https.RequestOptions = {
        method: request.method,
        protocol: url.protocol,
        hostname: url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname,
        port: url.port === "" ? undefined : Number(url.port),
        path: `${url.pathname}${url.search}`,
        headers,
        agent: secure ? this.agents.https : this.agents.http,
        ...(secure && this.options.ca !== undefined ? { ca: this.options.ca } : {}),
      };
      let response: http.IncomingMessage | null = null;
      const fail = (error: ExchangeError) => {
        if (response !== null) response.destroy(error);
        else req.destroy(error);
      };
      const onAbort = () => fail(new ExchangeError("aborted", "stopped"));
      signal?.addEventListener("abort", onAbort, { once: true });
      const req = (secure ? https : http).request(options, (res) => {
        response = res;
        res.on("close", () => signal?.removeEventListener("abort", onAbort));
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: res, url });
      });
      req.setTimeout(timeoutMs, () => fail(new ExchangeError("timeout", `no answer from ${shown(url)} for ${timeoutMs / 1000} s`)));
      req.on("error", (error: NodeJS.ErrnoException) => {
        signal?.removeEventListener("abort", onAbort);
        if (error instanceof ExchangeError) reject(error);
        else reject(new ExchangeError("unreachable", `${shown(url)}: ${error.code ?? error.message}`));
      });
      if (body === undefined) req.end();
      else if (Buffer.isBuffer(body)) req.end(body);
      else
        createReadStream(body.file)
          .on("error", (e) => req.destroy(e))
          .pipe(req);
    });
  }
}

/** Reads a whole body of at most `maxBytes` (a manifest, an error message); null when it is longer (the rest is dropped). */
export async function readBounded(body: Readable, maxBytes: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxBytes) {
      body.destroy();
      return null;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Why a body (`what`: "manifest.json") could not be read, as an ExchangeError (a reset connection, a timeout, a stop). */
export function bodyError(error: unknown, what: string): ExchangeError {
  if (error instanceof ExchangeError) return error;
  const e = error as NodeJS.ErrnoException;
  return new ExchangeError("unreachable", `${what}: the body was cut off (${e.code ?? e.message})`);
}
