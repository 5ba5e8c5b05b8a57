/**
 * OpenAPI header objects built from the ResponseHeaders wire type: the JSDoc
 * becomes the header's description, the rest its schema.
 */
import type { ResponseHeaders } from "../api/wire.js";
import type { JsonSchema } from "./json-schema.js";
import type { Presence } from "./presence.js";
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
    const headers: HeaderObjects = { "x-trace-id": this.header("x-trace-id", true), "x-snapshot-version": this.header("x-snapshot-version", false) };
    if (rateLimit !== "never") {
      for (const name of ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"] as const) {
        headers[name] = this.header(name, rateLimit === "always");
      }
    }
    return headers;
  }
}
