/**
 * TLS reloads against the real gateway with throwaway certificates (issue 19,
 * items 2 and 3): TLS files that are no file or too large stop start-up, and
 * at a reload are rejected without blocking anything; a renewal that is
 * rejected restarts nothing; SIGUSR2 with a garbage renewal on disk replaces
 * the threads with ones that load the certificate in force (no respawn loop,
 * no CPU spin); and after valid and invalid renewals and repeated signals
 * exactly GATEWAY_THREADS threads listen, counted from the kernel's listening
 * sockets and from the gateway_serving_threads gauge.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import https from "node:https";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KEYS, poolsFixture, tempDir, writeKeysFile, writeSnapshotDir } from "../support/fixtures.js";
import {
  cpuSeconds,
  listeningSockets,
  metricValue,
  runGatewayExpectingExit,
  startGateway,
  waitFor,
  type Gateway,
} from "../support/gateway-process.js";
import { makeCa, makeServerCertificate, type ServerCertificate, type TestCa } from "../support/tls-certificates.js";
import { fingerprintOf, liveCertificate, servedFingerprint } from "../support/tls-certificates.js";

const THREADS = 2;

function httpsGet(port: number, urlPath: string, ca: string): Promise<{ status: number; text: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    https
      .get({ host: "127.0.0.1", port, path: urlPath, ca, agent: false, headers: { authorization: `Bearer ${KEYS.active}` } }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode!, text, ms: performance.now() - started }));
      })
      .on("error", reject);
  });
}

/** Replaces `target` with `source`'s bytes the way an ACME client does: beside it, then renamed over it. */
function renameOver(target: string, bytes: Buffer | string): void {
  rmSync(`${target}.new`, { recursive: true, force: true });
  writeFileSync(`${target}.new`, bytes);
  renameSync(`${target}.new`, target);
}

type Hostile = "FIFO" | "link to /dev/zero" | "directory" | "oversized file";
const HOSTILE: readonly Hostile[] = ["FIFO", "link to /dev/zero", "directory", "oversized file"];
const PROBLEM: Record<Hostile, string> = {
  FIFO: "the path is a FIFO (named pipe), not a regular file",
  "link to /dev/zero": "the path is a symbolic link to a device, not a regular file",
  directory: "the path is a directory, not a file (EISDIR)",
  "oversized file": "the file has 1.0 MiB (1048577 bytes); a TLS file may have at most 1 MiB",
};

function place(what: Hostile, target: string): void {
  const tmp = `${target}.hostile`;
  rmSync(tmp, { recursive: true, force: true });
  switch (what) {
    case "FIFO":
      execFileSync("mkfifo", [tmp]);
      break;
    case "link to /dev/zero":
      symlinkSync("/dev/zero", tmp);
      break;
    case "directory":
      mkdirSync(tmp);
      break;
    case "oversized file":
      writeFileSync(tmp, Buffer.alloc(1024 * 1024 + 1, 0x41));
      break;
  }
  rmSync(target, { recursive: true, force: true });
  renameSync(tmp, target);
}

describe("TLS files that are no file, or too large, stop start-up naming the setting", () => {
  let dir: string;
  let good: ServerCertificate;
  let env: Record<string, string>;

  beforeAll(() => {
    dir = tempDir("lgw-tls-hostile-");
    good = makeServerCertificate(makeCa(dir), dir, "good");
    env = { SNAPSHOT_DIR: writeSnapshotDir(poolsFixture()), API_KEYS_FILE: writeKeysFile() };
  });

  for (const what of HOSTILE) {
    for (const setting of ["TLS_CERT_FILE", "TLS_KEY_FILE"] as const) {
      it(`${setting} naming ${what === "oversized file" ? "an" : "a"} ${what}`, async () => {
        const bad = path.join(dir, `${setting}-${what.replace(/\W+/g, "-")}`);
        place(what, bad);
        const files =
          setting === "TLS_CERT_FILE"
            ? { TLS_CERT_FILE: bad, TLS_KEY_FILE: good.keyFile }
            : { TLS_CERT_FILE: good.certFile, TLS_KEY_FILE: bad };
        const result = await runGatewayExpectingExit({ ...env, ...files });
        expect(result.timedOut, result.stderr).toBe(false);
        expect(result.code, result.stderr).toBe(2);
        expect(result.stderr).toContain(`${setting}: cannot read "${bad}" (${PROBLEM[what]})`);
      });
    }
  }
});

