/**
 * The snapshot pipeline as an operator sees it over HTTP (issue 10, items 1-5),
 * against the built gateway on a real directory: a correction with the same
 * generatedAt, size and mtime is served under a new content-derived version; a
 * far-future file is rejected and a correct push after it is accepted; an
 * older file goes in after `liquidity-gateway snapshots allow-older`; a file
 * the gateway may not read (EACCES) is served after `chmod` on the next
 * REBUILD_CRON tick; a directory at a live name is logged and counted once.
 *
 * Root ignores file modes, so when the suite runs as root the gateway runs as
 * `nobody` (uid 65534), like a service account, and the directory is its own.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, renameSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NATIVE_ADDRESS, type ChainId } from "../../src/chains/chains.js";
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
  writeKeysFile,
} from "../support/fixtures.js";
import { expectSuccess, getPool, MAIN_JS, postTokens, request, startGateway, type Gateway } from "../support/gateway-process.js";

const POOL = addr("abc1");
const NOW = Math.floor(Date.now() / 1000);
const NOBODY = { uid: 65534, gid: 65534 };
const asRoot = process.getuid?.() === 0;

function chain(chainId: ChainId, generatedAt: number, symbol: string): SnapshotFile {
  return chainFile(chainId, {
    generatedAt,
    protocols: [protocol("p")],
    tokens: [nativeToken(chainId, { trackedTotalValuePooledUsd: 10 }), token(chainId, { address: addr("1001"), symbol })],
    pools: [v2Pool({ address: POOL, protocolId: "p", tokens: [poolToken(NATIVE_ADDRESS, 1, 2), poolToken(addr("1001"), 3, 4)] })],
  });
}

let gw: Gateway;
let dir: string;
/** Files outside the watched directory (targets of symbolic links). */
let elsewhere: string;

