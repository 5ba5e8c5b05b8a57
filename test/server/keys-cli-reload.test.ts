/**
 * Key management CLI against a RUNNING gateway: each `keys` command changes the
 * gateway's keys file (in a temp dir) and the gateway applies it without a
 * restart: create → the printed key works; disable → 403 API_KEY_DISABLED;
 * enable → works again; rotate → the old secret is 401 API_KEY_NOT_FOUND and
 * the new one works; delete → 401.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runKeysCli } from "../../src/cli/keys-cli.js";
import { basicFixture } from "../support/fixtures.js";
import {
  expectError,
  expectSuccess,
  getProtocols,
  startWithFixtures,
  type Gateway,
  type HttpResponse,
} from "../support/gateway-process.js";

let gw: Gateway & { keysFile: string };

beforeAll(async () => {
  gw = await startWithFixtures(basicFixture());
});

afterAll(async () => {
  await gw?.stop();
});

/** Runs `liquidity-gateway keys ...` in-process on the gateway's keys file (named by API_KEYS_FILE). */
async function keys(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await runKeysCli(argv, {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    env: { API_KEYS_FILE: gw.keysFile },
    cwd: process.cwd(),
  });
  expect(code, `keys ${argv.join(" ")}: ${stderr}`).toBe(0);
  return { code, stdout, stderr };
}

/** Asks GET /v1/protocols with `key` until it answers `status` (the gateway reloads on change); returns that answer. */
async function untilStatus(key: string, status: number, deadlineMs = 10_000): Promise<HttpResponse> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const res = await getProtocols(gw.baseUrl, { key });
    if (res.status === status) return res;
    if (Date.now() > deadline) throw new Error(`the key never answered ${status}; last answer ${res.status} ${res.text}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe("keys CLI against a running gateway", () => {
  it("create → 200, disable → 403, enable → 200, rotate → old 401 / new 200, delete → 401", async () => {
    const created = await keys(
      "create",
      "--id",
      "cli-roundtrip",
      "--name",
      "CLI round trip",
      "--rate",
      "100000/1m",
      "--routes",
      "protocols",
    );
    const key = created.stdout.trim();
    expect(key).toMatch(/^lgw_[A-Za-z0-9_-]{43}$/);
    const first = await untilStatus(key, 200);
    expectSuccess(first, "/v1/protocols");
    expect(first.headers.get("ratelimit-limit")).toBe("100000");

    await keys("disable", "cli-roundtrip");
    expectError(await untilStatus(key, 403), 403, "API_KEY_DISABLED");

    await keys("enable", "cli-roundtrip");
    expectSuccess(await untilStatus(key, 200));

    const rotated = await keys("rotate", "cli-roundtrip");
    const newKey = rotated.stdout.trim();
    expect(newKey).toMatch(/^lgw_[A-Za-z0-9_-]{43}$/);
    expect(newKey).not.toBe(key);
    expectSuccess(await untilStatus(newKey, 200));
    expectError(await getProtocols(gw.baseUrl, { key }), 401, "API_KEY_NOT_FOUND");

    await keys("delete", "cli-roundtrip");
    expectError(await untilStatus(newKey, 401), 401, "API_KEY_NOT_FOUND");

    // The file's other keys were never disturbed.
    expectSuccess(await getProtocols(gw.baseUrl));
    expect(gw.logs().filter((line) => line.event === "keys-file-rejected")).toEqual([]);
  });
});
