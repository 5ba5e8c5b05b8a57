/**
 * Redirects of an origin request (fleet.md §18): at most 3 followed, never from https to http nor to a scheme
 * other than HTTP(S), and the request's credentials (Basic or a SigV4 signature) sent only to the origin they
 * were made for. Two real loopback servers: one redirects, the other (another port, so another origin) answers.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExchangeError, HttpExchange, MAX_REDIRECTS, redirectTarget } from "../../../src/origin/http-exchange.js";

interface Seen {
  readonly path: string;
  readonly authorization: string | undefined;
}

function server(
  answer: (req: http.IncomingMessage, res: http.ServerResponse) => void,
): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const s = http.createServer((req, res) => {
    seen.push({ path: req.url ?? "", authorization: req.headers.authorization });
    answer(req, res);
  });
  return new Promise((resolve) =>
    s.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`,
        seen,
        close: () => new Promise<void>((done) => s.close(() => done())),
      }),
    ),
  );
}

let other: Awaited<ReturnType<typeof server>>;
let origin: Awaited<ReturnType<typeof server>>;
const exchange = new HttpExchange({ timeoutMs: 2000 });

beforeAll(async () => {
  other = await server((_req, res) => res.end("elsewhere"));
  origin = await server((req, res) => {
    const path = req.url ?? "/";
    if (path === "/away") res.writeHead(302, { location: `${other.url}/object` }).end();
    else if (path === "/here") res.writeHead(301, { location: "/object" }).end();
    else if (path.startsWith("/loop")) res.writeHead(302, { location: `/loop${path.length}` }).end();
    else if (path === "/ftp") res.writeHead(302, { location: "ftp://127.0.0.1/object" }).end();
    else res.end("here");
  });
});

afterAll(async () => {
  exchange.close();
  await origin.close();
  await other.close();
});

const auth = (url: URL) => ({ authorization: `signed for ${url.host}` });
const text = async (body: NodeJS.ReadableStream) => {
  let s = "";
  for await (const c of body) s += String(c);
  return s;
};

describe("HttpExchange redirects", () => {
  it("sends the credentials again on a redirect within the origin", async () => {
    const res = await exchange.request({ method: "GET", url: new URL(`${origin.url}/here`), auth });
    expect(await text(res.body)).toBe("here");
    const host = new URL(origin.url).host;
    expect(origin.seen.slice(-2)).toEqual([
      { path: "/here", authorization: `signed for ${host}` },
      { path: "/object", authorization: `signed for ${host}` },
    ]);
  });

  it("never sends them to another host", async () => {
    const res = await exchange.request({ method: "GET", url: new URL(`${origin.url}/away`), auth });
    expect(await text(res.body)).toBe("elsewhere");
    expect(res.url.href).toBe(`${other.url}/object`);
    expect(other.seen.at(-1)).toEqual({ path: "/object", authorization: undefined });
  });

  it(`follows at most ${MAX_REDIRECTS} redirects`, async () => {
    const before = origin.seen.length;
    const error = await exchange.request({ method: "GET", url: new URL(`${origin.url}/loop`) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExchangeError);
    expect(error).toMatchObject({ code: "too-many-redirects" });
    expect(origin.seen.length - before).toBe(MAX_REDIRECTS + 1);
  });

  it("refuses a scheme other than HTTP(S)", async () => {
    await expect(exchange.request({ method: "GET", url: new URL(`${origin.url}/ftp`) })).rejects.toMatchObject({
      code: "insecure-redirect",
    });
  });
});

describe("redirectTarget", () => {
  const from = new URL("https://origin.example/prod/manifest.json");
  it("never goes from https to http, even to the same host", () => {
    expect(() => redirectTarget(from, "http://origin.example/prod/manifest.json", 0)).toThrow(/from https to http/);
  });
  it("keeps the credentials only for the same scheme, host and port, and drops user info from the Location", () => {
    expect(redirectTarget(from, "/other/manifest.json", 0).sameOrigin).toBe(true);
    expect(redirectTarget(from, "https://origin.example:8443/x", 0).sameOrigin).toBe(false);
    expect(redirectTarget(from, "https://cdn.example/x", 0).sameOrigin).toBe(false);
    const target = redirectTarget(from, "https://user:secret@origin.example/x", 0);
    expect(target.url.href).toBe("https://origin.example/x");
  });
  it("needs a Location, and a valid one", () => {
    expect(() => redirectTarget(from, undefined, 0)).toThrow(/without a Location/);
    expect(() => redirectTarget(from, "https://[nope", 0)).toThrow(/invalid Location/);
  });
});
