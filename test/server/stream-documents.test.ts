/**
 * The documents of GET /v1/stream against the real server: the AsyncAPI 3.0
 * document served at /v1/asyncapi.json (checked by the independent parser
 * @asyncapi/parser, every event type the server sends documented, and the
 * events a real stream sends, over WebSocket and SSE, valid against their
 * message's schema), and the stream's operation in the OpenAPI document
 * (its query and header parameters, the SSE 200, the 101 of an upgrade and
 * the refusals, each checked against live answers).
 */
import { Parser } from "@asyncapi/parser";
import { Ajv2020 } from "ajv/dist/2020.js";
import ajvFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERROR_CATALOGUE, type ErrorCode } from "../../src/api/errors.js";
import { encodePosition } from "../../src/query/positions.js";
import { STREAM_EVENT_TYPES } from "../../src/stream/stream-events.js";
import { KEYS, standardKeys, tempDir, writeChainFile, writeKeysFile } from "../support/fixtures.js";
import { request, startGateway, waitFor, type Gateway } from "../support/gateway-process.js";
import { liveChain, LP, LT, push } from "../support/live-fixture.js";
import { answerOf, RawConnection } from "../support/raw-http.js";
import { openSse, openWs, refusedSse, refusedWs, type StreamEvent, OpenClients } from "../support/stream-clients.js";
import { handshakeRequest } from "../../bench/shared/ws-frames.js";

type Json = Record<string, any>;

let gw: Gateway;
let base: string;
let dir: string;
let served: Awaited<ReturnType<typeof request>>;
let asyncapi: Json;
let openapi: Json;
let ajv: Ajv2020;
const open = new OpenClients();

const ASYNCAPI_ID = "https://gateway.test/asyncapi.json";
const OPENAPI_ID = "https://gateway.test/openapi.json";

/** A schema of a document, its local refs resolved inside the document registered under `id`. */
function anchored(schema: unknown, id: string): unknown {
  return JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, `"${id}#/components/`));
}

function errorsOf(schema: unknown, id: string, value: unknown): string | null {
  const validate = ajv.compile(anchored(schema, id) as object);
  return validate(value) ? null : ajv.errorsText(validate.errors);
}

/** The AsyncAPI message a server event's `type` names, through the operation that sends it on `channel`. */
function messageOf(channel: "websocket" | "sse", type: string): Json {
  const operation = Object.values<Json>(asyncapi.operations).find(
    (o) => o.action === "send" && o.channel.$ref === `#/channels/${channel}`,
  )!;
  const refs: string[] = operation.messages.map((m: Json) => m.$ref);
  expect(refs, `${channel} sends ${type}`).toContain(`#/channels/${channel}/messages/${type}`);
  const channelRef: string = asyncapi.channels[channel].messages[type].$ref;
  return asyncapi.components.messages[channelRef.slice("#/components/messages/".length)];
}

/** Every event received is valid against the payload of its type's message (and that message exists). */
function expectDocumented(channel: "websocket" | "sse", events: readonly StreamEvent[]): void {
  for (const e of events) {
    const message = messageOf(channel, e.event.type);
    expect(errorsOf(message.payload, ASYNCAPI_ID, e.event), `${channel} ${e.text.slice(0, 300)}`).toBeNull();
    if (e.sseType !== undefined) expect(e.sseType).toBe(message.name);
  }
}

beforeAll(async () => {
  dir = tempDir("lgw-stream-docs-");
  writeChainFile(dir, liveChain(8453, 0));
  writeChainFile(dir, liveChain(1, 0));
  gw = await startGateway({ snapshotDir: dir, keysFile: writeKeysFile(standardKeys()), env: { GATEWAY_THREADS: "2" } });
  base = gw.baseUrl;
  served = await request(base, "/v1/asyncapi.json", { key: null });
  asyncapi = served.body;
  openapi = (await request(base, "/v1/openapi.json", { key: null })).body;
  ajv = new Ajv2020({ allErrors: true, strict: false });
  ajvFormats.default(ajv);
  ajv.addSchema({ $id: ASYNCAPI_ID, components: asyncapi.components });
  ajv.addSchema({ $id: OPENAPI_ID, components: openapi.components });
});

