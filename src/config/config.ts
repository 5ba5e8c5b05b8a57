/**
 * Gateway configuration from the environment and matching command-line flags
 * (a flag wins over its variable). Every setting is checked at start-up; a bad
 * one stops the gateway with a message that names it.
 */
import { randomBytes } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import cron from "node-cron";
import { DEFAULT_TOKEN_LOGO_TEMPLATE } from "../snapshot/normalize-token.js";

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
  readonly rebuildCron: string;
  readonly logLevel: string;
  readonly tokenLogoTemplate: string;
  /** HMAC secret of pagination cursors. */
  readonly cursorSecret: Buffer;
  readonly cursorSecretGenerated: boolean;
  readonly cursorRetentionSeconds: number;
  readonly snapshotMaxVersions: number;
  /** How far a snapshot file's generatedAt may be ahead of this server's clock (seconds). */
  readonly snapshotMaxFutureSkewSeconds: number;
  readonly watchDebounceMs: number;
  /** Serving threads sharing the port. */
  readonly threads: number;
  /** Heap limit of a snapshot build worker (MB), or null for Node's default. */
  readonly buildWorkerMaxMb: number | null;
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
}

interface Setting {
  readonly env: string;
  readonly flag: string;
  readonly help: string;
}

export const SETTINGS = {
  port: { env: "PORT", flag: "--port", help: "TCP port (0 picks a free one). Default 8080." },
  host: { env: "HOST", flag: "--host", help: "Listen address. Default 0.0.0.0." },
  snapshotDir: { env: "SNAPSHOT_DIR", flag: "--snapshot-dir", help: "Directory of chain-<id>.msgpack files. Default ./snapshots." },
  apiKeysFile: { env: "API_KEYS_FILE", flag: "--api-keys-file", help: "API keys file. Default: the bundled sample (sandbox key), with a warning." },
  rebuildCron: { env: "REBUILD_CRON", flag: "--rebuild-cron", help: "node-cron schedule of the backstop rescan. Default every minute." },
  logLevel: { env: "LOG_LEVEL", flag: "--log-level", help: "fatal, error, warn, info, debug or trace. Default info." },
  tokenLogoTemplate: { env: "TOKEN_LOGO_URL_TEMPLATE", flag: "--token-logo-url-template", help: "Logo URL for tokens without one; {chainId} and {address} are replaced." },
  cursorSecret: { env: "CURSOR_SECRET", flag: "--cursor-secret", help: "Secret (>= 16 chars) that signs cursors; set it so cursors survive restarts. Default: random per start." },
  cursorRetentionSeconds: { env: "CURSOR_RETENTION_SECONDS", flag: "--cursor-retention-seconds", help: "How long an earlier snapshot stays available to cursors after its last use. Default 900." },
  defaultRateLimit: { env: "RATE_LIMIT_DEFAULT", flag: "--rate-limit-default", help: "Quota of keys without their own rateLimit, as REQUESTS/SECONDS. Default 600/60." },
  failedAuthLimit: { env: "FAILED_AUTH_LIMIT", flag: "--failed-auth-limit", help: "Failed authentication attempts allowed per client address, as REQUESTS/SECONDS. Default 20/60." },
  publicRateLimit: { env: "PUBLIC_RATE_LIMIT", flag: "--public-rate-limit", help: "Requests without a key (health, ready, metrics, the OpenAPI document, unknown paths) allowed per client address, as REQUESTS/SECONDS. Default 1200/60." },
  maxHeldResponseMb: { env: "MAX_HELD_RESPONSE_MB", flag: "--max-held-response-mb", help: "Most response bytes (MiB) one serving thread holds for clients that do not read them; past it such connections are closed. Default 64." },
  threads: { env: "GATEWAY_THREADS", flag: "--threads", help: "Serving threads sharing the port. Default: the available cores." },
  buildWorkerMaxMb: { env: "BUILD_WORKER_MAX_MB", flag: "--build-worker-max-mb", help: "Heap limit (MB) of a snapshot build worker; a build over it fails and the current data keeps serving. Default: Node's." },
  maxApiKeys: { env: "MAX_API_KEYS", flag: "--max-api-keys", help: "Most keys a keys file may hold (size of the shared quota table). Default 10000." },
  snapshotMaxVersions: { env: "SNAPSHOT_MAX_VERSIONS", flag: "--snapshot-max-versions", help: "Earlier snapshot versions kept for cursors at most. Default 4." },
  snapshotMaxFutureSkewSeconds: {
    env: "SNAPSHOT_MAX_FUTURE_SKEW_SECONDS",
    flag: "--snapshot-max-future-skew-seconds",
    help: "A snapshot file whose generatedAt is further ahead of this server's clock is rejected (future-generated-at). Default 300.",
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
  if (!isDirectory(snapshotDir)) throw new ConfigError(`${name(SETTINGS.snapshotDir)} must be an existing directory; "${snapshotDir}" is not.`);

  const keysSetting = raw(SETTINGS.apiKeysFile);
  const apiKeysFile = resolve(keysSetting ?? SAMPLE_KEYS_FILE);
  if (!isFile(apiKeysFile)) throw new ConfigError(`${name(SETTINGS.apiKeysFile)} must name a readable keys file; "${apiKeysFile}" is not a file.`);

  const rebuildCron = raw(SETTINGS.rebuildCron) ?? "* * * * *";
  if (!cron.validate(rebuildCron)) throw new ConfigError(`${name(SETTINGS.rebuildCron)} is not a valid cron expression: "${rebuildCron}".`);

  const logLevel = raw(SETTINGS.logLevel) ?? "info";
  if (!LOG_LEVELS.has(logLevel)) throw new ConfigError(`${name(SETTINGS.logLevel)} must be one of ${[...LOG_LEVELS].join(", ")}; got "${logLevel}".`);

  const tokenLogoTemplate = raw(SETTINGS.tokenLogoTemplate) ?? DEFAULT_TOKEN_LOGO_TEMPLATE;
  if (!/^https?:\/\/\S+$/.test(tokenLogoTemplate)) throw new ConfigError(`${name(SETTINGS.tokenLogoTemplate)} must be an http(s) URL template; got "${tokenLogoTemplate}".`);

  const secretText = raw(SETTINGS.cursorSecret);
  if (secretText !== undefined && secretText.length < 16) throw new ConfigError(`${name(SETTINGS.cursorSecret)} must be at least 16 characters long.`);

  const quota = (s: Setting, fallback: string) => {
    const text = raw(s) ?? fallback;
    const m = /^([1-9][0-9]{0,8})\/([1-9][0-9]{0,6})$/.exec(text);
    if (!m) throw new ConfigError(`${name(s)} must be REQUESTS/SECONDS with positive integers, e.g. ${fallback}; got "${text}".`);
    return { requests: Number(m[1]), windowSeconds: Number(m[2]) };
  };

  return {
    port,
    host,
    snapshotDir,
    apiKeysFile,
    usingSampleKeys: keysSetting === undefined,
    rebuildCron,
    logLevel,
    tokenLogoTemplate,
    cursorSecret: secretText === undefined ? randomBytes(32) : Buffer.from(secretText, "utf8"),
    cursorSecretGenerated: secretText === undefined,
    cursorRetentionSeconds: integer(SETTINGS.cursorRetentionSeconds, 900, 600, 86_400),
    snapshotMaxVersions: integer(SETTINGS.snapshotMaxVersions, 4, 1, 64),
    snapshotMaxFutureSkewSeconds: integer(SETTINGS.snapshotMaxFutureSkewSeconds, 300, 0, 86_400),
    watchDebounceMs: 250,
    defaultRateLimit: quota(SETTINGS.defaultRateLimit, "600/60"),
    failedAuthLimit: quota(SETTINGS.failedAuthLimit, "20/60"),
    publicRateLimit: quota(SETTINGS.publicRateLimit, "1200/60"),
    maxHeldResponseMb: integer(SETTINGS.maxHeldResponseMb, 64, 1, 65_536),
    threads: integer(SETTINGS.threads, Math.min(availableParallelism(), 63), 1, 63),
    buildWorkerMaxMb: raw(SETTINGS.buildWorkerMaxMb) === undefined ? null : integer(SETTINGS.buildWorkerMaxMb, 0, 16, 1_048_576),
    maxApiKeys: integer(SETTINGS.maxApiKeys, 10_000, 1, 1_000_000),
  };
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
