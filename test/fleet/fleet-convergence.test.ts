/**
 * The "done when": three instances (one thread each), one origin (nginx over HTTPS, published to through its
 * WebDAV by the real CLI, signed) and Redis (the poke and the fleet view). Polls are 30-40 s apart, so converging in
 * seconds is the poke's doing. The instances converge on each generation with identical positions, a cursor and a
 * position started on one continue on another, they keep serving (stale) while the origin is down, and they refuse
 * a signed rollback, an unsigned manifest and one signed by an unknown key.
 */
import { generateKeyPairSync, type KeyObject } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { originServer, openForNginxWorkers, runNginx, type NginxServer } from "../../bench/targets/nginx.js";
import { sendPoke } from "../../src/origin/fleet-view.js";
import { signManifest } from "../../src/origin/manifest-signature.js";
import { KEYS, tempDir } from "../support/fixtures.js";
import {
  FLEET_KEY,
  keysJson,
  originOf,
  runPublish,
  servedSymbol,
  startInstance,
  waitForGeneration,
  waitForOrigin,
  writeGeneration,
  type Instance,
} from "../support/fleet.js";
import { expectSuccess, postJson, request, waitFor } from "../support/gateway-process.js";
import { startRedisServer, type RedisServer } from "../support/redis-server.js";
import { makeCa, makeServerCertificate } from "../support/tls-certificates.js";

let nginx: NginxServer;
let redis: RedisServer;
let instances: Instance[] = [];
let root: string;
let origin: string;
let serve: () => Promise<NginxServer>;
let signKey: KeyObject;
let publishEnv: Record<string, string>;
const source = tempDir("lgw-fleet-src-");
const keyDir = tempDir("lgw-fleet-signing-");
const keyFile = path.join(keyDir, "origin.key");

async function publishGeneration(generation: number): Promise<void> {
  writeGeneration(source, generation, { chains: [1, 130, 8453], chainGenerations: { 1: 1 }, keys: keysJson() });
  const run = await runPublish(
    ["--from", source, "--to", origin, "--sign-key", keyFile, "--key-id", "release-1", "--redis-url", redis.url],
    publishEnv,
  );
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toContain(`published generation ${generation}`);
  expect(run.stdout).toContain("poked the fleet through Redis (3 instances listening)");
}

/** Every instance's /v1/status data once all serve `generation` (and chain 8453's file of it). */
async function converged(generation: number): Promise<any[]> {
  await Promise.all(instances.map((gw) => waitForGeneration(gw, generation, 15_000)));
  await Promise.all(
    instances.map((gw) =>
      waitFor(`G${generation} served`, async () => ((await servedSymbol(gw, 8453)) === `G${generation}` ? true : undefined)),
    ),
  );
  return Promise.all(instances.map(async (gw) => expectSuccess((await request(gw.baseUrl, "/v1/status")) as any)));
}

async function fleetView(gw: Instance): Promise<any> {
  return expectSuccess(await request(gw.baseUrl, "/v1/status/fleet", { key: FLEET_KEY }));
}

beforeAll(async () => {
  redis = await startRedisServer();
  const certs = tempDir("lgw-fleet-tls-");
  const ca = makeCa(certs);
  const certificate = makeServerCertificate(ca, certs, "origin");
  root = tempDir("lgw-fleet-root-");
  openForNginxWorkers(root);
  nginx = await runNginx(originServer({ root, tls: certificate, dav: true }));
  const port = nginx.port;
  serve = () => runNginx(originServer({ root, tls: certificate, dav: true }), port);
  origin = `https://127.0.0.1:${port}/prod/`;
  publishEnv = { NODE_EXTRA_CA_CERTS: ca.certFile };
  const pair = generateKeyPairSync("ed25519");
  signKey = pair.privateKey;
  writeFileSync(keyFile, pair.privateKey.export({ format: "pem", type: "pkcs8" }));
  const publicKey = pair.publicKey.export({ format: "der", type: "spki" }).subarray(12).toString("base64");
  // The first generation is there before the instances start (they poll at once).
  writeGeneration(source, 1, { chains: [1, 130, 8453], keys: keysJson() });
  const first = await runPublish(["--from", source, "--to", origin, "--sign-key", keyFile, "--key-id", "release-1"], publishEnv);
  expect(first.code, first.stderr).toBe(0);
  instances = await Promise.all(
    ["a", "b", "c"].map((id) =>
      startInstance(origin, {
        env: {
          ...publishEnv,
          INSTANCE_ID: `instance-${id}`,
          QUOTA_STORE: "redis",
          REDIS_URL: redis.url,
          CURSOR_SECRET: "one-secret-for-the-whole-fleet",
          ORIGIN_POLL_MIN_S: "30",
          ORIGIN_POLL_MAX_S: "40",
          ORIGIN_PUBLIC_KEYS: `release-1=${publicKey}`,
        },
      }),
    ),
  );
});

afterAll(async () => {
  await Promise.all(instances.map((gw) => gw.stop()));
  await nginx?.stop();
  await redis?.stop();
});

