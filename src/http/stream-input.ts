/**
 * What a client sends GET /v1/stream (live.md §13), read by the HTTP edge:
 * the query (`topics`, `since`), the SSE headers (`Accept`, `Last-Event-ID`)
 * and the WebSocket client messages. Every refusal is the usual error: an HTTP
 * answer before a stream opens, an `error` event on an open WebSocket.
 */
import typia from "typia";
import type { KeyEntry } from "../access/key-store.js";
import { assertChainAllowed } from "../access/restrictions.js";
import { ApiError } from "../api/errors.js";
import type { StreamClientMessage, StreamQuery } from "../api/wire.js";
import { parsePosition } from "../query/positions.js";
import type { StreamOpening } from "../stream/stream-connection.js";
import { isTopic, MAX_TOPIC_LENGTH, parseTopic, type Topic } from "../stream/topics.js";
import { parseJsonBody } from "./json-body.js";
import { parseQuery } from "./query-params.js";
import { constraintError, unsupportedChainError, validated } from "./validation-error.js";

const validateStreamQuery = typia.createValidateEquals<StreamQuery>();
const validateClientMessage = typia.createValidateEquals<StreamClientMessage>();

const TOPIC_RULE =
  "each value in topics must be a topic: changes, changes:<chainId>, pool:<chainId>:<poolAddress> or token:<chainId>:<tokenAddress>";

/**
 * The query of GET /v1/stream and, for SSE, its `Last-Event-ID` header ("" when
 * absent; it wins over `since`): topics validated for the key, at most `maxTopics`.
 */
export function streamOpening(query: string, lastEventId: string, key: KeyEntry, maxTopics: number): StreamOpening {
  const params = parseQuery(query, { topics: "strings" }, validateStreamQuery);
  const topics = topicsFor(params.topics ?? [], key, maxTopics, []);
  const position = lastEventId !== "" ? lastEventId : params.since;
  return { topics, since: position === undefined ? null : parsePosition(position) };
}

/**
 * `sent` parsed (any letter case) and checked in order, then added to `held`
 * (topics already held keep their place; repeats are dropped). The first bad
 * topic refuses them all: malformed → VALIDATION_ERROR (`property: "topics"`),
 * an unsupported chain → UNSUPPORTED_CHAIN_ID, a chain the key may not read →
 * API_KEY_FORBIDDEN; more than `maxTopics` in all → VALIDATION_ERROR (`max`).
 */
export function topicsFor(sent: readonly string[], key: KeyEntry, maxTopics: number, held: readonly Topic[]): Topic[] {
  const out = new Map<string, Topic>(held.map((t) => [t.text, t]));
  for (const text of sent) {
    const topic = checkedTopic(text, key);
    if (!out.has(topic.text)) out.set(topic.text, topic);
  }
  if (out.size > maxTopics) {
    const rule = `topics must contain no more than ${maxTopics} elements`;
    throw constraintError(
      "topics",
      undefined,
      "max",
      rule,
      `A stream holds at most ${maxTopics} topics (STREAM_MAX_TOPICS); this would hold ${out.size}.`,
    );
  }
  return [...out.values()];
}

/** `held` without the topics of `sent` (each checked like a subscription's). */
export function topicsWithout(sent: readonly string[], key: KeyEntry, held: readonly Topic[]): Topic[] {
  const drop = new Set(sent.map((text) => checkedTopic(text, key).text));
  return held.filter((t) => !drop.has(t.text));
}

function checkedTopic(text: string, key: KeyEntry): Topic {
  const parsed = parseTopic(text);
  if (!isTopic(parsed)) {
    if (parsed.fault === "unsupported-chain") throw unsupportedChainError(parsed.chainId, [parsed.chainId]);
    throw constraintError(
      "topics",
      text.length > MAX_TOPIC_LENGTH ? `${text.slice(0, MAX_TOPIC_LENGTH)}…` : text,
      "matches",
      TOPIC_RULE,
      "Topics: changes (every chain the key may read), changes:<chainId>, pool:<chainId>:<0x + 40 or 64 hex> and token:<chainId>:<0x + 40 hex>, any letter case.",
    );
  }
  if (parsed.chainId !== null) assertChainAllowed(key, parsed.chainId);
  return parsed;
}

/** Whether an Accept header asks for server-sent events (a `text/event-stream` range whose q is not 0). */
export function acceptsEventStream(accept: string): boolean {
  for (const range of accept.split(",")) {
    const [type, ...params] = range.split(";");
    if (type.trim().toLowerCase() !== "text/event-stream") continue;
    const q = params.map((p) => p.trim().toLowerCase()).find((p) => p.startsWith("q="));
    if (q === undefined || Number(q.slice(2)) > 0) return true;
  }
  return false;
}

/** 406: a GET /v1/stream that asks for neither transport. */
export function notAcceptable(accept: string): ApiError {
  return new ApiError(
    "NOT_ACCEPTABLE",
    "GET /v1/stream is a WebSocket (send Upgrade: websocket) or server-sent events (send Accept: text/event-stream); this request asked for neither.",
    accept === "" ? "The request has no Accept header." : `Accept "${accept.slice(0, 200)}" does not name text/event-stream.`,
    { accept: accept === "" ? null : accept },
  );
}

/** Why a WebSocket message was refused: it was not JSON (these count towards STREAM_MAX_BAD_MESSAGES), or not a valid message. */
export function isNotJson(error: unknown): boolean {
  return error instanceof ApiError && error.code === "MALFORMED_JSON";
}

/** A WebSocket client message: MALFORMED_JSON unless a JSON text frame, VALIDATION_ERROR unless `{op, topics}`. */
export function parseClientMessage(message: ArrayBuffer, isBinary: boolean): StreamClientMessage {
  if (isBinary)
    throw new ApiError(
      "MALFORMED_JSON",
      'Send stream messages as text frames holding JSON: {"op":"subscribe","topics":[…]} or {"op":"unsubscribe","topics":[…]}.',
      "The message was a binary frame.",
      { reason: "binary frame" },
    );
  let value: unknown;
  try {
    value = parseJsonBody(Buffer.from(message));
  } catch (error) {
    if (!isNotJson(error)) throw error;
    const reason = String((error as ApiError).metadata.reason);
    throw new ApiError(
      "MALFORMED_JSON",
      'The message is not valid JSON; send {"op":"subscribe","topics":[…]} or {"op":"unsubscribe","topics":[…]}.',
      `JSON.parse failed: ${reason}`,
      { reason },
    );
  }
  return validated(validateClientMessage, value);
}
