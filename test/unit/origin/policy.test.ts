/** The puller's policy, apart from its mechanism: which generation may be taken, when to poll, what a failure means. */
import { describe, expect, it } from "vitest";
import { judgeGeneration, expiry } from "../../../src/origin/generation-rule.js";
import type { OriginManifest } from "../../../src/origin/manifest.js";
import { BACKOFF_BASE_MS, MAX_RETRY_AFTER_MS, PollPolicy, retryAfterMs, retryOfStatus } from "../../../src/origin/poll-policy.js";
import { asPollFailure, statusFailure } from "../../../src/origin/poll-failure.js";
import { ExchangeError } from "../../../src/origin/http-exchange.js";
import { StagingError } from "../../../src/origin/staging.js";
import { ManifestError } from "../../../src/origin/manifest.js";
import { SignatureError } from "../../../src/origin/manifest-signature.js";
import { CredentialsError } from "../../../src/origin/aws-credentials.js";
import { isStale, originStatus, staleSeconds, type OriginStatusRecord } from "../../../src/origin/origin-status.js";

const NOW = Date.parse("2026-03-01T12:00:00Z");
const m = (generation: number, expires?: string): OriginManifest => ({
  schema: 1,
  generation,
  publishedAt: "2026-03-01T00:00:00Z",
  ...(expires === undefined ? {} : { expires }),
  files: [],
});

describe("judgeGeneration", () => {
  const last = { generation: 5, manifestSha256: "x" };
  it("takes the first and every higher generation, and knows the same one", () => {
    expect(judgeGeneration(m(1), "a", null, NOW, 0).kind).toBe("new");
    expect(judgeGeneration(m(6), "b", last, NOW, 0).kind).toBe("new");
    expect(judgeGeneration(m(5), "x", last, NOW, 0).kind).toBe("same");
  });
  it("refuses a rollback, a reused generation and an expired manifest", () => {
    expect(judgeGeneration(m(4), "y", last, NOW, 0)).toMatchObject({ kind: "refused", code: "rollback" });
    expect(judgeGeneration(m(5), "y", last, NOW, 0)).toMatchObject({ kind: "refused", code: "generation-reused" });
    expect(judgeGeneration(m(6, "2026-03-01T11:00:00Z"), "y", last, NOW, 0)).toMatchObject({ kind: "refused", code: "expired" });
  });
  it("allows ORIGIN_MAX_SKEW_S past `expires`", () => {
    const soon = m(6, "2026-03-01T11:56:00Z");
    expect(judgeGeneration(soon, "y", last, NOW, 300_000).kind).toBe("new");
    expect(judgeGeneration(soon, "y", last, NOW, 200_000).kind).toBe("refused");
    expect(expiry(m(6), NOW, 0)).toBeNull();
  });
});

describe("PollPolicy", () => {
  const timing = { minMs: 10_000, maxMs: 20_000 };
  const sequence = (...values: number[]) => {
    let i = 0;
    return () => values[i++ % values.length];
  };

  it("waits a uniform time in [min, max] after a poll that ended well or was refused", () => {
    const policy = new PollPolicy(timing, sequence(0, 0.5, 0.999));
    expect(policy.next({ kind: "changed" }, NOW)).toBe(10_000);
    expect(policy.next({ kind: "not-modified" }, NOW)).toBe(15_000);
    expect(policy.next({ kind: "refused" }, NOW)).toBeCloseTo(19_990, 0);
  });

  it("backs off 1 s × 1.6ⁿ ±20 % on transient errors, capped at max, and starts over after a success", () => {
    const lows = new PollPolicy(timing, () => 0);
    const highs = new PollPolicy(timing, () => 1);
    const error = { kind: "error", retry: "backoff", retryAfterMs: null } as const;
    const waits = Array.from({ length: 8 }, () => [lows.next(error, NOW), highs.next(error, NOW)]);
    waits.forEach(([low, high], n) => {
      const base = BACKOFF_BASE_MS * 1.6 ** n;
      expect(low).toBeCloseTo(Math.min(base * 0.8, 20_000), 6);
      expect(high).toBeCloseTo(Math.min(base * 1.2, 20_000), 6);
    });
    expect(lows.consecutiveFailures).toBe(8);
    lows.next({ kind: "not-modified" }, NOW);
    expect(lows.consecutiveFailures).toBe(0);
    expect(lows.next(error, NOW)).toBeCloseTo(800, 6);
  });

  it("polls at the usual interval after a 401/403/404, and honours Retry-After up to an hour", () => {
    const policy = new PollPolicy(timing, () => 0);
    expect(policy.next({ kind: "error", retry: "interval", retryAfterMs: null }, NOW)).toBe(10_000);
    expect(policy.next({ kind: "error", retry: "backoff", retryAfterMs: 7_000 }, NOW)).toBe(7_000);
    expect(policy.next({ kind: "error", retry: "backoff", retryAfterMs: 10 * MAX_RETRY_AFTER_MS }, NOW)).toBe(MAX_RETRY_AFTER_MS);
    expect(retryOfStatus(503)).toBe("backoff");
    expect(retryOfStatus(429)).toBe("backoff");
    expect(retryOfStatus(408)).toBe("backoff");
    expect(retryOfStatus(403)).toBe("interval");
    expect(retryOfStatus(404)).toBe("interval");
  });

  it("reads Retry-After as seconds or an HTTP date", () => {
    expect(retryAfterMs("3", NOW)).toBe(3000);
    expect(retryAfterMs(new Date(NOW + 5000).toUTCString(), NOW)).toBe(5000);
    expect(retryAfterMs("soon", NOW)).toBeNull();
    expect(retryAfterMs(undefined, NOW)).toBeNull();
  });

  it("a poke polls within 0-2 s unless a poll is due sooner or a Retry-After holds", () => {
    const policy = new PollPolicy(timing, () => 0.5);
    expect(policy.poked(NOW, NOW + 15_000)).toBe(1000);
    expect(policy.poked(NOW, NOW + 500)).toBeNull();
    policy.next({ kind: "error", retry: "backoff", retryAfterMs: 60_000 }, NOW);
    expect(policy.poked(NOW + 1000, NOW + 60_000)).toBeNull();
    expect(policy.poked(NOW + 61_000, NOW + 90_000)).toBe(1000);
  });
});

