/**
 * GET /v1/stream through the gateway's life, against the real server over
 * HTTPS (uWS SSLApp, a throwaway CA): 1,000 WebSocket subscribers on two
 * threads all receive a push, with SSE subscribers alongside; a rolling
 * restart (SIGUSR2) closes the streams of each drained thread with 1001 and
 * the threads that replace them start at the published position (a stream
 * opened there gets the next push); graceful shutdown (SIGTERM) closes every
 * stream after its last event: WebSocket 1001, SSE end of response.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KEYS, standardKeys, tempDir, writeChainFile, writeKeysFile } from "../support/fixtures.js";
import { startGateway, waitFor, type Gateway } from "../support/gateway-process.js";
import { liveChain, LP, push } from "../support/live-fixture.js";
import { openSse, openWs, type WsClient, OpenClients } from "../support/stream-clients.js";
import { makeCa, makeServerCertificate, type TestCa } from "../support/tls-certificates.js";
import https from "node:https";

const SUBSCRIBERS = 1000;

let gw: Gateway;
let base: string;
let dir: string;
let ca: TestCa;
let version = 0;
const open = new OpenClients();

function httpsGet(path: string, key: string | null = KEYS.active): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    https
      .get(
        `${base}${path}`,
        { ca: ca.pem, servername: "localhost", headers: key === null ? {} : { authorization: `Bearer ${key}` } },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => (text += chunk));
          res.on("end", () => resolve({ status: res.statusCode!, body: text.startsWith("{") ? JSON.parse(text) : text }));
        },
      )
      .on("error", reject);
  });
}

async function statusOf(): Promise<{ position: string; generatedAt: number }> {
  const res = await httpsGet("/v1/status");
  return { position: res.body.data.position, generatedAt: res.body.data.chains.find((c: any) => c.chainId === 8453).generatedAt };
}

async function pushNext(): Promise<number> {
  version++;
  const file = liveChain(8453, version);
  push(dir, file);
  await waitFor("the pushed file to be served", async () => ((await statusOf()).generatedAt === file.generatedAt ? true : undefined));
  return file.generatedAt;
}

beforeAll(async () => {
  dir = tempDir("lgw-stream-life-");
  const tlsDir = tempDir("lgw-stream-tls-");
  ca = makeCa(tlsDir);
  const cert = makeServerCertificate(ca, tlsDir, "server");
  writeChainFile(dir, liveChain(8453, 0));
  gw = await startGateway({
    snapshotDir: dir,
    keysFile: writeKeysFile(standardKeys()),
    env: {
      GATEWAY_THREADS: "2",
      TLS_CERT_FILE: cert.certFile,
      TLS_KEY_FILE: cert.keyFile,
      STREAM_MAX_CONNECTIONS_PER_KEY: String(SUBSCRIBERS + 50),
    },
  });
  base = `https://127.0.0.1:${gw.port}`;
}, 60_000);

afterAll(async () => {
  open.closeAll();
  await gw?.stop();
});

describe("over HTTPS", () => {
  it(`${SUBSCRIBERS} WebSocket subscribers and SSE subscribers all receive a push`, async () => {
    const { position } = await statusOf();
    const clients: WsClient[] = [];
    for (let i = 0; i < SUBSCRIBERS; i += 50) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(50, SUBSCRIBERS - i) }, () => openWs(base, `topics=changes:8453,pool:8453:${LP.a}`, { ca: ca.pem })),
      );
      clients.push(...batch);
    }
    open.add(...clients);
    const sse = await Promise.all(Array.from({ length: 5 }, () => openSse(base, `topics=changes:8453,pool:8453:${LP.a}`, { ca: ca.pem })));
    open.add(...sse);
    for (const client of [...clients, ...sse]) expect((await client.next()).event).toMatchObject({ type: "subscribed", position });

    const generatedAt = await pushNext();
    const after = await statusOf();
    for (const client of [...clients, ...sse]) {
      const changes = (await client.next(30_000)).event;
      expect(changes).toMatchObject({ type: "changes", chainId: 8453, generatedAt, position: after.position });
      expect((await client.next(30_000)).event).toMatchObject({ type: "pool", address: LP.a, removed: false, position: after.position });
    }
    const texts = new Set(clients.map((c) => c.events[1]!.text));
    expect(texts.size).toBe(1);
    expect(sse[0]!.events[1]!.text).toBe(clients[0]!.events[1]!.text);

    for (const client of clients) client.ws.close();
    await Promise.all(clients.map((c) => c.closed));
    for (const client of sse) client.close();
    await waitFor("the streams to be closed", async () => {
      const text = (await httpsGet("/metrics", null)).body as string;
      return /gateway_streams_open\{transport="websocket"\} 0\b/.test(text) && /gateway_streams_open\{transport="sse"\} 0\b/.test(text)
        ? true
        : undefined;
    });
  }, 120_000);

  it("a rolling restart closes each drained thread's streams with 1001; the new threads start at the published position", async () => {
    const before = await Promise.all(Array.from({ length: 8 }, () => openWs(base, "topics=changes:8453", { ca: ca.pem })));
    open.add(...before);
    for (const client of before) await client.next();
    gw.process.kill("SIGUSR2");
    for (const client of before) expect((await client.closed).code).toBe(1001);
    await waitFor("the threads to be replaced", () => (gw.logs().some((l) => l.event === "threads-restarted") ? true : undefined));
    const { position } = await statusOf();
    const fresh = await Promise.all(Array.from({ length: 8 }, () => openWs(base, "topics=changes:8453", { ca: ca.pem })));
    open.add(...fresh);
    for (const client of fresh) expect((await client.next()).event).toMatchObject({ type: "subscribed", position });
    const generatedAt = await pushNext();
    for (const client of fresh) expect((await client.next(30_000)).event).toMatchObject({ type: "changes", generatedAt });
  }, 60_000);

  it("graceful shutdown closes every stream after its last event: WebSocket 1001, SSE end of response", async () => {
    const ws = await Promise.all(Array.from({ length: 4 }, () => openWs(base, "topics=changes:8453", { ca: ca.pem })));
    const sse = await Promise.all(Array.from({ length: 4 }, () => openSse(base, "topics=changes:8453", { ca: ca.pem })));
    open.add(...ws, ...sse);
    for (const client of [...ws, ...sse]) await client.next();
    const generatedAt = await pushNext();
    for (const client of [...ws, ...sse]) expect((await client.next(10_000)).event.generatedAt).toBe(generatedAt);
    const stopped = gw.stop();
    for (const client of ws) expect(await client.closed).toMatchObject({ code: 1001 });
    for (const client of sse) {
      await client.ended;
      expect(await client.rest(0)).toEqual([]);
    }
    expect(await stopped).toBe(0);
    expect(gw.logs().filter((l) => l.event === "serving-thread-fatal" || l.event === "stream-callback-failed")).toEqual([]);
  }, 60_000);
});
