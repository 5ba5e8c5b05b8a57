/**
 * History in the real gateway (shared/spec/history.md §25): spawned gateways fed the same chain files
 * one at a time answer the history routes byte for byte the same; a restart keeps history and continues
 * it; `liquidity-gateway history rebuild --from DIR` over an archive of the same files gives the same
 * answers as live ingestion; a gateway killed with SIGKILL while it ingests comes back with readable
 * history whose every number is a file's, and whose missing files are a gap; a store of another format is
 * refused by name while every other route serves.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import { open } from "lmdb";
import { afterAll, describe, expect, it } from "vitest";
import type { SnapshotFile } from "../../src/api/snapshot-format.js";
import { tempDir, writeChainFile, writeKeysFile, writeSnapshotDir } from "../support/fixtures.js";
import { MAIN_JS, PROJECT_ROOT, request, startGateway, waitFor, type Gateway } from "../support/gateway-process.js";
import { historySeries } from "../support/history-series.js";
import { observedValues } from "../support/reference-history.js";

const CHAIN = 8453;
const files = historySeries(23, {
  chainId: CHAIN,
  tokens: 5,
  looseTokens: 3,
  pools: 6,
  files: 10,
  churn: 0.4,
  start: 1_750_000_000,
  step: () => 600,
});
const tokens = [...new Set(files.flatMap((f) => f.tokens.map((t) => t.address)))];
const pools = [...new Set(files.flatMap((f) => f.pools.map((p) => p.address)))];
const keysFile = writeKeysFile();
const cleanup: string[] = [];
const running: Gateway[] = [];

afterAll(async () => {
  for (const gw of running) await gw.stop();
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
});

function dir(prefix: string): string {
  const d = tempDir(prefix);
  cleanup.push(d);
  return d;
}

async function start(snapshotDir: string, historyDir: string, env: Record<string, string> = {}): Promise<Gateway> {
  const gw = await startGateway({ snapshotDir, keysFile, env: { HISTORY_DIR: historyDir, GATEWAY_THREADS: "1", ...env } });
  running.push(gw);
  return gw;
}

async function stop(gw: Gateway): Promise<void> {
  running.splice(running.indexOf(gw), 1);
  await gw.stop();
}

function push(snapshotDir: string, file: SnapshotFile): void {
  const tmp = writeChainFile(snapshotDir, file, `.chain-${file.chainId}.msgpack.tmp`);
  renameSync(tmp, path.join(snapshotDir, `chain-${file.chainId}.msgpack`));
}

/** Waits until the gateway serves `file` and history has observed it. */
async function observed(gw: Gateway, file: SnapshotFile): Promise<void> {
  await waitFor(`history of ${gw.baseUrl} at ${file.generatedAt}`, async () => {
    const res = await request(gw.baseUrl, "/v1/status");
    const h = res.body?.data?.history;
    return h?.state === "ok" && h.lastObservedAt === file.generatedAt ? true : undefined;
  });
}

const QUERIES = [
  ...tokens.flatMap((a) => [
    `/v1/history/tokens/${CHAIN}/${a}/ohlcv/minute?limit=1000`,
    `/v1/history/tokens/${CHAIN}/${a}/ohlcv/minute?aggregate=15&fill=previous`,
    `/v1/history/tokens/${CHAIN}/${a}/ohlcv/hour?fill=previous`,
    `/v1/history/tokens/${CHAIN}/${a}/ohlcv/day`,
  ]),
  ...pools.flatMap((a) => [
    `/v1/history/pools/${CHAIN}/${a}/minute?limit=1000`,
    `/v1/history/pools/${CHAIN}/${a}/hour?aggregate=4&fill=previous`,
  ]),
];

/** Every answer's status and `data` bytes (the envelope's timestamp and trace id differ by design). */
async function answers(gw: Gateway): Promise<string[]> {
  const out: string[] = [];
  for (const q of QUERIES) {
    const res = await request(gw.baseUrl, q);
    out.push(`${q} ${res.status} ${res.text.slice(res.text.indexOf('"data":'))}`);
  }
  for (const at of [files[0].generatedAt + 30, files[4].generatedAt, files[files.length - 1].generatedAt + 5000]) {
    const res = await request(gw.baseUrl, "/v1/history/tokens/prices", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ at, tokens: tokens.map((address) => ({ chainId: CHAIN, address })) }),
    });
    out.push(`prices ${at} ${res.status} ${res.text.slice(res.text.indexOf('"data":'))}`);
  }
  return out;
}

