/**
 * GET /v1/stream as a WebSocket (live.md §13): uWS's `ws` behaviour on the
 * stream route's path, from the upgrade to the close. A GET that does not ask
 * for a WebSocket is yielded to the route table; one that does runs the
 * pipeline of every keyed route and is upgraded only once admitted, its
 * stream taken from the hub's one entrance (`open`): decision 011. Messages
 * are checked against the message rates before they are parsed (decision
 * 010); dropped, drain and close are the hub's. Nothing may throw out of a
 * uWS callback: it would reach the thread's last-resort handler.
 */
import type { us_socket_context_t, WebSocket, WebSocketBehavior } from "uWebSockets.js";
import { maskedKeyOf } from "../access/authenticate.js";
import { ApiError, toApiError } from "../api/errors.js";
import type { Logger } from "../log/logger.js";
import { CLOSE_POLICY_VIOLATION, MESSAGE_RATE_REASON, POLICY_VIOLATION_REASON } from "../stream/close-codes.js";
import { MessageRates, type ConnectionRate, type MessageVerdict } from "../stream/message-rate.js";
import type { StreamConnection } from "../stream/stream-connection.js";
import type { StreamHub } from "../stream/stream-hub.js";
import { MAX_CLIENT_MESSAGE_BYTES, WS_IDLE_TIMEOUT_SECONDS } from "../stream/stream-limits.js";
import { errorObject } from "./envelope.js";
import type { Exchange } from "./exchange.js";
import { STREAM_ROUTE, type RequestPipeline } from "./request-pipeline.js";
import { isNotJson, parseClientMessage, streamOpening, topicsFor, topicsWithout } from "./stream-input.js";
import { uws, type HttpRequest, type HttpResponse } from "./uws.js";
import { asksForWebSocket, handshakeOf, refuseHandshake, type HandshakeHeaders } from "./websocket-handshake.js";

/** A stream WebSocket's user data: its stream, and what the HTTP edge counts of its messages. */
export class StreamSocket {
  /** Its message rate (message-rate.ts), from `open` to `close`. */
  rate: ConnectionRate | null = null;
  /** Messages in a row that were not JSON; any JSON message, valid or not, resets it. */
  badMessages = 0;

  constructor(readonly connection: StreamConnection) {}
}

