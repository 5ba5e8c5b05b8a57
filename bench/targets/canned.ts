/**
 * Canned responses: the gateway's own response bytes and headers for every
 * HTTP target, captured once per run, which the bare and floor uWS servers
 * answer (the bare one verbatim, the floor one with its per-request fields
 * made afresh). Also the bench key, which the floor server looks up.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";

export interface CannedResponse {
  readonly status: number;
  /** Header name (lower case) and value, in the gateway's order; no content-length, date or connection. */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: Buffer;
}

export interface CannedTarget {
  readonly name: string;
  /** Lower case, as uWS's getMethod() reports it. */
  readonly method: string;
  readonly path: string;
  /** The request body ("" for none). */
  readonly requestBody: string;
  readonly response: CannedResponse;
}

export interface CannedKey {
  /** The bearer key itself (a throwaway bench key). */
  readonly key: string;
  readonly limit: number;
  readonly windowSeconds: number;
}

export interface CannedSet {
  readonly targets: readonly CannedTarget[];
  readonly keys: readonly CannedKey[];
}

interface StoredResponse {
  status: number;
  headers: Array<[string, string]>;
  bodyBase64: string;
}

/** Headers the transport writes itself; they are not replayed. */
const TRANSPORT_HEADERS = new Set(["content-length", "date", "connection", "keep-alive", "transfer-encoding", "uwebsockets"]);

/** Captures a fetch response (status, replayable headers, body bytes). */
/**
 * A request's answer exactly as the server sent it: the body's bytes as they came (a compressed body stays
 * compressed) and no header the request did not ask for (unlike fetch, which adds Accept-Encoding and decodes).
 */
export function capture(
  baseUrl: string,
  request: { method: string; path: string; headers: Record<string, string>; body?: string },
): Promise<CannedResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(baseUrl + request.path, { method: request.method, headers: request.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const headers: Array<[string, string]> = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          const name = res.rawHeaders[i].toLowerCase();
          if (!TRANSPORT_HEADERS.has(name)) headers.push([name, res.rawHeaders[i + 1]]);
        }
        resolve({ status: res.statusCode!, headers, body: Buffer.concat(chunks) });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(request.body);
  });
}

export function writeCanned(file: string, set: CannedSet): void {
  const store = (r: CannedResponse): StoredResponse => ({
    status: r.status,
    headers: r.headers.map(([n, v]) => [n, v]),
    bodyBase64: r.body.toString("base64"),
  });
  const json = { targets: set.targets.map((t) => ({ ...t, response: store(t.response) })), keys: set.keys };
  writeFileSync(file, JSON.stringify(json), { mode: 0o600 });
}

export function readCanned(file: string): CannedSet {
  const json = JSON.parse(readFileSync(file, "utf8")) as {
    targets: Array<Omit<CannedTarget, "response"> & { response: StoredResponse }>;
    keys: CannedKey[];
  };
  const load = (r: StoredResponse): CannedResponse => ({ status: r.status, headers: r.headers, body: Buffer.from(r.bodyBase64, "base64") });
  return { targets: json.targets.map((t) => ({ ...t, response: load(t.response) })), keys: json.keys };
}

/**
 * Finds the canned target of a request: by method and path, then, when
 * several targets share them (POST /v1/tokens with different bodies), by the
 * request body's bytes.
 */
export class CannedIndex {
  private readonly byRoute = new Map<string, Array<{ body: Buffer; target: CannedTarget }>>();

  constructor(targets: readonly CannedTarget[]) {
    for (const target of targets) {
      const key = `${target.method} ${target.path}`;
      const list = this.byRoute.get(key) ?? [];
      list.push({ body: Buffer.from(target.requestBody, "utf8"), target });
      this.byRoute.set(key, list);
    }
  }

  /** Whether the route has a body to tell targets apart (the caller then reads the body first). */
  needsBody(method: string, path: string): boolean {
    return (this.byRoute.get(`${method} ${path}`)?.length ?? 0) > 1;
  }

  /** The target of method + path (+ body when the route needs one); undefined when none matches. */
  find(method: string, path: string, body: Uint8Array | null): CannedTarget | undefined {
    const list = this.byRoute.get(`${method} ${path}`);
    if (list === undefined) return undefined;
    if (list.length === 1) return list[0].target;
    if (body === null) return undefined;
    for (const entry of list) if (entry.body.equals(body)) return entry.target;
    return undefined;
  }
}

/** `200 OK`-style status line for uWS. */
export function statusLine(status: number): string {
  return status === 200 ? "200 OK" : String(status);
}
