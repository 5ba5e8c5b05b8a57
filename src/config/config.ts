/**
 * Gateway configuration from the environment and matching command-line flags
 * (a flag wins over its variable). Every setting is checked at start-up; a bad
 * one stops the gateway with a message that names it.
 */
import { randomBytes } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import { availableParallelism, freemem } from "node:os";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import cron from "node-cron";
import { CorsPolicy } from "../http/transport/cors.js";
import { DEFAULT_TOKEN_LOGO_TEMPLATE } from "../snapshot/normalize-token.js";
import { DEFAULT_STREAM_LIMITS, type StreamLimits } from "../stream/stream-limits.js";
import { IpRanges } from "../util/ip-address.js";
import { FILE_LIMIT_RANGE_MB, FILE_LIMITS, mebibytes } from "../util/operator-file.js";
import { checkTlsFiles, TlsFilesError, type TlsSettings } from "./tls-files.js";
import {
  DEFAULT_CHANGES_MAX_MB,
  DEFAULT_CHANGES_RETENTION,
  MIN_CHANGES_RETENTION,
  type ChangesRetention,
} from "../serving/change-history.js";

const MIB = mebibytes(1);

/** The directory of this package's package.json (from src/ under vitest, or from dist/src/ when built). */
export const PROJECT_ROOT = findProjectRoot(dirname(fileURLToPath(import.meta.url)));

function findProjectRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(resolve(dir, "package.json"))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}
export const SAMPLE_KEYS_FILE = resolve(PROJECT_ROOT, "config/keys.sample.json");
/** SNAPSHOT_DIR when unset: the bundled sample snapshots. */
export const DEFAULT_SNAPSHOT_DIR = resolve(PROJECT_ROOT, "snapshots");

export interface GatewayConfig {
  readonly port: number;
  readonly host: string;
  readonly snapshotDir: string;
  readonly apiKeysFile: string;
  /** True when API_KEYS_FILE was not set and the bundled sample is used. */
  readonly usingSampleKeys: boolean;
  /** The operator's token baskets (docs/baskets.md); absent file = no baskets. */
  readonly basketsFile: string;
  readonly rebuildCron: string;
  readonly logLevel: string;
  readonly tokenLogoTemplate: string;
  /** HMAC secret of pagination cursors. */
  readonly cursorSecret: Buffer;
  readonly cursorSecretGenerated: boolean;
  readonly cursorRetentionSeconds: number;
  readonly snapshotMaxVersions: number;
  /** CHANGES_RETENTION: change sets kept per chain (live.md §12). */
  /** CHANGES_RETENTION: sets kept per chain and their age limit. */
  readonly changesRetention: Omit<ChangesRetention, "maxBytes">;
  /** CHANGES_MAX_MB in bytes: the kept sets' address lists together. */
  readonly changesMaxBytes: number;
  /** How far a snapshot file's generatedAt may be ahead of this server's clock (seconds). */
  readonly snapshotMaxFutureSkewSeconds: number;
  readonly watchDebounceMs: number;
  /** Serving threads sharing the port. */
  readonly threads: number;
  /** Heap limit of a snapshot build worker (MB), or null for Node's default. */
  readonly buildWorkerMaxMb: number | null;
  /** Files built at once at start-up, before anything is served (build workers then). */
  readonly buildStartWorkers: number;
  /** Niceness of the build worker threads (0-19): under load the serving threads get the CPU first. */
  readonly buildWorkerNice: number;
  /** Capacity of the shared quota table (keys in one file at most). */
  readonly maxApiKeys: number;
  /** Failed authentication attempts allowed per client address and window. */
  readonly failedAuthLimit: { readonly requests: number; readonly windowSeconds: number };
  /** Quota of keys whose record has no rateLimit. */
  readonly defaultRateLimit: { readonly requests: number; readonly windowSeconds: number };
  /** Requests without a key (public routes, unknown paths) allowed per client address and window. */
  readonly publicRateLimit: { readonly requests: number; readonly windowSeconds: number };
  /** Most response bytes one serving thread holds for connections that do not read (MiB). */
  readonly maxHeldResponseMb: number;
  /** Where per-key quotas and failed-authentication counts live. */
  readonly quotaStore: QuotaStoreConfig;
  /** HTTPS files; null: plain HTTP. */
  readonly tls: TlsSettings | null;
  /** Bodies of at least this many bytes are compressed when the client accepts it (Infinity: off). */
  readonly compressionMinBytes: number;
  /** Compressed bodies kept per serving thread (MiB). */
  readonly compressionCacheMb: number;
  /** CORS_ORIGINS as given ("" when CORS is off); parsed with CorsPolicy.parse. */
  readonly corsOrigins: string;
  /** Largest request header section (request line + fields) accepted, bytes; larger ones get 431. */
  readonly maxHeaderBytes: number;
  /** TRUSTED_PROXIES: CIDR ranges (validated; IpRanges.parse) of proxies whose forwarding headers name the client; empty: none. */
  readonly trustedProxies: readonly string[];
  /** Largest keys file read, bytes (docs/operator-files.md). */
  readonly keysFileMaxBytes: number;
  /** Largest baskets file read, bytes. */
  readonly basketsFileMaxBytes: number;
  /** Largest snapshot file read, bytes; a larger one is rejected (`too-large`). */
  readonly snapshotFileMaxBytes: number;
  /** Limits of GET /v1/stream (STREAM_*). */
  readonly stream: StreamLimits;
}

