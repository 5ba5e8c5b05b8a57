/**
 * An instance pulling from nginx over HTTPS (a throwaway CA, the instance trusting it through NODE_EXTRA_CA_CERTS),
 * published to through nginx's WebDAV (`dav_methods PUT DELETE`) by the real `liquidity-gateway publish`: conditional
 * polls answered 304 while nothing changes, only the changed objects fetched, publishing the same files twice writes
 * nothing, --prune deletes what no recent manifest names.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { originServer, openForNginxWorkers, runNginx, type NginxServer } from "../../bench/targets/nginx.js";
import { tempDir } from "../support/fixtures.js";
import {
  publishDir,
  keysJson,
  originOf,
  runPublish,
  servedSymbol,
  startInstance,
  waitForGeneration,
  writeGeneration,
  type Instance,
} from "../support/fleet.js";
import { metricValue, request, waitFor } from "../support/gateway-process.js";
import { makeCa, makeServerCertificate } from "../support/tls-certificates.js";

let nginx: NginxServer;
let instance: Instance;
let root: string;
let caEnv: Record<string, string>;
let ca: string;
let origin: string;
const source = tempDir("lgw-fleet-src-");

async function metrics(gw: Instance): Promise<string> {
  return (await request(gw.baseUrl, "/metrics", { key: null })).text;
}

beforeAll(async () => {
  const certs = tempDir("lgw-fleet-tls-");
  const authority = makeCa(certs);
  const server = makeServerCertificate(authority, certs, "origin");
  root = tempDir("lgw-fleet-root-");
  openForNginxWorkers(root);
  nginx = await runNginx(originServer({ root, tls: server, dav: true }));
  origin = `https://127.0.0.1:${nginx.port}/fleet/`;
  caEnv = { NODE_EXTRA_CA_CERTS: authority.certFile };
  ca = authority.pem;
  writeGeneration(source, 1, { chains: [1, 8453], keys: keysJson() });
  const first = await runPublish(["--from", source, "--to", origin], caEnv);
  expect(first.code, first.stderr).toBe(0);
  instance = await startInstance(origin, { env: { ...caEnv, ORIGIN_POLL_MIN_S: "0.3", ORIGIN_POLL_MAX_S: "0.3" } });
});

afterAll(async () => {
  await instance?.stop();
  await nginx?.stop();
});

describe("an nginx origin over HTTPS, published to through WebDAV", () => {
  it("serves the published generation: files, keys, status", async () => {
    const status = await waitForGeneration(instance, 1);
    expect(await servedSymbol(instance, 1)).toBe("G1");
    expect(await servedSymbol(instance, 8453)).toBe("G1");
    expect(status).toMatchObject({ kind: "https", url: origin, generation: 1, lastError: null, signature: null, partial: [] });
    expect(status.etag).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/); // nginx's ETag of manifest.json
    expect(status.manifestSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(readdirSync(path.join(root, "fleet")).sort()).toEqual(["chains", "keys", "manifest.json", "manifests"]);
  });

  it("while nothing changes, each poll is a conditional GET answered 304, and nothing is fetched", async () => {
    await waitForGeneration(instance, 1);
    const before = await metrics(instance);
    await new Promise((r) => setTimeout(r, 1500));
    const after = await metrics(instance);
    const notModified =
      metricValue(after, "gateway_origin_polls_total", { result: "not_modified" }) -
      metricValue(before, "gateway_origin_polls_total", { result: "not_modified" });
    expect(notModified).toBeGreaterThanOrEqual(3);
    expect(metricValue(after, "gateway_origin_polls_total", { result: "changed" })).toBe(1);
    expect(metricValue(after, "gateway_origin_bytes_total")).toBe(metricValue(before, "gateway_origin_bytes_total"));
    expect(metricValue(after, "gateway_origin_generation")).toBe(1);
    expect(metricValue(after, "gateway_origin_stale_seconds")).toBe(0);
  });

  it("publishing the same files again uploads nothing and writes no new generation", async () => {
    const again = await runPublish(["--from", source, "--to", origin], caEnv);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain("generation 1 already holds these 3 files; nothing published");
    expect(JSON.parse(readFileSync(path.join(root, "fleet/manifest.json"), "utf8")).generation).toBe(1);
  });

  it("a new generation fetches only the changed file; --prune 1 then deletes what only the older one named", async () => {
    const bytesBefore = metricValue(await metrics(instance), "gateway_origin_bytes_total");
    writeGeneration(source, 2, { chains: [1, 8453], chainGenerations: { 1: 1 }, keys: keysJson() });
    const second = await runPublish(["--from", source, "--to", origin, "--prune", "1"], caEnv);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain("published generation 2 (3 files, 1 uploaded)");
    expect(second.stdout).toContain("pruned 1 objects no manifest of the last 1 generations names");
    await waitForGeneration(instance, 2);
    await waitFor("chain 8453 at G2", async () => ((await servedSymbol(instance, 8453)) === "G2" ? true : undefined));
    expect(await servedSymbol(instance, 1)).toBe("G1");
    const manifest = JSON.parse(readFileSync(path.join(root, "fleet/manifest.json"), "utf8"));
    const chain8453 = manifest.files.find((f: any) => f.chainId === 8453);
    const fetched = metricValue(await metrics(instance), "gateway_origin_bytes_total") - bytesBefore;
    // The new chain file and the manifest (read in full once: its ETag changed), nothing else.
    expect(fetched).toBe(chain8453.size + readFileSync(path.join(root, "fleet/manifest.json")).length);
    expect(existsSync(path.join(root, "fleet/manifests/1.json"))).toBe(false);
    expect(readdirSync(path.join(root, "fleet/chains/8453"))).toEqual([`${chain8453.sha256}.msgpack`]);
    expect((await originOf(instance)).lastChangeAt).not.toBeNull();
  });

  it("two generations published within one second still reach the instance (nginx's ETag is a time in seconds and a size)", async () => {
    const third = tempDir("lgw-fleet-src3-");
    writeGeneration(third, 3, { chains: [1, 8453], chainGenerations: { 1: 1 }, keys: keysJson() });
    writeGeneration(source, 4, { chains: [1, 8453], chainGenerations: { 1: 1 }, keys: keysJson() });
    // Early in a second: generation 3 published (in process, through WebDAV), taken by the instance (a poll every
    // 0.3 s), and generation 4's manifest (the same size) written within the same second.
    await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000)));
    await publishDir(third, origin, { ca });
    await waitForGeneration(instance, 3);
    await publishDir(source, origin, { ca });
    await waitForGeneration(instance, 4);
    expect(await servedSymbol(instance, 8453)).toBe("G4");
  });

  it("brings the keys file to an instance without one; a keys file the reloader refuses is `partial`, the keys in force stay", async () => {
    const bare = await startInstance(origin, { keys: null, env: { ...caEnv, ORIGIN_POLL_MIN_S: "0.3", ORIGIN_POLL_MAX_S: "0.3" } });
    try {
      expect(bare.logs().some((l) => l.event === "keys-file-absent")).toBe(true);
      await waitForGeneration(bare, 4);
      expect(await servedSymbol(bare, 8453)).toBe("G4");
      writeGeneration(source, 5, { chains: [1, 8453], chainGenerations: { 1: 1 }, keys: '{"keys": "not a list"}' });
      await publishDir(source, origin, { ca });
      const status = await waitForGeneration(bare, 5);
      expect(status.partial).toHaveLength(1);
      expect(status.partial[0].file).toBe("keys");
      expect(await servedSymbol(bare, 8453)).toBe("G5");
    } finally {
      await bare.stop();
    }
  });
});
