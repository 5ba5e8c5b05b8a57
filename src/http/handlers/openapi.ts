/**
 * GET /v1/openapi.json and GET /v1/asyncapi.json (public): the OpenAPI 3.1
 * document of a route table and the AsyncAPI 3.0 document of GET /v1/stream,
 * each built once per thread from the wire types.
 */
import { buildAsyncApiDocument, type CloseCodeDoc } from "../../openapi/asyncapi-document.js";
import { buildOpenApiDocument } from "../../openapi/openapi-document.js";
import type { DocumentedRoute } from "../../openapi/operation-doc.js";
import { STREAM_EVENT_TYPES } from "../../stream/stream-events.js";
import {
  CLOSE_GOING_AWAY,
  CLOSE_POLICY_VIOLATION,
  CLOSE_SLOW_CONSUMER,
  MAX_CLIENT_MESSAGE_BYTES,
  SLOW_CONSUMER_REASON,
} from "../../stream/stream-limits.js";
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

/**
 * The WebSocket close codes of the stream (docs/stream.md). 4401 and 4403 close
 * the streams of a key that a keys-file reload revoked: 4400 plus the HTTP
 * status an opening with that key would now get.
 */
export const STREAM_CLOSE_CODES: readonly CloseCodeDoc[] = [
  {
    code: CLOSE_GOING_AWAY,
    when: "the serving thread drains (graceful shutdown, `kill -USR2` rolling restart), after the last event; reconnect with `since`.",
  },
  {
    code: CLOSE_POLICY_VIOLATION,
    when: "more than `STREAM_MAX_BAD_MESSAGES` messages in a row that are not JSON (valid JSON resets the count).",
  },
  {
    code: CLOSE_SLOW_CONSUMER,
    reason: SLOW_CONSUMER_REASON,
    when: "the connection's unsent bytes passed `STREAM_MAX_BUFFER_BYTES`; everything sent before the close is delivered first.",
  },
  {
    code: 4401,
    when: "the key was revoked by a keys-file reload and no longer authenticates (removed: an opening would be 401).",
  },
  {
    code: 4403,
    when: "a keys-file reload disabled the key, it expired, or it may no longer read this stream (route group `stream` or a followed chain withdrawn: an opening would be 403).",
  },
  {
    code: 1006,
    when: "no close frame: a client frame larger than the limit or a text frame that is not UTF-8 (uWS closes the socket), or a slow consumer that did not drain within 10 s.",
  },
];

/** The AsyncAPI document of GET /v1/stream (GET /v1/asyncapi.json). */
export const ASYNCAPI_DOCUMENT = new BuiltDocument("asyncapi", () =>
  buildAsyncApiDocument({
    eventTypes: STREAM_EVENT_TYPES,
    closeCodes: STREAM_CLOSE_CODES,
    maxClientMessageBytes: MAX_CLIENT_MESSAGE_BYTES,
  }),
);
