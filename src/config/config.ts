/**
 * Gateway configuration: every setting (settings.ts) read from the command line and the environment
 * (a flag wins over its variable), then the rules between settings. A bad setting stops the gateway
 * with a message that names it as the operator wrote it.
 */
import { resolve } from "node:path";
import { ConfigError } from "./setting.js";
import { readSettings, type SettingsRead, type ValuesOf } from "./read-settings.js";
import { SETTINGS } from "./settings.js";
import { checkTlsFiles, TlsFilesError, type TlsSettings } from "./tls-files.js";
import { namesFile } from "./value-types.js";
import type { OriginLocation } from "../origin/origin-location.js";
import type { TrustedKey } from "../origin/manifest-signature.js";
import type { S3Settings } from "../origin/s3-client.js";
import type { HistoryOptions } from "../history/history-service.js";

export { ConfigError } from "./setting.js";
export { SETTINGS } from "./settings.js";
export { DEFAULT_SNAPSHOT_DIR, PROJECT_ROOT, SAMPLE_KEYS_FILE } from "./paths.js";

type Settings = typeof SETTINGS;
type Values = ValuesOf<Settings>;

/** The settings that the rules below turn into another shape. */
type Reshaped = "basketsFile" | "buildWorkerMaxMb" | "tls" | "quotaStore" | "origin";

