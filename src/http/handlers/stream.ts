/**
 * GET /v1/stream (live.md §13) without `Upgrade: websocket`: server-sent
 * events when the request accepts `text/event-stream`, else 406. The
 * WebSocket side of the same route is the app's `ws` behaviour
 * (stream-socket.ts): both are admitted alike (key, quota, `stream` group),
 * read the same query, and take their stream from the thread's StreamHub
 * through its one entrance (`open`).
 */
import { maskedKeyOf } from "../../access/authenticate.js";
import type { EventStreamReply, Reply } from "../reply.js";
import type { KeyedRequest } from "../route.js";
import { acceptsEventStream, notAcceptable, streamOpening } from "../stream-input.js";

/** The request headers the route reads (`authorization`: only the key's masked form is kept, for the log and a later API_KEY_NOT_FOUND). */
export const STREAM_HEADERS = ["accept", "last-event-id", "authorization"] as const;

export function openEventStream(request: KeyedRequest): Reply {
  const accept = request.headers.accept ?? "";
  if (!acceptsEventStream(accept)) throw notAcceptable(accept);
  const hub = request.ctx.stream;
  const opening = streamOpening(request.query, request.headers["last-event-id"] ?? "", request.key, hub.limits.maxTopics);
  const conn = hub.open("sse", request.key, maskedKeyOf(request.headers.authorization ?? ""), opening);
  const reply: EventStreamReply = {
    kind: "events",
    start: (res, ended) => hub.eventsStarted(conn, res, ended),
    cancel: () => hub.cancel(conn),
  };
  return reply;
}
