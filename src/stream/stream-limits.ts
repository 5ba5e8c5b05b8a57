/**
 * The limits of GET /v1/stream (live.md §13), set by the operator
 * (src/config/settings.ts, docs/operators.md) and fixed for the life of a
 * serving thread.
 */
export interface StreamLimits {
  /** Unsent bytes a connection may hold before it is closed as a slow consumer (STREAM_MAX_BUFFER_BYTES). */
  readonly maxBufferBytes: number;
  /** Open streams per key on this instance (STREAM_MAX_CONNECTIONS_PER_KEY); the next opening is 429. */
  readonly maxConnectionsPerKey: number;
  /** Topics one connection holds at most (STREAM_MAX_TOPICS). */
  readonly maxTopics: number;
  /** A `changes` event whose address list is longer carries counts instead (STREAM_MAX_ADDRESSES). */
  readonly maxAddresses: number;
  /** WebSocket messages in a row that are not JSON before the connection is closed (STREAM_MAX_BAD_MESSAGES); any JSON message resets the run. */
  readonly maxBadMessages: number;
  /** WebSocket messages one connection may send per second (STREAM_MAX_MESSAGES_PER_SECOND; message-rate.ts). */
  readonly maxMessagesPerSecond: number;
  /** WebSocket messages one key's connections may send per second together, on each serving thread (STREAM_MAX_KEY_MESSAGES_PER_SECOND). */
  readonly maxKeyMessagesPerSecond: number;
}

export const DEFAULT_STREAM_LIMITS: StreamLimits = {
  maxBufferBytes: 4 * 1024 * 1024,
  maxConnectionsPerKey: 100,
  maxTopics: 1000,
  maxAddresses: 10_000,
  maxBadMessages: 20,
  maxMessagesPerSecond: 20,
  maxKeyMessagesPerSecond: 100,
};

/** Largest WebSocket message a client may send (a larger frame closes the connection: uWS maxPayloadLength). */
export const MAX_CLIENT_MESSAGE_BYTES = 64 * 1024;

/** Seconds of silence after which uWS pings a WebSocket (and closes it when the pong does not come). */
export const WS_IDLE_TIMEOUT_SECONDS = 60;

/** Milliseconds between SSE comment lines on an open event stream. */
export const SSE_PING_INTERVAL_MS = 15_000;

// WebSocket close codes: src/stream/close-codes.ts.
