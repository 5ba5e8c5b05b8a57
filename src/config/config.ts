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

export { ConfigError } from "./setting.js";
export { SETTINGS } from "./settings.js";
export { DEFAULT_SNAPSHOT_DIR, PROJECT_ROOT, SAMPLE_KEYS_FILE } from "./paths.js";

type Settings = typeof SETTINGS;
type Values = ValuesOf<Settings>;

/** The settings that the rules below turn into another shape. */
type Reshaped = "basketsFile" | "buildWorkerMaxMb" | "tls" | "quotaStore";

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
    watchDebounceMs: 250,
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