describe("TLS reloads and thread restarts", () => {
  let dir: string;
  let ca: TestCa;
  let first: ServerCertificate;
  let gw: Gateway;
  let liveCert: string;
  let liveKey: string;

  beforeAll(async () => {
    ({ dir, ca, first, liveCert, liveKey } = liveCertificate("lgw-tls-reload-"));
    gw = await startGateway({
      snapshotDir: writeSnapshotDir(poolsFixture()),
      keysFile: writeKeysFile(),
      env: { GATEWAY_THREADS: String(THREADS), TLS_CERT_FILE: liveCert, TLS_KEY_FILE: liveKey },
    });
  });

  afterAll(async () => {
    await gw?.stop();
  });

  const count = (event: string) => gw.logs().filter((l) => l.event === event).length;
  const metrics = async () => (await httpsGet(gw.port, "/metrics", ca.pem)).text;
  /** Log events of threads that failed: none may appear in these tests. */
  const threadFailures = () => count("serving-thread-exited") + count("serving-thread-error") + count("serving-thread-replace-failed");

  /** Exactly GATEWAY_THREADS threads listen, by the kernel's count and by the gauge, once restarts have settled. */
  async function expectThreadCount(): Promise<void> {
    await waitFor(`${THREADS} listening sockets`, () => (listeningSockets(gw.port) === THREADS ? true : undefined), 10_000);
    // Stays so: no respawn adds or removes threads afterwards.
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setTimeout(r, 200));
      expect(listeningSockets(gw.port)).toBe(THREADS);
    }
    expect(metricValue(await metrics(), "gateway_serving_threads")).toBe(THREADS);
  }

  async function sigusr2(): Promise<void> {
    const done = count("threads-restarted") + count("restart-failed");
    gw.process.kill("SIGUSR2");
    await waitFor("the restart to finish", () => (count("threads-restarted") + count("restart-failed") > done ? true : undefined));
  }

  it("starts with GATEWAY_THREADS listening threads", async () => {
    expect(await servedFingerprint(gw.port, ca.pem)).toBe(fingerprintOf(first.certFile));
    await expectThreadCount();
  });

  it("a garbage renewal is rejected and restarts nothing; SIGUSR2 then replaces the threads with ones that load the certificate in force: no respawn loop, no CPU spin", async () => {
    const rejected = count("tls-reload-rejected");
    renameOver(liveCert, "-----BEGIN CERTIFICATE-----\nnot a certificate\n-----END CERTIFICATE-----\n");
    await waitFor("the renewal to be rejected", () => (count("tls-reload-rejected") > rejected ? true : undefined));
    expect(count("tls-reloading")).toBe(0);

    await sigusr2();
    expect(count("restart-failed")).toBe(0);
    const cpuBefore = cpuSeconds(gw.process.pid!);
    await new Promise((r) => setTimeout(r, 3000));
    const cpuUsed = cpuSeconds(gw.process.pid!) - cpuBefore;
    expect(threadFailures()).toBe(0);
    expect(cpuUsed, "CPU seconds used in 3 idle seconds").toBeLessThan(1);
    expect(await servedFingerprint(gw.port, ca.pem)).toBe(fingerprintOf(first.certFile));
    await expectThreadCount();
    expect(metricValue(await metrics(), "gateway_serving_thread_restarts_total")).toBe(0);
  });

  it("repeated SIGUSR2 and a SIGHUP with the garbage still on disk: the same threads count, the certificate in force", async () => {
    renameOver(liveCert, "-----BEGIN CERTIFICATE-----\nstill not a certificate\n-----END CERTIFICATE-----\n");
    const rejected = count("tls-reload-rejected");
    const asked = count("restarting-threads");
    // Some while a restart runs (they join it), some after; signals sent closer together may merge into one.
    for (let i = 0; i < 4; i++) {
      gw.process.kill("SIGUSR2");
      await new Promise((r) => setTimeout(r, 150 * i));
    }
    gw.process.kill("SIGHUP");
    await waitFor("the SIGHUP check to be rejected", () => (count("tls-reload-rejected") > rejected ? true : undefined));
    await waitFor("every restart to finish", () =>
      count("restarting-threads") >= asked + 2 && count("threads-restarted") === count("restarting-threads") ? true : undefined,
    );
    expect(count("restart-failed")).toBe(0);
    expect(threadFailures()).toBe(0);
    expect(await servedFingerprint(gw.port, ca.pem)).toBe(fingerprintOf(first.certFile));
    await expectThreadCount();
  });

  for (const what of HOSTILE) {
    it(`${what === "oversized file" ? "an" : "a"} ${what} at the certificate path is rejected at a reload, nothing blocks, and SIGUSR2 still restarts with the certificate in force`, async () => {
      const rejected = metricValue(await metrics(), "gateway_tls_reload_rejections_total");
      const logged = count("tls-reload-rejected");
      place(what, liveCert);
      gw.process.kill("SIGHUP");
      await waitFor(`the ${what} to be rejected`, () => (count("tls-reload-rejected") > logged ? true : undefined));
      const line = gw.logs().filter((l) => l.event === "tls-reload-rejected")[logged];
      expect(String(line?.error)).toBe(`TLS_CERT_FILE: cannot read "${liveCert}" (${PROBLEM[what]})`);
      expect(metricValue(await metrics(), "gateway_tls_reload_rejections_total")).toBeGreaterThan(rejected);
      for (const urlPath of ["/health", "/metrics"]) {
        const res = await httpsGet(gw.port, urlPath, ca.pem);
        expect(res.status).toBe(200);
        expect(res.ms).toBeLessThan(1500);
      }
      await sigusr2();
      expect(count("restart-failed")).toBe(0);
      expect(threadFailures()).toBe(0);
      expect(await servedFingerprint(gw.port, ca.pem)).toBe(fingerprintOf(first.certFile));
      await expectThreadCount();
    });
  }

  it("a valid renewal is applied: the new certificate is served by exactly GATEWAY_THREADS threads", async () => {
    const second = makeServerCertificate(ca, dir, "second");
    const reloaded = count("tls-reloaded");
    rmSync(liveCert, { recursive: true, force: true });
    renameOver(liveKey, readFileSync(second.keyFile));
    renameOver(liveCert, readFileSync(second.certFile));
    gw.process.kill("SIGHUP");
    await waitFor("the renewal to be applied", () => (count("tls-reloaded") > reloaded ? true : undefined));
    expect(await servedFingerprint(gw.port, ca.pem)).toBe(fingerprintOf(second.certFile));
    await expectThreadCount();
    await sigusr2();
    expect(await servedFingerprint(gw.port, ca.pem)).toBe(fingerprintOf(second.certFile));
    await expectThreadCount();
    expect(threadFailures()).toBe(0);
    expect(metricValue(await metrics(), "gateway_serving_thread_restarts_total")).toBe(0);
  });
});
