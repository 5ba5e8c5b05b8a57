/**
 * snapshot-format.md at start-up: a bad file for one chain is rejected (and logged) without
 * affecting the others; chains without a loaded snapshot answer 503 CHAIN_DATA_UNAVAILABLE;
 * names other than `chain-<id>.msgpack` are ignored.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NATIVE_ADDRESS } from "../../src/chains/chains.js";
import type { SnapshotFile } from "../../src/api/snapshot-format.js";
import {
  addr,
  chainFile,
  nativeToken,
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
  getProtocols,
  postTokens,
  startGateway,
  walkTokenPages,
  type Gateway,
} from "../support/gateway-process.js";
import { referenceTokenList } from "../support/reference-token-list.js";

const POOL = addr("abc1");

function goodFile(chainId: 1 | 9745 | 8453 | 130 | 143 | 534352 | 999, symbol: string): SnapshotFile {
  return chainFile(chainId, {
    protocols: [protocol(`proto-${chainId}`)],
    tokens: [nativeToken(chainId, { trackedTotalValuePooledUsd: 70_000 }), token(chainId, { address: addr("1001"), symbol })],
    pools: [
      v2Pool({ address: POOL, protocolId: `proto-${chainId}`, tokens: [poolToken(NATIVE_ADDRESS, 1, 2), poolToken(addr("1001"), 3, 4)] }),
    ],
  });
}

const GOOD_1 = goodFile(1, "ONE");
const GOOD_9745 = goodFile(9745, "PLAS");

let gw: Gateway;
let base: string;

beforeAll(async () => {
  const dir = tempDir("lgw-snap-bad-");
  writeChainFile(dir, GOOD_1);
  writeChainFile(dir, GOOD_9745);
  // 8453: a token address in upper case fails validation
  const bad8453 = goodFile(8453, "BASE");
  const upper = "0x" + "ABCDEF".padStart(40, "0");
  (bad8453.tokens[1] as { address: string }).address = upper;
  bad8453.pools[0]!.tokens[1]!.address = upper;
  writeChainFile(dir, bad8453);
  // 130: not MessagePack at all
  writeRawFile(dir, "chain-130.msgpack", Buffer.from("this is not messagepack \u0000\u00ff garbage"));
  // 143: the file's chainId does not match its name
  writeChainFile(dir, goodFile(1, "MISMATCH"), "chain-143.msgpack");
  // 534352: a pool token that is not in tokens
  const bad534352 = goodFile(534352, "SCR");
  bad534352.pools[0]!.tokens[1]!.address = addr("dead");
  writeChainFile(dir, bad534352);
  // 999: no live file; only names that must be ignored
  writeChainFile(dir, goodFile(999, "TMP"), "chain-999.msgpack.tmp");
  writeChainFile(dir, goodFile(999, "DOT"), ".chain-999.msgpack");
  writeChainFile(dir, goodFile(999, "OTHER"), "snapshot-999.msgpack");
  writeRawFile(dir, "README.txt", "not a snapshot");
  gw = await startGateway({ snapshotDir: dir, keysFile: writeKeysFile() });
  base = gw.baseUrl;
});

afterAll(async () => {
  await gw?.stop();
});

const rejected = () => gw.logs().filter((l) => l.event === "snapshot-rejected");

describe("rejections are logged", () => {
  for (const chainId of [8453, 130, 143, 534352]) {
    it(`chain ${chainId}: a snapshot-rejected line with chainId, reason and error`, () => {
      const lines = rejected().filter((l) => l.chainId === chainId);
      expect(lines.length, JSON.stringify(rejected())).toBeGreaterThanOrEqual(1);
      const line = lines[0]!;
      expect(typeof line.reason).toBe("string");
      expect((line.reason as string).length).toBeGreaterThan(0);
      expect(typeof line.error).toBe("string");
      expect((line.error as string).length).toBeGreaterThan(0);
    });
  }

  it("validation errors name the path of the first offending field", () => {
    const e8453 = rejected().find((l) => l.chainId === 8453)!;
    expect(e8453.error as string).toMatch(/tokens\[1\]\.address/);
    const e534352 = rejected().find((l) => l.chainId === 534352)!;
    expect(e534352.error as string).toMatch(/pools\[0\]\.tokens\[1\]\.address/);
  });

  it("good chains and ignored file names are not rejected", () => {
    for (const chainId of [1, 9745, 999]) expect(rejected().filter((l) => l.chainId === chainId)).toEqual([]);
  });

  it("the initial load completed after the rejections", () => {
    const logs = gw.logs();
    const done = logs.findIndex((l) => l.event === "initial-load-complete");
    expect(done).toBeGreaterThanOrEqual(0);
    for (const chainId of [8453, 130, 143, 534352]) {
      expect(logs.findIndex((l) => l.event === "snapshot-rejected" && l.chainId === chainId)).toBeLessThan(done);
    }
  });
});

describe("serving", () => {
  it("good chains are served", async () => {
    expect(expectSuccess(await getPool(base, 1, POOL)).pool.chainId).toBe(1);
    expect(expectSuccess(await getPool(base, 9745, POOL)).pool.chainId).toBe(9745);
  });

  for (const chainId of [8453, 130, 143, 534352, 999]) {
    it(`chain ${chainId} (rejected or missing) → 503 on the pool route`, async () => {
      const err = expectError(await getPool(base, chainId, POOL), 503, "CHAIN_DATA_UNAVAILABLE", `/v1/pools/${chainId}/${POOL}`);
      expect(err.metadata.chainId).toBe(chainId);
    });

    it(`chain ${chainId} named in filters.chainIds → 503`, async () => {
      const err = expectError(await postTokens(base, { filters: { chainIds: [1, chainId] } }), 503, "CHAIN_DATA_UNAVAILABLE");
      expect(err.metadata.chainId).toBe(chainId);
    });
  }

  it("without chainIds, the token list covers the loaded chains only", async () => {
    const { tokens } = await walkTokenPages(base, {}, 2);
    expect(tokens).toEqual(referenceTokenList([GOOD_1, GOOD_9745]));
    expect(tokens.map((t) => t.symbol).sort()).toEqual(["ETH", "ONE", "PLAS", "XPL"]);
  });

  it("protocols come from the loaded chains only", async () => {
    const ids = expectSuccess(await getProtocols(base)).protocols.map((p: { id: string }) => p.id);
    expect(ids).toEqual(["proto-1", "proto-9745"]);
  });
});
