/**
 * JSON request bodies under the rules of api-decisions.md §2: `application/json`
 * (any parameters) else 415; at most MAX_BODY_BYTES else 413; empty, not valid
 * JSON, or nested deeper than MAX_JSON_DEPTH → MALFORMED_JSON. The nesting is
 * measured by one linear scan before parsing, so no body can make the parser,
 * the validator or an error echo recurse without bound.
 */
import { ApiError } from "./errors.js";
import type { Exchange } from "./exchange.js";
import { MAX_BODY_BYTES, MAX_JSON_DEPTH } from "./limits.js";

export function checkContentType(contentType: string): void {
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
 * Reads the body of `x` (its abort handler must be registered) and resolves
 * with the parsed JSON value; rejects with an ApiError. `contentLength` is the
 * request's Content-Length header ("" when absent).
 */
export function readJsonBody(x: Exchange, contentLength: string): Promise<unknown> {
  if (contentLength !== "" && Number(contentLength) > MAX_BODY_BYTES) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    x.res.onData((chunk, isLast) => {
      // Nothing may throw out of a uWS callback: it would end the thread.
      if (failed || x.aborted) return;
      size += chunk.byteLength;
      if (size > MAX_BODY_BYTES) {
        failed = true;
        reject(tooLarge());
        return;
      }
      chunks.push(Buffer.from(chunk.slice(0))); // uWS reuses the chunk's memory after this callback
      if (!isLast) return;
      try {
        resolve(parseJsonBody(Buffer.concat(chunks, size)));
      } catch (error) {
        reject(error);
      }
    });
  });
}

/** The parsed body, or MALFORMED_JSON. */
export function parseJsonBody(bytes: Buffer): unknown {
  if (bytes.length === 0) throw malformed("The request body is empty; send a JSON object.", "Expected a JSON object body, received 0 bytes.", "empty body");
  const depth = jsonNestingDepth(bytes);
  if (depth > MAX_JSON_DEPTH) {
    throw malformed(
      `The request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep; send a flatter body.`,
      `JSON nesting is limited to ${MAX_JSON_DEPTH} levels; this body reaches more (checked before parsing).`,
      `nesting deeper than ${MAX_JSON_DEPTH} levels`,
    );
  }
  try {
    return JSON.parse(bytes.toString("utf8"));
  } catch (error) {
    const reason = (error as Error).message;
    throw malformed("The request body is not valid JSON; fix its syntax and retry.", `JSON.parse failed: ${reason}`, reason);
  }
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
 * rejects it anyway.
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
