/**
 * `liquidity-gateway keys <command>`: the operators' tool for the API keys file
 * (shared/spec/keys-file.md): create, list, disable, enable, delete, rotate.
 *
 * A new secret is printed once, alone on stdout, and only its SHA-256 is
 * stored. Every change goes through updateKeysFile: the current file is
 * validated first, the result is validated with the gateway's own rules, and
 * the file is replaced atomically, so the running gateway (which reloads the
 * file on change) never sees a partial or invalid file.
 *
 * Exit codes: 0 done, 1 the operation failed (keys file unreadable or invalid,
 * unknown or duplicate id, I/O), 2 usage error (bad command line, or a write
 * to the bundled sample file that --file does not name).
 */
import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { isSupportedChainId, SUPPORTED_CHAIN_IDS_ASCENDING, type ChainId } from "../chains/chains.js";
import { ConfigError, SAMPLE_KEYS_FILE, SETTINGS } from "../config/config.js";
import { readFromEnvironment } from "../config/read-settings.js";
import { CommandLineError, readCommandLine, type CommandLineProblem, type OptionSpec } from "../config/command-line.js";
import { generateApiKey } from "../access/key-generator.js";
import { KeyStore } from "../access/key-store.js";
import { ACCESS_GROUPS, type AccessGroup } from "../api/access-groups.js";
import { KeysFileError, loadKeysFile, parseDateTime, type ApiKeyRecord, type KeyRateLimit, type KeysFile } from "../access/keys-file.js";
import { KeysFileChangedError, updateKeysFile, type KeysFileChange, type UpdateKeysFileResult } from "../access/keys-file-writer.js";

/** Where the CLI writes and what it reads from its surroundings. Every field has a process default. */
export interface KeysCliIo {
  /** Standard output: a new secret (alone), listings, confirmations. */
  stdout(text: string): void;
  /** Standard error: errors and notes. */
  stderr(text: string): void;
  /** Environment; `API_KEYS_FILE` names the keys file when --file is absent. */
  env: Readonly<Record<string, string | undefined>>;
  /** Directory that relative paths are resolved against. */
  cwd: string;
}

const PROGRAM = "liquidity-gateway keys";

/** A failure the CLI reports as one sentence on stderr with its exit code (1 operational, 2 usage). */
export class KeysCliError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2,
  ) {
    super(message);
    this.name = "KeysCliError";
  }
}

const usageError = (message: string) => new KeysCliError(message, 2);
const failure = (message: string) => new KeysCliError(message, 1);

// ---------------------------------------------------------------- command line

