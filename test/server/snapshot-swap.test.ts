/**
 * snapshot-format.md while running: pushed files are picked up; a bad or out-of-order push
 * is rejected and the chain keeps serving its last good snapshot; a half-written file is
 * survived; and (api-decisions.md §3.7) a cursor walk started before a swap yields each
 * entry of its snapshot exactly once.
 */
import { renameSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NATIVE_ADDRESS } from "../../src/chains/chains.js";
import type { SnapshotFile } from "../../src/api/snapshot-format.js";
import {
  addr,
  chainFile,
  nativeToken,
  packSnapshot,
  poolToken,
  protocol,
  tempDir,
  token,
  v2Pool,
  writeChainFile,
  writeKeysFile,
  writeRawFile,
} from "../support/fixtures.js";
import {
  expectError,
  expectSuccess,
  getPool,
  postTokens,
  request,
  startGateway,
  waitFor,
  walkTokenPages,
  type Gateway,
} from "../support/gateway-process.js";
import { referenceTokenList } from "../support/reference-token-list.js";

const POOL = addr("5a5a");
const T0 = 1_750_000_000;

function chain1(generatedAt: number, extra: { symbol: string; tvl: number }[], drop: string[] = []): SnapshotFile {
  const base = ["AAA", "BBB", "CCC", "DDD", "EEE", "FFF", "GGG"].filter((s) => !drop.includes(s));
  const tokens = [
    nativeToken(1, { trackedTotalValuePooledUsd: 15_000 }),
    ...base.map((symbol, i) => token(1, { address: addr("100" + i), symbol, trackedTotalValuePooledUsd: 900_000 - i * 100_000 })),
    ...extra.map((e, i) => token(1, { address: addr("200" + i), symbol: e.symbol, trackedTotalValuePooledUsd: e.tvl })),
  ];
  return chainFile(1, {
    generatedAt,
    protocols: [protocol("swap-proto")],
    tokens,
    pools: [
      v2Pool({ address: POOL, protocolId: "swap-proto", tokens: [poolToken(NATIVE_ADDRESS, 1, 2), poolToken(tokens[1]!.address, 3, 4)] }),
    ],
  });
}

function simpleChain(chainId: 999 | 8453, generatedAt: number, symbol: string): SnapshotFile {
  return chainFile(chainId, {
    generatedAt,
    protocols: [protocol("swap-proto")],
    tokens: [nativeToken(chainId), token(chainId, { address: addr("3001"), symbol })],
    pools: [v2Pool({ address: POOL, protocolId: "swap-proto", tokens: [poolToken(NATIVE_ADDRESS, 1, 2), poolToken(addr("3001"), 3, 4)] })],
  });
}

/** Atomic push: write under a temporary name, then rename over chain-<id>.msgpack. */
function push(dir: string, file: SnapshotFile): void {
  const tmp = writeChainFile(dir, file, `.chain-${file.chainId}.msgpack.${process.pid}.tmp`);
  renameSync(tmp, path.join(dir, `chain-${file.chainId}.msgpack`));
}

let gw: Gateway;
let base: string;
let dir: string;
const V1 = chain1(T0, []);
const V2 = chain1(
  T0 + 100,
  [
    { symbol: "NEWTOP", tvl: 5_000_000 },
    { symbol: "MIDDLE", tvl: 550_000 },
  ],
  ["CCC"],
);
const Q = { filters: { chainIds: [1] } };

beforeAll(async () => {
  dir = tempDir("lgw-swap-");
  writeChainFile(dir, V1);
  writeChainFile(dir, simpleChain(8453, T0, "BASEV1"));
  gw = await startGateway({ snapshotDir: dir, keysFile: writeKeysFile() });
  base = gw.baseUrl;
});

afterAll(async () => {
  await gw?.stop();
});

const rejectionsFor = (chainId: number) => gw.logs().filter((l) => l.event === "snapshot-rejected" && l.chainId === chainId).length;
const firstSymbol = async () =>
  expectSuccess(await postTokens(base, { ...Q, config: { limit: 1 } })).tokens[0]?.symbol as string | undefined;

