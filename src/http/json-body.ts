/**
 * JSON request bodies under the rules of api-decisions.md §2: `application/json`
 * (any parameters) else 415; at most MAX_BODY_BYTES else 413; empty or not
 * valid JSON → MALFORMED_JSON. Valid JSON nested deeper than MAX_JSON_DEPTH is
 * valid JSON all the same: it is handed on with every array and object below
 * that depth replaced by TOO_DEEP, so the route's validator reports the first
 * failing property (no request type nests anywhere near that deep, so the
 * validator never reaches the cut) and nothing that reads the body (validator,
 * rules, error echo, JSON.stringify) descends further.
 */
import { ApiError } from "../api/errors.js";
import type { Exchange } from "./exchange.js";
import { MAX_BODY_BYTES, MAX_JSON_DEPTH } from "../api/limits.js";

export function checkContentType(contentType: string): void {
  if (contentType === "application/json") return; // what nearly every client sends: no parsing
  const mediaType = contentType.split(";")[0].trim().toLowerCase();
  if (mediaType === "application/json") return;
  throw new ApiError(
    "UNSUPPORTED_MEDIA_TYPE",
    "Send the request body as JSON with the header Content-Type: application/json.",
    contentType ? `Content-Type "${contentType.slice(0, 200)}" is not application/json.` : "The request has no Content-Type header.",
    { received: contentType || null },
  );
}

function tooLarge(): ApiError {
  return new ApiError(
    "PAYLOAD_TOO_LARGE",
    `The request body is larger than the ${MAX_BODY_BYTES} bytes allowed; send a smaller body.`,
    `Bodies are limited to ${MAX_BODY_BYTES} bytes (64 KiB).`,
    { maxBytes: MAX_BODY_BYTES },
  );
}

function malformed(message: string, details: string, reason: string): ApiError {
  return new ApiError("MALFORMED_JSON", message, details, { reason });
}

/**
 * Reads the body of `x` (its abort handler must be registered) and calls
 * `done` with the parsed JSON value, or `failed` with an ApiError; neither is
 * called when the client goes away. `contentLength` is the request's
 * Content-Length header ("" when absent). A body that arrives in one piece (the
 * usual case) is parsed from uWS's own chunk, without a copy; pieces are copied
 * out (uWS reuses a chunk's memory after its callback) and joined.
 */
export function readJsonBody(x: Exchange, contentLength: string, done: (body: unknown) => void, failed: (error: unknown) => void): void {
  if (contentLength !== "" && Number(contentLength) > MAX_BODY_BYTES) {
    failed(tooLarge());
    return;
  }
  let chunks: Buffer[] | null = null;
  let size = 0;
  let over = false;
  x.res.onData((chunk, isLast) => {
    // Nothing may throw out of a uWS callback: it would end the thread.
    if (over || x.aborted) return;
    size += chunk.byteLength;
    if (size > MAX_BODY_BYTES) {
      over = true;
      failed(tooLarge());
      return;
    }
    let body: Buffer;
    if (isLast && chunks === null) body = Buffer.from(chunk);
    else {
      (chunks ??= []).push(Buffer.from(chunk.slice(0)));
      if (!isLast) return;
      body = Buffer.concat(chunks, size);
    }
    let value: unknown;
    try {
      value = parseJsonBody(body);
    } catch (error) {
      failed(error);
      return;
    }
    try {
      done(value);
    } catch (error) {
      failed(error); // a fault past parsing: still answered, never thrown into uWS
    }
  });
}

/**
 * Stands for an array or object nested deeper than MAX_JSON_DEPTH in a valid
 * body. No type accepts a symbol, and JSON.stringify writes it as null.
 */
export const TOO_DEEP: unique symbol = Symbol("nested deeper than MAX_JSON_DEPTH");

/**
 * The parsed body (cut at MAX_JSON_DEPTH), or MALFORMED_JSON. V8's JSON.parse
 * does not recurse (test/unit/http/json-body-depth.test.ts holds it to that on the
 * deepest 64 KiB body), so parsing a deep body is one bounded pass like any other.
 */
export function parseJsonBody(bytes: Buffer): unknown {
  if (bytes.length === 0)
    throw malformed("The request body is empty; send a JSON object.", "Expected a JSON object body, received 0 bytes.", "empty body");
  const deep = jsonNestingDepth(bytes) > MAX_JSON_DEPTH;
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString("utf8"));
  } catch (error) {
    const reason = (error as Error).message;
    throw malformed("The request body is not valid JSON; fix its syntax and retry.", `JSON.parse failed: ${reason}`, reason);
  }
  return deep ? cutBelow(value, MAX_JSON_DEPTH) : value;
}

/**
 * `value` with every array and object deeper than `depth` levels replaced by
 * TOO_DEEP, in place; walks only the levels it keeps, with an explicit stack.
 */
export function cutBelow(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== "object") return value;
  if (depth < 1) return TOO_DEEP;
  const stack: Array<{ node: object; level: number }> = [{ node: value, level: 1 }];
  while (stack.length > 0) {
    const { node, level } = stack.pop()!;
    const keys = Array.isArray(node) ? null : Object.keys(node);
    const count = keys === null ? (node as unknown[]).length : keys.length;
    for (let i = 0; i < count; i++) {
      const key = keys === null ? i : keys[i];
      const child = (node as Record<string | number, unknown>)[key];
      if (child === null || typeof child !== "object") continue;
      // An own data property: defineProperty changes its value only (a key named __proto__ included).
      if (level >= depth) Object.defineProperty(node, key, { value: TOO_DEEP });
      else stack.push({ node: child, level: level + 1 });
    }
  }
  return value;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * The deepest nesting of arrays and objects in JSON text, in one pass (brackets
 * inside strings do not count). Stops counting once past MAX_JSON_DEPTH. For
 * text that is not valid JSON the figure is meaningless, but the parser then
 * rejects it anyway. Bodies within the limit (all but hostile ones) skip the cut.
 */
export function jsonNestingDepth(bytes: Uint8Array): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) {
      inString = true;
    } else if (b === OPEN_BRACKET || b === OPEN_BRACE) {
      if (++depth > deepest) {
        deepest = depth;
        if (deepest > MAX_JSON_DEPTH) return deepest;
      }
    } else if (b === CLOSE_BRACKET || b === CLOSE_BRACE) {
      depth--;
    }
  }
  return deepest;
}