/**
 * `memory`: this instance's shared-memory counters (exact across its threads).
 * `redis`: counters in Redis, exact across every instance that shares it.
 */
export type QuotaStoreConfig =
  | { readonly kind: "memory" }
  | {
      readonly kind: "redis";
      /** redis:// or rediss:// URL (may hold credentials: never log it). */
      readonly url: string;
      /** Prefix of every Redis key the gateway writes. */
      readonly keyPrefix: string;
      /** Longest a request waits for Redis before QUOTA_FAILURE applies (ms). */
      readonly timeoutMs: number;
      /** While Redis is unavailable: count locally (`open`) or answer 503 (`closed`). */
      readonly failure: "open" | "closed";
    };

interface Setting {
  readonly env: string;
  readonly flag: string;
  readonly help: string;
}

export const SETTINGS = {
  port: { env: "PORT", flag: "--port", help: "TCP port (0 picks a free one). Default 8080." },
  host: { env: "HOST", flag: "--host", help: "Listen address. Default 0.0.0.0." },
  snapshotDir: { env: "SNAPSHOT_DIR", flag: "--snapshot-dir", help: "Directory of chain-<id>.msgpack files. Default ./snapshots." },
  apiKeysFile: {
    env: "API_KEYS_FILE",
    flag: "--api-keys-file",
    help: "API keys file. Default: the bundled sample (sandbox key), with a warning.",
  },
  basketsFile: {
    env: "BASKETS_FILE",
    flag: "--baskets-file",
    help: "Token baskets file (must exist when set). Default: baskets.json in the snapshot directory, none when absent.",
  },
  rebuildCron: { env: "REBUILD_CRON", flag: "--rebuild-cron", help: "node-cron schedule of the backstop rescan. Default every minute." },
  logLevel: { env: "LOG_LEVEL", flag: "--log-level", help: "fatal, error, warn, info, debug or trace. Default info." },
  tokenLogoTemplate: {
    env: "TOKEN_LOGO_URL_TEMPLATE",
    flag: "--token-logo-url-template",
    help: "Logo URL for tokens without one; {chainId} and {address} are replaced.",
  },
  cursorSecret: {
    env: "CURSOR_SECRET",
    flag: "--cursor-secret",
    help: "Secret (>= 16 chars) that signs cursors; set it so cursors survive restarts. Default: random per start.",
  },
  cursorRetentionSeconds: {
    env: "CURSOR_RETENTION_SECONDS",
    flag: "--cursor-retention-seconds",
    help: "How long an earlier snapshot stays available to cursors after its last use. Default 900.",
  },
  defaultRateLimit: {
    env: "RATE_LIMIT_DEFAULT",
    flag: "--rate-limit-default",
    help: "Quota of keys without their own rateLimit, as REQUESTS/SECONDS. Default 600/60.",
  },
  failedAuthLimit: {
    env: "FAILED_AUTH_LIMIT",
    flag: "--failed-auth-limit",
    help: "Failed authentication attempts allowed per client address, as REQUESTS/SECONDS. Default 20/60.",
  },
  publicRateLimit: {
    env: "PUBLIC_RATE_LIMIT",
    flag: "--public-rate-limit",
    help: "Requests without a key (metrics, the OpenAPI and AsyncAPI documents, unknown paths) allowed per client address, as REQUESTS/SECONDS; the probes /health and /ready are never counted. Default 1200/60.",
  },
  maxHeldResponseMb: {
    env: "MAX_HELD_RESPONSE_MB",
    flag: "--max-held-response-mb",
    help: "Most response bytes (MiB) one serving thread holds for clients that do not read them; past it such connections are closed. Default 64.",
  },
  tlsCertFile: {
    env: "TLS_CERT_FILE",
    flag: "--tls-cert-file",
    help: "PEM certificate (chain) file: with TLS_KEY_FILE, every serving thread serves HTTPS on PORT. Default: plain HTTP.",
  },
  tlsKeyFile: { env: "TLS_KEY_FILE", flag: "--tls-key-file", help: "PEM private key file of TLS_CERT_FILE." },
  tlsKeyPassphrase: { env: "TLS_KEY_PASSPHRASE", flag: "--tls-key-passphrase", help: "Passphrase of an encrypted TLS_KEY_FILE." },
  tlsCaFile: {
    env: "TLS_CA_FILE",
    flag: "--tls-ca-file",
    help: "PEM CA bundle uWS loads to request client certificates (mutual TLS). Default: none.",
  },
  compressionMinBytes: {
    env: "COMPRESSION_MIN_BYTES",
    flag: "--compression-min-bytes",
    help: "Bodies of at least this many bytes are sent gzip or br when the client accepts it; `off` never. Default 1024.",
  },
  compressionCacheMb: {
    env: "COMPRESSION_CACHE_MB",
    flag: "--compression-cache-mb",
    help: "Compressed bodies kept per serving thread for reuse (MiB). Default 32.",
  },
  corsOrigins: {
    env: "CORS_ORIGINS",
    flag: "--cors-origins",
    help: "Origins allowed to call the API from a browser: a comma list of scheme://host[:port], or *. Default: CORS off.",
  },
  threads: { env: "GATEWAY_THREADS", flag: "--threads", help: "Serving threads sharing the port. Default: the available cores." },
  buildWorkerMaxMb: {
    env: "BUILD_WORKER_MAX_MB",
    flag: "--build-worker-max-mb",
    help: "Heap limit (MB) of a snapshot build worker; a build over it fails and the current data keeps serving. Default: Node's.",
  },
  buildStartWorkers: {
    env: "BUILD_START_WORKERS",
    flag: "--build-start-workers",
    help: "Snapshot files built at once at start-up, before anything is served (1-8); afterwards one at a time, a file of 16 MiB or more on two build workers while the serving threads are idle (never with 1). Default: 2 on a host with 2 or more cores and at least 4 GiB of free memory, else 1.",
  },
  buildWorkerNice: {
    env: "BUILD_WORKER_NICE",
    flag: "--build-worker-nice",
    help: "Niceness (0-19) of a build worker thread while the serving threads are busy (Linux: per thread); under load the serving threads get the CPU first. Idle and at start-up builds run at 0. Default 10.",
  },
  maxApiKeys: {
    env: "MAX_API_KEYS",
    flag: "--max-api-keys",
    help: "Most keys a keys file may hold (size of the shared quota table). Default 10000.",
  },
  trustedProxies: {
    env: "TRUSTED_PROXIES",
    flag: "--trusted-proxies",
    help: "CIDR ranges (comma-separated, IPv4 and IPv6) of reverse proxies whose X-Forwarded-For / Forwarded / PROXY v2 name the client address the per-address limits count (docs/reverse-proxy.md). List only proxies that write the requests themselves. Default: none (the TCP peer).",
  },
  maxHeaderBytes: {
    env: "MAX_HEADER_BYTES",
    flag: "--max-header-bytes",
    help: "Largest request header section (request line and header fields), bytes, 1024-65536; larger ones are answered 431. Default 8192.",
  },
  keysFileMaxMb: {
    env: "KEYS_FILE_MAX_MB",
    flag: "--keys-file-max-mb",
    help: "Largest API keys file read (MiB, 1-1024); a larger one is rejected. Default 16.",
  },
  basketsFileMaxMb: {
    env: "BASKETS_FILE_MAX_MB",
    flag: "--baskets-file-max-mb",
    help: "Largest baskets file read (MiB, 1-1024); a larger one is rejected. Default 16.",
  },
  snapshotFileMaxMb: {
    env: "SNAPSHOT_FILE_MAX_MB",
    flag: "--snapshot-file-max-mb",
    help: "Largest snapshot file read (MiB, 1-16384); a larger one is rejected (too-large). Default 1024.",
  },
  snapshotMaxVersions: {
    env: "SNAPSHOT_MAX_VERSIONS",
    flag: "--snapshot-max-versions",
    help: "Earlier snapshot versions kept for cursors at most. Default 4.",
  },
  changesRetention: {
    env: "CHANGES_RETENTION",
    flag: "--changes-retention",
    help: `Change sets kept per chain for GET /v1/changes and stream replay, as COUNT or COUNT/MAX_AGE_SECONDS (COUNT at least ${MIN_CHANGES_RETENTION}; a chain's latest set always stays). Default ${DEFAULT_CHANGES_RETENTION.count}, no age limit.`,
  },
  changesMaxMb: {
    env: "CHANGES_MAX_MB",
    flag: "--changes-max-mb",
    help: `Most memory (MiB, 16-65536) the kept change sets' address lists take together; past it the oldest sets go first, whatever their chain (a chain's latest set stays). Default ${DEFAULT_CHANGES_MAX_MB}.`,
  },
  quotaStore: {
    env: "QUOTA_STORE",
    flag: "--quota-store",
    help: "memory (this instance's counters) or redis (shared by every instance using REDIS_URL). Default memory.",
  },
  redisUrl: {
    env: "REDIS_URL",
    flag: "--redis-url",
    help: "Redis of QUOTA_STORE=redis, as redis://[user:password@]host:port[/db] (rediss:// for TLS). Required with redis.",
  },
  redisKeyPrefix: {
    env: "REDIS_KEY_PREFIX",
    flag: "--redis-key-prefix",
    help: "Prefix of the gateway's Redis keys (instances that share quotas use the same one). Default lgw.",
  },
  redisTimeoutMs: {
    env: "REDIS_TIMEOUT_MS",
    flag: "--redis-timeout-ms",
    help: "Longest a request waits for Redis (ms) before QUOTA_FAILURE applies. Default 250.",
  },
  quotaFailure: {
    env: "QUOTA_FAILURE",
    flag: "--quota-failure",
    help: "While Redis is unavailable: open (count on this instance's own counters) or closed (answer 503 QUOTA_STORE_UNAVAILABLE). Default open.",
  },
  snapshotMaxFutureSkewSeconds: {
    env: "SNAPSHOT_MAX_FUTURE_SKEW_SECONDS",
    flag: "--snapshot-max-future-skew-seconds",
    help: "A snapshot file whose generatedAt is further ahead of this server's clock is rejected (future-generated-at). Default 300.",
  },
  streamMaxBufferBytes: {
    env: "STREAM_MAX_BUFFER_BYTES",
    flag: "--stream-max-buffer-bytes",
    help: "Unsent bytes one stream connection may hold (65536-1073741824); past it the client is a slow consumer and is closed (WebSocket 4008 slow-consumer). Default 4194304 (4 MiB).",
  },
  streamMaxConnectionsPerKey: {
    env: "STREAM_MAX_CONNECTIONS_PER_KEY",
    flag: "--stream-max-connections-per-key",
    help: "Open streams (WebSocket and SSE) one key may hold on this instance (1-100000); the next opening is answered 429. Default 100.",
  },
  streamMaxTopics: {
    env: "STREAM_MAX_TOPICS",
    flag: "--stream-max-topics",
    help: "Topics one stream connection may hold (1-100000). Default 1000.",
  },
  streamMaxAddresses: {
    env: "STREAM_MAX_ADDRESSES",
    flag: "--stream-max-addresses",
    help: "Longest address list a changes event carries (1-10000000); a longer change set is sent as counts with truncated: true (GET /v1/changes pages through it). Default 10000.",
  },
  streamMaxBadMessages: {
    env: "STREAM_MAX_BAD_MESSAGES",
    flag: "--stream-max-bad-messages",
    help: "WebSocket messages in a row that are not JSON (1-10000); the next one closes the connection (1008). Any JSON message, of whatever shape, ends the run. Default 20.",
  },
  streamMaxMessagesPerSecond: {
    env: "STREAM_MAX_MESSAGES_PER_SECOND",
    flag: "--stream-max-messages-per-second",
    help: "WebSocket messages one stream connection may send per second, in bursts of as many (1-100000); a message past it is answered by an error event (RATE_LIMIT_EXCEEDED) and not processed, and past twice it the connection is closed (1008). Default 20.",
  },
  streamMaxKeyMessagesPerSecond: {
    env: "STREAM_MAX_KEY_MESSAGES_PER_SECOND",
    flag: "--stream-max-key-messages-per-second",
    help: "WebSocket messages one key's stream connections may send per second together, on each serving thread (1-1000000); a message past it is answered by an error event (RATE_LIMIT_EXCEEDED) and not processed. Default 100.",
  },
} as const satisfies Record<string, Setting>;

