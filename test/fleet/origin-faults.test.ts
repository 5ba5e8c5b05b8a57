/**
 * Bad input and faults between an instance and its origin (fleet.md §17-§19), each a case: nginx is the origin,
 * the fault proxy (test/support/fault-proxy.ts) sits in between, polls run every 0.2-0.4 s and a byte is waited
 * for at most 1 s. In every case the data served before stays served (the chain's token still names the older
 * generation), the status says what happened, and once the fault is gone the instance takes the generation.
 * "Down for minutes" is scaled to the test's poll interval: 3 s is 7 to 15 polls.
 */
import { cpSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openForNginxWorkers, originServer, runNginx, type NginxServer } from "../../bench/targets/nginx.js";
import { tempDir } from "../support/fixtures.js";
import { startFaultProxy, type FaultProxy } from "../support/fault-proxy.js";
import {
  originOf,
  publishDir,
  servedSymbol,
  startInstance,
  waitForGeneration,
  waitForOrigin,
  writeGeneration,
  type Instance,
} from "../support/fleet.js";
import { request, waitFor } from "../support/gateway-process.js";

let nginx: NginxServer;
let proxy: FaultProxy;
let instance: Instance;
let root: string;
let origin: string;
let generation = 0;
const source = tempDir("lgw-faults-src-");
const OBJECTS_8453 = (p: string) => p.includes("/chains/8453/");
const MANIFEST = "/o/manifest.json";

/** Publishes the next generation (chain 8453 changes every time, chain 1 stays at generation 1). */
async function publishNext(raw?: Buffer): Promise<number> {
  generation++;
  writeGeneration(source, generation, {
    chains: [1, 8453, 130],
    chainGenerations: { 1: 1, 130: 1 },
    raw: raw === undefined ? undefined : { 130: raw },
  });
  await publishDir(source, path.join(root, "o"));
  return generation;
}

let mtime = Math.floor(Date.now() / 1000) + 3600;

/**
 * Writes a manifest by hand (a test's fault, not a publish), with a modification time of its own: nginx's ETags are
 * a time in seconds and a size, and two same-sized manifests written within a second would share one (publish
 * prevents that for what it writes: origin-writer.ts, publish.ts).
 */
function writeManifest(bytes: Buffer): void {
  const file = path.join(root, "o/manifest.json");
  writeFileSync(file, bytes);
  utimesSync(file, new Date(), new Date(++mtime * 1000));
}

/** The instance serves generation `g` (origin status and chain 8453's data). */
async function takes(g: number): Promise<void> {
  await waitForGeneration(instance, g, 15_000);
  await waitFor(`G${g} on chain 8453`, async () => ((await servedSymbol(instance, 8453)) === `G${g}` ? true : undefined));
}

/** With `code` in status, the older generation still served; then the fault is cleared and the newer one taken. */
async function refusedThenTaken(code: string, newer: number, undo: () => void = () => proxy.clear()): Promise<any> {
  const status = await waitForOrigin(instance, `lastError ${code}`, (o) => o.lastError?.code === code, 15_000);
  expect(status.generation).toBe(newer - 1);
  expect(status.stale).toBe(true);
  expect(await servedSymbol(instance, 8453)).toBe(`G${newer - 1}`);
  undo();
  await takes(newer);
  expect((await originOf(instance)).lastError).toBeNull();
  return status;
}

beforeAll(async () => {
  root = tempDir("lgw-faults-root-");
  openForNginxWorkers(root); // readable by nginx's workers (user nobody when the tests run as root)
  nginx = await runNginx(originServer({ root }));
  proxy = await startFaultProxy(`http://127.0.0.1:${nginx.port}`);
  origin = `${proxy.url}/o/`;
  await publishNext();
  instance = await startInstance(origin, { env: { ORIGIN_TIMEOUT_S: "1" } });
  await takes(1);
});

afterEach(() => proxy.clear());

afterAll(async () => {
  await instance?.stop();
  await proxy?.stop();
  await nginx?.stop();
});

