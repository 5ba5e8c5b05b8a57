/**
 * Canned responses: the gateway's own response bytes and headers, captured
 * once, that the bare uWS and fastify servers answer verbatim (no logic).
 */
import { readFileSync, writeFileSync } from "node:fs";

export interface CannedResponse {
  readonly status: number;
  /** Header name (lower case) and value, in the gateway's order; no content-length, date or connection. */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: Buffer;
}

export interface CannedSet {
  /** GET responses by request path (`/v1/pools/8453/0x...`). */
  readonly pools: ReadonlyMap<string, CannedResponse>;
  /** The answer to every POST /v1/tokens (the default page). */
  readonly tokens: CannedResponse;
}

interface StoredResponse {
  status: number;
  headers: Array<[string, string]>;
  bodyBase64: string;
}

/** Headers the transport writes itself; they are not replayed. */
const TRANSPORT_HEADERS = new Set(["content-length", "date", "connection", "keep-alive", "transfer-encoding", "uwebsockets"]);

/** Captures a fetch response (status, replayable headers, body bytes). */
export async function capture(response: Response): Promise<CannedResponse> {
  const body = Buffer.from(await response.arrayBuffer());
  const headers: Array<[string, string]> = [];
  response.headers.forEach((value, name) => {
    if (!TRANSPORT_HEADERS.has(name.toLowerCase())) headers.push([name.toLowerCase(), value]);
  });
  return { status: response.status, headers, body };
}

export function writeCanned(file: string, set: CannedSet): void {
  const store = (r: CannedResponse): StoredResponse => ({ status: r.status, headers: r.headers.map(([n, v]) => [n, v]), bodyBase64: r.body.toString("base64") });
  const json = { pools: Object.fromEntries([...set.pools].map(([path, r]) => [path, store(r)])), tokens: store(set.tokens) };
  writeFileSync(file, JSON.stringify(json));
}

export function readCanned(file: string): CannedSet {
  const json = JSON.parse(readFileSync(file, "utf8")) as { pools: Record<string, StoredResponse>; tokens: StoredResponse };
  const load = (r: StoredResponse): CannedResponse => ({ status: r.status, headers: r.headers, body: Buffer.from(r.bodyBase64, "base64") });
  return { pools: new Map(Object.entries(json.pools).map(([path, r]) => [path, load(r)])), tokens: load(json.tokens) };
}

/** `200 OK`-style status line for uWS. */
export function statusLine(status: number): string {
  return status === 200 ? "200 OK" : String(status);
}