const VALUE = { type: "string" } as const;
const OPTIONS = {
  file: VALUE,
  id: VALUE,
  name: VALUE,
  rate: VALUE,
  expires: VALUE,
  routes: VALUE,
  chains: VALUE,
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const satisfies Record<string, OptionSpec>;
type Flag = keyof typeof OPTIONS;
type ValueFlag = { [F in Flag]: (typeof OPTIONS)[F]["type"] extends "string" ? F : never }[Flag];
type SwitchFlag = Exclude<Flag, ValueFlag>;

/** argv split into the command, its positional arguments and its flags (not yet checked against the command). */
export interface CommandLine {
  readonly command: string | undefined;
  readonly positionals: readonly string[];
  readonly values: ReadonlyMap<ValueFlag, string>;
  readonly switches: ReadonlySet<SwitchFlag>;
}

/**
 * Splits argv (`keys` already removed) into command, positionals and flags (readCommandLine's
 * rules). Flags may come anywhere, as `--flag value` or `--flag=value`; `-h` is `--help`. Throws a
 * usage error on an unknown flag, a missing value, a value given to a switch, or a flag given twice.
 */
export function parseCommandLine(argv: readonly string[]): CommandLine {
  let line;
  try {
    line = readCommandLine(argv, OPTIONS, { positionals: true, repeated: "error", doubleDashValues: "inline-only" });
  } catch (error) {
    if (!(error instanceof CommandLineError)) throw error;
    throw usageError(PROBLEMS[error.problem](error.option));
  }
  const [command, ...rest] = line.positionals;
  return {
    command,
    positionals: rest,
    values: line.values as ReadonlyMap<ValueFlag, string>,
    switches: line.switches as ReadonlySet<SwitchFlag>,
  };
}

const PROBLEMS: Record<CommandLineProblem, (option: string) => string> = {
  "unknown-option": (option) => `unknown option "${option}"`,
  "unexpected-argument": (argument) => `unexpected argument "${argument}"`,
  "value-on-switch": (option) => `${option} takes no value`,
  "missing-value": (option) => `${option} needs a value (write ${option}=VALUE for a value that starts with --)`,
  repeated: (option) => `${option} is given more than once`,
};

// ---------------------------------------------------------------- values

const KEY_ID = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const UINT32_MAX = 0xffff_ffff;
const WINDOW_UNIT_SECONDS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** A key id as keys-file.md allows it; `label` names the argument in the error. */
export function parseKeyId(text: string, label = "the key id"): string {
  if (!KEY_ID.test(text)) {
    throw usageError(
      `${label} must be 1 to 64 lowercase letters, digits, ".", "_" or "-", starting with a letter or digit; got ${JSON.stringify(text)}`,
    );
  }
  return text;
}

/** `600/60s`, `600/60` (seconds), `600/1m`, `100/1h`, `10000/1d` → requests per window. */
export function parseRateLimit(text: string): KeyRateLimit {
  const match = /^(\d+)\/(\d+)([smhd]?)$/.exec(text);
  const requests = match === null ? Number.NaN : Number(match[1]);
  const windowSeconds = match === null ? Number.NaN : Number(match[2]) * WINDOW_UNIT_SECONDS[match[3] || "s"]!;
  if (!(requests >= 1 && requests <= UINT32_MAX && windowSeconds >= 1 && windowSeconds <= UINT32_MAX)) {
    throw usageError(
      `--rate must be REQUESTS/WINDOW with positive integers, the window in seconds or with a unit s, m, h or d (e.g. 600/60s, 600/60, 600/1m, 100/1h); got ${JSON.stringify(text)}`,
    );
  }
  return { requests, windowSeconds };
}

/**
 * `2027-01-01` (midnight UTC) or an ISO 8601 date-time with a time zone
 * (`2027-01-01T12:00Z`, `2027-01-01T12:00:00.5+02:00`) → ISO 8601 UTC
 * (`2027-01-01T10:00:00Z`). Must lie after `nowMs`.
 */
export function parseExpiry(text: string, nowMs: number): string {
  const dateTime = /^(\d{4}-\d{2}-\d{2})(?:[Tt ](\d{2}:\d{2})(:\d{2}(?:\.\d{1,9})?)?([Zz]|[+-]\d{2}:\d{2})?)?$/.exec(text);
  if (dateTime === null) {
    throw usageError(
      `--expires must be a date (2027-01-01, meaning midnight UTC) or an ISO 8601 date-time with a time zone (2027-01-01T12:00:00Z); got ${JSON.stringify(text)}`,
    );
  }
  const [, date, time, seconds, zone] = dateTime;
  if (time !== undefined && zone === undefined) {
    throw usageError(`--expires ${JSON.stringify(text)} has no time zone; add Z for UTC or an offset such as +02:00`);
  }
  const ms = parseDateTime(time === undefined ? `${date}T00:00:00Z` : `${date}T${time}${seconds ?? ":00"}${zone}`);
  if (Number.isNaN(ms)) throw usageError(`--expires ${JSON.stringify(text)} is not a real calendar date-time`);
  if (ms <= nowMs)
    throw usageError(`--expires ${JSON.stringify(text)} is not in the future, so the key would be refused as expired at once`);
  return new Date(ms).toISOString().replace(/\.000Z$/, "Z");
}

/** `tokens,pools` → the allowed routes, each once, in the order tokens, pools, protocols. */
export function parseRoutes(text: string): AccessGroup[] {
  const items = splitList(text, "--routes", `a comma-separated list of ${ACCESS_GROUPS.join(", ")}`);
  for (const item of items) {
    if (!(ACCESS_GROUPS as readonly string[]).includes(item))
      throw usageError(`unknown route ${JSON.stringify(item)} in --routes; the routes are ${ACCESS_GROUPS.join(", ")}`);
  }
  return ACCESS_GROUPS.filter((route) => items.includes(route));
}

/** `8453,1` → the allowed chains, each once, ascending. Every id must be a supported chain. */
export function parseChainIds(text: string): ChainId[] {
  const supported = SUPPORTED_CHAIN_IDS_ASCENDING.join(", ");
  const items = splitList(text, "--chains", `a comma-separated list of chain ids (${supported})`);
  const chainIds = new Set<ChainId>();
  for (const item of items) {
    const id = /^(0|[1-9][0-9]*)$/.test(item) ? Number(item) : Number.NaN;
    if (!isSupportedChainId(id))
      throw usageError(`unsupported chain id ${JSON.stringify(item)} in --chains; the supported chain ids are ${supported}`);
    chainIds.add(id);
  }
  return [...chainIds].sort((a, b) => a - b);
}

function splitList(text: string, flag: string, expected: string): string[] {
  const items = text.split(",").map((item) => item.trim());
  if (items.some((item) => item === "")) throw usageError(`${flag} must be ${expected}; got ${JSON.stringify(text)}`);
  return items;
}

// ---------------------------------------------------------------- keys file location

/** The keys file a command works on and what named it. */
export interface KeysFileLocation {
  readonly path: string;
  readonly origin: "--file" | "API_KEYS_FILE" | "bundled sample";
}

/** --file, else API_KEYS_FILE (an empty value counts as unset), else the bundled sample; relative paths against `cwd`. */
export function locateKeysFile(
  fileFlag: string | undefined,
  env: KeysCliIo["env"],
  cwd: string,
  samplePath = SAMPLE_KEYS_FILE,
): KeysFileLocation {
  if (fileFlag !== undefined) {
    if (fileFlag === "") throw usageError("--file needs a path");
    return { path: resolve(cwd, fileFlag), origin: "--file" };
  }
  const fromEnv = env.API_KEYS_FILE;
  if (fromEnv !== undefined && fromEnv !== "") return { path: resolve(cwd, fromEnv), origin: "API_KEYS_FILE" };
  return { path: samplePath, origin: "bundled sample" };
}

/**
 * Refuses (usage error) to change the bundled sample keys file unless --file
 * names it: an operator who has not set API_KEYS_FILE would otherwise issue
 * keys into a file the gateway only uses for local trials.
 */
export function assertMayModify(location: KeysFileLocation, samplePath = SAMPLE_KEYS_FILE): void {
  if (location.origin === "--file" || canonicalPath(location.path) !== canonicalPath(samplePath)) return;
  throw usageError(
    `refusing to change the bundled sample keys file ${samplePath}; set API_KEYS_FILE to your gateway's keys file (or name the sample explicitly with --file)`,
  );
}

function canonicalPath(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return resolve(path);
  }
}