describe("the origin answering errors", () => {
  it("500: an error, retried, data kept", async () => {
    proxy.fault(MANIFEST, { kind: "status", status: 500 });
    const status = await refusedThenTaken("origin-status", await publishNext());
    expect(status.lastError.message).toBe("GET manifest.json answered 500");
    expect(status.consecutiveFailures).toBeGreaterThanOrEqual(1);
  });

  it("429 with Retry-After: the next poll waits that long (not the 0.2-0.4 s interval)", async () => {
    await takes(generation);
    const from = proxy.log.length;
    proxy.fault(MANIFEST, { kind: "status", status: 429, retryAfter: "2" }, 1);
    await waitFor("the 429", () => (proxy.log.slice(from).some((r) => r.status === 429) ? true : undefined));
    await waitFor(
      "the poll after it",
      () => (proxy.log.slice(from).filter((r) => r.path === MANIFEST).length >= 2 ? true : undefined),
      10_000,
    );
    const polls = proxy.log.slice(from).filter((r) => r.path === MANIFEST);
    expect(polls[0].status).toBe(429);
    expect(polls[1].at - polls[0].at).toBeGreaterThanOrEqual(1950);
  });

  it("a redirect loop: at most 3 redirects followed", async () => {
    proxy.fault(MANIFEST, { kind: "redirectLoop" });
    const from = proxy.log.length;
    await refusedThenTaken("too-many-redirects", await publishNext());
    const first = proxy.log.slice(from).findIndex((r) => r.fault === "redirectLoop");
    // One poll: the request and 3 redirects, then the next poll.
    expect(proxy.log.slice(from + first, from + first + 4).every((r) => r.status === 302)).toBe(true);
  });

  it("the origin down for a while (3 s: many polls), then back", async () => {
    proxy.fault(MANIFEST, { kind: "down" });
    const newer = await publishNext();
    const status = await waitForOrigin(instance, "stale 2 s", (o) => o.stale && o.staleSeconds >= 2 && o.lastError?.code === "unreachable");
    expect(status.consecutiveFailures).toBeGreaterThanOrEqual(4);
    expect(await servedSymbol(instance, 8453)).toBe(`G${newer - 1}`);
    proxy.clear();
    await takes(newer);
  });

  it("flapping (down 700 ms, up 700 ms, ...): data never lost, the generation taken in an up spell", async () => {
    proxy.fault(() => Math.floor(Date.now() / 700) % 2 === 0, { kind: "down" });
    const newer = await publishNext();
    await waitFor("a failed poll", () => (proxy.log.some((r) => r.fault === "down" && r.at > Date.now() - 5000) ? true : undefined));
    await takes(newer);
  });

  it("slow (the body in pieces 100 ms apart, each within the 1 s timeout): taken", async () => {
    proxy.fault(OBJECTS_8453, { kind: "slow", delayMs: 100 });
    await takes(await publishNext());
    proxy.clear();
  });
});

describe("objects that are not what the manifest names", () => {
  it("a connection reset mid-body", async () => {
    proxy.fault(OBJECTS_8453, { kind: "reset" });
    const status = await refusedThenTaken("unreachable", await publishNext());
    expect(status.lastError.message).toContain("cut off");
  });

  it("a body that stalls: given up after ORIGIN_TIMEOUT_S, requests served meanwhile", async () => {
    proxy.fault(OBJECTS_8453, { kind: "stall" });
    const newer = await publishNext();
    await waitFor("a stalled fetch", () => (proxy.log.some((r) => r.fault === "stall") ? true : undefined));
    const started = performance.now();
    expect(await servedSymbol(instance, 8453)).toBe(`G${newer - 1}`);
    expect(performance.now() - started).toBeLessThan(500);
    await refusedThenTaken("timeout", newer);
  });

  it("the right length with the wrong bytes", async () => {
    proxy.fault(OBJECTS_8453, { kind: "corrupt" });
    const status = await refusedThenTaken("object-hash-mismatch", await publishNext());
    expect(status.lastError.message).toMatch(/SHA-256 is [0-9a-f]{64}, not the [0-9a-f]{64} the manifest names/);
    expect(status.etag).toBeNull(); // a refused generation: the next poll reads the manifest in full
  });

  it("truncated", async () => {
    proxy.fault(OBJECTS_8453, { kind: "truncate" });
    await refusedThenTaken("object-truncated", await publishNext());
  });

  it("missing (404)", async () => {
    const newer = await publishNext();
    const manifest = JSON.parse(readFileSync(path.join(root, "o/manifest.json"), "utf8"));
    const object = path.join(root, "o", manifest.files.find((f: any) => f.chainId === 8453).key);
    renameSync(object, `${object}.away`);
    await refusedThenTaken("object-missing", newer, () => renameSync(`${object}.away`, object));
  });

  it("a size other than the manifest's (larger: too short a body; smaller: too long)", async () => {
    for (const [delta, code] of [
      [1, "object-truncated"],
      [-1, "object-too-large"],
    ] as const) {
      const newer = await publishNext();
      const manifestPath = path.join(root, "o/manifest.json");
      const good = readFileSync(manifestPath);
      const manifest = JSON.parse(good.toString());
      manifest.files.find((f: any) => f.chainId === 8453).size += delta;
      writeManifest(Buffer.from(JSON.stringify(manifest)));
      await refusedThenTaken(code, newer, () => writeManifest(good));
    }
  });
});