/** The `ws` behaviour of the stream route (`index`: its place in the route table). */
export function streamSocketBehavior(
  pipeline: RequestPipeline,
  hub: StreamHub,
  log: Logger,
  index: number,
): WebSocketBehavior<StreamSocket> {
  /** The message rate of this thread's WebSockets (per connection, per key), and the answers to the messages it refuses. */
  const rates = new MessageRates(hub.limits.maxMessagesPerSecond, hub.limits.maxKeyMessagesPerSecond);
  const refusals = messageRateRefusals(rates);

  /** The upgrade request, inside the pipeline's preamble: every refusal a plain HTTP answer, the admitted one upgraded. */
  const admitUpgrade = (x: Exchange, req: HttpRequest, asked: HandshakeHeaders, context: us_socket_context_t): void => {
    // The handshake fields res.upgrade negotiates from.
    const protocol = req.getHeader("sec-websocket-protocol");
    const extensions = req.getHeader("sec-websocket-extensions");
    const res: HttpResponse = x.res;
    pipeline.checkFraming(x, req);
    x.routeIndex = index;
    x.routeName = STREAM_ROUTE;
    refuseHandshake(asked); // before the key: a handshake that cannot succeed costs no quota
    const authorization = req.getHeader("authorization");
    const maskedKey = maskedKeyOf(authorization); // what the stream keeps of its key (never the key)
    const upgrade = () => {
      const key = x.key!;
      const conn = hub.open("websocket", key, maskedKey, streamOpening(x.query, "", key, hub.limits.maxTopics));
      let upgraded = false;
      try {
        upgraded = pipeline.writer.upgrade(x, () => res.upgrade(new StreamSocket(conn), asked.key, protocol, extensions, context));
      } finally {
        if (!upgraded) hub.cancel(conn); // an upgraded socket gives its place back when it closes
      }
    };
    const pending = pipeline.admission.keyed(x, authorization, "stream", res, req, Date.now());
    if (pending === null) upgrade();
    else
      pipeline.later(x, pending, () => () => {
        // On the next turn: never from inside a uWS callback of another connection (a continuation run in its
        // microtask checkpoint), where uWS would take this upgrade for that connection's.
        setImmediate(() => {
          try {
            upgrade();
          } catch (error) {
            pipeline.fail(x, error);
          }
        });
      });
  };

  /** A message past the rate: an `error` event instead of processing it; past twice the connection's rate, the close. */
  const refuseMessage = (ws: WebSocket<StreamSocket>, conn: StreamConnection, verdict: Exclude<MessageVerdict, "take">): void => {
    hub.sendError(conn, verdict === "refuse-key" ? refusals.key : refusals.connection);
    if (verdict !== "close") return;
    conn.stopSending();
    ws.end(CLOSE_POLICY_VIOLATION, MESSAGE_RATE_REASON);
  };

  /** A subscribe or unsubscribe message: `subscribed` with the whole topic list, or an `error` event (the connection stays). */
  const message = (ws: WebSocket<StreamSocket>, data: ArrayBuffer, isBinary: boolean): void => {
    const socket = ws.getUserData();
    const conn = socket.connection;
    if (!conn.sending) return;
    const verdict = socket.rate === null ? "take" : rates.take(socket.rate, performance.now());
    if (verdict !== "take") {
      refuseMessage(ws, conn, verdict);
      return;
    }
    try {
      const parsed = parseClientMessage(data, isBinary);
      socket.badMessages = 0;
      const next =
        parsed.op === "subscribe"
          ? topicsFor(parsed.topics, conn.key, hub.limits.maxTopics, conn.topics)
          : topicsWithout(parsed.topics, conn.key, conn.topics);
      hub.setTopics(conn, next);
    } catch (error) {
      const apiError: ApiError = toApiError(error);
      if (apiError.code === "UNKNOWN_ERROR") log.error({ event: "stream-message-failed", err: error }, "a stream message failed");
      hub.sendError(conn, errorObject(apiError));
      // Any JSON message, of whatever shape, ends a run of messages that are not JSON.
      if (!isNotJson(apiError)) socket.badMessages = 0;
      else if (++socket.badMessages > hub.limits.maxBadMessages) {
        conn.stopSending();
        ws.end(CLOSE_POLICY_VIOLATION, POLICY_VIOLATION_REASON);
      }
    }
  };

  /** Nothing may throw out of a uWS callback: it would reach the thread's last-resort handler. */
  const guarded =
    <A extends unknown[]>(what: string, handler: (...args: A) => void) =>
    (...args: A): void => {
      try {
        handler(...args);
      } catch (error) {
        log.error({ event: "stream-callback-failed", callback: what, err: error }, "a stream callback failed");
      }
    };

  return {
    compression: uws.DISABLED,
    maxPayloadLength: MAX_CLIENT_MESSAGE_BYTES,
    // Past STREAM_MAX_BUFFER_BYTES of unsent bytes uWS drops a message and calls `dropped`: the hub closes the socket (4008).
    maxBackpressure: hub.limits.maxBufferBytes,
    closeOnBackpressureLimit: false,
    idleTimeout: WS_IDLE_TIMEOUT_SECONDS,
    sendPingsAutomatically: true,
    upgrade: (res, req, context) => {
      const asked = handshakeOf(req);
      if (!asksForWebSocket(asked.upgrade)) {
        // Not a WebSocket request (RFC 9110 §7.8: never switch to a protocol the client did not list): an ordinary
        // GET, which uWS hands on to the route table's handler (server-sent events, or 406).
        req.setYield(true);
        return;
      }
      pipeline.enter(res, req, (x) => admitUpgrade(x, req, asked, context));
    },
    open: guarded("open", (ws: WebSocket<StreamSocket>) => {
      const socket = ws.getUserData();
      socket.rate = rates.opened(socket.connection.key.record.sha256, performance.now());
      hub.socketOpened(socket.connection, ws);
    }),
    message: guarded("message", message),
    dropped: guarded("dropped", (ws: WebSocket<StreamSocket>) => hub.dropped(ws.getUserData().connection)),
    drain: guarded("drain", (ws: WebSocket<StreamSocket>) => hub.drained(ws.getUserData().connection)),
    close: guarded("close", (ws: WebSocket<StreamSocket>) => {
      const socket = ws.getUserData();
      if (socket.rate !== null) rates.closed(socket.rate);
      socket.rate = null;
      hub.closed(socket.connection);
    }),
  };
}

/** The `error` objects of messages refused for their rate (built once per thread: the same for every refusal). */
function messageRateRefusals(rates: MessageRates): { readonly connection: object; readonly key: object } {
  const refusal = (message: string) =>
    errorObject(
      new ApiError(
        "RATE_LIMIT_EXCEEDED",
        message,
        "WebSocket messages are limited per connection and per key (docs/stream.md, Message rate); a message may name many topics.",
        { retryAfterSeconds: 1 },
      ),
    );
  return {
    connection: refusal(
      `This connection sent more than ${rates.perConnection} messages within a second (STREAM_MAX_MESSAGES_PER_SECOND); this one was not processed. Wait a second: past ${2 * rates.perConnection} the connection is closed (1008).`,
    ),
    key: refusal(
      `This API key's streams sent more than ${rates.perKey} messages within a second (STREAM_MAX_KEY_MESSAGES_PER_SECOND); this one was not processed. Retry in a second.`,
    ),
  };
}