// ---------------------------------------------------------------- listing

/** What `keys list` shows of a key: never its hash. Absent settings are null. */
export interface KeySummary {
  id: string;
  name: string;
  status: "active" | "disabled";
  expiresAt: string | null;
  expired: boolean;
  /** null: the gateway's RATE_LIMIT_DEFAULT. */
  rateLimit: KeyRateLimit | null;
  /** null: every route. */
  routes: AccessGroup[] | null;
  /** null: every chain. */
  chainIds: number[] | null;
}

export function summarizeKey(record: ApiKeyRecord, nowMs: number): KeySummary {
  return {
    id: record.id,
    name: record.name,
    status: record.status,
    expiresAt: record.expiresAt ?? null,
    expired: record.expiresAt !== undefined && parseDateTime(record.expiresAt) <= nowMs,
    rateLimit:
      record.rateLimit === undefined ? null : { requests: record.rateLimit.requests, windowSeconds: record.rateLimit.windowSeconds },
    routes: record.routes === undefined ? null : [...record.routes],
    chainIds: record.chainIds === undefined ? null : [...record.chainIds],
  };
}

/** An aligned text table, one key a line, under a header line. */
export function formatKeyTable(keys: readonly KeySummary[]): string {
  const header = ["ID", "NAME", "STATUS", "EXPIRES", "RATE LIMIT", "ROUTES", "CHAINS"];
  const rows = keys.map((k) => [
    k.id,
    printable(k.name),
    k.status,
    k.expiresAt === null ? "never" : `${k.expiresAt}${k.expired ? " (expired)" : ""}`,
    k.rateLimit === null ? "default" : `${k.rateLimit.requests}/${k.rateLimit.windowSeconds}s`,
    k.routes === null ? "all" : k.routes.join(","),
    k.chainIds === null ? "all" : k.chainIds.join(","),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)].join("\n") + "\n";
}

