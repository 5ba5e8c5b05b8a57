/**
 * Cursor walks of the search and single-chain routes across snapshot swaps (api-extended.md §7,
 * api-decisions.md §3.7): a walk started before a swap yields its snapshot's entries exactly once
 * while that snapshot is kept; once it is retired (SNAPSHOT_MAX_VERSIONS=1 and two more pushes),
 * the walk continues on the current snapshot after its last entry's sort key, never repeating one.
 */
import { renameSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SnapshotFile } from "../../src/api/snapshot-format.js";
import { addr, chainFile, tempDir, token, writeChainFile, writeKeysFile } from "../support/fixtures.js";
import { expectSuccess, postJson, startGateway, waitFor, type Gateway } from "../support/gateway-process.js";

const T0 = 1_760_000_000;
const NAMES: Record<string, string> = {
  USDA: "Alpha",
  USDB: "Bravo",
  USDC: "Charlie",
  USDD: "Delta",
  USDE: "Echo",
  USDF: "Foxtrot",
  USDG: "Golf",
  USDZ: "Zulu",
};

function version(generatedAt: number, tvls: Record<string, number>): SnapshotFile {
  const tokens = Object.entries(tvls).map(([symbol, tvl]) =>
    token(1, {
      address: addr("700" + symbol.charCodeAt(3).toString(16)),
      symbol,
      name: `USD ${NAMES[symbol]}`,
      trackedTotalValuePooledUsd: tvl,
    }),
  );
  return chainFile(1, { generatedAt, tokens });
}

const V1 = version(T0, { USDA: 600_000, USDB: 500_000, USDC: 400_000, USDD: 300_000, USDE: 200_000, USDF: 100_000 });
const V2_TVLS = { USDZ: 1_000_000, USDA: 600_000, USDC: 400_000, USDD: 300_000, USDE: 450_000, USDF: 100_000 };
const V2 = version(T0 + 10, V2_TVLS);
const V3 = version(T0 + 20, V2_TVLS);
const V4 = version(T0 + 30, { USDZ: 1_000_000, USDC: 400_000, USDD: 300_000, USDE: 450_000, USDF: 100_000, USDG: 350_000 });

/** The four cursor lists of the token surface, each walked on chain 1's tokens. */
const WALKS = [
  { path: "/v1/tokens/search", body: { search: "usd" } },
  { path: "/v1/tokens/search", body: { search: "usd", config: { orderBy: { field: "relevance" } } } },
  { path: "/v1/tokens/1", body: {} },
  { path: "/v1/tokens/1/search", body: { search: "usd" } },
] as const;

let gw: Gateway;
let dir: string;

beforeAll(async () => {
  dir = tempDir("lgw-token-swap-");
  writeChainFile(dir, V1);
  gw = await startGateway({ snapshotDir: dir, keysFile: writeKeysFile(), env: { SNAPSHOT_MAX_VERSIONS: "1" } });
});

afterAll(async () => {
  await gw?.stop();
});

function push(file: SnapshotFile): void {
  const tmp = writeChainFile(dir, file, `.chain-1.msgpack.${process.pid}.tmp`);
  renameSync(tmp, path.join(dir, "chain-1.msgpack"));
}

const symbolsOf = (tokens: { symbol: string }[]) => tokens.map((t) => t.symbol);

async function page(
  walk: (typeof WALKS)[number],
  limit: number,
  cursor?: string,
): Promise<{ symbols: string[]; nextCursor: string | null }> {
  const body = walk.body as { config?: Record<string, unknown> };
  const config = { ...(body.config ?? {}), limit, ...(cursor === undefined ? {} : { cursor }) };
  const data = expectSuccess(await postJson(gw.baseUrl, walk.path, { ...walk.body, config }));
  return { symbols: symbolsOf(data.tokens), nextCursor: data.nextCursor };
}

async function rest(walk: (typeof WALKS)[number], cursor: string | null): Promise<string[]> {
  const out: string[] = [];
  while (cursor !== null) {
    const next = await page(walk, 2, cursor);
    out.push(...next.symbols);
    cursor = next.nextCursor;
  }
  return out;
}

async function served(symbols: string[]): Promise<void> {
  const want = [...symbols].sort().join();
  await waitFor(`chain 1 to serve ${want}`, async () =>
    symbolsOf(expectSuccess(await postJson(gw.baseUrl, "/v1/tokens/1", { config: { limit: 500 } })).tokens)
      .sort()
      .join() === want
      ? true
      : undefined,
  );
}

describe("cursor walks across snapshot swaps", () => {
  it("while the first page's snapshot is kept, the walk yields that snapshot's entries exactly once", async () => {
    const firsts = await Promise.all(WALKS.map((w) => page(w, 2)));
    for (const first of firsts) expect(first.symbols).toEqual(["USDA", "USDB"]);
    push(V2);
    await served(Object.keys(V2_TVLS));
    for (let w = 0; w < WALKS.length; w++)
      expect(await rest(WALKS[w], firsts[w].nextCursor), WALKS[w].path).toEqual(["USDC", "USDD", "USDE", "USDF"]);
    // a fresh walk sees the new snapshot
    for (const walk of WALKS) expect([...(await page(walk, 500)).symbols]).toEqual(["USDZ", "USDA", "USDE", "USDC", "USDD", "USDF"]);
  });

  it("once it is retired, the walk continues on the current snapshot after its last entry, never repeating", async () => {
    const firsts = await Promise.all(WALKS.map((w) => page(w, 2)));
    for (const first of firsts) expect(first.symbols).toEqual(["USDZ", "USDA"]);
    const swaps = () => gw.logs().filter((l) => l.event === "snapshot-swapped").length;
    const before = swaps();
    push(V3);
    // the same tokens: wait for the swap itself
    await waitFor("the V3 swap", () => (swaps() > before ? true : undefined));
    push(V4);
    await served(["USDZ", "USDC", "USDD", "USDE", "USDF", "USDG"]);
    expect(gw.logs().filter((l) => l.event === "snapshot-swapped").length).toBeGreaterThanOrEqual(4);
    for (let w = 0; w < WALKS.length; w++)
      expect(await rest(WALKS[w], firsts[w].nextCursor), WALKS[w].path).toEqual(["USDE", "USDC", "USDG", "USDD", "USDF"]);
  });
});
