/**
 * The API keys file (shared/spec/keys-file.md): its types, the typia validator
 * derived from them, and the parser that turns an operator's file into a
 * KeysFile or a KeysFileError naming the file and the offending path.
 *
 * The file is rejected as a whole on the first problem; a caller that reloads
 * it keeps the previous keys in force.
 */
import typia, { type IValidation, type tags } from "typia";
import { SUPPORTED_CHAIN_IDS_ASCENDING, type ChainId } from "../chains/chains.js";
import { displayPath, displayPathSegments as segments, JsonFileError, moreProblems, parseJsonText, preview } from "../util/json-file.js";
import { FILE_LIMITS, OperatorFileError, readOperatorFile } from "../util/operator-file.js";
import { ACCESS_GROUPS, type AccessGroup } from "../api/access-groups.js";

/** `"tokens", "pools", …`: the route names of the messages. */
const ROUTE_NAMES_QUOTED = ACCESS_GROUPS.map((g) => JSON.stringify(g)).join(", ");

/** A key's own rate limit; the gateway's configured default applies when absent. */
export interface KeyRateLimit {
  /** Requests allowed per window. */
  requests: number & tags.Type<"uint32"> & tags.Minimum<1>;
  /** Window length in seconds. */
  windowSeconds: number & tags.Type<"uint32"> & tags.Minimum<1>;
}

/** One key of the keys file. The key itself is never stored, only its SHA-256. */
export interface ApiKeyRecord {
  /** Unique; the only key identity that ever appears in logs and metrics. */
  id: string & tags.Pattern<"^[a-z0-9][a-z0-9._-]{0,63}$">;
  /** Free text for operators. */
  name: string;
  /** 64 lowercase hex digits: SHA-256 of the UTF-8 key. */
  sha256: string & tags.Pattern<"^[0-9a-f]{64}$">;
  /** `disabled` → 403 API_KEY_DISABLED. */
  status: "active" | "disabled";
  /** ISO 8601 date-time with a time zone; at or after it → 403 API_KEY_EXPIRED. Absent: never expires. */
  expiresAt?: string & tags.Format<"date-time">;
  /** Absent: the gateway's configured default. */
  rateLimit?: KeyRateLimit;
  /** Allow-list of access groups (`tokens` covers every /v1/tokens… route, `pools` every /v1/pools… route); absent = all. */
  routes?: AccessGroup[] & tags.UniqueItems;
  /** Allow-list of chains; absent = all. */
  chainIds?: ChainId[] & tags.UniqueItems;
}

export interface KeysFile {
  keys: ApiKeyRecord[];
}

/** A keys file that cannot be used. `message` names the file and, when there is one, the offending path. */
export class KeysFileError extends JsonFileError {
  override name = "KeysFileError";
}

const validateKeysFile = typia.createValidateEquals<KeysFile>();

const RECORD_FIELDS = ["id", "name", "sha256", "status", "expiresAt", "rateLimit", "routes", "chainIds"] as const;
const RATE_LIMIT_FIELDS = ["requests", "windowSeconds"] as const;

/**
 * Parses and validates the text of a keys file. `source` names the file in
 * error messages. Throws KeysFileError on invalid JSON, a structural problem
 * (the first one found), an impossible calendar date, a duplicate id or a
 * duplicate sha256.
 */
