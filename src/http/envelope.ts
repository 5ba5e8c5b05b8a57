/**
 * The success and error envelopes of api-decisions.md §1, keys in order.
 * Success bodies are assembled from a prefix and pre-encoded `data` bytes;
 * error bodies can always be built: echoed values are bounded, and a static
 * 500 body is the last resort.
 */
import type { ErrorBody, ErrorEnvelope } from "../api/wire.js";
import { boundedEcho } from "./bounded-echo.js";
import type { ApiError } from "../api/errors.js";

/** The clock of the envelopes' `timestamp`, formatted at most once per millisecond. */
export class IsoClock {
  private ms = -1;
  private text = "";

  now(): string {
    const now = Date.now();
    if (now !== this.ms) {
      this.ms = now;
      this.text = new Date(now).toISOString();
    }
    return this.text;
  }
}

/** What an envelope echoes of its request. */
export interface EnvelopeRequest {
  readonly path: string;
  readonly traceId: string;
}

/**
 * `{"statusCode":200,…,"data":` — the caller appends the data JSON and `}`.
 * A trace id is always 1-128 characters of `[A-Za-z0-9._-]` (trace-id.ts), which JSON writes as they are.
 */
export function successPrefix(request: EnvelopeRequest, timestamp: string): string {
  const path = request.path;
  // JSON.stringify of printable ASCII without `"` or `\` (every usual path) is the text in quotes; the test is cheaper.
  const json = PLAIN_JSON_TEXT.test(path) ? `"${path}"` : JSON.stringify(path);
  return `{"statusCode":200,"timestamp":"${timestamp}","path":${json},"traceId":"${request.traceId}","data":`;
}

const PLAIN_JSON_TEXT = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** The usual error object of an ApiError (the envelope's `error`, a stream's `error` event), its echoes bounded. */
export function errorObject(error: ApiError): ErrorBody {
  const metadata: Record<string, unknown> = {};
  for (const name in error.metadata) metadata[name] = boundedEcho(error.metadata[name]);
  return { code: error.code, title: error.title, message: error.message, details: error.details, metadata };
}

/** The error envelope; never throws (see STATIC_500_BODY for what is sent when even this fails). */
export function errorBody(request: EnvelopeRequest, error: ApiError, timestamp: string): string {
  try {
    const body: ErrorEnvelope = {
      statusCode: error.status,
      timestamp,
      path: request.path,
      traceId: request.traceId,
      error: errorObject(error),
    };
    return JSON.stringify(body);
  } catch {
    return STATIC_500_BODY;
  }
}

/** The last resort when an error body cannot be built: a fixed 500 envelope. */
export const STATIC_500_BODY = JSON.stringify({
  statusCode: 500,
  timestamp: "1970-01-01T00:00:00.000Z",
  path: "",
  traceId: "",
  error: {
    code: "UNKNOWN_ERROR",
    title: "Unknown Error",
    message: "The gateway failed to answer this request; retry, and contact the operator if it persists.",
    details: "The error response could not be built.",
    metadata: {},
  },
} satisfies ErrorEnvelope);
