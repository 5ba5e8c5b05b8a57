/**
 * Reading objects from an origin, whatever it is (fleet.md §16): a GET of a key, conditional when an ETag
 * or a date is known. An http(s) origin is any server answering GET with an ETag (credentials in its URL
 * go as HTTP Basic, only to that origin); an s3:// origin is S3's REST API (s3-client.ts).
 */
import type { Readable } from "node:stream";
import type { Environment } from "./aws-credentials.js";
import { HttpExchange, type ExchangeOptions } from "./http-exchange.js";
import { httpBase, httpObjectUrl, type OriginLocation } from "./origin-location.js";
import { S3Client, type S3Settings } from "./s3-client.js";

export interface Conditional {
  readonly etag: string | null;
  readonly lastModified: string | null;
}

export interface ReadAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The body of a 2xx answer (read it or destroy it); drained for any other. */
  readonly body: Readable;
  /** What the origin said went wrong (S3's error code and message), for a 400+ answer. */
  readonly failure: { readonly code: string | null; readonly message: string | null } | null;
}

export interface OriginReader {
  readonly kind: "http" | "https" | "s3";
  /** The location without credentials or query. */
  readonly display: string;
  get(key: string, conditional: Conditional | null, signal: AbortSignal): Promise<ReadAnswer>;
  close(): void;
}

export interface ReaderOptions extends ExchangeOptions {
  readonly s3: S3Settings;
  readonly env: Environment;
  readonly now?: () => number;
  /** An S3 store said this server's clock is off (ms). */
  readonly skewed?: (skewMs: number) => void;
}

/**
 * If-None-Match with the stored ETag; If-Modified-Since only when there is no ETag. A date has a resolution of one
 * second, and some servers answer 304 to a met If-Modified-Since whatever the ETag says (moto's S3 did, in the
 * tests: a manifest published later than the one held was answered 304), so the date is never sent beside an ETag.
 */
export function conditionalHeaders(conditional: Conditional | null): Record<string, string> {
  if (conditional?.etag) return { "if-none-match": conditional.etag };
  if (conditional?.lastModified) return { "if-modified-since": conditional.lastModified };
  return {};
}

export function createOriginReader(location: OriginLocation, options: ReaderOptions): OriginReader {
  const exchange = new HttpExchange(options);
  if (location.kind === "file") throw new Error("a file: origin is for publish only");
  if (location.kind === "s3") {
    const client = new S3Client(location, options.s3, exchange, options.env, options.now, options.skewed);
    return {
      kind: "s3",
      display: location.display,
      async get(key, conditional, signal) {
        const answer = await client.send("GET", key, { headers: conditionalHeaders(conditional), signal });
        if (answer.status >= 300) answer.body.resume();
        return { status: answer.status, headers: answer.headers, body: answer.body, failure: answer.failure };
      },
      close: () => exchange.close(),
    };
  }
  const base = location.base;
  const { plain, basic } = httpBase(base);
  return {
    kind: base.protocol === "https:" ? "https" : "http",
    display: location.display,
    async get(key, conditional, signal) {
      const url = httpObjectUrl(plain, key);
      const answer = await exchange.request({ method: "GET", url, headers: conditionalHeaders(conditional), auth: basic, signal });
      // An error page's body says nothing a status does not (and may be large): drained, not read.
      if (answer.status >= 300) answer.body.resume();
      const failure = answer.status >= 400 ? { code: null, message: null } : null;
      return { status: answer.status, headers: answer.headers, body: answer.body, failure };
    },
    close: () => exchange.close(),
  };
}
