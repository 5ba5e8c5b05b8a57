/** loadConfig (src/config/config.ts): every default as GatewayConfig carries it, and the rules between settings. */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, DEFAULT_SNAPSHOT_DIR, loadConfig, SAMPLE_KEYS_FILE } from "../../../src/config/config.js";
import { makeCa } from "../../support/tls-certificates.js";
import { DEFAULT_WORKERS_KEPT } from "../../../src/snapshot/build-pool.js";

const dir = mkdtempSync(join(tmpdir(), "lgw-load-config-"));
const keys = join(dir, "keys.json");
writeFileSync(keys, '{"keys":[]}');
// A self-signed certificate and its key: a pair the TLS check passes.
const { certFile: cert, keyFile: key } = makeCa(dir);
const load = (env: Record<string, string>, argv: string[] = []) => loadConfig(argv, { SNAPSHOT_DIR: dir, API_KEYS_FILE: keys, ...env });

describe("loadConfig", () => {
  it("without settings: the documented defaults", () => {
    const { cursorSecret, buildStartWorkers, ...config } = loadConfig([], {});
    expect(cursorSecret).toHaveLength(32);
    expect([1, 2]).toContain(buildStartWorkers);
    expect(config).toEqual({
      port: 8080,
      host: "0.0.0.0",
      snapshotDir: DEFAULT_SNAPSHOT_DIR,
      apiKeysFile: SAMPLE_KEYS_FILE,
      usingSampleKeys: true,
      basketsFile: join(DEFAULT_SNAPSHOT_DIR, "baskets.json"),
      rebuildCron: "* * * * *",
      logLevel: "info",
      tokenLogoTemplate: "https://assets.smold.app/api/token/{chainId}/{address}/logo.svg",
      cursorSecretGenerated: true,
      cursorRetentionSeconds: 900,
      snapshotMaxVersions: 4,
      changesRetention: { count: 64, maxAgeSeconds: null },
      changesMaxBytes: 256 * 2 ** 20,
      history: "on",
      historyDir: "history",
      historyRawHours: 48,
      historyHourDays: 90,
      historyMinFreeMb: 256,
      historyAnswerCacheMb: 32,
      snapshotMaxFutureSkewSeconds: 300,
      watchDebounceMs: 250,
      threads: Math.min(availableParallelism(), 63),
      buildWorkerMaxMb: null,
      buildWorkerIdleSeconds: 10,
      buildWorkersKept: 2,
      buildWorkerNice: 10,
      freshnessTargetSeconds: 10,
      maxApiKeys: 10_000,
      failedAuthLimit: { requests: 20, windowSeconds: 60 },
      defaultRateLimit: { requests: 600, windowSeconds: 60 },
      publicRateLimit: { requests: 1200, windowSeconds: 60 },
      maxHeldResponseMb: 64,
      quotaStore: { kind: "memory" },
      origin: null,
      tls: null,
      compressionMinBytes: 1024,
      compressionCacheMb: 32,
      corsOrigins: "",
      maxHeaderBytes: 8192,
      trustedProxies: [],
      keysFileMaxBytes: 16 * 2 ** 20,
      basketsFileMaxBytes: 16 * 2 ** 20,
      snapshotFileMaxBytes: 1024 * 2 ** 20,
      stream: {
        maxBufferBytes: 4 * 2 ** 20,
        maxConnectionsPerKey: 100,
        maxTopics: 1000,
        maxAddresses: 10_000,
        maxBadMessages: 20,
        maxMessagesPerSecond: 20,
        maxKeyMessagesPerSecond: 100,
      },
    });
  });

  it("says when the keys file and the cursor secret are the operator's", () => {
    const config = load({ CURSOR_SECRET: "0123456789abcdef" });
    expect(config).toMatchObject({ apiKeysFile: keys, usingSampleKeys: false, cursorSecretGenerated: false });
    expect(config.cursorSecret.toString()).toBe("0123456789abcdef");
  });

  it("takes the baskets file from BASKETS_FILE, else baskets.json in the snapshot directory (which need not exist)", () => {
    expect(load({}).basketsFile).toBe(join(dir, "baskets.json"));
    const sub = join(dir, "sub");
    mkdirSync(sub, { recursive: true });
    expect(load({}, ["--snapshot-dir", sub]).basketsFile).toBe(join(sub, "baskets.json"));
    expect(load({ BASKETS_FILE: keys }).basketsFile).toBe(keys);
    expect(() => load({ BASKETS_FILE: join(dir, "none.json") })).toThrow(/^BASKETS_FILE must name a baskets file/);
  });

  it("reads BUILD_WORKER_IDLE_S in seconds, 0 (exit after each build) included; refuses a negative one", () => {
    expect(load({ BUILD_WORKER_IDLE_S: "600" }).buildWorkerIdleSeconds).toBe(600);
    expect(load({ BUILD_WORKER_IDLE_S: "0" }).buildWorkerIdleSeconds).toBe(0);
    expect(() => load({ BUILD_WORKER_IDLE_S: "-1" })).toThrow(/BUILD_WORKER_IDLE_S/);
  });

  it("reads BUILD_WORKERS_KEPT (default DEFAULT_WORKERS_KEPT); refuses a negative one", () => {
    expect(load({}).buildWorkersKept).toBe(DEFAULT_WORKERS_KEPT);
    expect(load({ BUILD_WORKERS_KEPT: "0" }).buildWorkersKept).toBe(0);
    expect(load({ BUILD_WORKERS_KEPT: "2" }).buildWorkersKept).toBe(2);
    expect(() => load({ BUILD_WORKERS_KEPT: "-1" })).toThrow(/BUILD_WORKERS_KEPT/);
  });

  it("reads BUILD_WORKER_MAX_MB as null when unset", () => {
    expect(load({ BUILD_WORKER_MAX_MB: "512" }).buildWorkerMaxMb).toBe(512);
    expect(load({ BUILD_WORKER_MAX_MB: "" }).buildWorkerMaxMb).toBeNull();
  });

  describe("TLS: a certificate and its key together, the passphrase and CA only with them", () => {
    const refused: Array<[string, Record<string, string>, string[], string]> = [
      [
        "a certificate without a key",
        { TLS_CERT_FILE: cert },
        [],
        "TLS_KEY_FILE must be set too: HTTPS needs both TLS_CERT_FILE and TLS_KEY_FILE.",
      ],
      [
        "a key without a certificate",
        {},
        ["--tls-key-file", key],
        "TLS_CERT_FILE must be set too: HTTPS needs both TLS_CERT_FILE and TLS_KEY_FILE.",
      ],
      ["a passphrase alone", {}, ["--tls-key-passphrase=x"], "--tls-key-passphrase is set but TLS_CERT_FILE and TLS_KEY_FILE are not."],
      ["a CA file alone", { TLS_CA_FILE: cert }, [], "TLS_CA_FILE is set but TLS_CERT_FILE and TLS_KEY_FILE are not."],
      ["a key that is not PEM", { TLS_CERT_FILE: cert, TLS_KEY_FILE: keys }, [], `TLS_KEY_FILE: "${keys}" is not a usable PEM private key`],
    ];
    for (const [label, env, argv, message] of refused) {
      it(`refuses ${label}`, () => {
        expect(() => load(env, argv)).toThrow(ConfigError);
        expect(() => load(env, argv)).toThrow(message);
      });
    }

    it("takes a checked pair, absolute, the flags naming the files when given", () => {
      expect(load({ TLS_CERT_FILE: cert, TLS_KEY_FILE: key }).tls).toEqual({ certFile: cert, keyFile: key });
      expect(load({ TLS_CERT_FILE: join(dir, "none.pem") }, ["--tls-key-file", key, "--tls-cert-file", cert]).tls).toEqual({
        certFile: cert,
        keyFile: key,
      });
      expect(() => load({ TLS_KEY_FILE: key }, ["--tls-cert-file", keys])).toThrow(/^--tls-cert-file: /);
    });
  });

  describe("quota store: redis needs its URL; the Redis settings only with redis", () => {
    it("refuses redis without REDIS_URL, naming both as given", () => {
      expect(() => load({ QUOTA_STORE: "redis" })).toThrow(
        new ConfigError("REDIS_URL must be set when QUOTA_STORE is redis (e.g. redis://127.0.0.1:6379)."),
      );
      expect(() => load({}, ["--quota-store", "redis"])).toThrow(/^REDIS_URL must be set when --quota-store is redis/);
    });

    it("refuses a Redis setting without QUOTA_STORE=redis before reading its value", () => {
      expect(() => load({ REDIS_TIMEOUT_MS: "0" })).toThrow(
        new ConfigError(
          "REDIS_TIMEOUT_MS is set but QUOTA_STORE is memory: set QUOTA_STORE=redis to share quotas through Redis, or unset REDIS_TIMEOUT_MS.",
        ),
      );
      expect(() => load({}, ["--redis-key-prefix", "x"])).toThrow(/^--redis-key-prefix is set but QUOTA_STORE is memory/);
    });

    it("gives the Redis settings with their defaults", () => {
      expect(load({ QUOTA_STORE: "redis", REDIS_URL: "redis://h:1" }).quotaStore).toEqual({
        kind: "redis",
        url: "redis://h:1",
        keyPrefix: "lgw",
        timeoutMs: 250,
        failure: "open",
      });
    });
  });

  describe("origin: SNAPSHOT_ORIGIN and the settings that go with it (fleet.md §16-§18)", () => {
    it("reads an s3 origin with its S3 settings and the poll timing, in ms", () => {
      const config = load({
        SNAPSHOT_ORIGIN: "s3://fleet-bucket/prod",
        S3_ENDPOINT: "http://127.0.0.1:9000/",
        S3_REGION: "auto",
        S3_FORCE_PATH_STYLE: "true",
        ORIGIN_POLL_MIN_S: "0.5",
        ORIGIN_POLL_MAX_S: "2",
        ORIGIN_READY: "fresh",
      });
      expect(config.origin).toMatchObject({
        location: { kind: "s3", bucket: "fleet-bucket", prefix: "prod/" },
        pollMinMs: 500,
        pollMaxMs: 2000,
        timeoutMs: 30_000,
        maxSkewMs: 300_000,
        publicKeys: null,
        readiness: "fresh",
        instanceId: null,
        s3: { endpoint: "http://127.0.0.1:9000", region: "auto", forcePathStyle: true },
      });
      expect(load({ SNAPSHOT_ORIGIN: "https://cdn.example.com/f/" }).origin?.s3).toEqual({
        endpoint: undefined,
        region: "us-east-1",
        forcePathStyle: false,
      });
    });

    it("refuses the origin settings without an origin, and the S3 ones without an s3:// origin (credentials never repeated)", () => {
      expect(() => load({ ORIGIN_POLL_MIN_S: "1" })).toThrow(
        new ConfigError(
          "ORIGIN_POLL_MIN_S is set but SNAPSHOT_ORIGIN is not set: set SNAPSHOT_ORIGIN to an origin (https://, http:// or s3://) to pull files from an origin, or unset ORIGIN_POLL_MIN_S.",
        ),
      );
      expect(() => load({ SNAPSHOT_ORIGIN: "https://user:hunter2@cdn.example.com/p", S3_REGION: "eu-west-1" })).toThrow(
        new ConfigError(
          "S3_REGION is set but SNAPSHOT_ORIGIN is https://cdn.example.com/p/: set SNAPSHOT_ORIGIN to an s3:// URL to pull from S3, or unset S3_REGION.",
        ),
      );
      expect(() => load({ SNAPSHOT_ORIGIN: "ftp://user:hunter2@x/" })).toThrow(
        /^SNAPSHOT_ORIGIN must start with https:\/\/, http:\/\/, s3:\/\/\.$/,
      );
    });

    it("needs 0 < ORIGIN_POLL_MIN_S <= ORIGIN_POLL_MAX_S", () => {
      const origin = { SNAPSHOT_ORIGIN: "https://cdn.example.com/" };
      expect(() => load({ ...origin, ORIGIN_POLL_MIN_S: "30", ORIGIN_POLL_MAX_S: "20" })).toThrow(
        new ConfigError("ORIGIN_POLL_MIN_S (30) must not be greater than ORIGIN_POLL_MAX_S (20)."),
      );
      expect(() => load({ ...origin, ORIGIN_POLL_MIN_S: "0" })).toThrow(/^ORIGIN_POLL_MIN_S must be a number of seconds from 0.05/);
      expect(() => load({ ...origin, ORIGIN_PUBLIC_KEYS: "k=AAAA" })).toThrow(
        /^ORIGIN_PUBLIC_KEYS: the key of "k" is not an Ed25519 public key/,
      );
    });

    it("lets an origin bring the keys file: API_KEYS_FILE may name no file yet only then", () => {
      const absent = join(dir, "later-keys.json");
      expect(() => load({ API_KEYS_FILE: absent })).toThrow(`API_KEYS_FILE must name a readable keys file; "${absent}" is not a file.`);
      expect(load({ API_KEYS_FILE: absent, SNAPSHOT_ORIGIN: "https://cdn.example.com/" }).apiKeysFile).toBe(absent);
      expect(() => load({ API_KEYS_FILE: dir, SNAPSHOT_ORIGIN: "https://cdn.example.com/" })).toThrow(/is not a file/);
    });
  });
});
