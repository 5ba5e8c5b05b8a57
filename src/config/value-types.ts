/**
 * The kinds of values settings take: each parses an operator's text (a bad one stops start-up with
 * a message that names the setting as the operator wrote it) and says what it accepts for --help
 * and docs/operators.md. A setting's declaration (settings.ts) picks one and gives it its range.
 */
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import cron from "node-cron";
import { CorsPolicy } from "../http/transport/cors.js";
import { MIN_CHANGES_RETENTION, type ChangesRetention } from "../serving/change-history.js";
import { IpRanges } from "../util/ip-address.js";
import { parsePublicKeys, type TrustedKey } from "../origin/manifest-signature.js";
import { parseOriginLocation, type OriginLocation } from "../origin/origin-location.js";
import { mebibytes } from "../util/operator-file.js";
import { ConfigError, type ReadingContext, type ValueType } from "./setting.js";

const MIB = mebibytes(1);

/** The operator's text in a message (long texts cut: a message stays one line). */
function got(text: string): string {
  return `got "${text.slice(0, 80)}"`;
}

/** An integer from min to max (decimal digits only). */
export function integer(min: number, max: number): ValueType<number> {
  return {
    accepts: `${min}-${max}`,
    parse(text, at) {
      if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max)
        throw new ConfigError(`${at.name} must be an integer from ${min} to ${max}; ${got(text)}.`);
      return Number(text);
    },
    format: String,
  };
}

/** A size written in MiB (an integer from min to max), read as bytes. */
export function mebibyteSize(min: number, max: number): ValueType<number> {
  const whole = integer(min, max);
  return {
    accepts: `${min}-${max} MiB`,
    parse: (text, at) => mebibytes(whole.parse(text, at)),
    format: (bytes) => String(bytes / MIB),
  };
}

/** An integer from min to max, or `word` for `wordValue` (COMPRESSION_MIN_BYTES=off). */
export function integerOr(word: string, wordValue: number, min: number, max: number): ValueType<number> {
  const whole = integer(min, max);
  return {
    accepts: `${whole.accepts} or \`${word}\``,
    parse: (text, at) => (text === word ? wordValue : whole.parse(text, at)),
    format: (value) => (value === wordValue ? word : String(value)),
  };
}

/** One of a few words. */
export function oneOf<const Word extends string>(words: readonly Word[]): ValueType<Word> {
  const list = words.length === 2 ? `${words[0]} or ${words[1]}` : `one of ${words.join(", ")}`;
  return {
    accepts: words.length === 2 ? `\`${words[0]}\` or \`${words[1]}\`` : words.map((w) => `\`${w}\``).join(", "),
    parse(text, at) {
      if (!(words as readonly string[]).includes(text)) throw new ConfigError(`${at.name} must be ${list}; ${got(text)}.`);
      return text as Word;
    },
    format: String,
  };
}

/** A text matching `pattern`; `must` completes "<name> must ..." in the message. */
export function matching(pattern: RegExp, must: string, accepts: string): ValueType<string> {
  return {
    accepts,
    parse(text, at) {
      if (!pattern.test(text)) throw new ConfigError(`${at.name} must ${must}; ${got(text)}.`);
      return text;
    },
    format: String,
  };
}

/** Any text (a passphrase). */
export const anyText: ValueType<string> = { accepts: "text", parse: (text) => text, format: String };

/** A node-cron schedule. */
export const cronSchedule: ValueType<string> = {
  accepts: "node-cron schedule",
  parse(text, at) {
    if (!cron.validate(text)) throw new ConfigError(`${at.name} is not a valid cron expression: "${text.slice(0, 80)}".`);
    return text;
  },
  format: String,
};

/** A secret of at least `minLength` characters, as its UTF-8 bytes; never repeated in a message. */
export function secret(minLength: number): ValueType<Buffer> {
  return {
    accepts: `text, at least ${minLength} characters`,
    parse(text, at) {
      if (text.length < minLength) throw new ConfigError(`${at.name} must be at least ${minLength} characters long.`);
      return Buffer.from(text, "utf8");
    },
  };
}

