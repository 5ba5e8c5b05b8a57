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

/** Every way the gateway ends a stream WebSocket (docs/stream.md, "Close codes"). */
export const STREAM_CLOSE_CODES: readonly CloseCodeDoc[] = [
  {
    code: CLOSE_GOING_AWAY,
    reason: "going away",
    errorEvent: false,
    when: "the serving thread drains (graceful shutdown, rolling restart), after the last event enqueued; reconnect with `since`",
  },
  {
    code: 1006,
    reason: null,
    errorEvent: false,
    when: "a frame larger than 64 KiB or a text frame that is not UTF-8 (uWS closes the socket); a slow consumer that does not drain within 10 s",
  },
  {
    code: CLOSE_POLICY_VIOLATION,
    reason: "too many messages that are not JSON",
    errorEvent: true,
    when: "more than STREAM_MAX_BAD_MESSAGES messages in a row that are not JSON (each answered by an error event)",
  },
  {
    code: CLOSE_SLOW_CONSUMER,
    reason: SLOW_CONSUMER_REASON,
    errorEvent: false,
    when: "the connection's unsent bytes passed STREAM_MAX_BUFFER_BYTES, once the close frame fits behind what it holds",
  },
  {
    code: 4401,
    reason: "<error code>",
    errorEvent: true,
    when: "a keys-file reload removed the stream's key (or changed its secret): API_KEY_NOT_FOUND",
  },
  {
    code: 4403,
    reason: "<error code>",
    errorEvent: true,
    when:
      "the key was disabled (API_KEY_DISABLED) or expired (API_KEY_EXPIRED) while the stream was open, or a reload took the " +
      "`stream` route group from it or a chain of one of the stream's topics (API_KEY_FORBIDDEN)",
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
