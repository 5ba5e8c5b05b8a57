/**
 * Server-sent events framing (HTML Living Standard §9.2, live.md §13): one
 * event is `event: <type>`, `id: <position after it>` (when it has one) and
 * `data: <json>` lines, then a blank line. Event JSON never holds a raw line
 * break (JSON escapes them inside strings and the gateway writes no
 * whitespace), so `data` is always one line. Built once per event and shared
 * by every SSE connection that gets it.
 */

/** A comment line: keeps idle connections (and proxies) from timing out. */
export const SSE_PING = Buffer.from(": ping\n\n", "latin1");

/** What an SSE response begins with: a comment, so headers and first bytes reach the client at once. */
export const SSE_OPENING = Buffer.from(": liquidity-gateway stream\n\n", "latin1");

const DATA = Buffer.from("\ndata: ", "latin1");
const END = Buffer.from("\n\n", "latin1");

/** The bytes of one event; `id` null: no `id` line (an `error` event moves no position). */
export function sseEvent(type: string, id: string | null, json: Uint8Array): Buffer {
  const head = Buffer.from(id === null ? `event: ${type}` : `event: ${type}\nid: ${id}`, "latin1");
  return Buffer.concat([head, DATA, json, END]);
}
