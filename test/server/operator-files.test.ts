/**
 * Operator files that are no file, or too large (issue 19, item 2), against
 * the real gateway: a symbolic link to /dev/zero, a FIFO with no writer, a
 * directory and an oversized file, at the baskets file, the keys file and a
 * snapshot file. At start: the keys file stops start-up with a message naming
 * what is wrong; a bad baskets file is rejected (no baskets); a bad snapshot
 * file is rejected and the other chains serve. While running: each is
 * rejected with a clear log line and counted, the last good file stays in
 * force, /health and /metrics keep answering at once, memory does not grow,
 * and a snapshot pushed while a FIFO sits at the baskets and keys paths is
 * still taken. (The TLS files: tls-reload.test.ts.)
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KEYS, packSnapshot, tempDir, writeKeysFile, writeSnapshotDir } from "../support/fixtures.js";
import {
  expectSuccess,
  metricValue,
  request,
  rssBytes,
  runGatewayExpectingExit,
  startGateway,
  startWithBaskets,
  waitFor,
  type Gateway,
} from "../support/gateway-process.js";
import { tokenSurfaceBaskets, tokenSurfaceFixture } from "../support/token-surface-fixture.js";

const MIB = 1024 * 1024;

/** What an attacker with write access to the directory can put at a name. */
type Hostile = "link to /dev/zero" | "FIFO" | "directory" | "oversized file";
const HOSTILE: readonly Hostile[] = ["link to /dev/zero", "FIFO", "directory", "oversized file"];
const a = (what: Hostile) => `${what === "oversized file" ? "an" : "a"} ${what}`;

/** The problem each refusal names. */
const PROBLEM: Record<Hostile, RegExp> = {
  "link to /dev/zero": /the path is a symbolic link to a device, not a regular file/,
  FIFO: /the path is a FIFO \(named pipe\), not a regular file/,
  directory: /the path is a directory, not a file/,
  "oversized file":
    /the file has 1\.1 MiB \(\d+ bytes\); a (keys|baskets) file may have at most 1 MiB \((KEYS|BASKETS)_FILE_MAX_MB raises it\)/,
};

