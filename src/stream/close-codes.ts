/**
 * Every way the gateway ends a WebSocket of GET /v1/stream (RFC 6455 §7.4;
 * 4000-4999 are the application's): the constants the code closes with, and
 * STREAM_CLOSE_CODES, the one catalogue of them that documents read
 * (docs/stream.md, the AsyncAPI document's generator). SSE has no close
 * codes: where a WebSocket gets 4401/4403 an SSE response gets the same
 * `error` event, then ends.
 */

/** The serving thread drains (graceful shutdown, rolling restart). */
export const CLOSE_GOING_AWAY = 1001;
/** More than STREAM_MAX_BAD_MESSAGES messages in a row that are not JSON. */
export const CLOSE_POLICY_VIOLATION = 1008;
export const POLICY_VIOLATION_REASON = "too many messages that are not JSON";
/** More than twice STREAM_MAX_MESSAGES_PER_SECOND messages within a second (also 1008). */
export const MESSAGE_RATE_REASON = "message rate exceeded";
/** The client does not read: its unsent bytes passed STREAM_MAX_BUFFER_BYTES. */
export const CLOSE_SLOW_CONSUMER = 4008;
export const SLOW_CONSUMER_REASON = "slow-consumer";
/** The key was removed (or its secret changed) while the stream was open: 401 API_KEY_NOT_FOUND. Reason: the error code. */
export const CLOSE_KEY_UNAUTHORIZED = 4401;
/** The key may no longer hold the stream (disabled, expired, lost `stream` or a held topic's chain): 403. Reason: the error code. */
export const CLOSE_KEY_FORBIDDEN = 4403;

/** One way a stream WebSocket ends. */
export interface StreamCloseCode {
  /** The close code; 1006 is what clients report when the socket ends without a close frame. */
  readonly code: number;
  /** The close reason sent, or how it is made (`<error code>`); null: no close frame. */
  readonly reason: string | null;
  /** Whether an `error` event (the usual error object) comes just before the close frame. */
  readonly errorEvent: boolean;
  readonly when: string;
}

export const STREAM_CLOSE_CODES: readonly StreamCloseCode[] = Object.freeze([
  {
    code: CLOSE_GOING_AWAY,
    reason: "going away",
    errorEvent: false,
    when: "the serving thread drains (graceful shutdown, rolling restart), after the last event enqueued",
  },
  {
    code: 1006,
    reason: null,
    errorEvent: false,
    when: "a frame larger than 64 KiB, a text frame that is not UTF-8, or bytes uWS cannot read as frames, such as what follows a client frame sent without a mask (uWS closes the socket); a slow consumer that does not drain within 10 s",
  },
  {
    code: CLOSE_POLICY_VIOLATION,
    reason: POLICY_VIOLATION_REASON,
    errorEvent: true,
    when: "more than STREAM_MAX_BAD_MESSAGES messages in a row that are not JSON (each answered by an error event; any JSON message, of whatever shape, resets the count)",
  },
  {
    code: CLOSE_POLICY_VIOLATION,
    reason: MESSAGE_RATE_REASON,
    errorEvent: true,
    when: "the connection kept sending past its message rate: more than twice STREAM_MAX_MESSAGES_PER_SECOND messages within about a second (those past the rate each answered by an error event, RATE_LIMIT_EXCEEDED)",
  },
  {
    code: CLOSE_SLOW_CONSUMER,
    reason: SLOW_CONSUMER_REASON,
    errorEvent: false,
    when: "the connection's unsent bytes passed STREAM_MAX_BUFFER_BYTES, once the close frame fits behind what it holds",
  },
  {
    code: CLOSE_KEY_UNAUTHORIZED,
    reason: "<error code>",
    errorEvent: true,
    when: "a keys-file reload removed the stream's key (or changed its secret): API_KEY_NOT_FOUND",
  },
  {
    code: CLOSE_KEY_FORBIDDEN,
    reason: "<error code>",
    errorEvent: true,
    when:
      "the key was disabled (API_KEY_DISABLED) or expired (API_KEY_EXPIRED) while the stream was open, or a reload took the " +
      "`stream` route group from it or a chain of one of the stream's topics (API_KEY_FORBIDDEN)",
  },
]);

/** The close code of a stream refused after it opened: 4401 for a 401-class refusal, 4403 for a 403-class one. */
export function revocationCloseCode(status: number): number {
  return status === 401 ? CLOSE_KEY_UNAUTHORIZED : CLOSE_KEY_FORBIDDEN;
}