export class ConfigError extends Error {
  override name = "ConfigError";
}

const LOG_LEVELS = new Set(["fatal", "error", "warn", "info", "debug", "trace", "silent"]);

/** Reads `--flag value` / `--flag=value` pairs; unknown flags are errors. */
function parseFlags(argv: readonly string[]): Map<string, string> {
  const known = new Set<string>(Object.values(SETTINGS).map((s) => s.flag));
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const eq = arg.indexOf("=");
    const flag = eq >= 0 ? arg.slice(0, eq) : arg;
    if (!known.has(flag)) {
      throw new ConfigError(`Unknown argument "${arg}". Known flags: ${[...known].join(", ")}.`);
    }
    const value = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined) throw new ConfigError(`Flag ${flag} needs a value.`);
    values.set(flag, value);
  }
  return values;
}

export function loadConfig(argv: readonly string[], env: NodeJS.ProcessEnv): GatewayConfig {
  const flags = parseFlags(argv);
  const raw = (s: Setting): string | undefined => flags.get(s.flag) ?? (env[s.env] === "" ? undefined : env[s.env]);
  const name = (s: Setting) => (flags.has(s.flag) ? s.flag : s.env);

  const integer = (s: Setting, fallback: number, min: number, max: number): number => {
    const text = raw(s);
    if (text === undefined) return fallback;
    if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) {
      throw new ConfigError(`${name(s)} must be an integer from ${min} to ${max}; got "${text}".`);
    }
    return Number(text);
  };

  const port = integer(SETTINGS.port, 8080, 0, 65535);
  const host = raw(SETTINGS.host) ?? "0.0.0.0";
  if (!/^[A-Za-z0-9.:_-]+$/.test(host)) throw new ConfigError(`${name(SETTINGS.host)} must be a host name or IP address; got "${host}".`);

  const snapshotDir = resolve(raw(SETTINGS.snapshotDir) ?? DEFAULT_SNAPSHOT_DIR);
  if (!isDirectory(snapshotDir))
    throw new ConfigError(`${name(SETTINGS.snapshotDir)} must be an existing directory; "${snapshotDir}" is not.`);

  const keysSetting = raw(SETTINGS.apiKeysFile);
  const apiKeysFile = resolve(keysSetting ?? SAMPLE_KEYS_FILE);
  if (!isFile(apiKeysFile))
    throw new ConfigError(`${name(SETTINGS.apiKeysFile)} must name a readable keys file; "${apiKeysFile}" is not a file.`);

  const basketsSetting = raw(SETTINGS.basketsFile);
  const basketsFile = resolve(basketsSetting ?? resolve(snapshotDir, "baskets.json"));
  if (basketsSetting !== undefined && !isFile(basketsFile))
    throw new ConfigError(`${name(SETTINGS.basketsFile)} must name a baskets file; "${basketsFile}" is not a file.`);

  const rebuildCron = raw(SETTINGS.rebuildCron) ?? "* * * * *";
  if (!cron.validate(rebuildCron)) throw new ConfigError(`${name(SETTINGS.rebuildCron)} is not a valid cron expression: "${rebuildCron}".`);

  const logLevel = raw(SETTINGS.logLevel) ?? "info";
  if (!LOG_LEVELS.has(logLevel))
    throw new ConfigError(`${name(SETTINGS.logLevel)} must be one of ${[...LOG_LEVELS].join(", ")}; got "${logLevel}".`);

  const tokenLogoTemplate = raw(SETTINGS.tokenLogoTemplate) ?? DEFAULT_TOKEN_LOGO_TEMPLATE;
  if (!/^https?:\/\/\S+$/.test(tokenLogoTemplate))
    throw new ConfigError(`${name(SETTINGS.tokenLogoTemplate)} must be an http(s) URL template; got "${tokenLogoTemplate}".`);

  const secretText = raw(SETTINGS.cursorSecret);
  if (secretText !== undefined && secretText.length < 16)
    throw new ConfigError(`${name(SETTINGS.cursorSecret)} must be at least 16 characters long.`);

  const quota = (s: Setting, fallback: string) => {
    const text = raw(s) ?? fallback;
    const m = /^([1-9][0-9]{0,8})\/([1-9][0-9]{0,6})$/.exec(text);
    if (!m) throw new ConfigError(`${name(s)} must be REQUESTS/SECONDS with positive integers, e.g. ${fallback}; got "${text}".`);
    return { requests: Number(m[1]), windowSeconds: Number(m[2]) };
  };

  const quotaStore = quotaStoreConfig(raw, name, integer);
  const changesRetention = changesRetentionConfig(raw(SETTINGS.changesRetention), name(SETTINGS.changesRetention));
  const changesMaxBytes = integer(SETTINGS.changesMaxMb, DEFAULT_CHANGES_MAX_MB, 16, 65536) * MIB;
  const tlsNames = {
    certFile: name(SETTINGS.tlsCertFile),
    keyFile: name(SETTINGS.tlsKeyFile),
    passphrase: name(SETTINGS.tlsKeyPassphrase),
    caFile: name(SETTINGS.tlsCaFile),
  };
  const certFile = raw(SETTINGS.tlsCertFile);
  const keyFile = raw(SETTINGS.tlsKeyFile);
  const passphrase = raw(SETTINGS.tlsKeyPassphrase);
  const caFile = raw(SETTINGS.tlsCaFile);
  if ((certFile === undefined) !== (keyFile === undefined)) {
    throw new ConfigError(
      `${certFile === undefined ? tlsNames.certFile : tlsNames.keyFile} must be set too: HTTPS needs both TLS_CERT_FILE and TLS_KEY_FILE.`,
    );
  }
  if (certFile === undefined && (passphrase !== undefined || caFile !== undefined)) {
    throw new ConfigError(
      `${passphrase !== undefined ? tlsNames.passphrase : tlsNames.caFile} is set but TLS_CERT_FILE and TLS_KEY_FILE are not.`,
    );
  }
  let tls: TlsSettings | null = null;
  if (certFile !== undefined && keyFile !== undefined) {
    tls = {
      certFile: resolve(certFile),
      keyFile: resolve(keyFile),
      ...(passphrase === undefined ? {} : { passphrase }),
      ...(caFile === undefined ? {} : { caFile: resolve(caFile) }),
    };
    try {
      checkTlsFiles(tls, tlsNames);
    } catch (error) {
      if (error instanceof TlsFilesError) throw new ConfigError(error.message);
      throw error;
    }
  }

  const compressionText = raw(SETTINGS.compressionMinBytes);
  const compressionMinBytes =
    compressionText === "off" ? Number.POSITIVE_INFINITY : integer(SETTINGS.compressionMinBytes, 1024, 0, 1 << 30);
  const corsOrigins = raw(SETTINGS.corsOrigins) ?? "";
  if (corsOrigins !== "") {
    try {
      CorsPolicy.parse(corsOrigins);
    } catch (error) {
      throw new ConfigError(`${name(SETTINGS.corsOrigins)}: ${(error as Error).message}.`);
    }
  }

  let trustedProxies: readonly string[] = [];
  const trustedText = raw(SETTINGS.trustedProxies);
  if (trustedText !== undefined) {
    try {
      trustedProxies = IpRanges.parse(trustedText).ranges;
    } catch (error) {
      throw new ConfigError(`${name(SETTINGS.trustedProxies)}: ${(error as Error).message}.`);
    }
  }

  return {
    port,
    host,
    snapshotDir,
    apiKeysFile,
    usingSampleKeys: keysSetting === undefined,
    basketsFile,
    rebuildCron,
    logLevel,
    tokenLogoTemplate,
    cursorSecret: secretText === undefined ? randomBytes(32) : Buffer.from(secretText, "utf8"),
    cursorSecretGenerated: secretText === undefined,
    cursorRetentionSeconds: integer(SETTINGS.cursorRetentionSeconds, 900, 600, 86_400),
    snapshotMaxVersions: integer(SETTINGS.snapshotMaxVersions, 4, 1, 64),
    changesRetention,
    changesMaxBytes,
    snapshotMaxFutureSkewSeconds: integer(SETTINGS.snapshotMaxFutureSkewSeconds, 300, 0, 86_400),
    watchDebounceMs: 250,
    defaultRateLimit: quota(SETTINGS.defaultRateLimit, "600/60"),
    failedAuthLimit: quota(SETTINGS.failedAuthLimit, "20/60"),
    publicRateLimit: quota(SETTINGS.publicRateLimit, "1200/60"),
    maxHeldResponseMb: integer(SETTINGS.maxHeldResponseMb, 64, 1, 65_536),
    tls,
    compressionMinBytes,
    compressionCacheMb: integer(SETTINGS.compressionCacheMb, 32, 0, 65_536),
    corsOrigins,
    threads: integer(SETTINGS.threads, Math.min(availableParallelism(), 63), 1, 63),
    buildWorkerMaxMb: raw(SETTINGS.buildWorkerMaxMb) === undefined ? null : integer(SETTINGS.buildWorkerMaxMb, 0, 16, 1_048_576),
    buildStartWorkers: integer(SETTINGS.buildStartWorkers, defaultStartWorkers(), 1, 8),
    buildWorkerNice: integer(SETTINGS.buildWorkerNice, 10, 0, 19),
    maxApiKeys: integer(SETTINGS.maxApiKeys, 10_000, 1, 1_000_000),
    quotaStore,
    maxHeaderBytes: integer(SETTINGS.maxHeaderBytes, 8192, 1024, 65_536),
    trustedProxies,
    keysFileMaxBytes: mebibytes(integer(SETTINGS.keysFileMaxMb, FILE_LIMITS.keys.maxBytes / MIB, ...FILE_LIMIT_RANGE_MB.keys)),
    basketsFileMaxBytes: mebibytes(integer(SETTINGS.basketsFileMaxMb, FILE_LIMITS.baskets.maxBytes / MIB, ...FILE_LIMIT_RANGE_MB.baskets)),
    snapshotFileMaxBytes: mebibytes(
      integer(SETTINGS.snapshotFileMaxMb, FILE_LIMITS.snapshot.maxBytes / MIB, ...FILE_LIMIT_RANGE_MB.snapshot),
    ),
    stream: {
      maxBufferBytes: integer(SETTINGS.streamMaxBufferBytes, DEFAULT_STREAM_LIMITS.maxBufferBytes, 65_536, 1 << 30),
      maxConnectionsPerKey: integer(SETTINGS.streamMaxConnectionsPerKey, DEFAULT_STREAM_LIMITS.maxConnectionsPerKey, 1, 100_000),
      maxTopics: integer(SETTINGS.streamMaxTopics, DEFAULT_STREAM_LIMITS.maxTopics, 1, 100_000),
      maxAddresses: integer(SETTINGS.streamMaxAddresses, DEFAULT_STREAM_LIMITS.maxAddresses, 1, 10_000_000),
      maxBadMessages: integer(SETTINGS.streamMaxBadMessages, DEFAULT_STREAM_LIMITS.maxBadMessages, 1, 10_000),
      maxMessagesPerSecond: integer(SETTINGS.streamMaxMessagesPerSecond, DEFAULT_STREAM_LIMITS.maxMessagesPerSecond, 1, 100_000),
      maxKeyMessagesPerSecond: integer(SETTINGS.streamMaxKeyMessagesPerSecond, DEFAULT_STREAM_LIMITS.maxKeyMessagesPerSecond, 1, 1_000_000),
    },
  };
}