export interface RequestsPerWindow {
  readonly requests: number;
  readonly windowSeconds: number;
}

/** `REQUESTS/SECONDS`, both positive integers (600/60). */
export const requestsPerWindow: ValueType<RequestsPerWindow> = {
  accepts: "`REQUESTS/SECONDS`",
  parse(text, at) {
    const m = /^([1-9][0-9]{0,8})\/([1-9][0-9]{0,6})$/.exec(text);
    if (!m)
      throw new ConfigError(`${at.name} must be REQUESTS/SECONDS with positive integers, e.g. ${at.example ?? "600/60"}; ${got(text)}.`);
    return { requests: Number(m[1]), windowSeconds: Number(m[2]) };
  },
  format: (value) => `${value.requests}/${value.windowSeconds}`,
};

/** A path (relative to the working directory) that names an existing directory; read as the absolute path. */
export const existingDirectory: ValueType<string> = {
  accepts: "directory",
  parse(text, at) {
    const path = resolve(text);
    if (!isDirectory(path)) throw new ConfigError(`${at.name} must be an existing directory; "${path}" is not.`);
    return path;
  },
};

/** A path that names an existing regular file; `what` completes "must name ..." ("a baskets file"). */
export function existingFile(what: string): ValueType<string> {
  return {
    accepts: "file",
    parse(text, at) {
      const path = resolve(text);
      if (!isFile(path)) throw new ConfigError(`${at.name} must name ${what}; "${path}" is not a file.`);
      return path;
    },
  };
}

/**
 * A path that names a regular file, or nothing yet (API_KEYS_FILE with SNAPSHOT_ORIGIN: the origin brings the file);
 * whether it must exist is a rule's (config.ts). Something else at the path is refused as existingFile refuses it.
 */
export function fileOrNothing(what: string): ValueType<string> {
  return {
    accepts: "file",
    parse(text, at) {
      const path = resolve(text);
      if (existsSync(path) && !isFile(path)) throw new ConfigError(`${at.name} must name ${what}; "${path}" is not a file.`);
      return path;
    },
  };
}

/** Whether a path names a regular file now. */
export function namesFile(path: string): boolean {
  return isFile(path);
}

/** Seconds, a decimal number from min to max (`0.5`, `10`). */
export function seconds(min: number, max: number): ValueType<number> {
  return {
    accepts: `${min}-${max} s (decimals allowed)`,
    parse(text, at) {
      const value = /^\d{1,9}(\.\d{1,6})?$/.test(text) ? Number(text) : NaN;
      if (!(value >= min && value <= max))
        throw new ConfigError(`${at.name} must be a number of seconds from ${min} to ${max}; ${got(text)}.`);
      return value;
    },
    format: String,
  };
}

/** `true` or `false`. */
export const trueOrFalse: ValueType<boolean> = {
  accepts: "`true` or `false`",
  parse(text, at) {
    if (text !== "true" && text !== "false") throw new ConfigError(`${at.name} must be true or false; ${got(text)}.`);
    return text === "true";
  },
  format: String,
};

/** SNAPSHOT_ORIGIN: `https://`, `http://` or `s3://` (origin-location.ts); shown without credentials. */
export const originLocation: ValueType<OriginLocation> = {
  accepts: "`https://host/prefix/`, `http://…` or `s3://bucket/prefix/`",
  parse(text, at) {
    try {
      return parseOriginLocation(text, false);
    } catch (error) {
      // The message never repeats the text: it may hold credentials.
      throw new ConfigError(`${at.name} ${(error as Error).message}.`);
    }
  },
  format: (location) => location.display,
};

/** An http(s) URL of a server, without a path (S3_ENDPOINT). */
export const endpointUrl: ValueType<string> = {
  accepts: "`https://host[:port]`",
  parse(text, at) {
    let url: URL | null = null;
    try {
      url = new URL(text);
    } catch {
      url = null;
    }
    if (
      url === null ||
      (url.protocol !== "https:" && url.protocol !== "http:") ||
      url.username !== "" ||
      url.search !== "" ||
      url.hash !== ""
    )
      throw new ConfigError(
        `${at.name} must be an http(s) URL without credentials or query, e.g. https://s3.eu-west-1.amazonaws.com; ${got(text)}.`,
      );
    return url.origin + url.pathname.replace(/\/+$/, "");
  },
  format: String,
};