export function parseKeysFile(text: string, source: string): KeysFile {
  const document = parseJsonText(text, (message, cause) => new KeysFileError(source, null, message, { cause }));

  if (typeof document !== "object" || document === null || Array.isArray(document)) {
    throw new KeysFileError(source, null, `expected a JSON object {"keys": [...]} at the top level, found ${preview(document)}`);
  }
  const result: IValidation<KeysFile> = validateKeysFile(document);
  if (!result.success) {
    // A misspelt property also shows as "missing" for the field it meant; the
    // misspelling, with its suggestion, is the more useful one to report.
    const first = result.errors.find((e) => e.expected === "undefined" && suggestField(e.path) !== undefined) ?? result.errors[0]!;
    const typo = first.value === undefined && first.expected !== "undefined" ? misspelling(document, first.path) : undefined;
    if (typo !== undefined) {
      throw new KeysFileError(
        source,
        typo.path,
        `unknown property ${JSON.stringify(typo.name)} (did you mean ${JSON.stringify(typo.meant)}?)`,
      );
    }
    const path = displayPath(first.path);
    throw new KeysFileError(source, path, describeProblem(first, path) + moreProblems(result.errors));
  }
  const file = result.data;

  const ids = new Map<string, number>();
  const digests = new Map<string, number>();
  file.keys.forEach((record, index) => {
    if (record.expiresAt !== undefined && Number.isNaN(parseDateTime(record.expiresAt))) {
      throw new KeysFileError(source, `keys[${index}].expiresAt`, `${JSON.stringify(record.expiresAt)} is not a real calendar date-time`);
    }
    const sameId = ids.get(record.id);
    if (sameId !== undefined) {
      throw new KeysFileError(source, `keys[${index}].id`, `duplicate id ${JSON.stringify(record.id)} (already used by keys[${sameId}])`);
    }
    ids.set(record.id, index);
    const sameDigest = digests.get(record.sha256);
    if (sameDigest !== undefined) {
      throw new KeysFileError(
        source,
        `keys[${index}].sha256`,
        `duplicate sha256: the same key as keys[${sameDigest}] (id ${JSON.stringify(file.keys[sameDigest]!.id)}); every record needs its own key`,
      );
    }
    digests.set(record.sha256, index);
  });
  return file;
}

/**
 * Reads and parses a keys file from disk through the bounded operator-file
 * reader (a regular file of at most `maxBytes`, opened without blocking);
 * every failure, IO included, is a KeysFileError.
 */
export function loadKeysFile(path: string, maxBytes: number = FILE_LIMITS.keys.maxBytes): KeysFile {
  return parseKeysFile(readKeysFileBytes(path, maxBytes).toString("utf8"), path);
}

/** The bytes of a keys file, read through the bounded operator-file reader; a refusal is a KeysFileError. */
export function readKeysFileBytes(path: string, maxBytes: number = FILE_LIMITS.keys.maxBytes): Buffer {
  try {
    return readOperatorFile(path, { ...FILE_LIMITS.keys, maxBytes }).bytes;
  } catch (error) {
    if (error instanceof OperatorFileError)
      throw new KeysFileError(path, null, `cannot read the keys file: ${error.problem}`, { cause: error });
    throw error;
  }
}

/**
 * Epoch milliseconds of a date-time that typia's `date-time` format accepted,
 * or NaN when it names no real instant (2027-02-30, or a non-matching string).
 */
export function parseDateTime(value: string): number {
  const match = /^(\d{4})-(\d{2})-(\d{2})[Tt\s](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/.exec(value);
  if (match === null) return Number.NaN;
  const [, y, mo, d, h, mi, s, fraction, , sign, oh, om] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return Number.NaN;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day > daysInMonth) return Number.NaN;
  const millis = fraction === undefined ? 0 : Math.floor(Number(`0.${fraction}`) * 1000);
  const base = new Date(0);
  base.setUTCFullYear(year, month - 1, day); // setUTCFullYear keeps years 0-99 literal, unlike Date.UTC
  base.setUTCHours(hour, minute, second, millis);
  let ms = base.getTime();
  if (sign !== undefined) {
    const offsetMinutes = Number(oh) * 60 + Number(om);
    if (Number(oh) > 23 || Number(om) > 59) return Number.NaN;
    ms -= (sign === "+" ? 1 : -1) * offsetMinutes * 60_000;
  }
  return ms;
}

// ---------------------------------------------------------------- messages

/** The property names allowed next to the last segment of a path. */
function allowedFields(segs: (string | number)[]): readonly string[] {
  if (segs.length === 4 && segs[2] === "rateLimit") return RATE_LIMIT_FIELDS;
  if (segs.length === 3) return RECORD_FIELDS;
  return ["keys"];
}

