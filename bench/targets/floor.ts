/**
 * The "floor": the work any gateway must do per request, and nothing else
 * (issue 14). Per request it reads the bearer header, looks the key up in a
 * Map, bumps the key's shared counter with Atomics (a SharedArrayBuffer, as
 * a quota shared by serving threads needs), makes a random UUID trace id,
 * takes an ISO timestamp (formatted at most once per millisecond), writes the
 * gateway's status line and headers with the per-request values made afresh
 * (trace id, remaining quota, reset) and the gateway's body: the envelope
 * prefix with timestamp, path and trace id, then the captured `data` bytes.
 *
 * `FloorResponder` holds what is prepared once per target; `respond` is the
 * per-request part.
 */
import { randomUUID } from "node:crypto";
import type { CannedKey, CannedTarget } from "./canned.js";
import { statusLine } from "./canned.js";
import type { HttpResponse } from "../../src/http/uws.js";

/** How the floor makes each header value: kept as captured, or made per request. */
export type FloorHeaderValue = "captured" | "trace-id" | "remaining" | "reset" | "ietf-ratelimit";

/** Headers whose value the gateway makes per request; any other header is written as captured. */
export const PER_REQUEST_HEADERS: Readonly<Record<string, FloorHeaderValue>> = {
  "x-trace-id": "trace-id",
  "ratelimit-remaining": "remaining",
  "ratelimit-reset": "reset",
  // The IETF draft's single field (`"default";r=N;t=S`), should the gateway move to it.
  ratelimit: "ietf-ratelimit",
};

const DATA_KEY = Buffer.from(',"data":');

/**
 * The captured body after the envelope's `"data":` key, closing brace included
 * (the part that is the same for every request), or null when the body is not a success envelope
 * (then the floor answers it verbatim).
 */
export function dataTail(body: Buffer): Buffer | null {
  if (!body.subarray(0, 16).toString("latin1").startsWith('{"statusCode":')) return null;
  const at = body.indexOf(DATA_KEY);
  return at < 0 ? null : body.subarray(at + DATA_KEY.length);
}

/** The success envelope's prefix, keys in the gateway's order (api-decisions.md §1). */
export function envelopePrefix(status: number, timestamp: string, path: string, traceId: string): string {
  return `{"statusCode":${status},"timestamp":"${timestamp}","path":${JSON.stringify(path)},"traceId":"${traceId}","data":`;
}

export interface FloorKey {
  readonly limit: number;
  readonly windowSeconds: number;
  /** Index of its counter in the shared Int32Array. */
  readonly slot: number;
}

export class FloorResponder {
  private readonly status: string;
  private readonly headers: ReadonlyArray<readonly [string, FloorHeaderValue, string]>;
  private readonly tail: Buffer | null;
  private readonly verbatim: Buffer;

  constructor(readonly target: CannedTarget) {
    const r = target.response;
    this.status = statusLine(r.status);
    this.headers = r.headers.map(([name, value]) => [name, PER_REQUEST_HEADERS[name] ?? "captured", value] as const);
    this.tail = dataTail(r.body);
    this.verbatim = r.body;
  }

  /** The per-request work; `scratch` is the thread's reusable body buffer (grown when too small). */
  respond(res: HttpResponse, key: FloorKey, counters: Int32Array, clock: IsoClock, path: string, scratch: { buffer: Buffer }): void {
    const used = Atomics.add(counters, key.slot, 1) + 1;
    const remaining = key.limit > used ? key.limit - used : 0;
    const traceId = randomUUID();
    const timestamp = clock.now();
    const reset = key.windowSeconds - (Math.floor(clock.ms / 1000) % key.windowSeconds);
    let body: Buffer = this.verbatim;
    if (this.tail !== null) {
      const prefix = envelopePrefix(this.target.response.status, timestamp, path, traceId);
      const size = Buffer.byteLength(prefix) + this.tail.length;
      if (size > scratch.buffer.length) scratch.buffer = Buffer.allocUnsafe(Math.max(size, scratch.buffer.length * 2));
      let at = scratch.buffer.write(prefix, 0);
      at += this.tail.copy(scratch.buffer, at);
      body = scratch.buffer.subarray(0, at);
    }
    res.cork(() => {
      res.writeStatus(this.status);
      for (const [name, kind, captured] of this.headers) {
        if (kind === "captured") res.writeHeader(name, captured);
        else if (kind === "trace-id") res.writeHeader(name, traceId);
        else if (kind === "remaining") res.writeHeader(name, String(remaining));
        else if (kind === "reset") res.writeHeader(name, String(reset));
        else res.writeHeader(name, `"default";r=${remaining};t=${reset}`);
      }
      res.end(body);
    });
  }
}

/** ISO 8601 time, formatted at most once per millisecond (per thread). */
export class IsoClock {
  ms = -1;
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

/** The Map the floor looks bearer keys up in (key text → limit, window, counter slot). */
export function floorKeys(keys: readonly CannedKey[]): Map<string, FloorKey> {
  return new Map(keys.map((k, slot) => [k.key, { limit: k.limit, windowSeconds: k.windowSeconds, slot }]));
}