/** Free-text names may hold control characters (terminal escapes, newlines); a table shows them as "?". */
function printable(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what it replaces
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, "?");
}

// ---------------------------------------------------------------- commands

interface CommandContext {
  readonly line: CommandLine;
  readonly io: KeysCliIo;
}

interface CommandSpec {
  readonly synopsis: string;
  readonly summary: string;
  readonly options: readonly string[];
  /** Flags besides --file and --help. */
  readonly flags: readonly Flag[];
  /** Whether the command takes the key id as its one positional argument. */
  readonly takesId: boolean;
  readonly run: (context: CommandContext) => number;
}

const FILE_OPTION = "--file PATH       the keys file; default $API_KEYS_FILE, else the bundled sample (read-only unless --file names it)";

const COMMANDS = {
  create: {
    synopsis: "create --id ID [--name TEXT] [--rate N/WINDOW] [--expires WHEN] [--routes LIST] [--chains LIST] [--file PATH]",
    summary: "Issues a new key: prints it once on stdout and stores only its SHA-256. Creates the keys file if it is missing.",
    options: [
      "--id ID           unique id: 1-64 of a-z 0-9 . _ -, starting with a letter or digit; the only key identity in logs",
      "--name TEXT       free text for operators (default: the id)",
      "--rate N/WINDOW   the key's quota: 600/60s, 600/60 (seconds), 600/1m, 100/1h, 10000/1d (default: RATE_LIMIT_DEFAULT)",
      "--expires WHEN    2027-01-01 (midnight UTC) or a date-time with a zone, 2027-01-01T12:00:00+02:00 (stored in UTC); default: never",
      `--routes LIST     allow-list of routes, comma-separated: ${ACCESS_GROUPS.join(",")} (default: all)`,
      `--chains LIST     allow-list of chain ids, comma-separated: ${SUPPORTED_CHAIN_IDS_ASCENDING.join(",")} (default: all)`,
    ],
    flags: ["id", "name", "rate", "expires", "routes", "chains"],
    takesId: false,
    run: createKey,
  },
  list: {
    synopsis: "list [--json] [--file PATH]",
    summary: "Shows every key: id, name, status, expiry (and whether it has passed), rate limit, routes, chains. Never a hash or a secret.",
    options: ['--json            one JSON object {"keys": [...]}; absent settings are null (rateLimit null = the gateway default)'],
    flags: ["json"],
    takesId: false,
    run: listKeys,
  },
  disable: {
    synopsis: "disable ID [--file PATH]",
    summary: "Disables a key: requests with it get 403 API_KEY_DISABLED. Nothing is written when it is already disabled.",
    options: [],
    flags: [],
    takesId: true,
    run: (context) => setStatus(context, "disabled"),
  },
  enable: {
    synopsis: "enable ID [--file PATH]",
    summary: "Re-enables a disabled key. Nothing is written when it is already active.",
    options: [],
    flags: [],
    takesId: true,
    run: (context) => setStatus(context, "active"),
  },
  delete: {
    synopsis: "delete ID [--file PATH]",
    summary: "Removes a key from the file: requests with it get 401 API_KEY_NOT_FOUND.",
    options: [],
    flags: [],
    takesId: true,
    run: deleteKey,
  },
  rotate: {
    synopsis: "rotate ID [--file PATH]",
    summary: "Replaces a key's secret, keeping its id and every setting: prints the new key once on stdout; the old one stops working.",
    options: [],
    flags: [],
    takesId: true,
    run: rotateKey,
  },
} as const satisfies Record<string, CommandSpec>;