/** For an unknown property, the allowed one it differs from only in letter case. */
function suggestField(typiaPath: string): string | undefined {
  const path = displayPath(typiaPath);
  const segs = path === "(root)" ? [] : segments(path);
  const name = String(segs[segs.length - 1]).toLowerCase();
  return allowedFields(segs).find((field) => field.toLowerCase() === name);
}

/**
 * For a missing required property, the sibling property that spells it in
 * another letter case (`windowseconds` for `windowSeconds`), which typia does
 * not report as unknown while the object lacks a required property.
 */
function misspelling(document: unknown, typiaPath: string): { path: string; name: string; meant: string } | undefined {
  const path = displayPath(typiaPath);
  const segs = segments(path);
  const meant = segs.pop();
  if (typeof meant !== "string") return undefined;
  let parent: unknown = document;
  for (const seg of segs) {
    if (typeof parent !== "object" || parent === null) return undefined;
    parent = (parent as Record<string | number, unknown>)[seg];
  }
  if (typeof parent !== "object" || parent === null) return undefined;
  const name = Object.keys(parent).find((key) => key !== meant && key.toLowerCase() === meant.toLowerCase());
  if (name === undefined) return undefined;
  const parentPath = path.slice(0, path.length - meant.length).replace(/\.$/, "");
  const step = /^[A-Za-z_$][\w$]*$/.test(name) ? `${parentPath === "" ? "" : "."}${name}` : `[${JSON.stringify(name)}]`;
  return { path: parentPath + step, name, meant };
}

function describeProblem(error: IValidation.IError, path: string): string {
  const segs = path === "(root)" ? [] : segments(path);
  const last = segs[segs.length - 1];
  const found = error.value === undefined ? "" : `, found ${preview(error.value)}`;

  if (error.expected === "undefined") {
    // validateEquals: a property the format does not have.
    const allowed = allowedFields(segs);
    const name = String(last);
    const suggestion = suggestField(error.path);
    return (
      `unknown property ${JSON.stringify(name)}` +
      (suggestion !== undefined ? ` (did you mean ${JSON.stringify(suggestion)}?)` : ` (allowed: ${allowed.join(", ")})`)
    );
  }
  if (error.value === undefined) return "missing required property";

  // Where typia stopped: the root, the keys array, one record, or a field of one.
  if (segs.length === 0) return `expected an object with a "keys" array${found}`;
  if (segs.length === 1) return `expected an array of key records${found}`;
  if (segs.length === 2) return `expected a key record object${found}`;
  const field = segs[2];
  switch (field) {
    case "id":
      return `expected 1 to 64 characters of lowercase letters, digits, ".", "_" or "-", starting with a letter or digit${found}`;
    case "name":
      return `expected a string${found}`;
    case "sha256":
      return `expected 64 lowercase hex characters (the SHA-256 of the key)${found}`;
    case "status":
      return `expected "active" or "disabled"${found}`;
    case "expiresAt":
      return `expected an ISO 8601 date-time with a time zone, e.g. "2027-01-01T00:00:00Z"${found}`;
    case "rateLimit":
      if (segs.length === 3) return `expected an object {"requests": <positive integer>, "windowSeconds": <positive integer>}${found}`;
      return `expected a positive integer${found}`;
    case "routes":
      if (segs.length === 3) {
        return Array.isArray(error.value)
          ? "expected each route at most once"
          : `expected an array of routes (${ROUTE_NAMES_QUOTED})${found}`;
      }
      return `expected one of ${ROUTE_NAMES_QUOTED}${found}`;
    case "chainIds":
      if (segs.length === 3) {
        return Array.isArray(error.value) ? "expected each chain id at most once" : `expected an array of chain ids${found}`;
      }
      return `expected a supported chain id (${SUPPORTED_CHAIN_IDS_ASCENDING.join(", ")})${found}`;
    default:
      return `expected ${error.expected}${found}`;
  }
}
