/** The request's trace id (api-decisions.md §1): the client's when well-formed, else a new one. */
import { randomUUID } from "node:crypto";

const TRACE_ID = /^[A-Za-z0-9._-]{1,128}$/;

export function traceIdFor(header: string): string {
  return header.length > 0 && TRACE_ID.test(header) ? header : randomUUID();
}