type CommandName = keyof typeof COMMANDS;

function isCommand(name: string): name is CommandName {
  return Object.hasOwn(COMMANDS, name);
}

/** The help of `keys` as a whole. */
export function keysHelp(): string {
  const commands = Object.entries(COMMANDS).map(([name, spec]) => `  ${name.padEnd(9)} ${spec.summary}`);
  return [
    `Usage: ${PROGRAM} <command> [options]`,
    "",
    "Manages the API keys file (only SHA-256 hashes of keys are stored). A running gateway applies each change within about a second.",
    "",
    "Commands:",
    ...commands,
    "",
    "Options of every command:",
    `  ${FILE_OPTION}`,
    "  --help, -h        this help, or a command's help",
    "",
    `Run "${PROGRAM} <command> --help" for a command's options. Exit codes: 0 done, 1 failed, 2 usage error.`,
    "",
  ].join("\n");
}

/** The help of one command. */
export function commandHelp(name: CommandName): string {
  const spec: CommandSpec = COMMANDS[name];
  return [
    `Usage: ${PROGRAM} ${spec.synopsis}`,
    "",
    spec.summary,
    "",
    ...[...spec.options, FILE_OPTION].map((option) => `  ${option}`),
    "",
  ].join("\n");
}

function createKey({ line, io }: CommandContext): number {
  const id = parseKeyId(requiredValue(line, "id"), "--id");
  const key = generateApiKey();
  const record = buildRecord(line, id, KeyStore.hashKey(key));
  const location = writableLocation(line, io);
  applyChange(
    location,
    (file) => {
      if (file.keys.some((existing) => existing.id === id)) {
        throw failure(
          `a key with id "${id}" already exists in ${location.path}; choose another id, or use "${PROGRAM} rotate ${id}" to replace its secret`,
        );
      }
      return { keys: [...file.keys, record] };
    },
    true,
  );
  io.stdout(`${key}\n`);
  io.stderr(
    `Created key "${id}" in ${location.path}. Store the key printed above now: it cannot be shown again (only its SHA-256 is kept).\n`,
  );
  return 0;
}

/** The new record from create's flags, in the field order of keys-file.md. */
function buildRecord(line: CommandLine, id: string, sha256: string): ApiKeyRecord {
  const record: ApiKeyRecord = { id, name: line.values.get("name") ?? id, sha256, status: "active" };
  const expires = line.values.get("expires");
  const rate = line.values.get("rate");
  const routes = line.values.get("routes");
  const chains = line.values.get("chains");
  if (expires !== undefined) record.expiresAt = parseExpiry(expires, Date.now());
  if (rate !== undefined) record.rateLimit = parseRateLimit(rate);
  if (routes !== undefined) record.routes = parseRoutes(routes);
  if (chains !== undefined) record.chainIds = parseChainIds(chains);
  return record;
}