describe("manifests that are refused", () => {
  const manifestPath = () => path.join(root, "o/manifest.json");
  const withManifest = async (code: string, bytes: Buffer) => {
    const newer = await publishNext();
    const good = readFileSync(manifestPath());
    writeManifest(bytes);
    return refusedThenTaken(code, newer, () => writeManifest(good));
  };

  it("malformed", async () => {
    await withManifest("malformed-manifest", Buffer.from('{"schema":1,"generation":'));
    const status = await withManifest(
      "malformed-manifest",
      Buffer.from(JSON.stringify({ schema: 1, generation: 99, publishedAt: new Date().toISOString(), files: [], extra: true })),
    );
    expect(status.lastError.message).toBe("manifest.extra is not a property of a manifest (schema 1)");
  });

  it("huge (over 1 MiB)", async () => {
    await withManifest("manifest-too-large", Buffer.alloc((1 << 20) + 10, 0x20));
  });

  it("a key that escapes the prefix", async () => {
    const manifest = JSON.parse(readFileSync(manifestPath(), "utf8"));
    manifest.generation = 99;
    manifest.files[0].key = `../../etc/${manifest.files[0].sha256}`;
    await withManifest("bad-key", Buffer.from(JSON.stringify(manifest)));
  });

  it("rolled back (a lower generation), and expired", async () => {
    const older = readFileSync(path.join(root, `o/manifests/${generation - 1}.json`));
    await withManifest("rollback", older);
    const newer = generation + 1;
    generation = newer;
    writeGeneration(source, newer, { chains: [1, 8453, 130], chainGenerations: { 1: 1, 130: 1 } });
    await publishDir(source, path.join(root, "o"), { now: () => Date.now() - 7_200_000, expiresInSeconds: 600 });
    const status = await waitForOrigin(instance, "expired", (o) => o.lastError?.code === "expired");
    expect(status.lastError.message).toContain("the origin may be frozen");
    expect(await servedSymbol(instance, 8453)).toBe(`G${newer - 1}`);
    await takes(await publishNext()); // publish writes generation newer + 1 over it
  });
});

describe("a generation the build does not wholly take", () => {
  it("one chain file fails validation: the others served, `partial` reported, that chain keeps its data", async () => {
    const newer = await publishNext(Buffer.from("this is not msgpack"));
    await takes(newer);
    const status = await originOf(instance);
    expect(status.partial).toHaveLength(1);
    expect(status.partial[0].file).toBe("chain-130.msgpack");
    expect(status.partial[0].reason).toMatch(/^decode: /);
    expect(await servedSymbol(instance, 130)).toBe("G1");
    await takes(await publishNext());
    expect((await originOf(instance)).partial).toEqual([]);
  });
});

describe("start-up with the origin down", () => {
  it("with a local copy: ready (ORIGIN_READY=cached), serving it, stale; with fresh: not ready until the origin answers", async () => {
    const served = generation;
    await instance.stop();
    const copy = tempDir("lgw-faults-copy-");
    cpSync(instance.snapshotDir, copy, { recursive: true });
    proxy.fault(() => true, { kind: "down" });
    instance = await startInstance(origin, { snapshotDir: instance.snapshotDir, env: { ORIGIN_TIMEOUT_S: "1" } });
    expect((await request(instance.baseUrl, "/ready", { key: null })).status).toBe(200);
    expect(await servedSymbol(instance, 8453)).toBe(`G${served}`);
    const status = await waitForOrigin(instance, "stale on the local copy", (o) => o.lastError?.code === "unreachable");
    expect(status).toMatchObject({ generation: served, stale: true, lastSuccessAt: null });
    const fresh = await startInstance(origin, { snapshotDir: copy, env: { ORIGIN_TIMEOUT_S: "1", ORIGIN_READY: "fresh" } });
    try {
      await new Promise((r) => setTimeout(r, 800));
      expect((await request(fresh.baseUrl, "/ready", { key: null })).status).toBe(503);
      proxy.clear();
      await waitFor("ready once the origin answers", async () =>
        (await request(fresh.baseUrl, "/ready", { key: null })).status === 200 ? true : undefined,
      );
    } finally {
      await fresh.stop();
    }
    await waitForOrigin(instance, "fresh again", (o) => !o.stale);
  });

  it("without a local copy: not ready, and the log says why", async () => {
    proxy.fault(() => true, { kind: "down" });
    const empty = await startInstance(origin, { env: { ORIGIN_TIMEOUT_S: "1" } });
    try {
      const line = await waitFor("the log line", () => empty.logs().find((l) => l.event === "origin-error"));
      expect(String(line.msg)).toContain("not ready: no verified local copy of the origin yet");
      expect((await request(empty.baseUrl, "/ready", { key: null })).status).toBe(503);
      proxy.clear();
      await waitFor("ready", async () => ((await request(empty.baseUrl, "/ready", { key: null })).status === 200 ? true : undefined));
      expect(await servedSymbol(empty, 8453)).toBe(`G${generation}`);
    } finally {
      await empty.stop();
    }
  });

  it("a stalled origin does not hold up shutdown", async () => {
    proxy.fault(() => true, { kind: "stall" });
    const stalled = await startInstance(origin, { env: { ORIGIN_TIMEOUT_S: "60" } });
    await waitFor("a stalled poll", () => (proxy.log.some((r) => r.fault === "stall") ? true : undefined));
    const started = performance.now();
    expect(await stalled.stop()).toBe(0);
    expect(performance.now() - started).toBeLessThan(3000);
    proxy.clear();
    rmSync(stalled.snapshotDir, { recursive: true, force: true });
  });
});
