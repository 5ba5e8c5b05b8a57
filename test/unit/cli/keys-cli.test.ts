/**
 * `liquidity-gateway keys` (key management CLI): argument parsing, every
 * command on a temp keys file, the safety rules of writes (a malformed file is
 * never overwritten, the bundled sample is refused, modes are kept, another
 * writer's change is not lost) and atomicity against a concurrent reader.
 */
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { afterAll, describe, expect, it } from "vitest";
import { API_KEY_PREFIX, generateApiKey } from "../../../src/access/key-generator.js";
import { KeyStore } from "../../../src/access/key-store.js";
import { loadKeysFile, type ApiKeyRecord, type KeysFile } from "../../../src/access/keys-file.js";
import { KeysFileChangedError, readKeysFileState, updateKeysFile, writeKeysFileAtomically } from "../../../src/access/keys-file-writer.js";
import { SAMPLE_KEYS_FILE } from "../../../src/config/config.js";
import {
  assertMayModify,
  KeysCliError,
  locateKeysFile,
  parseChainIds,
  parseCommandLine,
  parseExpiry,
  parseRateLimit,
  parseRoutes,
  runKeysCli,
  type KeysCliIo,
} from "../../../src/cli/keys-cli.js";

const REPO_SAMPLE = fileURLToPath(new URL("../../../config/keys.sample.json", import.meta.url));
const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);

const tempDirs: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "lgw-keys-cli-"));
  tempDirs.push(dir);
  return dir;
}

afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

async function cli(argv: string[], io: Partial<Pick<KeysCliIo, "env" | "cwd">> = {}): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const code = await runKeysCli(argv, {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    env: io.env ?? {},
    cwd: io.cwd ?? tmpdir(),
  });
  return { code, stdout, stderr };
}

function record(id: string, extra: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return { id, name: `Key ${id}`, sha256: KeyStore.hashKey(`secret-of-${id}`), status: "active", ...extra };
}

/** A keys file with these records in a fresh directory. */
function keysFileWith(records: ApiKeyRecord[], name = "keys.json"): string {
  const path = join(tempDir(), name);
  writeFileSync(path, JSON.stringify({ keys: records }, null, 2));
  return path;
}

function usageErrorOf(action: () => unknown): KeysCliError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(KeysCliError);
    expect((error as KeysCliError).exitCode).toBe(2);
    return error as KeysCliError;
  }
  throw new Error("expected a usage error");
}

/** Names in the file's directory other than the file itself (temp files would show here). */
function strayFiles(path: string): string[] {
  const dir = join(path, "..");
  return readdirSync(dir).filter((name) => join(dir, name) !== path);
}

const KEY_SHAPE = /^lgw_[A-Za-z0-9_-]{43}$/;

// ---------------------------------------------------------------- parsing

describe("parseCommandLine", () => {
  it("takes flags anywhere, as --flag value or --flag=value, and -h as --help", () => {
    const line = parseCommandLine(["--file", "k.json", "create", "--id=acme", "--name", "Acme Corp", "-h", "--json"]);
    expect(line.command).toBe("create");
    expect(line.positionals).toEqual([]);
    expect(Object.fromEntries(line.values)).toEqual({ file: "k.json", id: "acme", name: "Acme Corp" });
    expect([...line.switches].sort()).toEqual(["help", "json"]);
  });

  it("keeps positionals after the command and values that start with one dash", () => {
    const line = parseCommandLine(["disable", "acme", "--name", "-odd-"]);
    expect(line.positionals).toEqual(["acme"]);
    expect(line.values.get("name")).toBe("-odd-");
    expect(parseCommandLine(["create", "--name=--dashes"]).values.get("name")).toBe("--dashes");
  });

  it("rejects unknown options, missing values, values on switches and repeated flags", () => {
    expect(usageErrorOf(() => parseCommandLine(["list", "--verbose"])).message).toContain('unknown option "--verbose"');
    expect(usageErrorOf(() => parseCommandLine(["list", "-x"])).message).toContain('unknown option "-x"');
    expect(usageErrorOf(() => parseCommandLine(["create", "--id"])).message).toContain("--id needs a value");
    expect(usageErrorOf(() => parseCommandLine(["create", "--id", "--name", "x"])).message).toContain("--id needs a value");
    expect(usageErrorOf(() => parseCommandLine(["list", "--json=yes"])).message).toContain("--json takes no value");
    expect(usageErrorOf(() => parseCommandLine(["create", "--id", "a", "--id=b"])).message).toContain("--id is given more than once");
  });
});

