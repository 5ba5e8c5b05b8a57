/**
 * GET /v1/openapi.json and GET /v1/asyncapi.json (public): the OpenAPI 3.1
 * document of a route table and the AsyncAPI 3.0 document of GET /v1/stream,
 * each built once per thread from the wire types.
 */
import { buildAsyncApiDocument } from "../../openapi/asyncapi-document.js";
import { buildOpenApiDocument } from "../../openapi/openapi-document.js";
import type { DocumentedRoute } from "../../openapi/operation-doc.js";
import { STREAM_EVENT_TYPES } from "../../stream/stream-events.js";
import { STREAM_CLOSE_CODES } from "../../stream/close-codes.js";
import { MAX_CLIENT_MESSAGE_BYTES } from "../../stream/stream-limits.js";
import { rawJson, type Reply } from "../reply.js";

/** A JSON document built on first use (the serving thread builds it as it starts) and answered as is. */
class BuiltDocument {
  private bytes: Buffer | null = null;

  constructor(
    private readonly cacheKey: string,
    private readonly build: () => unknown,
  ) {}

  /** The encoded document. */
  encoded(): Buffer {
    return (this.bytes ??= Buffer.from(JSON.stringify(this.build())));
  }

  reply(): Reply {
    return { ...rawJson(200, this.encoded()), cacheKey: this.cacheKey };
  }
}

export class OpenApiDocument extends BuiltDocument {
  /** @param routes the table to document (a function: the table holds this document's handler) */
  constructor(routes: () => readonly DocumentedRoute[]) {
    super("openapi", () => buildOpenApiDocument(routes()));
  }
}

/** The AsyncAPI document of GET /v1/stream (GET /v1/asyncapi.json). */
export const ASYNCAPI_DOCUMENT = new BuiltDocument("asyncapi", () =>
  buildAsyncApiDocument({
    eventTypes: STREAM_EVENT_TYPES,
    closeCodes: STREAM_CLOSE_CODES,
    maxClientMessageBytes: MAX_CLIENT_MESSAGE_BYTES,
  }),
);