describe("three instances, one origin, Redis", () => {
  it("converge on each generation (the poke), with identical positions, and the fleet view says so", async () => {
    const first = await converged(1);
    expect(first.map((s) => s.origin.signature)).toEqual([{ keyId: "release-1" }, { keyId: "release-1" }, { keyId: "release-1" }]);
    for (const generation of [2, 3]) {
      const started = Date.now();
      await publishGeneration(generation);
      const statuses = await converged(generation);
      expect(Date.now() - started).toBeLessThan(15_000); // polls are 30-40 s apart: the poke did it
      expect(new Set(statuses.map((s) => s.position)).size).toBe(1);
      expect(new Set(statuses.map((s) => JSON.stringify(s.chains.map((c: any) => [c.chainId, c.id])))).size).toBe(1);
      const fleet = await waitFor("the fleet view of every instance", async () => {
        const view = await fleetView(instances[0]);
        return view.instances.length === 3 && view.generationSkew === 0 && view.newestGeneration === generation && view.samePosition
          ? view
          : undefined;
      });
      expect(fleet.instances.map((i: any) => [i.instanceId, i.generation, i.behind, i.position, i.lastError])).toEqual(
        ["a", "b", "c"].map((id) => [`instance-${id}`, generation, 0, statuses[0].position, null]),
      );
    }
  });

  it("a cursor started on one instance continues on another; a position too", async () => {
    const [a, b, c] = instances;
    const firstPage = expectSuccess(await postJson(a.baseUrl, "/v1/tokens", { config: { limit: 1 } }));
    expect(firstPage.nextCursor).not.toBeNull();
    const onB = expectSuccess(await postJson(b.baseUrl, "/v1/tokens", { config: { limit: 1, cursor: firstPage.nextCursor } }));
    const onA = expectSuccess(await postJson(a.baseUrl, "/v1/tokens", { config: { limit: 1, cursor: firstPage.nextCursor } }));
    expect(onB.tokens).toEqual(onA.tokens);
    const before = expectSuccess(await request(c.baseUrl, "/v1/status")).position;
    await publishGeneration(4);
    await converged(4);
    const changes = expectSuccess(await request(b.baseUrl, `/v1/changes?since=${before}`));
    expect(changes.resync).toEqual([]);
    expect(new Set(changes.changes.map((e: any) => e.chainId))).toEqual(new Set([130, 8453]));
    expect(changes.position).toBe(expectSuccess(await request(a.baseUrl, "/v1/status")).position);
  });

  it("keep serving, stale, while the origin is down, and say so in status and the fleet view; then recover", async () => {
    await nginx.stop();
    await sendPoke(redis.url, "lgw", 5, 2000); // no generation 5: a poke makes them poll now, and fail
    for (const gw of instances) {
      const status = await waitForOrigin(gw, "stale while down", (o) => o.stale && o.lastError?.code === "unreachable", 15_000);
      expect(status.generation).toBe(4);
      expect(status.consecutiveFailures).toBeGreaterThanOrEqual(1);
      expect(await servedSymbol(gw, 8453)).toBe("G4");
    }
    const view = await waitFor("errors in the fleet view", async () => {
      const v = await fleetView(instances[1]);
      return v.instances.every((i: any) => i.lastError?.code === "unreachable") ? v : undefined;
    });
    expect(view.generationSkew).toBe(0);
    nginx = await serve();
    await sendPoke(redis.url, "lgw", 5, 2000);
    for (const gw of instances) await waitForOrigin(gw, "fresh again", (o) => !o.stale && o.lastError === null, 60_000);
  });

  it("refuse a signed rollback, an unsigned manifest and one signed by an unknown key, serving what they serve", async () => {
    const manifestPath = path.join(root, "prod/manifest.json");
    const signaturePath = path.join(root, "prod/manifest.json.sig");
    const current = { manifest: readFileSync(manifestPath), signature: readFileSync(signaturePath) };
    const older = readFileSync(path.join(root, "prod/manifests/2.json"));
    const cases: [string, Buffer, Buffer | null][] = [
      ["rollback", older, signManifest(older, signKey, "release-1")],
      ["unsigned", Buffer.from(current.manifest.toString().replace('"generation":4', '"generation":9')), null],
      [
        "bad-signature",
        Buffer.from(current.manifest.toString().replace('"generation":4', '"generation":9')),
        signManifest(current.manifest, generateKeyPairSync("ed25519").privateKey, "release-1"),
      ],
    ];
    for (const [code, manifest, signature] of cases) {
      if (signature === null) rmSync(signaturePath);
      else writeFileSync(signaturePath, signature);
      writeFileSync(manifestPath, manifest);
      await sendPoke(redis.url, "lgw", 9, 2000);
      for (const gw of instances) {
        const status = await waitForOrigin(gw, `${code} refused`, (o) => o.lastError?.code === code, 15_000);
        expect(status).toMatchObject({ generation: 4, stale: true });
        expect(await servedSymbol(gw, 8453)).toBe("G4");
      }
    }
    writeFileSync(signaturePath, current.signature);
    writeFileSync(manifestPath, current.manifest);
    await sendPoke(redis.url, "lgw", 9, 2000);
    for (const gw of instances) await waitForOrigin(gw, "the real manifest again", (o) => o.lastError === null && !o.stale);
    expect((await originOf(instances[2])).generation).toBe(4);
    expect((await request(instances[0].baseUrl, "/v1/status/fleet", { key: KEYS.active })).status).toBe(403);
  });
});