describe("parseRateLimit", () => {
  it.each([
    ["600/60s", 600, 60],
    ["600/60", 600, 60],
    ["600/1m", 600, 60],
    ["100/1h", 100, 3600],
    ["10000/1d", 10000, 86_400],
    ["1/1", 1, 1],
    ["4294967295/4294967295", 4_294_967_295, 4_294_967_295],
  ])("%s → %i requests per %i s", (text, requests, windowSeconds) => {
    expect(parseRateLimit(text)).toEqual({ requests, windowSeconds });
  });

  it.each([
    "600",
    "0/60",
    "600/0",
    "600/0m",
    "600/60x",
    "600/m",
    "a/b",
    "600/-1",
    "-1/60",
    "4294967296/60",
    "1/4294967296",
    "1/49711d",
    " 600/60",
    "",
  ])("rejects %j", (text) => {
    expect(usageErrorOf(() => parseRateLimit(text)).message).toContain("--rate must be REQUESTS/WINDOW");
  });
});

describe("parseExpiry", () => {
  it.each([
    ["2027-01-01", "2027-01-01T00:00:00Z"],
    ["2027-01-01T12:30:00Z", "2027-01-01T12:30:00Z"],
    ["2027-01-01T12:30Z", "2027-01-01T12:30:00Z"],
    ["2027-01-01T12:30:00+02:00", "2027-01-01T10:30:00Z"],
    ["2027-01-01t01:00:00-05:30", "2027-01-01T06:30:00Z"],
    ["2027-01-01T12:30:00.250Z", "2027-01-01T12:30:00.250Z"],
    ["2028-02-29", "2028-02-29T00:00:00Z"],
  ])("%s → %s", (text, iso) => {
    expect(parseExpiry(text, NOW)).toBe(iso);
  });

  it("wants a time zone on a date-time, a real date, and a moment after now", () => {
    expect(usageErrorOf(() => parseExpiry("2027-01-01T12:00:00", NOW)).message).toContain("has no time zone");
    expect(usageErrorOf(() => parseExpiry("2027-02-29", NOW)).message).toContain("not a real calendar date-time");
    expect(usageErrorOf(() => parseExpiry("2027-01-01T24:00:00Z", NOW)).message).toContain("not a real calendar date-time");
    expect(usageErrorOf(() => parseExpiry("2026-01-15T12:00:00Z", NOW)).message).toContain("not in the future");
    expect(usageErrorOf(() => parseExpiry("2020-01-01", NOW)).message).toContain("not in the future");
    for (const text of ["01/01/2027", "2027-1-1", "tomorrow", "2027-01-01T12Z", ""]) {
      expect(usageErrorOf(() => parseExpiry(text, NOW)).message).toContain("--expires must be a date");
    }
  });
});

describe("parseRoutes and parseChainIds", () => {
  it("give each route once, in the order tokens, pools, protocols", () => {
    expect(parseRoutes("pools,tokens")).toEqual(["tokens", "pools"]);
    expect(parseRoutes(" protocols , pools,protocols")).toEqual(["pools", "protocols"]);
  });

  it("reject an unknown route or an empty item", () => {
    expect(usageErrorOf(() => parseRoutes("tokens,swaps")).message).toBe(
      'unknown route "swaps" in --routes; the routes are tokens, pools, protocols, stream, history, fleet',
    );
    expect(usageErrorOf(() => parseRoutes("tokens,,pools")).message).toContain("--routes must be a comma-separated list");
    expect(usageErrorOf(() => parseRoutes("")).message).toContain("--routes must be a comma-separated list");
  });

  it("give each supported chain once, ascending", () => {
    expect(parseChainIds("8453,1,8453")).toEqual([1, 8453]);
    expect(parseChainIds("534352")).toEqual([534352]);
  });

  it("reject unsupported or malformed chain ids", () => {
    for (const text of ["1,5", "1,abc", "1.0", "0x1", "-1", "01"]) {
      expect(usageErrorOf(() => parseChainIds(text)).message).toMatch(
        /^unsupported chain id ".*" in --chains; the supported chain ids are 1, 130, 143, 999, 8453, 9745, 534352$/,
      );
    }
    expect(usageErrorOf(() => parseChainIds("1,")).message).toContain("--chains must be a comma-separated list");
  });
});