afterAll(async () => {
  open.closeAll();
  await gw?.stop();
});

describe("GET /v1/asyncapi.json", () => {
  it("is served without a key, as JSON, an AsyncAPI 3.0 document", () => {
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toMatch(/^application\/json\b/);
    expect(asyncapi.asyncapi).toBe("3.0.0");
  });

  it("is the same document on every serving thread and with a key", async () => {
    for (let i = 0; i < 4; i++) {
      const again = await request(base, "/v1/asyncapi.json", { key: i % 2 === 0 ? null : KEYS.active });
      expect(again.status).toBe(200);
      expect(again.text).toBe(served.text);
    }
  });

  it("passes the independent parser @asyncapi/parser with no error", async () => {
    const { document, diagnostics } = await new Parser().parse(served.text);
    const errors = diagnostics.filter((d) => d.severity === 0);
    expect(errors.map((d) => `${d.code} ${d.message} at ${d.path.join(".")}`)).toEqual([]);
    expect(document).toBeDefined();
    // Warnings and hints are allowed; they are printed so that they are seen.
    for (const d of diagnostics) console.info(`@asyncapi/parser severity ${d.severity}: ${d.code} ${d.message} at ${d.path.join(".")}`);
    // The parsed model sees every event type and the client message on the WebSocket channel.
    const channel = document!.channels().get("websocket")!;
    expect(channel.address()).toBe("/v1/stream");
    const names = channel
      .messages()
      .all()
      .map((m) => m.name());
    expect(names.sort()).toEqual([...STREAM_EVENT_TYPES, "clientMessage"].sort());
    expect(document!.channels().get("sse")!.address()).toBe("/v1/stream");
  });

  it("documents every event type the server sends, each payload the event's wire type (its `type` a constant)", () => {
    for (const type of STREAM_EVENT_TYPES) {
      const message = messageOf("websocket", type);
      const payload = asyncapi.components.schemas[message.payload.$ref.slice("#/components/schemas/".length)];
      expect(payload.properties.type, type).toEqual({ const: type });
      expect(payload.required, type).toContain("type");
      if (type !== "error") messageOf("sse", type);
    }
    // SSE carries no `error` event (a client message is WebSocket only).
    expect(Object.keys(asyncapi.channels.sse.messages)).not.toContain("error");
  });

  it("documents the client messages: subscribe and unsubscribe, closed to unknown properties", () => {
    const receive = Object.values<Json>(asyncapi.operations).filter((o) => o.action === "receive");
    expect(receive).toHaveLength(1);
    expect(receive[0].channel.$ref).toBe("#/channels/websocket");
    const message = asyncapi.components.messages.clientMessage;
    for (const example of message.examples) expect(errorsOf(message.payload, ASYNCAPI_ID, example.payload)).toBeNull();
    expect(message.examples.map((e: Json) => e.payload.op).sort()).toEqual(["subscribe", "unsubscribe"]);
    expect(errorsOf(message.payload, ASYNCAPI_ID, { op: "subscribe", topics: ["changes"], extra: 1 })).not.toBeNull();
    expect(errorsOf(message.payload, ASYNCAPI_ID, { op: "resubscribe", topics: ["changes"] })).not.toBeNull();
  });

  it("documents the query (topics, since) in the WebSocket and the HTTP bindings, and the bearer key", () => {
    const wsQuery = asyncapi.channels.websocket.bindings.ws.query;
    const httpQuery = asyncapi.operations.sendServerSentEvents.bindings.http.query;
    for (const query of [wsQuery, httpQuery]) {
      expect(Object.keys(query.properties).sort()).toEqual(["since", "topics"]);
      expect(query.properties.topics.type).toBe("array");
      expect(query.properties.since.type).toBe("string");
      expect(query.required ?? []).toEqual([]);
      expect(query.additionalProperties).toBe(false);
    }
    for (const server of Object.values<Json>(asyncapi.servers)) {
      expect(server.security).toEqual([{ $ref: "#/components/securitySchemes/bearerAuth" }]);
    }
    expect(asyncapi.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
  });

  it("documents the WebSocket handshake's headers in the ws binding, and its refusals (400, 426)", () => {
    const headers = asyncapi.channels.websocket.bindings.ws.headers;
    expect(headers.type).toBe("object");
    expect(Object.keys(headers.properties).sort()).toEqual(["Connection", "Sec-WebSocket-Key", "Sec-WebSocket-Version", "Upgrade"]);
    expect(headers.properties["Sec-WebSocket-Version"].const).toBe("13");
    expect(headers.properties["Sec-WebSocket-Key"].pattern).toBe("^[A-Za-z0-9+/]{22}==$");
    for (const code of ["INVALID_WEBSOCKET_HANDSHAKE", "UNSUPPORTED_WEBSOCKET_VERSION", "426"])
      expect(asyncapi.info.description).toContain(code);
  });

  it("lists the close codes: going away, bad messages, slow consumer, revoked key", () => {
    const text: string = asyncapi.channels.websocket.description;
    for (const code of ["1001", "1008", "4008", "4401", "4403"]) expect(text).toContain(`\`${code}\``);
    expect(text).toContain("`slow-consumer`");
  });

  it("the events of a real stream are valid against their messages (WebSocket: every event type; SSE: all but error)", async () => {
    const ws = await openWs(base, `topics=changes:8453,pool:8453:${LP.a},token:8453:${LT.x}`);
    const sse = await openSse(base, `topics=changes:8453,pool:8453:${LP.a},token:8453:${LT.x}`);
    open.add(ws, sse);
    await ws.next();
    await sse.next();
    const next = liveChain(8453, 1);
    push(dir, next);
    await waitFor("the pushed file to be served", async () => {
      const res = await request(base, "/v1/status");
      return res.body?.data?.chains?.find((c: any) => c.chainId === 8453)?.generatedAt === next.generatedAt ? true : undefined;
    });
    await ws.until((e) => e.type === "token");
    await sse.until((e) => e.type === "token");
    ws.send({ op: "subscribe", topics: ["changes:1"] });
    ws.send({ op: "subscribe", topics: ["nonsense"] });
    ws.send("not json");
    await ws.until((e) => e.type === "error");
    await ws.until((e) => e.type === "error");
    const stale = encodePosition(new Map([[8453, "1000.0123456789ab"]]));
    const replay = await openWs(base, `topics=changes:8453,pool:8453:${LP.c}&since=${stale}`);
    const replaySse = await openSse(base, `topics=changes:8453,pool:8453:${LP.c}&since=${stale}`);
    open.add(replay, replaySse);
    await replay.until((e) => e.type === "pool");
    await replaySse.until((e) => e.type === "pool");

    const wsEvents = [...ws.events, ...replay.events];
    const sseEvents = [...sse.events, ...replaySse.events];
    expect(new Set(wsEvents.map((e) => e.event.type))).toEqual(new Set(STREAM_EVENT_TYPES));
    expect(new Set(sseEvents.map((e) => e.event.type))).toEqual(new Set(STREAM_EVENT_TYPES.filter((t) => t !== "error")));
    expectDocumented("websocket", wsEvents);
    expectDocumented("sse", sseEvents);

    // The schemas are not vacuous: a real event with a field missing or mistyped fails its message.
    const changes = wsEvents.find((e) => e.event.type === "changes")!.event;
    const schema = messageOf("websocket", "changes").payload;
    expect(errorsOf(schema, ASYNCAPI_ID, { ...changes, position: undefined })).not.toBeNull();
    expect(errorsOf(schema, ASYNCAPI_ID, { ...changes, pools: { upserted: "all" } })).not.toBeNull();
    const poolEvent = wsEvents.find((e) => e.event.type === "pool")!.event;
    expect(errorsOf(messageOf("websocket", "pool").payload, ASYNCAPI_ID, { ...poolEvent, pool: { address: 1 } })).not.toBeNull();
  });
});

describe("GET /v1/stream in the OpenAPI document", () => {
  const operation = (): Json => openapi.paths["/v1/stream"].get;
  const parameter = (name: string): Json => operation().parameters.find((p: Json) => p.name === name);

  it("has the query parameters topics and since (from StreamQuery) and the headers Last-Event-ID and Upgrade", () => {
    expect(parameter("topics")).toMatchObject({ in: "query", required: false, schema: { type: "array", items: { type: "string" } } });
    expect(parameter("since")).toMatchObject({ in: "query", required: false, schema: { type: "string" } });
    expect(parameter("Last-Event-ID")).toMatchObject({ in: "header", required: false, schema: { type: "string" } });
    expect(parameter("Upgrade")).toMatchObject({ in: "header", required: false, example: "websocket" });
    for (const name of ["topics", "since", "Last-Event-ID", "Upgrade"]) expect(parameter(name).description, name).toBeTruthy();
    // A stream has no validator: no If-None-Match, no 304.
    expect(operation().parameters.map((p: Json) => p.$ref)).not.toContain("#/components/parameters/IfNoneMatch");
    expect(operation().responses["304"]).toBeUndefined();
  });

  it("the parameter examples open a stream", async () => {
    const topics: string[] = parameter("topics").example;
    const sse = await openSse(base, `topics=${topics.join(",")}`);
    open.add(sse);
    expect((await sse.next()).event).toMatchObject({ type: "subscribed", topics });
  });

  it("the 200 is text/event-stream with the headers the server sends", async () => {
    const ok = operation().responses["200"];
    expect(Object.keys(ok.content)).toEqual(["text/event-stream"]);
    const sse = await openSse(base, "topics=changes");
    open.add(sse);
    expect(sse.status).toBe(200);
    for (const [name, header] of Object.entries<Json>(ok.headers)) {
      const value = sse.headers[name.toLowerCase()];
      if (header.required) expect(value, `200 header ${name}`).toBeDefined();
      if (value === undefined) continue;
      const number = Number(value);
      const typed = header.schema.type === "integer" && Number.isFinite(number) ? number : value;
      expect(errorsOf(header.schema, OPENAPI_ID, typed), `200 header ${name}: ${value}`).toBeNull();
    }
    expect(sse.headers["cache-control"]).toBe("no-store");
    expect(sse.headers["x-accel-buffering"]).toBe("no");
    expect(ok.headers.ETag).toBeUndefined();
  });

  it("the 101 of a WebSocket upgrade is documented, with the headers the server sends", async () => {
    const upgrade = operation().responses["101"];
    expect(upgrade.description).toMatch(/WebSocket/);
    expect(upgrade.description).toContain("/v1/asyncapi.json");
    expect(upgrade.content).toBeUndefined();
    const ws = await openWs(base, "topics=changes");
    open.add(ws);
    for (const [name, header] of Object.entries<Json>(upgrade.headers)) {
      const value = ws.upgradeHeaders[name.toLowerCase()];
      if (header.required) expect(value, `101 header ${name}`).toBeDefined();
      const typed = header.schema.type === "integer" ? Number(value) : value;
      expect(errorsOf(header.schema, OPENAPI_ID, typed), `101 header ${name}`).toBeNull();
    }
  });

  it("every refusal (as plain HTTP, SSE and WebSocket alike) is a documented error of the operation", async () => {
    const stale = "%%%";
    const cases: Array<[string, string, string | null, Record<string, string>, number, ErrorCode]> = [
      ["no key", "topics=changes", null, {}, 401, "API_KEY_MISSING"],
      ["unknown key", "topics=changes", "lgw_test_nobody_0123456789abcdef", {}, 401, "API_KEY_NOT_FOUND"],
      ["disabled key", "topics=changes", KEYS.disabled, {}, 403, "API_KEY_DISABLED"],
      ["key without the stream group", "topics=changes", KEYS.poolsOnly, {}, 403, "API_KEY_FORBIDDEN"],
      ["chain the key may not read", "topics=changes:8453", KEYS.chain1Only, {}, 403, "API_KEY_FORBIDDEN"],
      ["malformed topic", "topics=pools", KEYS.active, {}, 400, "VALIDATION_ERROR"],
      ["unknown parameter", "topics=changes&limit=3", KEYS.active, {}, 400, "VALIDATION_ERROR"],
      ["unsupported chain", "topics=changes:7", KEYS.active, {}, 400, "UNSUPPORTED_CHAIN_ID"],
      ["malformed position", `topics=changes&since=${stale}`, KEYS.active, {}, 400, "INVALID_POSITION"],
    ];
    const documented = operation().responses;
    for (const [what, query, key, headers, status, code] of cases) {
      const response = documented[String(status)];
      expect(response, `${what}: ${status} documented`).toBeDefined();
      expect(response.headers["x-error-code"].schema.enum, what).toContain(code);
      for (const refusal of [await refusedSse(base, query, { key, headers }), await refusedWs(base, query, { key, headers })]) {
        expect(refusal.status, what).toBe(status);
        expect(refusal.body.error.code, what).toBe(code);
        expect(errorsOf(response.content["application/json"].schema, OPENAPI_ID, refusal.body), what).toBeNull();
      }
    }
    // The handshake's refusals, before the key: 400 and 426 with the headers naming the version to retry with.
    for (const [changes, status, code] of [
      [{ "Sec-WebSocket-Key": "!!!!!!!!!!!!!!!!!!!!!!==" }, 400, "INVALID_WEBSOCKET_HANDSHAKE"],
      [{ "Sec-WebSocket-Version": "8" }, 426, "UNSUPPORTED_WEBSOCKET_VERSION"],
    ] as const) {
      const response = documented[String(status)];
      expect(response.headers["x-error-code"].schema.enum).toContain(code);
      const connection = await RawConnection.open(gw.port, handshakeRequest("/v1/stream?topics=changes", changes).bytes);
      const got = answerOf(await connection.until("the refusal", (d) => answerOf(d) !== null))!;
      connection.destroy();
      expect(got.status).toBe(status);
      expect(got.body.error.code).toBe(code);
      expect(errorsOf(response.content["application/json"].schema, OPENAPI_ID, got.body), code).toBeNull();
      for (const [name, header] of Object.entries<Json>(response.headers)) {
        const value = got.header(name);
        if (header.required) expect(value, `${status} header ${name}`).toBeDefined();
        if (value !== undefined && name !== "x-error-code")
          expect(
            errorsOf(header.schema, OPENAPI_ID, header.schema.type === "integer" ? Number(value) : value),
            `${status} ${name}`,
          ).toBeNull();
      }
    }
    expect(documented["426"].headers.Upgrade.required).toBe(true);
    expect(documented["426"].headers["Sec-WebSocket-Version"].schema.const).toBe("13");
    // Neither transport asked for: 406.
    const plain = await request(base, "/v1/stream?topics=changes");
    expect(plain.status).toBe(406);
    expect(documented["406"].headers["x-error-code"].schema.enum).toContain("NOT_ACCEPTABLE");
    expect(errorsOf(documented["406"].content["application/json"].schema, OPENAPI_ID, plain.body)).toBeNull();
    expect(ERROR_CATALOGUE.NOT_ACCEPTABLE.status).toBe(406);
  });
});
