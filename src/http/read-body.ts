/**
 * Reads a JSON request body under the rules of api-decisions.md §2:
 * `application/json` (any charset parameter) else 415; at most 64 KiB else
 * 413; empty or unparsable → MALFORMED_JSON.
 */
import { ApiError } from "./errors.js";
import type { RequestInfo } from "./request-info.js";
import type { HttpResponse } from "./uws.js";
import type { ResponseState } from "./respond.js";

export const MAX_BODY_BYTES = 65_536;

export function checkContentType(info: RequestInfo): void {
  const mediaType = info.contentType.split(";")[0].trim().toLowerCase();
  if (mediaType !== "application/json") {
    throw new ApiError(
      "UNSUPPORTED_MEDIA_TYPE",
      "Send the request body as JSON with the header Content-Type: application/json.",
      info.contentType ? `Content-Type "${info.contentType}" is not application/json.` : "The request has no Content-Type header.",
      { received: info.contentType || null },
    );
  }
}

function tooLarge(): ApiError {
  return new ApiError(
    "PAYLOAD_TOO_LARGE",
    `The request body is larger than the ${MAX_BODY_BYTES} bytes allowed; send a smaller body.`,
    `Bodies are limited to ${MAX_BODY_BYTES} bytes (64 KiB).`,
    { maxBytes: MAX_BODY_BYTES },
  );
}

/** Resolves with the parsed JSON value; rejects with an ApiError. */
export function readJsonBody(res: HttpResponse, info: RequestInfo, state: ResponseState): Promise<unknown> {
  const declared = Number(info.contentLength);
  if (info.contentLength !== "" && declared > MAX_BODY_BYTES) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    res.onData((chunk, isLast) => {
      if (failed || state.aborted) return;
      size += chunk.byteLength;
      if (size > MAX_BODY_BYTES) {
        failed = true;
        reject(tooLarge());
        return;
      }
      chunks.push(Buffer.from(chunk.slice(0))); // uWS reuses the chunk's memory after this callback
      if (!isLast) return;
      // Nothing may throw out of a uWS callback: it would end the process.
      try {
        resolve(parseJson(Buffer.concat(chunks, size)));
      } catch (error) {
        reject(error);
      }
    });
  });
}

function parseJson(bytes: Buffer): unknown {
  if (bytes.length === 0) {
    throw new ApiError("MALFORMED_JSON", "The request body is empty; send a JSON object.", "Expected a JSON object body, received 0 bytes.", { reason: "empty body" });
  }
  try {
    return JSON.parse(bytes.toString("utf8"));
  } catch (error) {
    const reason = (error as Error).message;
    throw new ApiError("MALFORMED_JSON", "The request body is not valid JSON; fix its syntax and retry.", `JSON.parse failed: ${reason}`, { reason });
  }
}
