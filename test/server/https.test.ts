/**
 * HTTPS with uWS's SSLApp against the real gateway, with a throwaway CA and
 * certificates made at test time: Node's https with the CA, fetch and the
 * official SDK in a child process trusting the CA (NODE_EXTRA_CA_CERTS), and
 * curl --cacert. Bad TLS settings stop start-up naming the setting; renewed
 * files are picked up (threads replaced one by one) without a failed request;
 * a renewal that does not pass is refused and the old certificate kept.
 */
import { execFile } from "node:child_process";
import { copyFileSync, renameSync, writeFileSync } from "node:fs";
import https from "node:https";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KEYS, poolsFixture, tempDir, writeKeysFile, writeSnapshotDir } from "../support/fixtures.js";
import { metricValue, PROJECT_ROOT, runGatewayExpectingExit, startGateway, type Gateway } from "../support/gateway-process.js";
import { makeCa, makeServerCertificate, type ServerCertificate, type TestCa } from "../support/tls-certificates.js";
import { fingerprintOf, liveCertificate, servedFingerprint } from "../support/tls-certificates.js";

const run = promisify(execFile);

function httpsGet(
  port: number,
  path: string,
  ca: string,
  agent?: https.Agent,
): Promise<{ status: number; body: any; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    https
      .get({ host: "127.0.0.1", port, path, ca, agent, headers: { authorization: `Bearer ${KEYS.active}` } }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () =>
          resolve({ status: res.statusCode!, body: text.startsWith("{") ? JSON.parse(text) : text, headers: res.headers }),
        );
      })
      .on("error", reject);
  });
}

describe("HTTPS", () => {
  let dir: string;
  let ca: TestCa;
  let gw: Gateway;
  let liveCert: string;
  let liveKey: string;
  let poolPath: string;

  beforeAll(async () => {
    ({ dir, ca, liveCert, liveKey } = liveCertificate("lgw-tls-"));
    const files = poolsFixture();
    poolPath = `/v1/pools/${files[0].chainId}/${files[0].pools[0].address}`;
    gw = await startGateway({
      snapshotDir: writeSnapshotDir(files),
      keysFile: writeKeysFile(),
      env: { GATEWAY_THREADS: "2", TLS_CERT_FILE: liveCert, TLS_KEY_FILE: liveKey },
    });
  });

  afterAll(async () => {
    await gw?.stop();
  });

  it("serves HTTPS on PORT to Node's https with the CA, and logs the protocol", async () => {
    const res = await httpsGet(gw.port, poolPath, ca.pem);
    expect(res.status).toBe(200);
    expect(res.body.data.pool.address).toBe(poolPath.split("/").pop());
    expect(gw.logs().find((l) => l.event === "listening")?.protocol).toBe("https");
    await expect(httpsGet(gw.port, "/health", "")).rejects.toThrow(/certificate|self.signed|unable to verify/i);
  });

  it("curl --cacert, fetch and the official SDK trusting the CA", async () => {
    const curl = await run("curl", [
      "-sS",
      "--cacert",
      ca.certFile,
      "-H",
      `Authorization: Bearer ${KEYS.active}`,
      `https://127.0.0.1:${gw.port}/v1/protocols`,
    ]);
    expect(JSON.parse(curl.stdout).data.protocols.length).toBeGreaterThan(0);
    const script = `
      import { HydricGateway } from "@hydric/gateway";
      const base = "https://127.0.0.1:${gw.port}";
      const raw = await (await fetch(base + "/v1/tokens", { method: "POST", headers: { authorization: "Bearer ${KEYS.active}", "content-type": "application/json" }, body: "{}" })).json();
      const sdk = new HydricGateway({ apiKey: "${KEYS.active}", baseUrl: base });
      const viaSdk = await sdk.multichainTokens.list();
      console.log(JSON.stringify({ raw: raw.data.tokens, sdk: viaSdk.tokens }));`;
    const child = await run(process.execPath, ["--input-type=module", "-e", script], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, NODE_EXTRA_CA_CERTS: ca.certFile },
    });
    const { raw, sdk } = JSON.parse(child.stdout);
    expect(sdk).toEqual(raw);
  });

  it("plain HTTP on the HTTPS port gets no HTTP answer", async () => {
    await expect(fetch(`http://127.0.0.1:${gw.port}/health`)).rejects.toThrow();
  });

  it("a renewed certificate (files replaced) is picked up with no failed request; SIGHUP rechecks too", async () => {
    const second = makeServerCertificate(ca, dir, "second");
    const agent = new https.Agent({ keepAlive: true, maxSockets: 4, ca: ca.pem });
    let running = true;
    const failures: string[] = [];
    let ok = 0;
    const load = Array.from({ length: 4 }, async () => {
      while (running) {
        try {
          const res = await httpsGet(gw.port, poolPath, ca.pem, agent);
          if (res.status === 200) ok++;
          else failures.push(`HTTP ${res.status}`);
        } catch (error) {
          failures.push((error as Error).message);
        }
      }
    });
    // As an ACME client does: write the new files beside, rename them over the live names.
    copyFileSync(second.keyFile, `${liveKey}.new`);
    copyFileSync(second.certFile, `${liveCert}.new`);
    renameSync(`${liveKey}.new`, liveKey);
    renameSync(`${liveCert}.new`, liveCert);
    const expected = fingerprintOf(second.certFile);
    const deadline = Date.now() + 20_000;
    while ((await servedFingerprint(gw.port, ca.pem)) !== expected) {
      if (Date.now() > deadline) throw new Error("the renewed certificate was not served in time");
      await new Promise((r) => setTimeout(r, 200));
    }
    await waitForLog(gw, "tls-reloaded", 1);
    await new Promise((r) => setTimeout(r, 300));
    running = false;
    await Promise.all(load);
    agent.destroy();
    expect(failures).toEqual([]);
    expect(ok).toBeGreaterThan(20);

    gw.process.kill("SIGHUP");
    await waitForLog(gw, "tls-reloaded", 2);
    expect(await servedFingerprint(gw.port, ca.pem)).toBe(expected);
  });

  it("a renewal that does not pass its checks is refused, counted, and the threads keep their certificate", async () => {
    const before = await servedFingerprint(gw.port, ca.pem);
    writeFileSync(`${liveCert}.new`, "-----BEGIN CERTIFICATE-----\nnot a certificate\n-----END CERTIFICATE-----\n");
    renameSync(`${liveCert}.new`, liveCert);
    await waitForLog(gw, "tls-reload-rejected", 1);
    expect(await servedFingerprint(gw.port, ca.pem)).toBe(before);
    expect((await httpsGet(gw.port, poolPath, ca.pem)).status).toBe(200);
    const metrics = await httpsGet(gw.port, "/metrics", ca.pem);
    expect(metricValue(String(metrics.body), "gateway_tls_reload_rejections_total")).toBeGreaterThanOrEqual(1);
    expect(metricValue(String(metrics.body), "gateway_serving_thread_restarts_total")).toBe(0);
  });
});

