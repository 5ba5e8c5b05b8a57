/**
 * The success and error envelopes of api-decisions.md §1, keys in order.
 * Success bodies are assembled from a prefix and pre-encoded `data` bytes.
 */
import type { ErrorEnvelope } from "../api/wire.js";
import type { ApiError } from "./errors.js";
import type { RequestInfo } from "./request-info.js";

let isoMs = -1;
let isoText = "";

/** The current time as ISO 8601 UTC, formatted once per millisecond. */
export function isoNow(): string {
  const now = Date.now();
  if (now !== isoMs) {
    isoMs = now;
    isoText = new Date(now).toISOString();
  }
  return isoText;
}

/** `{"statusCode":200,…,"data":` — the caller appends the data JSON and `}`. */
export function successPrefix(info: RequestInfo): string {
  return `{"statusCode":200,"timestamp":"${isoNow()}","path":${JSON.stringify(info.path)},"traceId":${JSON.stringify(info.traceId)},"data":`;
}

export function errorBody(info: RequestInfo, error: ApiError): string {
  const body: ErrorEnvelope = {
    statusCode: error.status,
    timestamp: isoNow(),
    path: info.path,
    traceId: info.traceId,
    error: { code: error.code, title: error.title, message: error.message, details: error.details, metadata: error.metadata },
  };
  return JSON.stringify(body);
}