describe("locating the keys file", () => {
  it("--file wins over API_KEYS_FILE, which wins over the bundled sample; relative paths against cwd", () => {
    expect(locateKeysFile("k.json", { API_KEYS_FILE: "/etc/env.json" }, "/srv")).toEqual({ path: "/srv/k.json", origin: "--file" });
    expect(locateKeysFile(undefined, { API_KEYS_FILE: "env.json" }, "/srv")).toEqual({ path: "/srv/env.json", origin: "API_KEYS_FILE" });
    expect(locateKeysFile(undefined, { API_KEYS_FILE: "" }, "/srv", "/opt/sample.json")).toEqual({
      path: "/opt/sample.json",
      origin: "bundled sample",
    });
    expect(locateKeysFile(undefined, {}, "/srv")).toEqual({ path: SAMPLE_KEYS_FILE, origin: "bundled sample" });
    expect(usageErrorOf(() => locateKeysFile("", {}, "/srv")).message).toBe("--file needs a path");
  });

  it("refuses to change the sample unless --file names it, also through API_KEYS_FILE or a link", () => {
    const sample = keysFileWith([record("sandbox")], "keys.sample.json");
    const link = join(tempDir(), "link.json");
    symlinkSync(sample, link);
    expect(usageErrorOf(() => assertMayModify({ path: sample, origin: "bundled sample" }, sample)).message).toContain("set API_KEYS_FILE");
    expect(() => assertMayModify({ path: sample, origin: "API_KEYS_FILE" }, sample)).toThrow(KeysCliError);
    expect(() => assertMayModify({ path: link, origin: "API_KEYS_FILE" }, sample)).toThrow(KeysCliError);
    expect(() => assertMayModify({ path: sample, origin: "--file" }, sample)).not.toThrow();
    expect(() => assertMayModify({ path: join(tempDir(), "other.json"), origin: "API_KEYS_FILE" }, sample)).not.toThrow();
  });
});

describe("generateApiKey", () => {
  it("is lgw_ + 32 random bytes in base64url, different every time", () => {
    const keys = new Set(Array.from({ length: 50 }, generateApiKey));
    expect(keys.size).toBe(50);
    for (const key of keys) {
      expect(key).toMatch(KEY_SHAPE);
      expect(key.startsWith(API_KEY_PREFIX)).toBe(true);
      expect(Buffer.from(key.slice(API_KEY_PREFIX.length), "base64url")).toHaveLength(32);
    }
  });
});

// ---------------------------------------------------------------- commands

describe("keys --help and usage errors", () => {
  it("prints the overview on --help, `help` and -h (exit 0); no command is a usage error (exit 2)", async () => {
    for (const argv of [["--help"], ["help"], ["-h"]]) {
      const run = await cli(argv);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain("Usage: liquidity-gateway keys <command> [options]");
      for (const command of ["create", "list", "disable", "enable", "delete", "rotate"]) expect(run.stdout).toContain(`  ${command} `);
    }
    const bare = await cli([]);
    expect(bare.code).toBe(2);
    expect(bare.stdout).toBe("");
    expect(bare.stderr).toContain("Usage: liquidity-gateway keys <command>");
  });

  it("prints a command's help with its options", async () => {
    for (const argv of [
      ["create", "--help"],
      ["help", "create"],
    ]) {
      const run = await cli(argv);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain("Usage: liquidity-gateway keys create --id ID");
      for (const flag of ["--id", "--name", "--rate", "--expires", "--routes", "--chains", "--file"])
        expect(run.stdout).toContain(`  ${flag} `);
    }
    expect((await cli(["rotate", "-h"])).stdout).toContain("Usage: liquidity-gateway keys rotate ID [--file PATH]");
  });

  it("answers wrong command lines with one line on stderr and exit 2", async () => {
    const file = keysFileWith([record("acme")]);
    const cases: [string[], string][] = [
      [["frobnicate"], 'unknown command "frobnicate"'],
      [["list", "--id", "x", "--file", file], '"list" does not take --id'],
      [["disable", "--file", file], '"disable" needs the id of the key'],
      [["disable", "acme", "other", "--file", file], 'unexpected argument "other"'],
      [["disable", "Acme", "--file", file], "the key id must be 1 to 64 lowercase letters"],
      [["create", "--file", file], "--id is required"],
      [["create", "--id", "new", "--chains", "1,10", "--file", file], 'unsupported chain id "10"'],
      [["create", "--id", "new", "--routes", "tokens,swaps", "--file", file], 'unknown route "swaps"'],
    ];
    const before = readFileSync(file);
    for (const [argv, message] of cases) {
      const run = await cli(argv);
      expect(run.code, argv.join(" ")).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr).toContain(message);
      expect(run.stderr.trimEnd().split("\n")).toHaveLength(1);
    }
    expect(readFileSync(file).equals(before)).toBe(true);
  });
});

