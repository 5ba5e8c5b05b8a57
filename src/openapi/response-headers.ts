/**
 * OpenAPI header objects built from the ResponseHeaders wire type: the JSDoc
 * becomes the header's description, the rest its schema.
 */
import type { ResponseHeaders } from "../api/wire.js";
import type { JsonSchema } from "./json-schema.js";
import type { Presence } from "../api/presence.js";
import type { WireSchemas } from "./wire-schemas.js";

export type ResponseHeaderName = keyof ResponseHeaders;

export type HeaderObjects = Partial<Record<ResponseHeaderName, JsonSchema>>;

export class ResponseHeaderCatalogue {
  constructor(private readonly schemas: WireSchemas["responseHeaders"]) {}

  /** The header object of `name`; `schema` narrows the generated schema (e.g. an enum of codes). */
  header(name: ResponseHeaderName, required: boolean, schema?: JsonSchema): JsonSchema {
    const { description, ...generated } = this.schemas[name];
    return { description, required, schema: schema ?? generated };
  }

  /**
   * `x-trace-id`; `x-snapshot-version` (every response once a snapshot has
   * loaded, so optional here); the RateLimit-* headers when present.
   */
  common(rateLimit: Presence): HeaderObjects {
    const headers: HeaderObjects = {
      "x-trace-id": this.header("x-trace-id", true),
      "x-snapshot-version": this.header("x-snapshot-version", false),
    };
    if (rateLimit !== "never") {
      for (const name of ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"] as const) {
        headers[name] = this.header(name, rateLimit === "always");
      }
    }
    return headers;
  }

  /** Cache-Control on every answer; the CORS headers when the operator enables CORS; Keep-Alive unless the connection closes. */
  private shared(headers: HeaderObjects): HeaderObjects {
    headers["Cache-Control"] = this.header("Cache-Control", true);
    headers["Keep-Alive"] = this.header("Keep-Alive", false);
    headers["Access-Control-Allow-Origin"] = this.header("Access-Control-Allow-Origin", false);
    headers["Access-Control-Expose-Headers"] = this.header("Access-Control-Expose-Headers", false);
    return headers;
  }

  /** A success (or a non-error answer such as /ready's 503): `Vary`, a content coding when compressed, an ETag on GET. */
  success(rateLimit: Presence, etag: boolean): HeaderObjects {
    const headers = this.shared(this.common(rateLimit));
    headers.Vary = this.header("Vary", true);
    headers["Content-Encoding"] = this.header("Content-Encoding", false);
    if (etag) headers.ETag = this.header("ETag", true);
    return headers;
  }

  /** An event stream's 200 (server-sent events): never stored, never compressed, passed through by buffering proxies. */
  eventStream(rateLimit: Presence): HeaderObjects {
    const headers = this.shared(this.common(rateLimit));
    headers["Cache-Control"] = this.header("Cache-Control", true, { const: "no-store" });
    headers["X-Accel-Buffering"] = this.header("X-Accel-Buffering", true);
    return headers;
  }

  /** 101 Switching Protocols (a WebSocket): the trace id and the key's RateLimit-* headers, then the handshake's own. */
  switchingProtocols(): HeaderObjects {
    const headers: HeaderObjects = { "x-trace-id": this.header("x-trace-id", true) };
    for (const name of ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"] as const) headers[name] = this.header(name, true);
    return headers;
  }

  /** 304: the validator and caching headers of the 200 it stands for, no body. */
  notModified(rateLimit: Presence): HeaderObjects {
    const headers = this.shared(this.common(rateLimit));
    headers.Vary = this.header("Vary", true);
    headers.ETag = this.header("ETag", true);
    return headers;
  }

  /** An error envelope (never compressed, never stored). */
  error(rateLimit: Presence): HeaderObjects {
    return this.shared(this.common(rateLimit));
  }
}