function quotaStoreConfig(
  raw: (s: Setting) => string | undefined,
  name: (s: Setting) => string,
  integer: (s: Setting, fallback: number, min: number, max: number) => number,
): QuotaStoreConfig {
  const kind = raw(SETTINGS.quotaStore) ?? "memory";
  if (kind !== "memory" && kind !== "redis") throw new ConfigError(`${name(SETTINGS.quotaStore)} must be memory or redis; got "${kind}".`);
  const redisOnly = [SETTINGS.redisUrl, SETTINGS.redisKeyPrefix, SETTINGS.redisTimeoutMs, SETTINGS.quotaFailure];
  if (kind === "memory") {
    // A Redis setting without QUOTA_STORE=redis would leave quotas per instance without a word.
    const stray = redisOnly.find((s) => raw(s) !== undefined);
    if (stray)
      throw new ConfigError(
        `${name(stray)} is set but ${name(SETTINGS.quotaStore)} is memory: set ${SETTINGS.quotaStore.env}=redis to share quotas through Redis, or unset ${name(stray)}.`,
      );
    return { kind };
  }
  const url = raw(SETTINGS.redisUrl);
  if (url === undefined)
    throw new ConfigError(
      `${name(SETTINGS.redisUrl)} must be set when ${name(SETTINGS.quotaStore)} is redis (e.g. redis://127.0.0.1:6379).`,
    );
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    parsed = null;
  }
  // The URL may hold a password: errors name its scheme, never the URL.
  if (parsed === null || (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:") || parsed.hostname === "") {
    throw new ConfigError(`${name(SETTINGS.redisUrl)} must be a redis:// or rediss:// URL with a host, e.g. redis://127.0.0.1:6379.`);
  }
  const keyPrefix = raw(SETTINGS.redisKeyPrefix) ?? "lgw";
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(keyPrefix))
    throw new ConfigError(`${name(SETTINGS.redisKeyPrefix)} must be 1-64 of A-Z a-z 0-9 . _ -; got "${keyPrefix.slice(0, 80)}".`);
  const failure = raw(SETTINGS.quotaFailure) ?? "open";
  if (failure !== "open" && failure !== "closed")
    throw new ConfigError(`${name(SETTINGS.quotaFailure)} must be open or closed; got "${failure}".`);
  return { kind, url, keyPrefix, timeoutMs: integer(SETTINGS.redisTimeoutMs, 250, 10, 5000), failure };
}