describe("bad TLS settings stop start-up with a message naming the setting", () => {
  let dir: string;
  let ca: TestCa;
  let good: ServerCertificate;
  let other: ServerCertificate;
  let locked: ServerCertificate;
  let env: Record<string, string>;

  beforeAll(() => {
    dir = tempDir("lgw-tls-bad-");
    ca = makeCa(dir);
    good = makeServerCertificate(ca, dir, "good");
    other = makeServerCertificate(ca, dir, "other");
    locked = makeServerCertificate(ca, dir, "locked", "s3cret-passphrase");
    env = { SNAPSHOT_DIR: writeSnapshotDir(poolsFixture()), API_KEYS_FILE: writeKeysFile() };
  });

  const cases: Array<[string, () => Record<string, string>, RegExp]> = [
    [
      "a missing certificate file",
      () => ({ TLS_CERT_FILE: path.join(dir, "nope.pem"), TLS_KEY_FILE: good.keyFile }),
      /TLS_CERT_FILE: cannot read/,
    ],
    [
      "a certificate file that is not PEM",
      () => ({ TLS_CERT_FILE: good.keyFile, TLS_KEY_FILE: good.keyFile }),
      /TLS_CERT_FILE: .* is not a PEM certificate/,
    ],
    [
      "a key that is not the certificate's",
      () => ({ TLS_CERT_FILE: good.certFile, TLS_KEY_FILE: other.keyFile }),
      /TLS_KEY_FILE: the key .* does not belong to the certificate in TLS_CERT_FILE/,
    ],
    [
      "an encrypted key without its passphrase",
      () => ({ TLS_CERT_FILE: locked.certFile, TLS_KEY_FILE: locked.keyFile }),
      /TLS_KEY_FILE: .*not a usable PEM private key/,
    ],
    [
      "a wrong passphrase",
      () => ({ TLS_CERT_FILE: locked.certFile, TLS_KEY_FILE: locked.keyFile, TLS_KEY_PASSPHRASE: "wrong" }),
      /TLS_KEY_FILE: .*TLS_KEY_PASSPHRASE does not open it/,
    ],
    ["a certificate without a key", () => ({ TLS_CERT_FILE: good.certFile }), /TLS_KEY_FILE must be set too/],
    [
      "a CA file that is not PEM",
      () => ({ TLS_CERT_FILE: good.certFile, TLS_KEY_FILE: good.keyFile, TLS_CA_FILE: good.keyFile }),
      /TLS_CA_FILE: .* is not a PEM certificate bundle/,
    ],
    [
      "a passphrase without a certificate",
      () => ({ TLS_KEY_PASSPHRASE: "x" }),
      /TLS_KEY_PASSPHRASE is set but TLS_CERT_FILE and TLS_KEY_FILE are not/,
    ],
  ];
  for (const [name, settings, message] of cases) {
    it(name, async () => {
      const result = await runGatewayExpectingExit({ ...env, ...settings() });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(message);
    });
  }

  it("an encrypted key with its passphrase serves HTTPS", async () => {
    const gw = await startGateway({
      snapshotDir: env.SNAPSHOT_DIR,
      keysFile: env.API_KEYS_FILE,
      env: { GATEWAY_THREADS: "1", TLS_CERT_FILE: locked.certFile, TLS_KEY_FILE: locked.keyFile, TLS_KEY_PASSPHRASE: "s3cret-passphrase" },
    });
    try {
      expect((await httpsGet(gw.port, "/health", ca.pem)).status).toBe(200);
    } finally {
      await gw.stop();
    }
  });
});

async function waitForLog(gw: Gateway, event: string, count: number, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (gw.logs().filter((l) => l.event === event).length < count) {
    if (Date.now() > deadline) throw new Error(`no ${count}× ${event} log line in time`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