function listKeys({ line, io }: CommandContext): number {
  const location = locate(line, io);
  let file: KeysFile;
  try {
    file = loadKeysFile(location.path, location.maxBytes);
  } catch (error) {
    if (error instanceof KeysFileError) throw failure(error.message);
    throw error;
  }
  if (location.origin === "bundled sample")
    io.stderr(`Listing the bundled sample keys file ${location.path} (API_KEYS_FILE is not set).\n`);
  const now = Date.now();
  const keys = file.keys.map((record) => summarizeKey(record, now));
  if (line.switches.has("json")) io.stdout(`${JSON.stringify({ keys }, null, 2)}\n`);
  else io.stdout(keys.length === 0 ? `No keys in ${location.path}.\n` : formatKeyTable(keys));
  return 0;
}

function setStatus({ line, io }: CommandContext, status: ApiKeyRecord["status"]): number {
  const id = parseKeyId(line.positionals[0]!);
  const location = writableLocation(line, io);
  const result = applyChange(location, (file) => {
    const index = indexOfKey(file, id, location.path);
    if (file.keys[index]!.status === status) return null;
    file.keys[index] = { ...file.keys[index]!, status };
    return file;
  });
  const state = status === "active" ? "enabled" : "disabled";
  io.stdout(
    result.written ? `Key "${id}" ${state} in ${location.path}.\n` : `Key "${id}" is already ${state}; ${location.path} is unchanged.\n`,
  );
  const expiresAt = result.file.keys.find((record) => record.id === id)?.expiresAt;
  if (status === "active" && expiresAt !== undefined && parseDateTime(expiresAt) <= Date.now()) {
    io.stderr(`Note: key "${id}" expired at ${expiresAt}, so the gateway still refuses it (API_KEY_EXPIRED).\n`);
  }
  return 0;
}

function deleteKey({ line, io }: CommandContext): number {
  const id = parseKeyId(line.positionals[0]!);
  const location = writableLocation(line, io);
  applyChange(location, (file) => {
    const index = indexOfKey(file, id, location.path);
    return { keys: file.keys.filter((_, i) => i !== index) };
  });
  io.stdout(`Key "${id}" deleted from ${location.path}.\n`);
  return 0;
}

function rotateKey({ line, io }: CommandContext): number {
  const id = parseKeyId(line.positionals[0]!);
  const location = writableLocation(line, io);
  const key = generateApiKey();
  const result = applyChange(location, (file) => {
    const index = indexOfKey(file, id, location.path);
    file.keys[index] = { ...file.keys[index]!, sha256: KeyStore.hashKey(key) };
    return file;
  });
  io.stdout(`${key}\n`);
  io.stderr(
    `Rotated key "${id}" in ${location.path}: the previous key stops working. Store the key printed above now: it cannot be shown again.\n`,
  );
  if (result.file.keys.find((record) => record.id === id)?.status === "disabled")
    io.stderr(`Note: key "${id}" is disabled; "${PROGRAM} enable ${id}" re-enables it.\n`);
  return 0;
}

// ---------------------------------------------------------------- helpers of the commands

function requiredValue(line: CommandLine, flag: ValueFlag): string {
  const value = line.values.get(flag);
  if (value === undefined) throw usageError(`--${flag} is required`);
  return value;
}

/** Where the keys file is, and the most bytes it may have (KEYS_FILE_MAX_MB, as for the gateway). */
type CliLocation = KeysFileLocation & { readonly maxBytes: number };

function locate(line: CommandLine, io: KeysCliIo): CliLocation {
  return { ...locateKeysFile(line.values.get("file"), io.env, io.cwd), maxBytes: keysFileMaxBytes(io.env) };
}

/** KEYS_FILE_MAX_MB of the environment (the gateway's setting, read as the gateway reads it), else the default limit. */
function keysFileMaxBytes(env: KeysCliIo["env"]): number {
  try {
    return readFromEnvironment(SETTINGS.keysFileMaxBytes, env);
  } catch (error) {
    if (error instanceof ConfigError) throw usageError(error.message.replace(/\.$/, ""));
    throw error;
  }
}

function writableLocation(line: CommandLine, io: KeysCliIo): CliLocation {
  const location = locate(line, io);
  assertMayModify(location);
  return location;
}