/** Puts `what` at `target` (replacing what is there, as a rename would). */
function place(what: Hostile, target: string): void {
  rmSync(target, { recursive: true, force: true });
  const tmp = `${target}.${process.pid}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  switch (what) {
    case "link to /dev/zero":
      symlinkSync("/dev/zero", tmp);
      break;
    case "FIFO":
      execFileSync("mkfifo", [tmp]);
      break;
    case "directory":
      mkdirSync(tmp);
      break;
    case "oversized file":
      writeFileSync(tmp, `{"baskets": [], "keys": []}${" ".repeat(1.1 * MIB)}`);
      break;
  }
  renameSync(tmp, target);
}

/** The operator's way: a temporary file in the same directory, renamed over the name. */
function restore(target: string, text: string): void {
  rmSync(target, { recursive: true, force: true });
  writeFileSync(`${target}.${process.pid}.tmp`, text);
  renameSync(`${target}.${process.pid}.tmp`, target);
}

/** GET with its duration. */
async function timed(base: string, urlPath: string, key: string | null = null): Promise<{ status: number; ms: number; text: string }> {
  const started = performance.now();
  const res = await request(base, urlPath, { key });
  return { status: res.status, ms: performance.now() - started, text: res.text };
}

describe("bad operator files at start", () => {
  let snapshotDir: string;
  let goodKeys: string;
  let work: string;

  beforeAll(() => {
    snapshotDir = writeSnapshotDir(tokenSurfaceFixture());
    goodKeys = writeKeysFile();
    work = tempDir("lgw-opfiles-start-");
  });

  for (const what of HOSTILE) {
    it(`a keys file that is ${a(what)} stops start-up, naming the file and the problem`, async () => {
      const keys = path.join(work, `keys-${what.replace(/\W+/g, "-")}.json`);
      place(what, keys);
      const result = await runGatewayExpectingExit({ SNAPSHOT_DIR: snapshotDir, API_KEYS_FILE: keys, KEYS_FILE_MAX_MB: "1" });
      expect(result.timedOut, result.stderr).toBe(false);
      expect(result.code, result.stderr).not.toBe(0);
      if (what === "oversized file") {
        // Passes the settings check (it is a file), refused when read.
        expect(result.code).toBe(1);
        expect(result.stderr).toContain(`liquidity-gateway: cannot start: invalid API keys file: ${keys}: cannot read the keys file: `);
        expect(result.stderr).toMatch(PROBLEM[what]);
      } else {
        expect(result.code).toBe(2);
        expect(result.stderr).toContain(`API_KEYS_FILE must name a readable keys file; "${keys}" is not a file.`);
      }
    });
  }

  it("BASKETS_FILE naming a FIFO stops start-up (exit 2)", async () => {
    const fifo = path.join(work, "baskets.fifo");
    place("FIFO", fifo);
    const result = await runGatewayExpectingExit({ SNAPSHOT_DIR: snapshotDir, API_KEYS_FILE: goodKeys, BASKETS_FILE: fifo });
    expect(result.timedOut).toBe(false);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`BASKETS_FILE must name a baskets file; "${fifo}" is not a file.`);
  });

  for (const what of HOSTILE) {
    it(`a baskets.json that is ${a(what)} is rejected at start, logged and counted; the gateway serves without baskets`, async () => {
      const dir = writeSnapshotDir(tokenSurfaceFixture());
      place(what, path.join(dir, "baskets.json"));
      const gw = await startGateway({ snapshotDir: dir, keysFile: goodKeys, env: { BASKETS_FILE_MAX_MB: "1" } });
      try {
        const line = gw.logs().find((l) => l.event === "baskets-file-rejected");
        expect(String(line?.error)).toContain(`${path.join(dir, "baskets.json")}: cannot read the baskets file: `);
        expect(String(line?.error)).toMatch(PROBLEM[what]);
        expect(expectSuccess(await request(gw.baseUrl, "/v1/tokens/baskets"))).toEqual({ baskets: [] });
        expect(metricValue((await request(gw.baseUrl, "/metrics", { key: null })).text, "gateway_baskets_file_rejections_total")).toBe(1);
        expect(rssBytes(gw.process.pid!)).toBeLessThan(1024 * MIB);
      } finally {
        await gw.stop();
      }
    });
  }

  it("snapshot files that are a link to /dev/zero, a FIFO, or over SNAPSHOT_FILE_MAX_MB are rejected at start; the good chain serves", async () => {
    const dir = writeSnapshotDir([tokenSurfaceFixture()[0]!]);
    symlinkSync("/dev/zero", path.join(dir, "chain-8453.msgpack"));
    execFileSync("mkfifo", [path.join(dir, "chain-130.msgpack")]);
    writeFileSync(path.join(dir, "chain-999.msgpack"), Buffer.alloc(1.5 * MIB, 0xc1)); // refused by its size, before it is decoded
    const gw = await startGateway({ snapshotDir: dir, keysFile: goodKeys, env: { SNAPSHOT_FILE_MAX_MB: "1" } });
    try {
      const rejected = gw.logs().filter((l) => l.event === "snapshot-rejected");
      const byFile = Object.fromEntries(rejected.map((l) => [String(l.file), l]));
      expect(byFile["chain-8453.msgpack"]).toMatchObject({ reason: "not-a-file", what: "device" });
      expect(byFile["chain-130.msgpack"]).toMatchObject({ reason: "not-a-file", what: "fifo" });
      expect(byFile["chain-999.msgpack"]).toMatchObject({ reason: "too-large" });
      expect(String(byFile["chain-999.msgpack"]!.error)).toMatch(
        /^chain-999\.msgpack: the file has 1\.5 MiB \(\d+ bytes\); a snapshot file may have at most 1 MiB \(SNAPSHOT_FILE_MAX_MB raises it\)$/,
      );
      const metrics = (await request(gw.baseUrl, "/metrics", { key: null })).text;
      expect(metricValue(metrics, "gateway_snapshot_rejected_files_total", { reason: "too-large" })).toBe(1);
      expect(metricValue(metrics, "gateway_snapshot_rejected_files_total", { reason: "not-a-file" })).toBe(2);
      expect(metricValue(metrics, "gateway_snapshot_generated_at_seconds", { chain_id: "1" })).toBe(tokenSurfaceFixture()[0]!.generatedAt);
    } finally {
      await gw.stop();
    }
  });
});

describe("bad operator files while running: rejected, the last good stays, nothing blocks", () => {
  let gw: Gateway & { snapshotDir: string; keysFile: string };
  let base: string;
  const GOOD_BASKETS = JSON.stringify(tokenSurfaceBaskets());
  const listed = async () =>
    (expectSuccess(await request(base, "/v1/tokens/baskets")).baskets as { id: string }[]).map((b) => b.id).join(",");
  let goodList: string;
  let goodKeysText: string;
  let generatedAt = 1_750_000_000;

  beforeAll(async () => {
    gw = await (startWithBaskets(tokenSurfaceFixture(), tokenSurfaceBaskets(), undefined, {
      GATEWAY_THREADS: "2",
      BASKETS_FILE_MAX_MB: "1",
      KEYS_FILE_MAX_MB: "1",
      SNAPSHOT_FILE_MAX_MB: "1",
    }) as Promise<Gateway & { snapshotDir: string; keysFile: string }>);
    base = gw.baseUrl;
    goodList = await listed();
    expect(goodList).toContain("usd-stablecoins");
    goodKeysText = readFileSync(gw.keysFile, "utf8");
  });

  afterAll(async () => {
    await gw?.stop();
  });

  const metrics = async () => (await request(base, "/metrics", { key: null })).text;
  const count = (event: string) => gw.logs().filter((l) => l.event === event).length;

  /** /health and /metrics answer at once (a blocked supervisor made /metrics answer 500 after 5 s). */
  async function expectResponsive(): Promise<void> {
    for (let i = 0; i < 3; i++) {
      const health = await timed(base, "/health");
      expect(health.status).toBe(200);
      expect(health.ms).toBeLessThan(1500);
      const m = await timed(base, "/metrics");
      expect(m.status).toBe(200);
      expect(m.ms).toBeLessThan(1500);
    }
  }

  /** Pushes a changed chain-130 file and waits until it is served. */
  async function expectNewSnapshotTaken(): Promise<void> {
    const swapped = count("snapshot-swapped");
    generatedAt += 10;
    const chain130 = tokenSurfaceFixture()[2]!;
    const target = path.join(gw.snapshotDir, "chain-130.msgpack");
    writeFileSync(`${target}.tmp`, packSnapshot({ ...chain130, generatedAt }));
    renameSync(`${target}.tmp`, target);
    await waitFor("the new chain-130 file to be served", () => (count("snapshot-swapped") > swapped ? true : undefined));
    await waitFor("the new version to answer", async () => {
      const metricsText = await metrics();
      return metricValue(metricsText, "gateway_snapshot_generated_at_seconds", { chain_id: "130" }) === generatedAt ? true : undefined;
    });
  }

  for (const what of HOSTILE) {
    it(`baskets.json replaced by ${a(what)}: rejected (logged, counted), the baskets stay, /metrics answers, a new snapshot is taken`, async () => {
      const target = path.join(gw.snapshotDir, "baskets.json");
      const before = metricValue(await metrics(), "gateway_baskets_file_rejections_total");
      const logged = count("baskets-file-rejected");
      const rss = rssBytes(gw.process.pid!);
      place(what, target);
      await waitFor(`the ${what} to be rejected`, async () =>
        metricValue(await metrics(), "gateway_baskets_file_rejections_total") === before + 1 ? true : undefined,
      );
      const line = gw.logs().filter((l) => l.event === "baskets-file-rejected")[logged];
      expect(String(line?.error)).toContain(`${target}: cannot read the baskets file: `);
      expect(String(line?.error)).toMatch(PROBLEM[what]);
      expect(await listed()).toBe(goodList);
      await expectResponsive();
      await expectNewSnapshotTaken();
      expect(await listed()).toBe(goodList);
      expect(rssBytes(gw.process.pid!) - rss).toBeLessThan(256 * MIB);

      const reloaded = count("baskets-reloaded");
      restore(target, GOOD_BASKETS);
      await waitFor("the good baskets file again", () => (count("baskets-reloaded") > reloaded ? true : undefined));
    });
  }

  for (const what of HOSTILE) {
    it(`the keys file replaced by ${a(what)}: rejected (logged, counted), the keys stay, /metrics answers, a new snapshot is taken`, async () => {
      const before = metricValue(await metrics(), "gateway_keys_file_rejections_total");
      const logged = count("keys-file-rejected");
      const rss = rssBytes(gw.process.pid!);
      place(what, gw.keysFile);
      await waitFor(`the ${what} to be rejected`, async () =>
        metricValue(await metrics(), "gateway_keys_file_rejections_total") === before + 1 ? true : undefined,
      );
      const line = gw.logs().filter((l) => l.event === "keys-file-rejected")[logged];
      expect(String(line?.error)).toContain(`${gw.keysFile}: cannot read the keys file: `);
      expect(String(line?.error)).toMatch(PROBLEM[what]);
      expect((await request(base, "/v1/protocols", { key: KEYS.active })).status).toBe(200);
      await expectResponsive();
      await expectNewSnapshotTaken();
      expect((await request(base, "/v1/protocols", { key: KEYS.active })).status).toBe(200);
      expect(rssBytes(gw.process.pid!) - rss).toBeLessThan(256 * MIB);

      const reloaded = count("keys-reloaded");
      restore(gw.keysFile, goodKeysText);
      await waitFor("the good keys file again", () => (count("keys-reloaded") > reloaded ? true : undefined));
    });
  }

  it("a FIFO at both the baskets and the keys path at once: a pushed snapshot is still taken", async () => {
    const baskets = path.join(gw.snapshotDir, "baskets.json");
    const basketsRejected = count("baskets-file-rejected");
    const keysRejected = count("keys-file-rejected");
    place("FIFO", baskets);
    place("FIFO", gw.keysFile);
    await waitFor("both FIFOs to be rejected", () =>
      count("baskets-file-rejected") > basketsRejected && count("keys-file-rejected") > keysRejected ? true : undefined,
    );
    await expectNewSnapshotTaken();
    await expectResponsive();
    restore(baskets, GOOD_BASKETS);
    restore(gw.keysFile, goodKeysText);
    await waitFor("the good files again", async () => ((await listed()) === goodList ? true : undefined));
  });

  it("a snapshot file replaced by a link to /dev/zero, a FIFO, or an oversized file: rejected, the chain keeps its last good data", async () => {
    const target = path.join(gw.snapshotDir, "chain-8453.msgpack");
    const served = metricValue(await metrics(), "gateway_snapshot_generated_at_seconds", { chain_id: "8453" });
    expect(served).toBeGreaterThan(0);
    const cases: Array<[string, () => void, string]> = [
      ["link to /dev/zero", () => place("link to /dev/zero", target), "not-a-file"],
      ["FIFO", () => place("FIFO", target), "not-a-file"],
      [
        "oversized file",
        () => {
          writeFileSync(`${target}.tmp`, Buffer.alloc(Math.round(1.2 * MIB), 0xc1));
          renameSync(`${target}.tmp`, target);
        },
        "too-large",
      ],
    ];
    for (const [what, put, reason] of cases) {
      const before = metricValue(await metrics(), "gateway_snapshot_rejected_files_total", { reason });
      put();
      await waitFor(`the ${what} to be rejected`, async () =>
        metricValue(await metrics(), "gateway_snapshot_rejected_files_total", { reason }) > before ? true : undefined,
      );
      const line = gw
        .logs()
        .filter((l) => l.event === "snapshot-rejected" && l.file === "chain-8453.msgpack")
        .at(-1);
      expect(line, what).toMatchObject({ reason });
      if (reason === "too-large")
        expect(String(line?.error)).toMatch(
          /^chain-8453\.msgpack: the file has 1\.2 MiB \(\d+ bytes\); a snapshot file may have at most 1 MiB \(SNAPSHOT_FILE_MAX_MB raises it\)$/,
        );
      expect(metricValue(await metrics(), "gateway_snapshot_generated_at_seconds", { chain_id: "8453" }), what).toBe(served);
      await expectResponsive();
    }
  });
});
