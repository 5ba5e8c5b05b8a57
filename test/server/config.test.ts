/**
 * The process contract: invalid configuration exits non-zero naming the setting; SIGTERM
 * stops the gateway with exit code 0; without API_KEYS_FILE the bundled sample key works.
 */
import { describe, expect, it } from "vitest";
import { basicFixture, P, writeKeysFile, writeSnapshotDir } from "../support/fixtures.js";
import { expectError, expectSuccess, getPool, getProtocols, runGatewayExpectingExit, startGateway } from "../support/gateway-process.js";

const SANDBOX_KEY = "lgw_sandbox_0123456789abcdef";
const snapshotDir = writeSnapshotDir(basicFixture());
const keysFile = writeKeysFile();

describe("invalid configuration → non-zero exit naming the setting", () => {
  const cases: [string, Record<string, string>, string[], RegExp][] = [
    ["PORT=abc", { PORT: "abc" }, [], /PORT/],
    ["PORT=-1", { PORT: "-1" }, [], /PORT/],
    ["PORT=65536", { PORT: "65536" }, [], /PORT/],
    ["PORT=80.5", { PORT: "80.5" }, [], /PORT/],
    ["REBUILD_CRON not a cron expression", { REBUILD_CRON: "every now and then" }, [], /REBUILD_CRON/],
    ["LOG_LEVEL unknown", { LOG_LEVEL: "shouting" }, [], /LOG_LEVEL/],
    ["MAX_HEADER_BYTES under 1024", { MAX_HEADER_BYTES: "512" }, [], /MAX_HEADER_BYTES must be an integer from 1024 to 65536/],
    ["MAX_HEADER_BYTES over 64 KiB", { MAX_HEADER_BYTES: "65537" }, [], /MAX_HEADER_BYTES/],
    ["unknown command-line flag", {}, ["--no-such-flag"], /no-such-flag/],
    [
      "TRUSTED_PROXIES not an address",
      { TRUSTED_PROXIES: "10.0.0.0/8, nginx" },
      [],
      /TRUSTED_PROXIES: "nginx" is not an IPv4 or IPv6 address/,
    ],
    [
      "TRUSTED_PROXIES with bits past the prefix",
      { TRUSTED_PROXIES: "10.0.0.1/8" },
      [],
      /TRUSTED_PROXIES: "10.0.0.1\/8" has address bits set past its \/8 prefix/,
    ],
    ["--trusted-proxies prefix too long", {}, ["--trusted-proxies", "::/129"], /--trusted-proxies: "::\/129": the prefix length/],
  ];
  for (const [label, env, args, names] of cases) {
    it(label, async () => {
      const r = await runGatewayExpectingExit({ SNAPSHOT_DIR: snapshotDir, API_KEYS_FILE: keysFile, ...env }, args);
      expect(r.timedOut, `still running; stdout: ${r.stdout.slice(0, 2000)}`).toBe(false);
      expect(r.code, `stderr: ${r.stderr}`).not.toBe(0);
      expect(r.code).not.toBeNull();
      expect(r.stderr).toMatch(names);
    });
  }
});

describe("lifecycle", () => {
  it("SIGTERM stops the gateway with exit code 0", async () => {
    const gw = await startGateway({ snapshotDir, keysFile });
    expectSuccess(await getProtocols(gw.baseUrl));
    expect(await gw.stop()).toBe(0);
  });

  it("listening line carries the ephemeral port and the server listens there", async () => {
    const gw = await startGateway({ snapshotDir, keysFile });
    try {
      const listening = gw.logs().find((l) => l.event === "listening")!;
      expect(typeof listening.port).toBe("number");
      expect(listening.port).toBeGreaterThan(0);
      expectSuccess(await getPool(gw.baseUrl, 1, P.v3));
    } finally {
      await gw.stop();
    }
  });

  it("every stdout line is a JSON object", async () => {
    const gw = await startGateway({ snapshotDir, keysFile });
    await getProtocols(gw.baseUrl);
    await gw.stop();
    const lines = gw
      .stdout()
      .split("\n")
      .filter((l) => l.trim() !== "");
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) {
      const parsed = JSON.parse(line);
      expect(parsed).toBeTypeOf("object");
    }
  });

  it("TOKEN_LOGO_URL_TEMPLATE replaces the default logo template", async () => {
    const gw = await startGateway({ snapshotDir, keysFile, env: { TOKEN_LOGO_URL_TEMPLATE: "https://cdn.test/{chainId}/{address}.png" } });
    try {
      // the USD₮0 token of chain 1 has no logoUrl
      const pool = expectSuccess(await getPool(gw.baseUrl, 1, P.v3Usdt0)).pool;
      expect(pool.tokens[0].logoUrl).toBe(`https://cdn.test/1/${P.usdt01}.png`);
    } finally {
      await gw.stop();
    }
  });

  it("without API_KEYS_FILE, the bundled sample key works (other keys do not)", async () => {
    const gw = await startGateway({ snapshotDir, keysFile: undefined });
    try {
      expectSuccess(await getProtocols(gw.baseUrl, { key: SANDBOX_KEY }));
      expectError(await getProtocols(gw.baseUrl, { key: "lgw_test_active_0123456789abcdef" }), 401, "API_KEY_NOT_FOUND");
    } finally {
      await gw.stop();
    }
  });
});