function indexOfKey(file: KeysFile, id: string, path: string): number {
  const index = file.keys.findIndex((record) => record.id === id);
  if (index === -1) throw failure(`there is no key with id "${id}" in ${path}; "${PROGRAM} list" shows the ids`);
  return index;
}

/**
 * Applies `change` through updateKeysFile; returns the file now on disk and
 * whether it was written. The file's own problems and I/O failures become operational
 * failures that say nothing was written; the change's own errors pass through.
 */
function applyChange(location: CliLocation, change: KeysFileChange, createIfMissing = false): UpdateKeysFileResult {
  try {
    return updateKeysFile(location.path, change, { createIfMissing, maxBytes: location.maxBytes });
  } catch (error) {
    if (error instanceof KeysCliError) throw error;
    if (error instanceof KeysFileError || error instanceof KeysFileChangedError) throw failure(`${error.message}; nothing was written`);
    if (isErrnoException(error)) throw failure(`cannot write ${location.path}: ${error.message}; nothing was written`);
    throw error;
  }
}

function isErrnoException(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === "string";
}

// ---------------------------------------------------------------- entry

/** Checks the flags and positionals of a command line against its command. */
function checkArguments(name: CommandName, line: CommandLine): void {
  const spec: CommandSpec = COMMANDS[name];
  const allowed = new Set<Flag>([...spec.flags, "file", "help"]);
  for (const flag of [...line.values.keys(), ...line.switches]) {
    if (!allowed.has(flag)) throw usageError(`"${name}" does not take --${flag}; run "${PROGRAM} ${name} --help" for its options`);
  }
  const expected = spec.takesId ? 1 : 0;
  if (line.positionals.length < expected) throw usageError(`"${name}" needs the id of the key, as in "${PROGRAM} ${spec.synopsis}"`);
  if (line.positionals.length > expected)
    throw usageError(`unexpected argument ${JSON.stringify(line.positionals[expected])}; usage: ${PROGRAM} ${spec.synopsis}`);
}

function withDefaults(io: Partial<KeysCliIo>): KeysCliIo {
  return {
    stdout: io.stdout ?? ((text) => void process.stdout.write(text)),
    stderr: io.stderr ?? ((text) => void process.stderr.write(text)),
    env: io.env ?? process.env,
    cwd: io.cwd ?? process.cwd(),
  };
}

/**
 * Runs `liquidity-gateway keys ...`; `argv` is what follows `keys`. Returns the
 * exit code (0 done, 1 operation failed, 2 usage error); never throws and
 * never exits the process itself. Output goes to `io` (default: the process's streams,
 * environment and working directory).
 */
export async function runKeysCli(argv: readonly string[], io: Partial<KeysCliIo> = {}): Promise<number> {
  const resolved = withDefaults(io);
  let where = PROGRAM;
  try {
    const line = parseCommandLine(argv);
    if (line.command === undefined || line.command === "help") {
      const topic = line.command === "help" ? line.positionals[0] : undefined;
      if (topic !== undefined && isCommand(topic)) resolved.stdout(commandHelp(topic));
      else if (line.command === undefined && !line.switches.has("help")) {
        resolved.stderr(keysHelp());
        return 2;
      } else resolved.stdout(keysHelp());
      return 0;
    }
    if (!isCommand(line.command)) {
      throw usageError(
        `unknown command ${JSON.stringify(line.command)}; the commands are ${Object.keys(COMMANDS).join(", ")} (see "${PROGRAM} --help")`,
      );
    }
    const name = line.command;
    where = `${PROGRAM} ${name}`;
    if (line.switches.has("help")) {
      resolved.stdout(commandHelp(name));
      return 0;
    }
    checkArguments(name, line);
    return COMMANDS[name].run({ line, io: resolved });
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, " ");
    resolved.stderr(`${where}: ${message}.\n`);
    return error instanceof KeysCliError ? error.exitCode : 1;
  }
}
