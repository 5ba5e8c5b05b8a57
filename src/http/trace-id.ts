/**
 * The request's trace id (api-decisions.md §1): the client's when well-formed, else a new one.
 *
 * A new id is this thread's random prefix (128 random bits, drawn once per thread: distinct across
 * threads, processes and restarts) and a counter, e.g. `Xq3v0_h2L9cPmA1zK8dR2w-0000000001742`: unique
 * without drawing random bytes or formatting a UUID per request (issue 23). Both parts are within the id
 * alphabet `[A-Za-z0-9._-]`. The counter is written with 13 digits, so an id is 36 characters, as long as
 * a UUID (the responses keep their size); past 10^13 ids in one thread it simply grows a digit.
 */
import { randomBytes } from "node:crypto";

const TRACE_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** The thread's prefix: 16 random bytes in base64url (22 characters, no padding), then `-`. */
const PREFIX = `${randomBytes(16).toString("base64url")}-`;
const COUNTER_DIGITS = 13;
const ZEROS = "0".repeat(COUNTER_DIGITS);
let counter = 0;

/** A trace id no other request of any thread or process is given. */
export function newTraceId(): string {
  const digits = String(++counter);
  return digits.length >= COUNTER_DIGITS ? PREFIX + digits : PREFIX + ZEROS.slice(digits.length) + digits;
}

export function traceIdFor(header: string): string {
  return header.length > 0 && TRACE_ID.test(header) ? header : newTraceId();
}