/** Most change sets per chain CHANGES_RETENTION may keep, and the longest age it may name (a year). */
const MAX_CHANGES_RETENTION = 100_000;
const MAX_CHANGES_AGE_SECONDS = 31_536_000;

/** CHANGES_RETENTION: `<count>[/<maxAgeSeconds>]`. */
function changesRetentionConfig(text: string | undefined, setting: string): Omit<ChangesRetention, "maxBytes"> {
  if (text === undefined) return { count: DEFAULT_CHANGES_RETENTION.count, maxAgeSeconds: DEFAULT_CHANGES_RETENTION.maxAgeSeconds };
  const m = /^([1-9][0-9]{0,5})(?:\/([1-9][0-9]{0,7}))?$/.exec(text);
  const count = m === null ? NaN : Number(m[1]);
  const maxAgeSeconds = m?.[2] === undefined ? null : Number(m[2]);
  if (
    m === null ||
    count < MIN_CHANGES_RETENTION ||
    count > MAX_CHANGES_RETENTION ||
    (maxAgeSeconds !== null && maxAgeSeconds > MAX_CHANGES_AGE_SECONDS)
  ) {
    throw new ConfigError(
      `${setting} must be COUNT or COUNT/MAX_AGE_SECONDS, with COUNT from ${MIN_CHANGES_RETENTION} to ${MAX_CHANGES_RETENTION} and MAX_AGE_SECONDS from 1 to ${MAX_CHANGES_AGE_SECONDS}, e.g. 64 or 64/86400; got "${text.slice(0, 80)}".`,
    );
  }
  return { count, maxAgeSeconds };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Two start-up builds where there are cores and memory for them: each holds a file's new columns and its worker's heap. */
function defaultStartWorkers(): number {
  return availableParallelism() >= 2 && freemem() >= 4 * 2 ** 30 ? 2 : 1;
}