describe("what a failure means", () => {
  it("network trouble is retried with backoff; refusals are refusals", () => {
    expect(asPollFailure(new ExchangeError("timeout", "t")).outcome).toMatchObject({ kind: "error", retry: "backoff" });
    expect(asPollFailure(new ExchangeError("too-many-redirects", "r")).outcome).toMatchObject({ kind: "error", retry: "interval" });
    expect(asPollFailure(new StagingError("body", "cut")).code).toBe("unreachable");
    expect(asPollFailure(new StagingError("object-hash-mismatch", "h")).outcome.kind).toBe("refused");
    expect(asPollFailure(new StagingError("disk-full", "d"))).toMatchObject({
      code: "disk-full",
      outcome: { kind: "error", retry: "interval" },
    });
    expect(asPollFailure(new ManifestError("bad-key", "k")).outcome.kind).toBe("refused");
    expect(asPollFailure(new SignatureError("unsigned", "u")).code).toBe("unsigned");
    expect(asPollFailure(new CredentialsError("c")).code).toBe("credentials");
  });
  it("an error answer names its status and S3's code; Retry-After only where backoff applies", () => {
    const failure = statusFailure("GET manifest.json", 503, { code: "SlowDown", message: "Please reduce your request rate." }, 4000);
    expect(failure.message).toBe("GET manifest.json answered 503 (SlowDown: Please reduce your request rate.)");
    expect(failure.outcome).toEqual({ kind: "error", retry: "backoff", retryAfterMs: 4000 });
    expect(statusFailure("GET x", 404, null, 4000).outcome).toEqual({ kind: "error", retry: "interval", retryAfterMs: null });
  });
});

describe("origin status", () => {
  const record: OriginStatusRecord = {
    kind: "s3",
    url: "s3://b/p/",
    generation: 3,
    manifestSha256: "a".repeat(64),
    etag: '"e"',
    publishedAt: "2026-03-01T00:00:00Z",
    startedAtMs: NOW - 100_000,
    lastPollAtMs: NOW - 5000,
    lastSuccessAtMs: NOW - 5000,
    lastChangeAtMs: NOW - 50_000,
    nextPollAtMs: NOW + 5000,
    consecutiveFailures: 0,
    lastError: null,
    refused: false,
    clockSkewMs: 12,
    signature: null,
    partial: [],
  };
  it("is fresh after a successful poll and stale (counting from it) while polls fail or are refused", () => {
    expect(isStale(record)).toBe(false);
    expect(originStatus(record, NOW)).toMatchObject({ stale: false, staleSeconds: 0, lastSuccessAt: new Date(NOW - 5000).toISOString() });
    expect(staleSeconds({ ...record, consecutiveFailures: 2 }, NOW)).toBe(5);
    expect(staleSeconds({ ...record, refused: true }, NOW + 10_000)).toBe(15);
    expect(staleSeconds({ ...record, lastSuccessAtMs: null }, NOW)).toBe(100);
  });
});