/** Each setting's value under its key in SETTINGS (its declaration says what it is), and what the rules add. */
export interface GatewayConfig extends Omit<Values, Reshaped> {
  /** True when API_KEYS_FILE was not set and the bundled sample is used. */
  readonly usingSampleKeys: boolean;
  /** BASKETS_FILE, else baskets.json in the snapshot directory (absent there: no baskets). */
  readonly basketsFile: string;
  /** True when CURSOR_SECRET was not set (cursors do not survive a restart). */
  readonly cursorSecretGenerated: boolean;
  /** Heap limit of a snapshot build worker (MB), or null for Node's default. */
  readonly buildWorkerMaxMb: number | null;
  /** HTTPS files (checked); null: plain HTTP. */
  readonly tls: TlsSettings | null;
  /** Where per-key quotas and failed-authentication counts live. */
  readonly quotaStore: QuotaStoreConfig;
  /** The origin files are pulled from (fleet.md); null: files are pushed into the snapshot directory. */
  readonly origin: OriginConfig | null;
  /** Quiet time after a change in the snapshot directory before it is scanned (not a setting). */
  readonly watchDebounceMs: number;
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

/** SNAPSHOT_ORIGIN and the settings that go with it (docs/fleet.md). */
export interface OriginConfig {
  readonly location: OriginLocation;
  readonly pollMinMs: number;
  readonly pollMaxMs: number;
  /** Longest wait for a byte from the origin. */
  readonly timeoutMs: number;
  /** Allowance on a manifest's `expires`. */
  readonly maxSkewMs: number;
  /** ORIGIN_PUBLIC_KEYS; null: signatures are not checked. */
  readonly publicKeys: readonly TrustedKey[] | null;
  readonly readiness: "cached" | "fresh";
  /** INSTANCE_ID; null: `<host name>:<port>`. */
  readonly instanceId: string | null;
  readonly s3: S3Settings;
}

/** The history store of a config (HISTORY_DIR resolved, its retention and HISTORY_MIN_FREE_MB): the gateway's and the CLI's. */
export function historyOptions(config: GatewayConfig): Required<HistoryOptions> {
  return {
    dir: resolve(config.historyDir),
    retention: { rawHours: config.historyRawHours, hourDays: config.historyHourDays },
    minFreeBytes: config.historyMinFreeMb * 2 ** 20,
  };
}

/** Reads every setting, then applies the rules between them. Throws ConfigError. */
export function loadConfig(argv: readonly string[], env: NodeJS.ProcessEnv): GatewayConfig {
  const read = readSettings(SETTINGS, argv, env);
  const { values } = read;
  return {
    ...values,
    usingSampleKeys: !read.given(SETTINGS.apiKeysFile),
    basketsFile: values.basketsFile ?? resolve(values.snapshotDir, "baskets.json"),
    cursorSecretGenerated: !read.given(SETTINGS.cursorSecret),
    buildWorkerMaxMb: values.buildWorkerMaxMb ?? null,
    tls: tlsSettings(read),
    quotaStore: quotaStore(read),
    origin: originConfig(read),
    watchDebounceMs: 250,
  };
}

/** Without an origin the keys file must exist; an origin may bring it (its absence then means no keys until it does). */
function checkKeysFile(read: SettingsRead<Settings>): void {
  const path = read.values.apiKeysFile;
  if (read.values.origin.location === undefined && !namesFile(path))
    throw new ConfigError(`${read.nameOf(SETTINGS.apiKeysFile)} must name a readable keys file; "${path}" is not a file.`);
}

/** SNAPSHOT_ORIGIN's settings, with `0 < ORIGIN_POLL_MIN_S <= ORIGIN_POLL_MAX_S`. */
function originConfig(read: SettingsRead<Settings>): OriginConfig | null {
  checkKeysFile(read);
  const { location, pollMinSeconds, pollMaxSeconds, timeoutSeconds, maxSkewSeconds, publicKeys, readiness, instanceId, s3 } =
    read.values.origin;
  if (location === undefined) return null;
  if (pollMinSeconds > pollMaxSeconds)
    throw new ConfigError(
      `${read.nameOf(SETTINGS.origin.pollMinSeconds)} (${pollMinSeconds}) must not be greater than ${read.nameOf(SETTINGS.origin.pollMaxSeconds)} (${pollMaxSeconds}).`,
    );
  return {
    location,
    pollMinMs: pollMinSeconds * 1000,
    pollMaxMs: pollMaxSeconds * 1000,
    timeoutMs: timeoutSeconds * 1000,
    maxSkewMs: maxSkewSeconds * 1000,
    publicKeys: publicKeys ?? null,
    readiness,
    instanceId: instanceId ?? null,
    s3,
  };
}

/** The TLS files come as a pair (certificate and key), the others only with them; all are checked as the TLS library will use them. */
function tlsSettings(read: SettingsRead<Settings>): TlsSettings | null {
  const { certFile, keyFile, passphrase, caFile } = read.values.tls;
  const names = {
    certFile: read.nameOf(SETTINGS.tls.certFile),
    keyFile: read.nameOf(SETTINGS.tls.keyFile),
    passphrase: read.nameOf(SETTINGS.tls.passphrase),
    caFile: read.nameOf(SETTINGS.tls.caFile),
  };
  const pair = `${SETTINGS.tls.certFile.env} and ${SETTINGS.tls.keyFile.env}`;
  if ((certFile === undefined) !== (keyFile === undefined))
    throw new ConfigError(`${certFile === undefined ? names.certFile : names.keyFile} must be set too: HTTPS needs both ${pair}.`);
  if (certFile === undefined || keyFile === undefined) {
    if (passphrase !== undefined || caFile !== undefined)
      throw new ConfigError(`${passphrase !== undefined ? names.passphrase : names.caFile} is set but ${pair} are not.`);
    return null;
  }
  const tls: TlsSettings = {
    certFile,
    keyFile,
    ...(passphrase === undefined ? {} : { passphrase }),
    ...(caFile === undefined ? {} : { caFile }),
  };
  try {
    checkTlsFiles(tls, names);
  } catch (error) {
    if (error instanceof TlsFilesError) throw new ConfigError(error.message);
    throw error;
  }
  return tls;
}

/** QUOTA_STORE=redis needs REDIS_URL (the other Redis settings are refused without it: their OnlyWith). */
function quotaStore(read: SettingsRead<Settings>): QuotaStoreConfig {
  const { kind, url, keyPrefix, timeoutMs, failure } = read.values.quotaStore;
  if (kind === "memory") return { kind };
  if (url === undefined)
    throw new ConfigError(
      `${read.nameOf(SETTINGS.quotaStore.url)} must be set when ${read.nameOf(SETTINGS.quotaStore.kind)} is redis (e.g. redis://127.0.0.1:6379).`,
    );
  return { kind, url, keyPrefix, timeoutMs, failure };
}