function push(file: SnapshotFile): void {
  const tmp = path.join(dir, `.chain-${file.chainId}.tmp`);
  writeFileSync(tmp, packSnapshot(file));
  renameSync(tmp, path.join(dir, `chain-${file.chainId}.msgpack`));
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${JSON.stringify(gw.logs().slice(-8))}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function symbolOf(chainId: number): Promise<string | undefined> {
  const res = await postTokens(gw.baseUrl, { filters: { chainIds: [chainId] }, config: { limit: 10 } });
  if (res.status !== 200) return undefined;
  return (res.body.data.tokens as { symbol: string; chainIds: number[] }[]).find((t) => t.symbol !== "ETH" && t.symbol !== "HYPE")?.symbol;
}

const rejections = (reason: string) => gw.logs().filter((l) => l.event === "snapshot-rejected" && l.reason === reason);

async function metric(line: RegExp): Promise<number | undefined> {
  const text = (await request(gw.baseUrl, "/metrics")).text;
  const m = line.exec(text);
  return m ? Number(m[1]) : undefined;
}

beforeAll(async () => {
  dir = tempDir("lgw-pipeline-");
  elsewhere = tempDir("lgw-pipeline-elsewhere-");
  push(chain(1, NOW - 1000, "AAA"));
  push(chain(999, NOW - 1000, "HHH"));
  const keysFile = writeKeysFile();
  if (asRoot) {
    chownSync(dir, NOBODY.uid, NOBODY.gid);
    chmodSync(elsewhere, 0o755);
    chmodSync(path.dirname(keysFile), 0o755);
  }
  gw = await startGateway({
    snapshotDir: dir,
    keysFile,
    env: { REBUILD_CRON: "*/2 * * * * *", GATEWAY_THREADS: "1" },
    ...(asRoot ? { runAs: NOBODY } : {}),
  });
});

afterAll(async () => {
  await gw?.stop();
});

describe("content-derived snapshot versions", () => {
  let before: string;

  it("/ready and x-snapshot-version give the served version as 12 hex digits", async () => {
    const ready = await request(gw.baseUrl, "/ready");
    before = ready.body.version;
    expect(before).toMatch(/^[0-9a-f]{12}$/);
    expect((await getPool(gw.baseUrl, 1, POOL)).headers.get("x-snapshot-version")).toBe(before);
  });

  it("a correction with the same generatedAt, byte size and mtime is served, under a new version", async () => {
    const file = path.join(dir, "chain-1.msgpack");
    const { mtime, size } = statSync(file);
    const corrected = packSnapshot(chain(1, NOW - 1000, "AAB"));
    expect(corrected.length).toBe(size);
    writeFileSync(file, corrected);
    utimesSync(file, mtime, mtime);
    await waitFor("the corrected symbol", async () => ((await symbolOf(1)) === "AAB" ? true : undefined));
    const after = (await request(gw.baseUrl, "/ready")).body.version;
    expect(after).toMatch(/^[0-9a-f]{12}$/);
    expect(after).not.toBe(before);
    expect((await getPool(gw.baseUrl, 1, POOL)).headers.get("x-snapshot-version")).toBe(after);
  });
});

describe("generatedAt bounds", () => {
  it("a file from the far future is rejected with its own reason; the correct push after it is served", async () => {
    push(chain(1, 4_925_000_000, "FUT")); // the year 2126
    await waitFor("the future-generated-at rejection", () => (rejections("future-generated-at").length > 0 ? true : undefined));
    expect(rejections("future-generated-at")[0]).toMatchObject({ chainId: 1, file: "chain-1.msgpack" });
    expect(await symbolOf(1)).toBe("AAB");
    expect(await metric(/^gateway_snapshot_rejected_files_total\{reason="future-generated-at"\} (\d+)$/m)).toBe(1);
    push(chain(1, NOW - 500, "NEW"));
    await waitFor("the correct push", async () => ((await symbolOf(1)) === "NEW" ? true : undefined));
    const age = await metric(/^gateway_snapshot_age_seconds\{chain_id="1"\} (\S+)$/m);
    expect(age).toBeGreaterThanOrEqual(499);
  });

  it("an older file is out-of-order until `liquidity-gateway snapshots allow-older`, then served, and the marker is gone", async () => {
    push(chain(1, NOW - 900, "OLD"));
    await waitFor("the out-of-order rejection", () => (rejections("out-of-order").length > 0 ? true : undefined));
    expect(await symbolOf(1)).toBe("NEW");
    const out = execFileSync(process.execPath, [MAIN_JS, "snapshots", "allow-older", "1", "--snapshot-dir", dir], { encoding: "utf8" });
    expect(out.trim()).toBe(path.join(dir, "chain-1.allow-older"));
    await waitFor("the older file", async () => ((await symbolOf(1)) === "OLD" ? true : undefined));
    await waitFor("the marker to be removed", () => (existsSync(path.join(dir, "chain-1.allow-older")) ? undefined : true));
    expect(gw.logs().some((l) => l.event === "snapshot-allow-older-used" && l.chainId === 1)).toBe(true);
  });
});

describe("retries and what is at a live name", () => {
  it("a file the gateway may not read (EACCES) is rejected as io, and served on the next tick after chmod", async () => {
    // The file lives outside the watched directory behind a symbolic link: only the tick looks at it again.
    const target = path.join(elsewhere, "base.msgpack");
    writeFileSync(target, packSnapshot(chain(8453, NOW - 100, "BASE")));
    chmodSync(target, 0o000);
    symlinkSync(target, path.join(dir, "chain-8453.msgpack"));
    await waitFor("the io rejection", () => (rejections("io").length > 0 ? true : undefined));
    expect(rejections("io")[0]!.error).toBe("chain-8453.msgpack: cannot read the file (EACCES)");
    expect((await getPool(gw.baseUrl, 8453, POOL)).status).toBe(503);
    chmodSync(target, 0o644);
    const pool = await waitFor("chain 8453 to be served", async () => {
      const res = await getPool(gw.baseUrl, 8453, POOL);
      return res.status === 200 ? res.body.data.pool : undefined;
    });
    expect(pool.chainId).toBe(8453);
  });

  it("a directory at a live name is logged and counted once (not on every tick); the chain keeps its data", async () => {
    execFileSync("rm", ["-f", path.join(dir, "chain-999.msgpack")]);
    mkdirSync(path.join(dir, "chain-999.msgpack"));
    await waitFor("the not-a-file rejection", () => (rejections("not-a-file").length > 0 ? true : undefined));
    await new Promise((r) => setTimeout(r, 4500)); // two ticks or more
    expect(rejections("not-a-file")).toHaveLength(1);
    expect(rejections("not-a-file")[0]).toMatchObject({ chainId: 999, what: "directory" });
    expect(await metric(/^gateway_snapshot_rejected_files_total\{reason="not-a-file"\} (\d+)$/m)).toBe(1);
    expectSuccess(await getPool(gw.baseUrl, 999, POOL));
  });
});
