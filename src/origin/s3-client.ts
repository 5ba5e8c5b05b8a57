/**
 * S3's REST API for an s3:// origin (fleet.md §16): object URLs (virtual-hosted or path style, any
 * S3-compatible endpoint), requests signed with SigV4 (`UNSIGNED-PAYLOAD`, no checksum headers) with
 * credentials looked up again for each request, S3's XML errors read, and a request the store finds
 * too skewed in time signed again once with the offset its `Date` names (the offset is kept and reported).
 */
import { isIP } from "node:net";
import { CredentialsError, resolveCredentials, type Environment } from "./aws-credentials.js";
import { readBounded, type ExchangeRequest, type ExchangeResponse, type HttpExchange } from "./http-exchange.js";
import { encodePath, signedHeaders } from "./sigv4.js";

export interface S3Settings {
  /** S3_ENDPOINT: `https://host[:port]`; undefined: AWS (`https://s3.<region>.amazonaws.com`). */
  readonly endpoint: string | undefined;
  /** S3_REGION (`auto` for R2). */
  readonly region: string;
  /** S3_FORCE_PATH_STYLE: the bucket in the path, not in the host name. */
  readonly forcePathStyle: boolean;
}

export interface S3Location {
  readonly bucket: string;
  readonly prefix: string;
}

/** An S3 error answer: its status and the `<Code>` and `<Message>` of its XML body (when it has one). */
export interface S3Failure {
  readonly status: number;
  readonly code: string | null;
  readonly message: string | null;
}

/** Largest error body read. */
const ERROR_BODY_MAX = 64 * 1024;

export function s3Endpoint(settings: S3Settings): URL {
  return new URL(settings.endpoint ?? `https://s3.${settings.region === "auto" ? "us-east-1" : settings.region}.amazonaws.com`);
}

/** The URL of `key` under the location's prefix; path style when asked, for IP or `localhost` endpoints and for buckets with dots. */
export function s3ObjectUrl(location: S3Location, settings: S3Settings, key: string): URL {
  const endpoint = s3Endpoint(settings);
  const objectPath = encodePath(`${location.prefix}${key}`);
  const host = endpoint.hostname.replace(/^\[|\]$/g, "");
  const pathStyle = settings.forcePathStyle || isIP(host) !== 0 || host === "localhost" || location.bucket.includes(".");
  const url = new URL(endpoint.href);
  const base = endpoint.pathname.replace(/\/+$/, "");
  if (pathStyle) url.pathname = `${base}/${location.bucket}/${objectPath}`;
  else {
    url.hostname = `${location.bucket}.${endpoint.hostname}`;
    url.pathname = `${base}/${objectPath}`;
  }
  return url;
}

/** `<Code>` and `<Message>` of an S3 XML error body. */
export function parseS3Error(status: number, body: Buffer | null): S3Failure {
  const text = body?.toString("utf8") ?? "";
  const field = (name: string) => new RegExp(`<${name}>([^<]{0,300})</${name}>`).exec(text)?.[1] ?? null;
  return { status, code: field("Code"), message: field("Message") };
}

export interface S3Answer extends ExchangeResponse {
  /** Set for an answer of 400 or more (its body then read and gone). */
  readonly failure: S3Failure | null;
}

export class S3Client {
  /** Added to this server's clock when signing, once the store said the clock is skewed (ms). */
  private offsetMs = 0;

  constructor(
    private readonly location: S3Location,
    private readonly settings: S3Settings,
    private readonly exchange: HttpExchange,
    private readonly env: Environment,
    private readonly now: () => number = Date.now,
    /** A store said this server's clock is off by this much (ms; positive: the store is ahead). */
    private readonly skewed: (skewMs: number) => void = () => {},
  ) {}

  /** The signing clock's offset from this server's (ms; 0 until a store said the clock is skewed). */
  get clockOffsetMs(): number {
    return this.offsetMs;
  }

  /** Sends a request for `key`; a 400+ answer has its error read. Throws CredentialsError, ExchangeError. */
  async send(
    method: ExchangeRequest["method"],
    key: string,
    extra: Pick<ExchangeRequest, "headers" | "body" | "signal"> = {},
  ): Promise<S3Answer> {
    const credentials = resolveCredentials(this.env);
    for (let attempt = 0; ; attempt++) {
      const url = s3ObjectUrl(this.location, this.settings, key);
      const region = this.settings.region === "auto" ? "auto" : this.settings.region;
      const date = new Date(this.now() + this.offsetMs);
      const auth =
        credentials === null
          ? undefined
          : (target: URL) => signedHeaders({ method, host: target.host, path: target.pathname, region, service: "s3", credentials, date });
      const response = await this.exchange.request({ method, url, auth, ...extra });
      if (response.status < 400) return { ...response, failure: null };
      const failure = parseS3Error(
        response.status,
        method === "HEAD" ? null : await readBounded(response.body, ERROR_BODY_MAX).catch(() => null),
      );
      const serverDate = Date.parse(String(response.headers.date ?? ""));
      if (failure.code === "RequestTimeTooSkewed" && attempt === 0 && !Number.isNaN(serverDate)) {
        this.offsetMs = serverDate - this.now();
        this.skewed(this.offsetMs);
        continue;
      }
      return { ...response, failure };
    }
  }
}

export { CredentialsError };
