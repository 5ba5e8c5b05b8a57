/**
 * What the served snapshot offers the stream (src/serving/serving-snapshot.ts, served-changes.ts), in
 * process: a pool's and a token's JSON are byte for byte the REST answers' `data.pool` / `data.token`,
 * `x-data-generated-at` is the chain's generatedAt, and after a swap the snapshot names the change sets it
 * introduced, each with the position after it, ending at the position GET /v1/status answers.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SnapshotFile } from "../../src/api/snapshot-format.js";
import { decodePosition } from "../../src/query/positions.js";
import { basicFixture, P } from "../support/fixtures.js";
import { startInProcess, type InProcessApp } from "../support/in-process-app.js";
import { listsOf } from "../support/reference-changes.js";
import { request } from "../support/gateway-process.js";

let app: InProcessApp;
const files = basicFixture();

beforeAll(async () => {
  app = await startInProcess(files);
});

afterAll(() => {
  app?.close();
});

/** The raw `data.<field>` text of an enveloped answer. */
function dataField(text: string, field: string): string {
  const start = text.indexOf(`"data":{"${field}":`) + `"data":{"${field}":`.length;
  return text.slice(start, text.length - 2);
}

describe("the served snapshot's accessors", () => {
  it("poolJson and tokenJson are the REST answers' bytes; null for what is not there", async () => {
    const snapshot = app.ctx.store.current!;
    for (const [chainId, address] of [
      [1, P.v3],
      [1, P.v4Native],
      [8453, P.slipstream],
    ] as const) {
      const res = await request(app.baseUrl, `/v1/pools/${chainId}/${address}`);
      expect(res.status).toBe(200);
      expect(Buffer.from(snapshot.poolJson(chainId, address)!).toString()).toBe(dataField(res.text, "pool"));
      expect(Buffer.from(snapshot.poolJson(chainId, address.toUpperCase().replace("0X", "0x"))!).toString()).toBe(
        dataField(res.text, "pool"),
      );
    }
    const res = await request(app.baseUrl, `/v1/tokens/1/${P.usdc1}`);
    expect(Buffer.from(snapshot.tokenJson(1, P.usdc1)!).toString()).toBe(dataField(res.text, "token"));
    expect(snapshot.poolJson(1, P.slipstream)).toBeNull();
    expect(snapshot.poolJson(999, P.v3)).toBeNull();
    expect(snapshot.tokenJson(8453, P.usdc1)).toBeNull();
    expect(snapshot.tokenJson(1, "0x12")).toBeNull();
    const generatedAt = files.find((f) => f.chainId === 1)!.generatedAt;
    expect(snapshot.dataGeneratedAt(1)).toBe(String(generatedAt));
    expect(snapshot.dataGeneratedAt(999)).toBeUndefined();
  });

  it("after a swap: the sets it introduced, the position after each, and the position before", async () => {
    const before = app.ctx.store.current!.changes;
    expect(before.introduced.map((i) => i.set.chainId)).toEqual(files.map((f) => f.chainId).sort((a, b) => a - b));
    const next: SnapshotFile[] = files.map((f) =>
      f.chainId === 1 ? { ...f, generatedAt: f.generatedAt + 60, pools: f.pools.filter((p) => p.address !== P.v3) } : f,
    );
    app.swap(next);
    const changes = app.ctx.store.current!.changes;
    expect(changes.basePositionText).toBe(before.positionText);
    expect(changes.introduced).toHaveLength(1);
    const [introduced] = changes.introduced;
    expect(introduced!.set.previous).toBe(before.position.get(1));
    expect(listsOf(introduced!.set)).toEqual({ poolsUpserted: [], poolsRemoved: [P.v3], tokensUpserted: [], tokensRemoved: [] });
    expect(introduced!.positionText).toBe(changes.positionText);
    expect(decodePosition(changes.positionText!)).toEqual(changes.position);
    const status = await request(app.baseUrl, "/v1/status");
    expect(status.body.data.position).toBe(changes.positionText);
    const ready = await request(app.baseUrl, "/ready", { key: null });
    expect(ready.body.position).toBe(changes.positionText);
  });
});