describe("keys create", () => {
  it("creates a missing file (mode 0600) with the key's SHA-256 and prints the key once, alone on stdout", async () => {
    const file = join(tempDir(), "keys.json");
    const run = await cli([
      "create",
      "--id",
      "acme",
      "--name",
      "Acme production",
      "--rate",
      "600/1m",
      "--expires",
      "2099-01-01",
      "--routes",
      "tokens,pools",
      "--chains",
      "8453,1",
      "--file",
      file,
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^lgw_[A-Za-z0-9_-]{43}\n$/);
    const key = run.stdout.trim();
    expect(run.stderr).toContain("it cannot be shown again");
    expect(run.stderr).not.toContain(key);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, "utf8")).not.toContain(key);
    expect(loadKeysFile(file)).toEqual({
      keys: [
        {
          id: "acme",
          name: "Acme production",
          sha256: KeyStore.hashKey(key),
          status: "active",
          expiresAt: "2099-01-01T00:00:00Z",
          rateLimit: { requests: 600, windowSeconds: 60 },
          routes: ["tokens", "pools"],
          chainIds: [1, 8453],
        },
      ],
    });
    expect(new KeyStore(loadKeysFile(file)).find(key)?.id).toBe("acme");
    expect(strayFiles(file)).toEqual([]);
  });

  it("appends to an existing file, keeps the other records and the file's mode; the name defaults to the id", async () => {
    const file = keysFileWith([record("first", { expiresAt: "2030-01-01T00:00:00+02:00" })]);
    chmodSync(file, 0o640);
    const run = await cli(["create", "--id", "second"], { env: { API_KEYS_FILE: file } });
    expect(run.code).toBe(0);
    const keys = loadKeysFile(file).keys;
    expect(keys[0]).toEqual(record("first", { expiresAt: "2030-01-01T00:00:00+02:00" }));
    expect(keys[1]).toEqual({ id: "second", name: "second", sha256: KeyStore.hashKey(run.stdout.trim()), status: "active" });
    expect(statSync(file).mode & 0o777).toBe(0o640);
  });

  it("refuses a duplicate id (exit 1) and leaves the file as it was", async () => {
    const file = keysFileWith([record("acme")]);
    const before = readFileSync(file);
    const run = await cli(["create", "--id", "acme", "--file", file]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain('a key with id "acme" already exists');
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it("gives every key its own secret", async () => {
    const file = join(tempDir(), "keys.json");
    const a = await cli(["create", "--id", "a", "--file", file]);
    const b = await cli(["create", "--id", "b", "--file", file]);
    expect(a.stdout).not.toBe(b.stdout);
    const store = new KeyStore(loadKeysFile(file));
    expect(store.find(a.stdout.trim())?.id).toBe("a");
    expect(store.find(b.stdout.trim())?.id).toBe("b");
  });
});

describe("keys list", () => {
  const records = [
    record("acme", {
      name: "Acme\u001b[31m red\nline",
      expiresAt: "2099-01-01T00:00:00Z",
      rateLimit: { requests: 600, windowSeconds: 60 },
      routes: ["pools"],
      chainIds: [1, 8453],
    }),
    record("old", { status: "disabled", expiresAt: "2020-01-01T00:00:00Z" }),
  ];

  it("shows a table of every key without hashes or control characters", async () => {
    const file = keysFileWith(records);
    const run = await cli(["list", "--file", file]);
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]!.split(/\s{2,}/)).toEqual(["ID", "NAME", "STATUS", "EXPIRES", "RATE LIMIT", "ROUTES", "CHAINS"]);
    expect(lines[1]!.split(/\s{2,}/)).toEqual([
      "acme",
      "Acme?[31m red?line",
      "active",
      "2099-01-01T00:00:00Z",
      "600/60s",
      "pools",
      "1,8453",
    ]);
    expect(lines[2]!.split(/\s{2,}/)).toEqual(["old", "Key old", "disabled", "2020-01-01T00:00:00Z (expired)", "default", "all", "all"]);
    for (const r of records) expect(run.stdout).not.toContain(r.sha256);
  });

  it("--json gives every field but the hash; absent settings are null", async () => {
    const file = keysFileWith(records);
    const run = await cli(["list", "--json", "--file", file]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      keys: [
        {
          id: "acme",
          name: records[0]!.name,
          status: "active",
          expiresAt: "2099-01-01T00:00:00Z",
          expired: false,
          rateLimit: { requests: 600, windowSeconds: 60 },
          routes: ["pools"],
          chainIds: [1, 8453],
        },
        {
          id: "old",
          name: "Key old",
          status: "disabled",
          expiresAt: "2020-01-01T00:00:00Z",
          expired: true,
          rateLimit: null,
          routes: null,
          chainIds: null,
        },
      ],
    });
    expect(run.stdout).not.toMatch(/[0-9a-f]{64}/);
  });

  it("says so when the file has no keys; a missing or malformed file is an error (exit 1)", async () => {
    const empty = keysFileWith([]);
    expect((await cli(["list", "--file", empty])).stdout).toBe(`No keys in ${empty}.\n`);
    expect((await cli(["list", "--json", "--file", empty])).stdout).toBe('{\n  "keys": []\n}\n');
    const missing = await cli(["list", "--file", join(tempDir(), "none.json")]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("no such file");
    const bad = join(tempDir(), "bad.json");
    writeFileSync(bad, '{"keys": [{"id": "x"}]}');
    const malformed = await cli(["list", "--file", bad]);
    expect(malformed.code).toBe(1);
    expect(malformed.stderr).toContain(`${bad}: keys[0]`);
  });
});

