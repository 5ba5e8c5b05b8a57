/**
 * The history routes in process (shared/spec/history.md §24): a series of files observed by the history
 * service as the gateway's history thread observes them, then read by the app's handlers. Answers equal
 * the brute-force reference (test/support/reference-history.ts) in the wire shape; closed answers are
 * cached for a year, open ones briefly; every malformed parameter is a VALIDATION_ERROR naming it; unknown
 * entities and chains get the codes of the current routes; nothing a request does writes to the store;
 * GET /v1/status reports history; with HISTORY=off the routes answer 404 HISTORY_DISABLED.
 */
import { createHash } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HistoryService } from "../../src/history/history-service.js";
import { HistoryStatusCells } from "../../src/history/history-status.js";
import { KEYS, tempDir } from "../support/fixtures.js";
import { request } from "../support/gateway-process.js";
import { compileFile, servedFile, type Compiled } from "../support/history-harness.js";
import { historySeries } from "../support/history-series.js";
import { ReferenceHistory, type ReferenceQuery } from "../support/reference-history.js";
import { startInProcess, type InProcessApp } from "../support/in-process-app.js";

const retention = { rawHours: 48, hourDays: 90 };
const CHAIN = 8453;
const files = historySeries(11, {
  chainId: CHAIN,
  tokens: 6,
  looseTokens: 4,
  pools: 8,
  files: 80,
  churn: 0.3,
  start: 1_750_000_000,
  step: () => 450,
});
const reference = new ReferenceHistory(retention);
const dir = tempDir("lgw-history-app-");
const status = new HistoryStatusCells();
let service: HistoryService;
let app: InProcessApp;
let off: InProcessApp;

const tokenAddresses = [...new Set(files.flatMap((f) => f.tokens.map((t) => t.address)))];
const poolAddresses = [...new Set(files.flatMap((f) => f.pools.map((p) => p.address)))];
const last = files[files.length - 1];

beforeAll(async () => {
  service = new HistoryService({ dir, retention }, status);
  let before: Compiled | null = null;
  for (const file of files) {
    const compiled = compileFile(file);
    const served = servedFile(before, [compiled]);
    service.enqueue(served);
    service.drain(); // as the thread does when it keeps up (more than 8 waiting files of a chain are merged)
    reference.serve(file, compiled.id, served.previous);
    before = compiled;
  }
  app = await startInProcess([last], { history: { dir, retention, status: status.buffer } });
  off = await startInProcess([last]);
});

afterAll(() => {
  app?.close();
  off?.close();
  service?.close();
  rmSync(dir, { recursive: true, force: true });
});

const TIERS = { minute: "raw", hour: "hour", day: "day" } as const;
const SPAN = { minute: 60, hour: 3600, day: 86_400 } as const;

function expected(
  kind: "token" | "pool",
  address: string,
  timeframe: keyof typeof TIERS,
  aggregate: number,
  limit: number,
  fill: boolean,
  before = Infinity,
) {
  const q: ReferenceQuery = { kind, address, tier: TIERS[timeframe], width: aggregate * SPAN[timeframe], before, limit, fill };
  const want = reference.candles(q);
  return {
    chainId: CHAIN,
    address,
    timeframe,
    aggregate,
    source: "snapshots",
    [kind === "token" ? "candles" : "rows"]: want.buckets.map((b) => [b.t, ...b.v]),
    filled: want.buckets.filter((b) => b.filled).map((b) => b.t),
    coverage: want.coverage,
    closed: want.closed,
  };
}

