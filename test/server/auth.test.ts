/**
 * api-decisions.md §5 (access): bearer keys from the keys file (sha256 only), disabled and
 * expired keys, masking of unknown keys, route and chain restrictions, per-key rate limits,
 * and authentication before input validation.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { basicFixture, BIG_RATE_LIMIT, EXPIRED_AT, KEYS, P, standardKeys, writeKeysFile } from "../support/fixtures.js";
import {
  expectError,
  expectSuccess,
  getPool,
  getProtocols,
  postTokens,
  request,
  startWithFixtures,
  type Gateway,
} from "../support/gateway-process.js";

let gw: Gateway & { keysFile: string };
let base: string;

beforeAll(async () => {
  gw = await startWithFixtures(basicFixture());
  base = gw.baseUrl;
});

afterAll(async () => {
  await gw?.stop();
});

const auth = (value: string) => ({ key: null, headers: { Authorization: value } });

describe("401 API_KEY_MISSING", () => {
  it("no Authorization header, on every route", async () => {
    for (const res of [
      await getProtocols(base, { key: null }),
      await postTokens(base, {}, { key: null }),
      await getPool(base, 1, P.v3, { key: null }),
    ]) {
      const err = expectError(res, 401, "API_KEY_MISSING");
      expect(err.metadata.example).toBe("Bearer <api-key>");
    }
  });
});

describe("401 API_KEY_INVALID (malformed header)", () => {
  const malformed: [string, string][] = [
    ["no Bearer prefix", KEYS.active],
    ["Basic scheme", `Basic ${KEYS.active}`],
    ["lowercase bearer", `bearer ${KEYS.active}`],
    ["uppercase BEARER", `BEARER ${KEYS.active}`],
    ["two spaces", `Bearer  ${KEYS.active}`],
    ["tab instead of space", `Bearer\t${KEYS.active}`],
    ["prefix only", "Bearer"],
    ["no space", `Bearer${KEYS.active}`],
  ];
  for (const [label, value] of malformed) {
    it(label, async () => {
      const err = expectError(await getProtocols(base, auth(value)), 401, "API_KEY_INVALID", "/v1/protocols");
      expect(typeof err.metadata.reason).toBe("string");
      expect(err.metadata.reason.length).toBeGreaterThan(0);
      // the key itself is never echoed back in full
      expect(JSON.stringify(err)).not.toContain(KEYS.active);
    });
  }
});

describe("401 API_KEY_NOT_FOUND (masked)", () => {
  const cases: [string, string][] = [
    ["lgw_unknown_key_0123456789", "lgw_...789"],
    ["abcdefghijk", "abcd...ijk"], // 11 chars: masked
    ["abcdefghij", "***"], // 10 chars: ***
    ["abc", "***"],
  ];
  for (const [key, masked] of cases) {
    it(`${key.length}-char unknown key → receivedKey ${masked}`, async () => {
      const err = expectError(await getProtocols(base, { key }), 401, "API_KEY_NOT_FOUND");
      expect(err.metadata.receivedKey).toBe(masked);
      if (key.length > 10) expect(JSON.stringify(err)).not.toContain(key);
    });
  }

  it("a key that differs from a valid one by case is unknown", async () => {
    expectError(await getProtocols(base, { key: KEYS.active.toUpperCase() }), 401, "API_KEY_NOT_FOUND");
  });

  it("the sha256 itself is not a key", async () => {
    const { createHash } = await import("node:crypto");
    const hash = createHash("sha256").update(KEYS.active).digest("hex");
    expectError(await getProtocols(base, { key: hash }), 401, "API_KEY_NOT_FOUND");
  });
});

describe("403 disabled / expired", () => {
  it("a disabled key → 403 API_KEY_DISABLED", async () => {
    expectError(await getProtocols(base, { key: KEYS.disabled }), 403, "API_KEY_DISABLED");
    expectError(await postTokens(base, {}, { key: KEYS.disabled }), 403, "API_KEY_DISABLED");
  });

  it("an expired key → 403 API_KEY_EXPIRED with expiredAt", async () => {
    const err = expectError(await getPool(base, 1, P.v3, { key: KEYS.expired }), 403, "API_KEY_EXPIRED");
    expect(typeof err.metadata.expiredAt).toBe("string");
    expect(Date.parse(err.metadata.expiredAt)).toBe(Date.parse(EXPIRED_AT));
  });

  it("a key expiring in the future is valid", async () => {
    expectSuccess(await getProtocols(base, { key: KEYS.activeFuture }));
  });
});

describe("valid keys", () => {
  it("a valid key is accepted on every route", async () => {
    expectSuccess(await getProtocols(base));
    expectSuccess(await postTokens(base, {}));
    expectSuccess(await getPool(base, 1, P.v3));
  });

  it("authenticated responses carry RateLimit-Limit, -Remaining and -Reset", async () => {
    const res = await getProtocols(base);
    expectSuccess(res);
    const limit = Number(res.headers.get("ratelimit-limit"));
    const remaining = Number(res.headers.get("ratelimit-remaining"));
    const reset = Number(res.headers.get("ratelimit-reset"));
    expect(limit).toBe(1_000_000);
    expect(Number.isInteger(remaining) && remaining >= 0 && remaining < limit).toBe(true);
    expect(Number.isFinite(reset) && reset >= 0 && reset <= 60).toBe(true);
  });

  it("authenticated error responses carry the RateLimit headers too", async () => {
    const res = await postTokens(base, { config: { limit: 0 } });
    expectError(res, 400, "VALIDATION_ERROR");
    expect(res.headers.get("ratelimit-limit")).toBe("1000000");
  });
});

describe("restrictions", () => {
  it("a key restricted to routes → 403 API_KEY_FORBIDDEN elsewhere", async () => {
    expectSuccess(await getPool(base, 1, P.v3, { key: KEYS.poolsOnly }));
    expectError(await postTokens(base, {}, { key: KEYS.poolsOnly }), 403, "API_KEY_FORBIDDEN");
    expectError(await getProtocols(base, { key: KEYS.poolsOnly }), 403, "API_KEY_FORBIDDEN");
  });

  it("a key restricted to chains → 403 API_KEY_FORBIDDEN for another chain", async () => {
    expectSuccess(await getPool(base, 1, P.v3, { key: KEYS.chain1Only }));
    expectError(await getPool(base, 8453, P.slipstream, { key: KEYS.chain1Only }), 403, "API_KEY_FORBIDDEN");
    expectSuccess(await postTokens(base, { filters: { chainIds: [1] } }, { key: KEYS.chain1Only }));
    expectError(await postTokens(base, { filters: { chainIds: [1, 8453] } }, { key: KEYS.chain1Only }), 403, "API_KEY_FORBIDDEN");
  });
});

describe("restrictions with chains that are not loaded", () => {
  it("a token list without chainIds covers the key's loaded allowed chains; naming an unloaded allowed chain → 503", async () => {
    // The basic fixture loads 1, 8453, 130, 143, 9745, 534352 (not 999).
    const everything = {
      filters: { minimumTotalValuePooledUsd: 0, minimumSwapsCount: 0, minimumSwapVolumeUsd: 0, ignoreWrappedNative: false },
      config: { limit: 500 },
    };
    const data = expectSuccess(await postTokens(base, everything, { key: KEYS.chains1And999 }));
    expect(data.tokens.length).toBeGreaterThan(0);
    for (const entry of data.tokens) expect(entry.chainIds).toEqual([1]);
    const all = expectSuccess(await postTokens(base, everything));
    expect(all.tokens.some((entry: { chainIds: number[] }) => entry.chainIds.some((id) => id !== 1))).toBe(true);
    expectError(await postTokens(base, { filters: { chainIds: [999] } }, { key: KEYS.chains1And999 }), 503, "CHAIN_DATA_UNAVAILABLE");
    expectError(await postTokens(base, { filters: { chainIds: [8453] } }, { key: KEYS.chains1And999 }), 403, "API_KEY_FORBIDDEN");
  });
});

describe("authentication runs before input validation", () => {
  it("a bad token-list body without a key → 401, not 400", async () => {
    expectError(await postTokens(base, { config: { limit: 1000 } }, { key: null }), 401, "API_KEY_MISSING");
    expectError(await postTokens(base, "{not json", { key: null }), 401, "API_KEY_MISSING");
    expectError(await postTokens(base, { filters: { chainIds: [5] } }, { key: "nope-nope-nope" }), 401, "API_KEY_NOT_FOUND");
  });

  it("a wrong content type without a key → 401, not 415", async () => {
    const res = await request(base, "/v1/tokens", { method: "POST", key: null, body: "{}", headers: { "Content-Type": "text/plain" } });
    expectError(res, 401, "API_KEY_MISSING");
  });

  it("bad pool path parameters without a key → 401", async () => {
    expectError(await getPool(base, "abc", "0x123", { key: null }), 401, "API_KEY_MISSING");
    expectError(await getPool(base, 5, P.v3, { key: KEYS.disabled }), 403, "API_KEY_DISABLED");
    expectError(await getPool(base, 999, P.v3, { key: KEYS.expired }), 403, "API_KEY_EXPIRED");
  });
});

describe("rate limit per key", () => {
  it("the 4th request of a 3-per-minute key → 429 with Retry-After; other keys unaffected", async () => {
    const remaining: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await getProtocols(base, { key: KEYS.rateLimited });
      expectSuccess(res);
      expect(res.headers.get("ratelimit-limit")).toBe("3");
      remaining.push(Number(res.headers.get("ratelimit-remaining")));
    }
    expect(remaining).toEqual([2, 1, 0]);
    const res = await getProtocols(base, { key: KEYS.rateLimited });
    const err = expectError(res, 429, "RATE_LIMIT_EXCEEDED");
    expect(Number.isInteger(err.metadata.retryAfterSeconds)).toBe(true);
    expect(err.metadata.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(err.metadata.retryAfterSeconds).toBeLessThanOrEqual(60);
    expect(Number(res.headers.get("retry-after"))).toBe(err.metadata.retryAfterSeconds);
    expect(res.headers.get("ratelimit-remaining")).toBe("0");
    expectSuccess(await getProtocols(base));
  });
});

describe("keys file reload (keys-file.md)", () => {
  const NEW_KEY = "lgw_test_added_later_0123456789ab";
  async function waitForStatus(key: string, status: number, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const res = await getProtocols(base, { key });
      if (res.status === status) return;
      if (Date.now() > deadline) throw new Error(`key never answered ${status}; last: ${res.status} ${res.text}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it("a key added to the file works without a restart", async () => {
    expectError(await getProtocols(base, { key: NEW_KEY }), 401, "API_KEY_NOT_FOUND");
    writeKeysFile([...standardKeys(), { id: "test-added", key: NEW_KEY, rateLimit: BIG_RATE_LIMIT }], path.dirname(gw.keysFile));
    await waitForStatus(NEW_KEY, 200);
  });

  it("a keys file that fails validation is rejected as a whole; the previous keys stay in force", async () => {
    writeFileSync(gw.keysFile, JSON.stringify({ keys: [{ id: "BAD ID", sha256: "nothex", status: "maybe" }] }));
    await new Promise((r) => setTimeout(r, 1500));
    expectSuccess(await getProtocols(base, { key: NEW_KEY }));
    expectSuccess(await getProtocols(base));
    writeFileSync(gw.keysFile, "{ not json");
    await new Promise((r) => setTimeout(r, 1500));
    expectSuccess(await getProtocols(base, { key: NEW_KEY }));
  });

  it("disabling a key in the file takes effect without a restart", async () => {
    writeKeysFile(
      [...standardKeys(), { id: "test-added", key: NEW_KEY, status: "disabled", rateLimit: BIG_RATE_LIMIT }],
      path.dirname(gw.keysFile),
    );
    await waitForStatus(NEW_KEY, 403);
    expectError(await getProtocols(base, { key: NEW_KEY }), 403, "API_KEY_DISABLED");
    expectSuccess(await getProtocols(base));
  });
});
