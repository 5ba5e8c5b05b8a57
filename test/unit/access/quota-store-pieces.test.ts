/**
 * The pure parts of the Redis quota store (issue 15): counter names and
 * client-address text, what a script reply means, the cache of names refused
 * until their window turns, the throttle of failure reports, and the quota
 * store settings.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  addressText,
  failedAuthCounterName,
  parseScriptReply,
  quotaCounterName,
  quotaDecision,
  secondsLeft,
} from "../../../src/access/redis-quota-protocol.js";
import { RefusalCache } from "../../../src/access/refusal-cache.js";
import { ConfigError, loadConfig } from "../../../src/config/config.js";
import { ThrottledReport } from "../../../src/log/throttled-report.js";

describe("counter names and addresses", () => {
  it("IPv4, in either form the socket reports it, is one dotted address; IPv6 is 32 hex digits", () => {
    const v4 = new Uint8Array([192, 0, 2, 7]);
    const mapped = new Uint8Array([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 7]);
    const v6 = new Uint8Array([0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    expect(addressText(v4)).toBe("192.0.2.7");
    expect(addressText(mapped)).toBe("192.0.2.7");
    expect(addressText(v6)).toBe("20010db8000000000000000000000001");
    // Almost mapped is not mapped.
    const notMapped = mapped.slice();
    notMapped[11] = 0xfe;
    expect(addressText(notMapped)).toBe("00000000000000000000fffec0000207");
    // A view into a larger buffer reads only its own bytes.
    expect(addressText(new Uint8Array([9, 9, ...v6, 9]).subarray(2, 18))).toBe("20010db8000000000000000000000001");
  });

  it("names carry the prefix, the kind of counter and its subject", () => {
    expect(quotaCounterName("lgw", "partner-a")).toBe("lgw:q:partner-a");
    expect(failedAuthCounterName("staging", "192.0.2.7")).toBe("staging:a:192.0.2.7");
  });
});

describe("script replies", () => {
  it("a count up to the limit is allowed with what remains; past it refused with 0", () => {
    expect(quotaDecision(1, 59_500, 60)).toEqual({ allowed: true, limit: 60, remaining: 59, resetSeconds: 60 });
    expect(quotaDecision(60, 1, 60)).toEqual({ allowed: true, limit: 60, remaining: 0, resetSeconds: 1 });
    expect(quotaDecision(61, 30_001, 60)).toEqual({ allowed: false, limit: 60, remaining: 0, resetSeconds: 31 });
  });

  it("seconds left round up and are at least 1", () => {
    expect([1, 999, 1000, 1001, 60_000].map(secondsLeft)).toEqual([1, 1, 1, 2, 60]);
    expect(secondsLeft(0)).toBe(1);
  });

  it("only two integers (count or -1, milliseconds left >= 0) are a reply", () => {
    expect(parseScriptReply([3, 1200])).toEqual([3, 1200]);
    expect(parseScriptReply([-1, 0])).toEqual([-1, 0]);
    for (const bad of [null, "OK", [1], [1, 2, 3], ["1", 2], [1.5, 2], [1, -1], [1, Number.NaN]]) {
      expect(() => parseScriptReply(bad), JSON.stringify(bad)).toThrow(/unexpected quota script reply/);
    }
  });
});

describe("RefusalCache", () => {
  it("refuses a name until its moment, then forgets it", () => {
    const cache = new RefusalCache(10);
    cache.refuse("k", 1500, 1000);
    expect(cache.remainingMs("k", 1000)).toBe(500);
    expect(cache.remainingMs("k", 1499)).toBe(1);
    expect(cache.remainingMs("k", 1500)).toBe(0);
    expect(cache.size).toBe(0);
    cache.refuse("past", 900, 1000);
    expect(cache.remainingMs("past", 1000)).toBe(0);
    expect(cache.size).toBe(0);
  });

  it("is bounded: when full, expired names are swept at most once per interval, and a name that does not fit is not remembered", () => {
    const cache = new RefusalCache(3, 1000);
    for (const name of ["a", "b", "c"]) cache.refuse(name, 2000, 0);
    cache.refuse("d", 5000, 10);
    expect(cache.remainingMs("d", 10)).toBe(0); // full, nothing expired
    expect(cache.size).toBe(3);
    // a, b, c have expired, but the last sweep was under 1 s ago: d still does not get in.
    cache.refuse("d", 5000, 500);
    expect(cache.size).toBe(3);
    cache.refuse("d", 5000, 2500); // a sweep is due: a, b, c go
    expect(cache.remainingMs("d", 2500)).toBe(2500);
    expect(cache.size).toBe(1);
    // A name already held may always move its moment.
    for (const name of ["e", "f"]) cache.refuse(name, 9000, 2500);
    cache.refuse("d", 7000, 2600);
    expect(cache.remainingMs("d", 2600)).toBe(4400);
    cache.clear();
    expect(cache.size).toBe(0);
  });
});

describe("ThrottledReport", () => {
  it("reports the first occurrence, then at most one per interval with the count skipped; reset starts over", () => {
    const report = new ThrottledReport(10_000);
    expect(report.occurred(0)).toBe(0);
    expect(report.occurred(1)).toBeNull();
    expect(report.occurred(9_999)).toBeNull();
    expect(report.occurred(10_000)).toBe(2);
    expect(report.occurred(10_001)).toBeNull();
    expect(report.reset()).toBe(1);
    expect(report.occurred(10_002)).toBe(0);
  });
});

describe("quota store settings", () => {
  const dir = mkdtempSync(join(tmpdir(), "lgw-quota-config-"));
  const keys = join(dir, "keys.json");
  writeFileSync(keys, '{"keys":[]}');
  const load = (env: Record<string, string>, argv: string[] = []) => loadConfig(argv, { SNAPSHOT_DIR: dir, API_KEYS_FILE: keys, ...env });

  it("memory by default; redis with its URL and defaults (prefix lgw, 250 ms, open); flags win", () => {
    expect(load({}).quotaStore).toEqual({ kind: "memory" });
    expect(load({ QUOTA_STORE: "redis", REDIS_URL: "redis://10.0.0.5:6380/2" }).quotaStore).toEqual({
      kind: "redis",
      url: "redis://10.0.0.5:6380/2",
      keyPrefix: "lgw",
      timeoutMs: 250,
      failure: "open",
    });
    expect(
      load({ QUOTA_STORE: "redis", REDIS_URL: "redis://a:6379", QUOTA_FAILURE: "open" }, [
        "--quota-failure",
        "closed",
        "--redis-key-prefix=prod-eu",
        "--redis-timeout-ms",
        "100",
      ]).quotaStore,
    ).toEqual({ kind: "redis", url: "redis://a:6379", keyPrefix: "prod-eu", timeoutMs: 100, failure: "closed" });
    expect(load({ QUOTA_STORE: "redis", REDIS_URL: "rediss://user:pw@cache.internal:6380" }).quotaStore).toMatchObject({ kind: "redis" });
  });

  const refused: Array<[string, Record<string, string>, RegExp]> = [
    ["an unknown store", { QUOTA_STORE: "disk" }, /QUOTA_STORE must be memory or redis/],
    ["redis without a URL", { QUOTA_STORE: "redis" }, /REDIS_URL must be set when QUOTA_STORE is redis/],
    ["a Redis setting without QUOTA_STORE=redis", { REDIS_URL: "redis://127.0.0.1:6379" }, /REDIS_URL is set but QUOTA_STORE is memory/],
    ["QUOTA_FAILURE without QUOTA_STORE=redis", { QUOTA_FAILURE: "closed" }, /QUOTA_FAILURE is set but QUOTA_STORE is memory/],
    [
      "a URL of another scheme",
      { QUOTA_STORE: "redis", REDIS_URL: "http://127.0.0.1:6379" },
      /REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL/,
    ],
    ["not a URL", { QUOTA_STORE: "redis", REDIS_URL: "127.0.0.1:6379" }, /REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL/],
    [
      "an unknown failure mode",
      { QUOTA_STORE: "redis", REDIS_URL: "redis://h", QUOTA_FAILURE: "maybe" },
      /QUOTA_FAILURE must be open or closed/,
    ],
    ["a prefix with a space", { QUOTA_STORE: "redis", REDIS_URL: "redis://h", REDIS_KEY_PREFIX: "a b" }, /REDIS_KEY_PREFIX must be/],
    [
      "a timeout of 0",
      { QUOTA_STORE: "redis", REDIS_URL: "redis://h", REDIS_TIMEOUT_MS: "0" },
      /REDIS_TIMEOUT_MS must be an integer from 10 to 5000/,
    ],
  ];
  for (const [label, env, message] of refused) {
    it(`refuses ${label}`, () => {
      expect(() => load(env)).toThrow(ConfigError);
      expect(() => load(env)).toThrow(message);
    });
  }

  it("never repeats a Redis URL (it may hold a password) in an error", () => {
    let message = "";
    try {
      load({ QUOTA_STORE: "redis", REDIS_URL: "http://user:s3cret-pw@host:6379" });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/REDIS_URL/);
    expect(message).not.toContain("s3cret");
  });
});