describe("history answers over HTTP", () => {
  it("token candles and pool rows equal the reference, in the wire shape, for every timeframe", async () => {
    const cases: Array<[keyof typeof TIERS, number, number, boolean]> = [
      ["minute", 1, 30, false],
      ["minute", 15, 10, true],
      ["hour", 1, 24, true],
      ["hour", 4, 3, false],
      ["day", 1, 5, false],
    ];
    for (const address of tokenAddresses.slice(0, 4)) {
      for (const [timeframe, aggregate, limit, fill] of cases) {
        const res = await request(
          app.baseUrl,
          `/v1/history/tokens/${CHAIN}/${address.toUpperCase().replace("0X", "0x")}/ohlcv/${timeframe}?aggregate=${aggregate}&limit=${limit}${fill ? "&fill=previous" : ""}`,
        );
        expect(res.status, res.text).toBe(200);
        const { closed, ...want } = expected("token", address, timeframe, aggregate, limit, fill);
        expect(res.body.data).toEqual(want);
        expect(res.headers.get("cache-control")).toBe(closed ? "public, max-age=31536000, immutable" : "public, max-age=10");
      }
    }
    for (const address of poolAddresses.slice(0, 4)) {
      const res = await request(app.baseUrl, `/v1/history/pools/${CHAIN}/${address}/hour?limit=5`);
      expect(res.status, res.text).toBe(200);
      const { closed, ...want } = expected("pool", address, "hour", 1, 5, false);
      expect(res.body.data).toEqual(want);
      expect(res.headers.get("cache-control")).toBe(closed ? "public, max-age=31536000, immutable" : "public, max-age=10");
    }
  });

  it("pages back with before: a closed page is immutable and carries an ETag", async () => {
    const address = tokenAddresses[0];
    const before = last.generatedAt - 3 * 3600;
    const res = await request(app.baseUrl, `/v1/history/tokens/${CHAIN}/${address}/ohlcv/hour?limit=2&before=${before}`);
    expect(res.status).toBe(200);
    const { closed, ...want } = expected("token", address, "hour", 1, 2, false, before);
    expect(closed).toBe(true);
    expect(res.body.data).toEqual(want);
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(res.headers.get("etag")).toMatch(/^W\//);
  });

  it("far past and far future `before`, the largest limit: bounded answers", async () => {
    const address = tokenAddresses[1];
    const past = await request(app.baseUrl, `/v1/history/tokens/${CHAIN}/${address}/ohlcv/minute?before=1`);
    expect(past.status).toBe(200);
    expect(past.body.data.candles).toEqual([]);
    const future = await request(
      app.baseUrl,
      `/v1/history/tokens/${CHAIN}/${address}/ohlcv/minute?before=4294967295&limit=1000&fill=previous`,
    );
    expect(future.status).toBe(200);
    const { closed: _closed, ...want } = expected("token", address, "minute", 1, 1000, true, 4294967295);
    expect(future.body.data).toEqual(want);
  });

  it("prices at a time equal the reference, in request order, null where nothing was observed", async () => {
    const unknown = "0x" + "ab".repeat(20);
    for (const at of [files[0].generatedAt - 1, files[10].generatedAt, files[10].generatedAt + 100, last.generatedAt + 86_400]) {
      const tokens = [...tokenAddresses, unknown].map((address) => ({ chainId: CHAIN, address }));
      const res = await request(app.baseUrl, "/v1/history/tokens/prices", {
        method: "POST",
        body: JSON.stringify({ at, tokens }),
        headers: { "content-type": "application/json" },
      });
      expect(res.status, res.text).toBe(200);
      expect(res.body.data).toEqual({
        at,
        prices: tokens.map(({ address }) => {
          const p = reference.priceAt(address, at);
          return p === null ? null : { chainId: CHAIN, address, ...p };
        }),
      });
    }
  });

  it("GET /v1/status reports history", async () => {
    const res = await request(app.baseUrl, "/v1/status");
    expect(res.status).toBe(200);
    expect(res.body.data.history).toEqual({ state: "ok", lastObservedAt: last.generatedAt, bytes: status.bytes });
    expect(status.bytes).toBeGreaterThan(0);
    const offStatus = await request(off.baseUrl, "/v1/status");
    expect(offStatus.body.data.history).toEqual({ state: "off", lastObservedAt: null, bytes: 0 });
  });
});

describe("history's bad input", () => {
  const token = `/v1/history/tokens/${CHAIN}/${files[0].tokens[0].address}/ohlcv`;
  const pool = `/v1/history/pools/${CHAIN}/${files[0].pools[0].address}`;

  it("every malformed parameter is a VALIDATION_ERROR naming it", async () => {
    const cases: Array<[string, string]> = [
      [`${token}/week`, "timeframe"],
      [`${token}/hour?aggregate=5`, "aggregate"],
      [`${token}/minute?aggregate=2`, "aggregate"],
      [`${token}/day?aggregate=0`, "aggregate"],
      [`${token}/hour?limit=0`, "limit"],
      [`${token}/hour?limit=1001`, "limit"],
      [`${token}/hour?limit=ten`, "limit"],
      [`${token}/hour?before=-1`, "before"],
      [`${token}/hour?before=1.5`, "before"],
      [`${token}/hour?before=99999999999`, "before"],
      [`${token}/hour?fill=next`, "fill"],
      [`${token}/hour?since=1`, "since"],
      [`${pool}/hours`, "timeframe"],
      [`${pool}/hour?limit=1&limit=2`, "limit"],
      [`/v1/history/tokens/08453/${files[0].tokens[0].address}/ohlcv/hour`, "chainId"],
      [`/v1/history/tokens/${CHAIN}/0x12/ohlcv/hour`, "tokenAddress"],
    ];
    for (const [path, property] of cases) {
      const res = await request(app.baseUrl, path);
      expect(res.status, path).toBe(400);
      expect(res.body.error.code, path).toBe("VALIDATION_ERROR");
      expect(res.body.error.metadata.property, path).toBe(property);
    }
    const prices = async (body: unknown) =>
      request(app.baseUrl, "/v1/history/tokens/prices", {
        method: "POST",
        body: JSON.stringify(body),
        headers: { "content-type": "application/json" },
      });
    const tokens = (n: number) => Array.from({ length: n }, () => ({ chainId: CHAIN, address: files[0].tokens[0].address }));
    expect((await prices({ at: 1, tokens: tokens(101) })).body.error.metadata.property).toBe("tokens");
    expect((await prices({ at: -5, tokens: tokens(1) })).body.error.metadata.property).toBe("at");
    expect((await prices({ tokens: tokens(1) })).body.error.metadata.property).toBe("at");
    expect((await prices({ at: 1, tokens: [] })).body.error.metadata.property).toBe("tokens");
    expect((await prices({ at: 1, tokens: tokens(100) })).status).toBe(200);
    expect((await prices({ at: 1, tokens: [{ chainId: 10, address: files[0].tokens[0].address }] })).body.error.code).toBe(
      "UNSUPPORTED_CHAIN_ID",
    );
    expect((await prices({ at: 1, tokens: [{ chainId: CHAIN, address: "0x12" }] })).body.error.code).toBe("INVALID_BLOCKCHAIN_ADDRESS");
  });

  it("unknown chains, tokens and pools get the codes of the current routes", async () => {
    const codes: Array<[string, number, string]> = [
      [`/v1/history/tokens/10/${files[0].tokens[0].address}/ohlcv/hour`, 400, "UNSUPPORTED_CHAIN_ID"],
      [`/v1/history/tokens/${CHAIN}/0x${"ab".repeat(20)}/ohlcv/hour`, 404, "TOKEN_NOT_FOUND"],
      [`/v1/history/tokens/1/${files[0].tokens[0].address}/ohlcv/hour`, 404, "TOKEN_NOT_FOUND"],
      [`/v1/history/pools/${CHAIN}/0x${"cd".repeat(32)}/hour`, 404, "LIQUIDITY_POOL_NOT_FOUND"],
      [`/v1/history/pools/${CHAIN}/0x5cd3161580/hour`, 400, "INVALID_POOL_ADDRESS"],
    ];
    for (const [path, code, name] of codes) {
      const res = await request(app.baseUrl, path);
      expect(res.status, path).toBe(code);
      expect(res.body.error.code, path).toBe(name);
    }
    const forbidden = await request(app.baseUrl, `/v1/history/tokens/${CHAIN}/${files[0].tokens[0].address}/ohlcv/hour`, {
      key: KEYS.chain1Only,
    });
    expect(forbidden.status).toBe(403);
    const poolsOnly = await request(app.baseUrl, `/v1/history/tokens/${CHAIN}/${files[0].tokens[0].address}/ohlcv/hour`, {
      key: KEYS.poolsOnly,
    });
    expect(poolsOnly.body.error.code).toBe("API_KEY_FORBIDDEN");
  });

  it("nothing a request does writes to history", async () => {
    const digest = () =>
      createHash("sha256")
        .update(readFileSync(join(dir, "data.mdb")))
        .digest("hex");
    const before = digest();
    for (const address of tokenAddresses)
      await request(app.baseUrl, `/v1/history/tokens/${CHAIN}/${address}/ohlcv/minute?limit=1000&fill=previous`);
    for (const address of poolAddresses) await request(app.baseUrl, `/v1/history/pools/${CHAIN}/${address}/day`);
    await request(app.baseUrl, `/v1/history/tokens/${CHAIN}/0x${"ab".repeat(20)}/ohlcv/hour`);
    expect(digest()).toBe(before);
  });

  it("HISTORY=off: every history route answers 404 HISTORY_DISABLED", async () => {
    for (const [path, method] of [
      [`${token}/hour`, "GET"],
      [`${pool}/hour`, "GET"],
      ["/v1/history/tokens/prices", "POST"],
    ] as const) {
      const res = await request(off.baseUrl, path, {
        method,
        body: method === "POST" ? JSON.stringify({ at: 1, tokens: [{ chainId: CHAIN, address: files[0].tokens[0].address }] }) : undefined,
        headers: method === "POST" ? { "content-type": "application/json" } : {},
      });
      expect(res.status, path).toBe(404);
      expect(res.body.error.code, path).toBe("HISTORY_DISABLED");
    }
  });
});

describe("the answers a serving thread keeps", () => {
  // A chain of its own: all but its last file observed before the app starts, the last one while it serves.
  const series = historySeries(23, {
    chainId: CHAIN,
    tokens: 4,
    looseTokens: 0,
    pools: 4,
    files: 40,
    churn: 0.5,
    start: 1_760_000_000,
    step: () => 300,
  });
  const keptDir = tempDir("lgw-history-kept-");
  const keptStatus = new HistoryStatusCells();
  const keptReference = new ReferenceHistory(retention);
  let keptService: HistoryService;
  let keptApp: InProcessApp;
  let before: Compiled | null = null;
  const observe = (file: (typeof series)[number]) => {
    const compiled = compileFile(file);
    const served = servedFile(before, [compiled]);
    keptService.enqueue(served);
    keptService.drain();
    keptReference.serve(file, compiled.id, served.previous);
    before = compiled;
  };
  const token = series[series.length - 1].tokens[0].address;
  const dataOf = (text: string) => text.slice(text.indexOf('"data":') + '"data":'.length, -1);
  const figures = () => keptApp.ctx.history!.answers.figures();

  beforeAll(async () => {
    keptService = new HistoryService({ dir: keptDir, retention }, keptStatus);
    for (const file of series.slice(0, -1)) observe(file);
    keptApp = await startInProcess([series[series.length - 2]], { history: { dir: keptDir, retention, status: keptStatus.buffer } });
  });

  afterAll(() => {
    keptApp?.close();
    keptService?.close();
    rmSync(keptDir, { recursive: true, force: true });
  });

  const wire = (q: ReferenceQuery, timeframe: keyof typeof TIERS) => {
    const want = keptReference.candles(q);
    return {
      data: {
        chainId: CHAIN,
        address: q.address,
        timeframe,
        aggregate: q.width / SPAN[timeframe],
        source: "snapshots",
        candles: want.buckets.map((b) => [b.t, ...b.v]),
        filled: want.buckets.filter((b) => b.filled).map((b) => b.t),
        coverage: want.coverage,
      },
      closed: want.closed,
    };
  };

  it("an open page is the same bytes until the chain's next observation, then the new answer", async () => {
    const path = `/v1/history/tokens/${CHAIN}/${token}/ohlcv/minute?limit=20&fill=previous`;
    const q: ReferenceQuery = { kind: "token", address: token, tier: "raw", width: 60, before: Infinity, limit: 20, fill: true };
    const first = await request(keptApp.baseUrl, path);
    expect(first.status, first.text).toBe(200);
    expect(first.body.data).toEqual(wire(q, "minute").data);
    expect(first.headers.get("cache-control")).toBe("public, max-age=10");
    const made = figures();
    const again = await request(keptApp.baseUrl, path);
    expect(dataOf(again.text)).toBe(dataOf(first.text));
    expect(again.headers.get("etag")).toBe(first.headers.get("etag"));
    expect(figures().hits).toBe(made.hits + 1);
    expect(figures().misses).toBe(made.misses);

    observe(series[series.length - 1]);
    const after = await request(keptApp.baseUrl, path);
    expect(after.status, after.text).toBe(200);
    expect(dataOf(after.text)).not.toBe(dataOf(first.text));
    expect(after.body.data).toEqual(wire(q, "minute").data);
    expect(figures().misses).toBe(made.misses + 1);
    const kept = await request(keptApp.baseUrl, path);
    expect(dataOf(kept.text)).toBe(dataOf(after.text));
    expect(figures().hits).toBe(made.hits + 2);
  });

  it("a closed page is served from what the thread keeps, with the same bytes, across observations", async () => {
    const at = series[series.length - 1].generatedAt - 2 * 3600;
    const path = `/v1/history/tokens/${CHAIN}/${token}/ohlcv/minute?limit=10&before=${at}&fill=previous`;
    const q: ReferenceQuery = { kind: "token", address: token, tier: "raw", width: 60, before: at, limit: 10, fill: true };
    const first = await request(keptApp.baseUrl, path);
    expect(first.status, first.text).toBe(200);
    const want = wire(q, "minute");
    expect(want.closed).toBe(true);
    expect(first.body.data).toEqual(want.data);
    expect(first.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const made = figures();
    // Another file of the chain (its generatedAt a minute on: the floors stay where they were).
    const next = { ...series[series.length - 1], generatedAt: series[series.length - 1].generatedAt + 60 };
    observe(next);
    const again = await request(keptApp.baseUrl, path);
    expect(dataOf(again.text)).toBe(dataOf(first.text));
    expect(again.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(figures().hits).toBe(made.hits + 1);
    expect(figures().misses).toBe(made.misses);
  });
});
