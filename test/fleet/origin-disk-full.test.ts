/**
 * The disk full while staging (fleet.md §18): the instance's snapshot directory is a 2 MiB tmpfs (mounted here: the
 * tests run as root, as CI does), and a generation brings a chain file larger than the room left. The staging file is
 * removed, the last good data stays served, the status says `disk-full`, and the next generation that fits is taken.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openForNginxWorkers, originServer, runNginx, type NginxServer } from "../../bench/targets/nginx.js";
import { packSnapshot, tempDir } from "../support/fixtures.js";
import {
  generationChain,
  publishDir,
  servedSymbol,
  startInstance,
  waitForGeneration,
  waitForOrigin,
  writeGeneration,
  type Instance,
} from "../support/fleet.js";

let nginx: NginxServer;
let instance: Instance;
let mounted: string | null = null;
const root = tempDir("lgw-diskfull-root-");
const source = tempDir("lgw-diskfull-src-");

beforeAll(async () => {
  if (process.getuid?.() !== 0)
    throw new Error("this test mounts a small tmpfs and needs root (CI runs the suite as root); run it as root");
  const dir = tempDir("lgw-diskfull-dir-");
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", dir]);
  mounted = dir;
  openForNginxWorkers(root);
  nginx = await runNginx(originServer({ root }));
  writeGeneration(source, 1, { chains: [1, 8453] });
  await publishDir(source, path.join(root, "o"));
  instance = await startInstance(`http://127.0.0.1:${nginx.port}/o/`, { snapshotDir: dir });
  await waitForGeneration(instance, 1);
});

afterAll(async () => {
  await instance?.stop();
  await nginx?.stop();
  if (mounted !== null) execFileSync("umount", [mounted]);
});

describe("the disk full while staging", () => {
  it("removes the staging file, keeps the last good data, says disk-full, and takes the next generation that fits", async () => {
    writeGeneration(source, 2, { chains: [1, 8453], chainGenerations: { 1: 1 } });
    const large = packSnapshot(generationChain(8453, 2, 20_000));
    expect(large.length).toBeGreaterThan(3 << 20);
    writeFileSync(path.join(source, "chain-8453.msgpack"), large);
    await publishDir(source, path.join(root, "o"));
    const status = await waitForOrigin(instance, "disk-full", (o) => o.lastError?.code === "disk-full");
    expect(status.lastError.message).toContain("the disk is full");
    expect(status).toMatchObject({ generation: 1, stale: true });
    expect(readdirSync(mounted!).filter((name) => name.startsWith(".origin-staging-"))).toEqual([]);
    expect(await servedSymbol(instance, 8453)).toBe("G1");
    writeGeneration(source, 3, { chains: [1, 8453], chainGenerations: { 1: 1 } });
    await publishDir(source, path.join(root, "o"));
    await waitForGeneration(instance, 3);
    expect(await servedSymbol(instance, 8453)).toBe("G3");
  });
});