describe("keys disable / enable", () => {
  it("flips the status of one key and nothing else", async () => {
    const file = keysFileWith([record("a"), record("b", { expiresAt: "2099-01-01T00:00:00Z", routes: ["tokens"] })]);
    const disabled = await cli(["disable", "b", "--file", file]);
    expect(disabled.code).toBe(0);
    expect(disabled.stdout).toBe(`Key "b" disabled in ${file}.\n`);
    expect(loadKeysFile(file).keys).toEqual([
      record("a"),
      record("b", { status: "disabled", expiresAt: "2099-01-01T00:00:00Z", routes: ["tokens"] }),
    ]);
    expect((await cli(["enable", "b", "--file", file])).code).toBe(0);
    expect(loadKeysFile(file).keys).toEqual([record("a"), record("b", { expiresAt: "2099-01-01T00:00:00Z", routes: ["tokens"] })]);
  });

  it("does not rewrite the file when the key already has that status", async () => {
    const file = keysFileWith([record("a")]);
    const inode = statSync(file).ino;
    const run = await cli(["enable", "a", "--file", file]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("already enabled");
    expect(statSync(file).ino).toBe(inode);
    expect((await cli(["disable", "a", "--file", file])).code).toBe(0);
    expect(statSync(file).ino).not.toBe(inode);
  });

  it("notes that an enabled key that has expired is still refused", async () => {
    const file = keysFileWith([record("old", { status: "disabled", expiresAt: "2020-01-01T00:00:00Z" })]);
    const run = await cli(["enable", "old", "--file", file]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("API_KEY_EXPIRED");
  });

  it("an unknown id is an error (exit 1)", async () => {
    const file = keysFileWith([record("a")]);
    const run = await cli(["disable", "nope", "--file", file]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('there is no key with id "nope"');
  });
});

describe("keys delete", () => {
  it("removes exactly that record", async () => {
    const file = keysFileWith([record("a"), record("b"), record("c")]);
    const run = await cli(["delete", "b", "--file", file]);
    expect(run.code).toBe(0);
    expect(loadKeysFile(file).keys).toEqual([record("a"), record("c")]);
    expect((await cli(["delete", "b", "--file", file])).code).toBe(1);
  });
});

describe("keys rotate", () => {
  it("replaces the hash with a new secret's, keeps id, settings and position, prints the new key once", async () => {
    const settings = {
      expiresAt: "2099-06-01T00:00:00Z",
      rateLimit: { requests: 5, windowSeconds: 1 },
      routes: ["protocols" as const],
      chainIds: [999 as const],
    };
    const file = keysFileWith([record("a", settings), record("b")]);
    const run = await cli(["rotate", "a", "--file", file]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^lgw_[A-Za-z0-9_-]{43}\n$/);
    const key = run.stdout.trim();
    expect(run.stderr).toContain("it cannot be shown again");
    const keys = loadKeysFile(file).keys;
    expect(keys).toEqual([{ ...record("a", settings), sha256: KeyStore.hashKey(key) }, record("b")]);
    const store = new KeyStore(loadKeysFile(file));
    expect(store.find("secret-of-a")).toBeUndefined();
    expect(store.find(key)?.id).toBe("a");
  });

  it("an unknown id is an error (exit 1) and prints no key", async () => {
    const file = keysFileWith([record("a")]);
    const run = await cli(["rotate", "zz", "--file", file]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
  });
});

// ---------------------------------------------------------------- write safety

describe("a keys file that fails validation is reported, never overwritten", () => {
  const malformed: [string, string][] = [
    ["invalid JSON", '{"keys": [ {"id": "a",'],
    ["a bad record", JSON.stringify({ keys: [{ ...record("a"), status: "paused" }] })],
    ["an unknown field", JSON.stringify({ keys: [{ ...record("a"), expires: "2027-01-01T00:00:00Z" }] })],
    ["duplicate ids", JSON.stringify({ keys: [record("a"), { ...record("b"), id: "a" }] })],
  ];
  for (const [label, text] of malformed) {
    it(label, async () => {
      const file = join(tempDir(), "keys.json");
      writeFileSync(file, text);
      for (const argv of [
        ["create", "--id", "new"],
        ["disable", "a"],
        ["enable", "a"],
        ["delete", "a"],
        ["rotate", "a"],
      ]) {
        const run = await cli([...argv, "--file", file]);
        expect(run.code, argv.join(" ")).toBe(1);
        expect(run.stdout).toBe("");
        expect(run.stderr).toContain(file);
        expect(run.stderr).toContain("nothing was written");
        expect(run.stderr.trimEnd().split("\n")).toHaveLength(1);
      }
      expect(readFileSync(file, "utf8")).toBe(text);
      expect(strayFiles(file)).toEqual([]);
    });
  }

  it("a symbolic link is refused rather than replaced by a copy", async () => {
    const target = keysFileWith([record("a")]);
    const link = join(tempDir(), "keys.json");
    symlinkSync(target, link);
    const run = await cli(["disable", "a", "--file", link]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("symbolic link");
    expect(loadKeysFile(target).keys[0]!.status).toBe("active");
  });

  it("an invalid result is never written", () => {
    const file = keysFileWith([record("a")]);
    const before = readFileSync(file);
    expect(() => updateKeysFile(file, (current) => ({ keys: [...current.keys, { ...record("b"), sha256: record("a").sha256 }] }))).toThrow(
      /refusing to write an invalid keys file: duplicate sha256/,
    );
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(strayFiles(file)).toEqual([]);
  });
});

describe("the bundled sample keys file", () => {
  it("is not changed when neither --file nor API_KEYS_FILE names a file (exit 2)", async () => {
    const before = readFileSync(REPO_SAMPLE);
    for (const argv of [
      ["create", "--id", "x"],
      ["disable", "sandbox"],
      ["rotate", "sandbox"],
      ["delete", "sandbox"],
    ]) {
      const run = await cli(argv, { env: {} });
      expect(run.code, argv.join(" ")).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr).toContain("refusing to change the bundled sample keys file");
      expect(run.stderr).toContain("set API_KEYS_FILE");
    }
    expect(readFileSync(REPO_SAMPLE).equals(before)).toBe(true);
    expect(existsSync(SAMPLE_KEYS_FILE) ? readFileSync(SAMPLE_KEYS_FILE).equals(before) : true).toBe(true);
  });
});

describe("concurrent writers", () => {
  it("a replacement whose starting point changed on disk is abandoned", () => {
    const file = keysFileWith([record("a")]);
    const stale = readKeysFileState(file, false);
    writeFileSync(file, JSON.stringify({ keys: [record("a"), record("b")] }));
    const current = readFileSync(file);
    expect(() => writeKeysFileAtomically(file, { keys: [] }, stale)).toThrow(KeysFileChangedError);
    expect(readFileSync(file).equals(current)).toBe(true);
    expect(strayFiles(file)).toEqual([]);
  });

  it("updateKeysFile re-applies a change on top of another writer's, so neither is lost", () => {
    const file = keysFileWith([record("a")]);
    let calls = 0;
    const result = updateKeysFile(file, (current) => {
      calls++;
      if (calls === 1) writeFileSync(file, JSON.stringify({ keys: [...current.keys, record("other")] })); // another writer, meanwhile
      return { keys: [...current.keys, record("mine")] };
    });
    expect(calls).toBe(2);
    expect(result.written).toBe(true);
    expect(loadKeysFile(file).keys.map((k) => k.id)).toEqual(["a", "other", "mine"]);
  });
});

describe("atomic replacement", () => {
  /** Reads and parses the file in a loop on another thread until told to stop; flags which versions it saw. */
  const READER = `
    const { parentPort, workerData } = require("node:worker_threads");
    const { readFileSync } = require("node:fs");
    const flags = new Int32Array(workerData.flags); // [stop, sawSmall, sawLarge, reads]
    const problems = [];
    let failures = 0;
    while (Atomics.load(flags, 0) === 0) {
      try {
        const count = JSON.parse(readFileSync(workerData.path, "utf8")).keys.length;
        if (count === workerData.small) Atomics.store(flags, 1, 1);
        else if (count === workerData.large) Atomics.store(flags, 2, 1);
        else throw new Error("unexpected key count " + count);
      } catch (error) {
        failures++;
        if (problems.length < 3) problems.push(String(error.message).slice(0, 120));
      }
      Atomics.add(flags, 3, 1);
    }
    parentPort.postMessage({ failures, problems });
  `;

  it("a reader parsing the file over and over never sees a partial file", async () => {
    const small: KeysFile = { keys: [record("only")] };
    const large: KeysFile = {
      keys: Array.from({ length: 300 }, (_, i) => record(`key-${i}`, { name: `A longer name for key number ${i}`, chainIds: [1, 8453] })),
    };
    const file = keysFileWith(small.keys);
    const flags = new Int32Array(new SharedArrayBuffer(16));
    const reader = new Worker(READER, {
      eval: true,
      workerData: { path: file, flags: flags.buffer, small: small.keys.length, large: large.keys.length },
    });
    const report = new Promise<{ failures: number; problems: string[] }>((resolve, reject) => {
      reader.once("message", resolve);
      reader.once("error", reject);
    });
    try {
      while (Atomics.load(flags, 3) === 0) await new Promise((r) => setTimeout(r, 5)); // the reader is running
      let writes = 0;
      // At least 100 replacements, and on until the reader has seen both versions (at most 3000).
      while (writes < 3000 && (writes < 100 || Atomics.load(flags, 1) === 0 || Atomics.load(flags, 2) === 0)) {
        updateKeysFile(file, (current) => (current.keys.length === small.keys.length ? large : small));
        writes++;
      }
    } finally {
      Atomics.store(flags, 0, 1);
    }
    const { failures, problems } = await report;
    await reader.terminate();
    expect(problems).toEqual([]);
    expect(failures).toBe(0);
    expect(Atomics.load(flags, 1), "the reader saw the small version").toBe(1);
    expect(Atomics.load(flags, 2), "the reader saw the large version").toBe(1);
    expect(strayFiles(file)).toEqual([]);
  });
});