describe("history across instances, restarts and a rebuild", () => {
  it(
    "same files, same bytes; a restart keeps history; a rebuild from the archive equals live ingestion",
    { timeout: 180_000 },
    async () => {
      const [snapA, snapB] = [writeSnapshotDir([files[0]]), writeSnapshotDir([files[0]])];
      cleanup.push(snapA, snapB);
      const [histA, histB] = [dir("lgw-hist-a-"), dir("lgw-hist-b-")];
      let a = await start(snapA, histA);
      const b = await start(snapB, histB);
      await Promise.all([observed(a, files[0]), observed(b, files[0])]);
      const half = 6;
      for (let i = 1; i < half; i++) {
        push(snapA, files[i]);
        push(snapB, files[i]);
        await Promise.all([observed(a, files[i]), observed(b, files[i])]);
      }
      const before = await answers(a);
      expect(await answers(b)).toEqual(before);
      // Loose tokens the first files never held are 404 TOKEN_NOT_FOUND; most answer.
      expect(before.every((line) => / (200|404) /.test(line))).toBe(true);
      expect(before.filter((line) => / 200 /.test(line)).length).toBeGreaterThan(QUERIES.length / 2);

      // A restart over the same store: the same answers, and history goes on from there.
      await stop(a);
      a = await start(snapA, histA);
      await observed(a, files[half - 1]);
      expect(await answers(a)).toEqual(before);
      for (let i = half; i < files.length; i++) {
        push(snapA, files[i]);
        push(snapB, files[i]);
        await Promise.all([observed(a, files[i]), observed(b, files[i])]);
      }
      const live = await answers(b);
      expect(await answers(a)).toEqual(live);
      expect(live).not.toEqual(before);

      // history rebuild over an archive of the same files (names as an archive keeps them, out of order on disk).
      const archive = dir("lgw-archive-");
      files.forEach((f, i) => {
        const sub = path.join(archive, `day-${i % 3}`);
        mkdirSync(sub, { recursive: true });
        writeChainFile(sub, f, `chain-${CHAIN}-${(files.length - i) * 7}.msgpack`);
      });
      const histC = dir("lgw-hist-c-");
      const rebuilt = spawnSync(process.execPath, [MAIN_JS, "history", "rebuild", "--from", archive, "--history-dir", histC], {
        cwd: PROJECT_ROOT,
        env: { ...process.env, HISTORY_DIR: undefined, SNAPSHOT_DIR: undefined },
        encoding: "utf8",
      });
      expect(rebuilt.status, rebuilt.stderr).toBe(0);
      expect(rebuilt.stdout).toMatch(new RegExp(`${files.length} of ${files.length} files observed`));
      const snapC = writeSnapshotDir([files[files.length - 1]]);
      cleanup.push(snapC);
      const c = await start(snapC, histC);
      await observed(c, files[files.length - 1]);
      expect(await answers(c)).toEqual(live);
    },
  );

  it("a store of another format is refused by name: history failed, every other route serves", { timeout: 60_000 }, async () => {
    const snap = writeSnapshotDir([files[0]]);
    cleanup.push(snap);
    const hist = dir("lgw-hist-format-");
    // A format-1 store: what the gateway wrote before 2026-11-28.
    const env = open<Buffer, Buffer>({ path: hist, maxDbs: 16, keyEncoding: "binary", encoding: "binary" });
    env.transactionSync(() => env.putSync(Buffer.from("history-format"), Buffer.from(Uint32Array.of(1).buffer)));
    await env.close();
    const gw = await start(snap, hist);
    const status = await waitFor("history failed", async () => {
      const res = await request(gw.baseUrl, "/v1/status");
      return res.body?.data?.history?.state === "failed" ? res : undefined;
    });
    expect(status.status).toBe(200);
    const failed = gw.logs().find((l) => l.event === "history-failed");
    expect(failed?.reason).toMatch(/holds history in format 1; this gateway reads and writes format 3: move that directory aside/);
    expect((await request(gw.baseUrl, `/v1/pools/${CHAIN}/${files[0].pools[0].address}`)).status).toBe(200);
    // History's routes say why (503 with the reason), and the serving thread stamped nothing into the store.
    const refused = await request(gw.baseUrl, `/v1/history/pools/${CHAIN}/${files[0].pools[0].address}/minute`);
    expect(refused.status).toBe(503);
    expect(refused.body?.error?.code).toBe("HISTORY_UNAVAILABLE");
    expect(refused.body?.error?.metadata?.reason).toMatch(/format 1; this gateway reads format 3/);
    // Not restarted every second: one start, the next a minute later.
    await new Promise((r) => setTimeout(r, 2500));
    expect(gw.logs().filter((l) => l.event === "history-failed")).toHaveLength(1);
    await stop(gw);
  });

  it(
    "SIGKILL while ingesting: history stays readable, every number is a file's, what was lost is a gap",
    { timeout: 120_000 },
    async () => {
      const snap = writeSnapshotDir([files[0]]);
      cleanup.push(snap);
      const hist = dir("lgw-hist-kill-");
      let gw = await start(snap, hist);
      await observed(gw, files[0]);
      // Push files without waiting, and kill the gateway while it takes them in.
      for (let i = 1; i < 7; i++) {
        push(snap, files[i]);
        await new Promise((r) => setTimeout(r, 120));
      }
      running.splice(running.indexOf(gw), 1);
      gw.process.kill("SIGKILL");
      await new Promise((r) => gw.process.once("exit", r));
      gw = await start(snap, hist);
      await observed(gw, files[6]);
      const byMinute = new Map(files.slice(0, 7).map((f) => [f.generatedAt - (f.generatedAt % 60), observedValues(f)]));
      for (const address of tokens) {
        const res = await request(gw.baseUrl, `/v1/history/tokens/${CHAIN}/${address}/ohlcv/minute?limit=1000`);
        if (res.status === 404) continue; // a loose token the observed files never held
        expect(res.status).toBe(200);
        const { candles, coverage } = res.body.data as { candles: number[][]; coverage: { gaps: number[][] } };
        for (const [t, o, h, l, c, tvl] of candles) {
          const values = byMinute.get(t)?.tokens.get(address);
          expect(values, `${address} at ${t}`).toBeDefined();
          expect([o, h, l, c, tvl]).toEqual([values![0], values![0], values![0], values![0], values![1]]);
        }
        // At most one gap: from the last file observed before the kill to the file observed after it.
        expect(coverage.gaps.length).toBeLessThanOrEqual(1);
        for (const [, to] of coverage.gaps) expect(to).toBe(files[6].generatedAt);
      }
    },
  );

  it.runIf(process.getuid?.() === 0)(
    "a full disk (2 MiB tmpfs, HISTORY_MIN_FREE_MB 1) marks history failed while every other route serves; it resumes when space returns",
    { timeout: 180_000 },
    async () => {
      const big = historySeries(31, {
        chainId: CHAIN,
        tokens: 300,
        looseTokens: 20,
        pools: 500,
        files: 80,
        churn: 0.9,
        start: 1_760_000_000,
        step: () => 60,
      });
      const mountPoint = dir("lgw-hist-tmpfs-");
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", mountPoint]);
      let gateway: Gateway | null = null;
      try {
        const snap = writeSnapshotDir([big[0]]);
        cleanup.push(snap);
        const gw = (gateway = await start(snap, mountPoint, { HISTORY_MIN_FREE_MB: "1" }));
        let i = 1;
        let state = "";
        for (; i < big.length && state !== "failed"; i++) {
          push(snap, big[i]);
          state = await waitFor(`chain served at ${big[i].generatedAt}`, async () => {
            const res = await request(gw.baseUrl, "/v1/status");
            const chain = res.body?.data?.chains?.[0];
            const h = res.body?.data?.history;
            return chain?.generatedAt === big[i].generatedAt && (h?.state === "ok" || h?.state === "failed")
              ? (h.state as string)
              : undefined;
          });
        }
        expect(state, "the tmpfs filled up").toBe("failed");
        const pool = big[i - 1].pools[0].address;
        expect((await request(gw.baseUrl, `/v1/pools/${CHAIN}/${pool}`)).status).toBe(200);
        expect((await request(gw.baseUrl, `/v1/tokens/${CHAIN}/${big[i - 1].tokens[0].address}`)).status).toBe(200);
        expect((await request(gw.baseUrl, `/v1/history/pools/${CHAIN}/${pool}/minute`)).status).toBe(200);
        expect(gw.logs().some((l) => l.event === "history-failed")).toBe(true);
        // Space returns: the next file is observed and history is ok again.
        execFileSync("mount", ["-o", "remount,size=256m", mountPoint]);
        push(snap, big[i]);
        await observed(gw, big[i]);
      } finally {
        if (gateway !== null) await stop(gateway); // the store's files are open until it exits
        execFileSync("umount", [mountPoint]);
      }
    },
  );
});
