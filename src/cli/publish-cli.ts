/**
 * `liquidity-gateway publish --from DIR --to ORIGIN`: publishes a directory's operator files as the next
 * generation of an origin (docs/fleet.md, shared/spec/fleet.md §21; the work is src/origin/publish.ts).
 * Exit codes: 0 published (or nothing to publish), 1 the publish failed, 2 usage error.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { SETTINGS } from "../config/config.js";
import { CommandLineError, readCommandLine } from "../config/command-line.js";
import { readFromEnvironment } from "../config/read-settings.js";
import { ConfigError } from "../config/setting.js";
import { sendPoke } from "../origin/fleet-view.js";
import { privateKeyOf } from "../origin/manifest-signature.js";
import { OriginLocationError, parseOriginLocation } from "../origin/origin-location.js";
import { createOriginWriter } from "../origin/origin-writer.js";
import { publish } from "../origin/publish.js";

export interface PublishCliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
}

const PROGRAM = "liquidity-gateway publish";

const OPTIONS = {
  from: { type: "string" },
  to: { type: "string" },
  "sign-key": { type: "string" },
  "key-id": { type: "string" },
  "baskets-file": { type: "string" },
  "keys-file": { type: "string" },
  "expires-in": { type: "string" },
  prune: { type: "string" },
  "redis-url": { type: "string" },
  "redis-key-prefix": { type: "string" },
  "timeout-s": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

const HELP = `Usage: ${PROGRAM} --from DIR --to ORIGIN [options]

Publishes DIR's chain-<id>.msgpack files (and baskets.json, keys.json when there) as the next generation of
ORIGIN: uploads the objects it lacks, then writes manifest.json (and its signature) last. Publishing the
same files again writes nothing.

ORIGIN: file:DIR, https://host/prefix/ (an HTTP(S) server taking PUT and DELETE: WebDAV, nginx's
dav_methods) or s3://bucket/prefix/ (S3_ENDPOINT, S3_REGION, S3_FORCE_PATH_STYLE and the AWS_* credentials
as the gateway reads them).

Options:
  --sign-key FILE      Sign the manifest with this Ed25519 private key (PEM, or a raw 32-byte seed in base64)
  --key-id ID          The key's id in ORIGIN_PUBLIC_KEYS (with --sign-key)
  --baskets-file FILE  The baskets file (default: DIR/baskets.json when there)
  --keys-file FILE     The keys file (default: DIR/keys.json when there)
  --expires-in S       The manifest expires S seconds after it is published (instances refuse it then);
                       a manifest past half of its life is published again even when the files are the same
  --prune N            Then delete the objects no manifest of the last N generations names
  --redis-url URL      Poke the fleet through this Redis (default: REDIS_URL)
  --redis-key-prefix P The instances' REDIS_KEY_PREFIX (default: REDIS_KEY_PREFIX, else lgw)
  --timeout-s S        Longest wait for a byte from the origin (default 30)
  --help               This help.
`;

class UsageError extends Error {}

function readLine(argv: readonly string[]) {
  try {
    return readCommandLine(argv, OPTIONS, { positionals: false, repeated: "error", doubleDashValues: "inline-only" });
  } catch (error) {
    if (!(error instanceof CommandLineError)) throw error;
    if (error.problem === "missing-value") throw new UsageError(`${error.option} needs a value`);
    if (error.problem === "value-on-switch") throw new UsageError(`${error.option} takes no value`);
    if (error.problem === "repeated") throw new UsageError(`${error.option} is given twice`);
    if (error.problem === "unexpected-argument") throw new UsageError(`unexpected argument ${JSON.stringify(error.option)}`);
    throw new UsageError(`unknown option ${JSON.stringify(error.option)}`);
  }
}

function positiveInteger(text: string | undefined, option: string): number | null {
  if (text === undefined) return null;
  if (!/^[1-9][0-9]{0,8}$/.test(text)) throw new UsageError(`${option} must be a positive integer`);
  return Number(text);
}

export async function runPublishCli(argv: readonly string[], io: Partial<PublishCliIo> = {}): Promise<number> {
  const out = io.stdout ?? ((t: string) => void process.stdout.write(t));
  const err = io.stderr ?? ((t: string) => void process.stderr.write(t));
  const env = io.env ?? process.env;
  const cwd = io.cwd ?? process.cwd();
  let run: () => Promise<number>;
  try {
    const line = readLine(argv);
    if (line.switches.has("help")) {
      out(HELP);
      return 0;
    }
    const from = line.values.get("from");
    const to = line.values.get("to");
    if (from === undefined || to === undefined) throw new UsageError("--from DIR and --to ORIGIN are both needed");
    let location;
    try {
      location = parseOriginLocation(to.startsWith("file:") && !to.startsWith("file://") ? `file:${resolve(cwd, to.slice(5))}` : to, true);
    } catch (error) {
      if (error instanceof OriginLocationError) throw new UsageError(`--to ${error.message}`);
      throw error;
    }
    const signKey = line.values.get("sign-key");
    const keyId = line.values.get("key-id");
    if ((signKey === undefined) !== (keyId === undefined)) throw new UsageError("--sign-key and --key-id go together");
    let sign = null;
    if (signKey !== undefined) {
      try {
        sign = { key: privateKeyOf(readFileSync(resolve(cwd, signKey), "utf8")), keyId: keyId! };
      } catch (error) {
        throw new UsageError(`--sign-key ${signKey}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
      }
    }
    const timeoutS = line.values.get("timeout-s");
    if (timeoutS !== undefined && !(Number(timeoutS) > 0)) throw new UsageError("--timeout-s must be a positive number");
    const s3 = {
      endpoint: readFromEnvironment(SETTINGS.origin.s3.endpoint, env),
      region: readFromEnvironment(SETTINGS.origin.s3.region, env),
      forcePathStyle: readFromEnvironment(SETTINGS.origin.s3.forcePathStyle, env),
    };
    const redisUrl = line.values.get("redis-url") ?? (env.REDIS_URL || undefined);
    const keyPrefix = line.values.get("redis-key-prefix") ?? readFromEnvironment(SETTINGS.quotaStore.keyPrefix, env);
    const writer = createOriginWriter(location, { timeoutMs: (timeoutS === undefined ? 30 : Number(timeoutS)) * 1000, s3, env });
    const options = {
      from: resolve(cwd, from),
      basketsFile: line.values.has("baskets-file") ? resolve(cwd, line.values.get("baskets-file")!) : null,
      keysFile: line.values.has("keys-file") ? resolve(cwd, line.values.get("keys-file")!) : null,
      writer,
      sign,
      expiresInSeconds: positiveInteger(line.values.get("expires-in"), "--expires-in"),
      prune: positiveInteger(line.values.get("prune"), "--prune"),
      limits: {
        chain: readFromEnvironment(SETTINGS.snapshotFileMaxBytes, env),
        baskets: readFromEnvironment(SETTINGS.basketsFileMaxBytes, env),
        keys: readFromEnvironment(SETTINGS.keysFileMaxBytes, env),
      },
      now: Date.now,
      poke: redisUrl === undefined ? null : (generation: number) => sendPoke(redisUrl, keyPrefix, generation, 2000),
      say: (text: string) => out(`${text}\n`),
    };
    run = async () => {
      try {
        await publish(options);
        return 0;
      } finally {
        writer.close();
      }
    };
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError) {
      err(`${PROGRAM}: ${error.message}.\n`);
      return 2;
    }
    throw error;
  }
  try {
    return await run();
  } catch (error) {
    err(`${PROGRAM}: ${(error as Error).message}\n`);
    return 1;
  }
}