describe("live snapshot swaps", () => {
  it("a cursor walk started before a swap yields its snapshot's entries exactly once", async () => {
    const oldList = referenceTokenList([V1], Q);
    expect((await walkTokenPages(base, Q, 500)).tokens).toEqual(oldList);

    const first = expectSuccess(await postTokens(base, { ...Q, config: { limit: 3 } }));
    expect(first.tokens).toEqual(oldList.slice(0, 3));

    push(dir, V2);
    await waitFor("the new chain-1 snapshot to be served", async () => ((await firstSymbol()) === "NEWTOP" ? true : undefined));

    // continue the old walk
    const rest = [];
    let cursor: string | null = first.nextCursor;
    while (cursor !== null) {
      const page = expectSuccess(await postTokens(base, { ...Q, config: { limit: 2, cursor } }));
      rest.push(...page.tokens);
      cursor = page.nextCursor;
    }
    expect([...first.tokens, ...rest]).toEqual(oldList);

    // a fresh walk sees the new snapshot
    expect((await walkTokenPages(base, Q, 3)).tokens).toEqual(referenceTokenList([V2], Q));
  });

  it("an out-of-order push (older generatedAt) is rejected and the chain keeps its data", async () => {
    const before = rejectionsFor(1);
    push(dir, chain1(T0 + 50, [{ symbol: "STALE", tvl: 9_000_000 }]));
    await waitFor("a snapshot-rejected line for chain 1", () => (rejectionsFor(1) > before ? true : undefined));
    expect((await walkTokenPages(base, Q, 500)).tokens).toEqual(referenceTokenList([V2], Q));
  });

  it("a push that does not decode is rejected and the chain keeps its data", async () => {
    const before = rejectionsFor(1);
    const tmp = writeRawFile(dir, "chain-1.msgpack.tmp", Buffer.from([0xde, 0xad, 0xbe, 0xef, 0x00]));
    renameSync(tmp, path.join(dir, "chain-1.msgpack"));
    await waitFor("a snapshot-rejected line for chain 1", () => (rejectionsFor(1) > before ? true : undefined));
    expect((await walkTokenPages(base, Q, 500)).tokens).toEqual(referenceTokenList([V2], Q));
    expectSuccess(await getPool(base, 1, POOL));
  });

  it("a chain pushed after start becomes available", async () => {
    expectError(await getPool(base, 999, POOL), 503, "CHAIN_DATA_UNAVAILABLE");
    push(dir, simpleChain(999, T0, "HYPER"));
    const pool = await waitFor("chain 999 to be served", async () => {
      const res = await getPool(base, 999, POOL);
      return res.status === 200 ? res.body.data.pool : undefined;
    });
    expect(pool.chainId).toBe(999);
    const list = expectSuccess(await postTokens(base, { filters: { chainIds: [999] }, config: { limit: 500 } }));
    expect(list.tokens.map((t: { symbol: string }) => t.symbol)).toContain("HYPER");
  });

  it("a half-written (non-atomic) copy is survived and the complete file is then served", async () => {
    const next = simpleChain(8453, T0 + 10, "BASEV2");
    const bytes = packSnapshot(next);
    writeRawFile(dir, "chain-8453.msgpack", bytes.subarray(0, Math.floor(bytes.length / 2)));
    await new Promise((r) => setTimeout(r, 700));
    // the old data is still served meanwhile
    expectSuccess(await getPool(base, 8453, POOL));
    writeRawFile(dir, "chain-8453.msgpack", bytes);
    await waitFor("BASEV2 on chain 8453", async () => {
      const res = expectSuccess(await postTokens(base, { filters: { chainIds: [8453] }, config: { limit: 500 } }));
      return res.tokens.some((t: { symbol: string }) => t.symbol === "BASEV2") ? true : undefined;
    });
    // chain 1 was not affected by any of this
    expect((await walkTokenPages(base, Q, 500)).tokens).toEqual(referenceTokenList([V2], Q));
  });

  it("an earlier version nobody paged through is released seconds after a swap; a token-list cursor keeps only its token lists", async () => {
    const released = () => gw.logs().filter((l) => l.event === "snapshot-versions-released");
    const liveVersions = async () =>
      new Set(
        [...(await request(base, "/metrics")).text.matchAll(/^gateway_snapshot_live_versions\{version="([0-9a-f]+)"/gm)].map((m) => m[1]),
      );
    const versionNow = async () => (await postTokens(base, Q)).headers.get("x-snapshot-version")!;
    const swapTo = async (file: SnapshotFile) => {
      const from = await versionNow();
      push(dir, file);
      await waitFor("the swap", async () => ((await versionNow()) !== from ? true : undefined));
      return from;
    };
    // 1. No cursor on a version (every request below fits one page): released whole.
    await swapTo(simpleChain(8453, T0 + 500, "BASEV5"));
    const unused = await swapTo(simpleChain(8453, T0 + 550, "BASEV5B"));
    await waitFor(
      "the unused version's release",
      () => (released().some((l) => (l.retired as string[]).includes(unused)) ? true : undefined),
      10_000,
    );
    expect((await liveVersions()).has(unused)).toBe(false);

    // 2. A token-list walk started on it: its pool tables go, its token lists stay for the walk.
    const list = referenceTokenList([V2], Q);
    const first = expectSuccess(await postTokens(base, { ...Q, config: { limit: 2 } }));
    const walked = await swapTo(simpleChain(8453, T0 + 600, "BASEV6"));
    await waitFor(
      "the walked version's pool tables to be released",
      () => (released().some((l) => (l.poolsReleased as string[]).includes(walked)) ? true : undefined),
      10_000,
    );
    expect(released().some((l) => (l.retired as string[]).includes(walked))).toBe(false);
    expect((await liveVersions()).has(walked)).toBe(true);
    const rest = [];
    let cursor: string | null = first.nextCursor;
    while (cursor !== null) {
      const res = await postTokens(base, { ...Q, config: { limit: 3, cursor } });
      expect(res.headers.get("x-snapshot-version")).toBe(walked);
      const page = expectSuccess(res);
      rest.push(...page.tokens);
      cursor = page.nextCursor;
    }
    expect([...first.tokens, ...rest]).toEqual(list);
  });
});