/** ORIGIN_PUBLIC_KEYS: `keyId=<Ed25519 public key>` pairs (manifest-signature.ts). */
export const publicKeys: ValueType<readonly TrustedKey[]> = {
  accepts: "`keyId=<base64 or PEM Ed25519 public key>`, …",
  parse: (text, at) => rethrowNamed(at, () => parsePublicKeys(text)),
};

/** A path, made absolute; whether it can be read is a rule's business (the TLS files are checked together). */
export const filePath: ValueType<string> = { accepts: "file", parse: (text) => resolve(text) };

/** `type`, or nothing when not given (the default is then `undefined` and its text says what that means). */
export function optional<T>(type: ValueType<T>): ValueType<T | undefined> {
  const format = type.format;
  return {
    accepts: type.accepts,
    parse: (text, at) => type.parse(text, at),
    ...(format === undefined ? {} : { format: (value: T | undefined) => (value === undefined ? "" : format(value)) }),
  };
}

/** CORS_ORIGINS as given, checked by CorsPolicy.parse; empty: CORS off. */
export const corsOrigins: ValueType<string> = {
  accepts: "`scheme://host[:port]`, ... or `*`",
  parse(text, at) {
    if (text !== "") rethrowNamed(at, () => CorsPolicy.parse(text));
    return text;
  },
};

/** A comma-separated list of IPv4 and IPv6 CIDR ranges (IpRanges.parse), as written. */
export const ipRanges: ValueType<readonly string[]> = {
  accepts: "CIDR ranges, comma-separated",
  parse: (text, at) => rethrowNamed(at, () => IpRanges.parse(text).ranges),
};

/** A redis:// or rediss:// URL with a host. It may hold a password: messages name its setting, never the URL. */
export const redisUrl: ValueType<string> = {
  accepts: "`redis://` or `rediss://` URL",
  parse(text, at) {
    let parsed: URL | null = null;
    try {
      parsed = new URL(text);
    } catch {
      parsed = null;
    }
    if (parsed === null || (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:") || parsed.hostname === "")
      throw new ConfigError(`${at.name} must be a redis:// or rediss:// URL with a host, e.g. redis://127.0.0.1:6379.`);
    return text;
  },
};

/** Most change sets per chain CHANGES_RETENTION may keep, and the longest age it may name (a year). */
const MAX_CHANGES_RETENTION = 100_000;
const MAX_CHANGES_AGE_SECONDS = 31_536_000;

/** CHANGES_RETENTION: `COUNT[/MAX_AGE_SECONDS]`. */
export const changesRetention: ValueType<Omit<ChangesRetention, "maxBytes">> = {
  accepts: `\`COUNT\` or \`COUNT/MAX_AGE_SECONDS\` (\`COUNT\` ${MIN_CHANGES_RETENTION}-${MAX_CHANGES_RETENTION}, age 1-${MAX_CHANGES_AGE_SECONDS} s)`,
  parse(text, at) {
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
        `${at.name} must be COUNT or COUNT/MAX_AGE_SECONDS, with COUNT from ${MIN_CHANGES_RETENTION} to ${MAX_CHANGES_RETENTION} and MAX_AGE_SECONDS from 1 to ${MAX_CHANGES_AGE_SECONDS}, e.g. 64 or 64/86400; ${got(text)}.`,
      );
    }
    return { count, maxAgeSeconds };
  },
  format: (value) => (value.maxAgeSeconds === null ? String(value.count) : `${value.count}/${value.maxAgeSeconds}`),
};

/** Runs a parser of another module whose error message is the problem; the message then names the setting. */
function rethrowNamed<T>(at: ReadingContext, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new ConfigError(`${at.name}: ${(error as Error).message}.`);
  }
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
