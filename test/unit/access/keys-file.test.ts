import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { KeyStore } from "../../../src/access/key-store.js";
import { KeysFileError, loadKeysFile, parseDateTime, parseKeysFile } from "../../../src/access/keys-file.js";

const SAMPLE_PATH = fileURLToPath(new URL("../../../config/keys.sample.json", import.meta.url));

const HASH_A = KeyStore.hashKey("key-a-0123456789");
const HASH_B = KeyStore.hashKey("key-b-0123456789");

function fullRecord(): Record<string, unknown> {
  return {
    id: "partner-acme",
    name: "Acme production",
    sha256: HASH_A,
    status: "active",
    expiresAt: "2027-01-01T00:00:00Z",
    rateLimit: { requests: 600, windowSeconds: 60 },
    routes: ["tokens", "pools", "protocols"],
    chainIds: [1, 8453],
  };
}

function minimalRecord(): Record<string, unknown> {
  return { id: "second.key_2", name: "", sha256: HASH_B, status: "disabled" };
}

/** A file with the full record at keys[0], the minimal at keys[1], and `change` applied to keys[index]. */
function fileWith(index: number, change: (record: Record<string, unknown>) => void): string {
  const keys = [fullRecord(), minimalRecord()];
  change(keys[index]!);
  return JSON.stringify({ keys }, null, 2);
}

function parseError(text: string, source = "keys.json"): KeysFileError {
  try {
    parseKeysFile(text, source);
  } catch (error) {
    expect(error).toBeInstanceOf(KeysFileError);
    return error as KeysFileError;
  }
  throw new Error("expected parseKeysFile to throw");
}

describe("parseKeysFile: valid files", () => {
  it("parses the spec's example record and a minimal one", () => {
    const file = parseKeysFile(
      fileWith(0, () => {}),
      "keys.json",
    );
    expect(file.keys).toHaveLength(2);
    expect(file.keys[0]).toEqual(fullRecord());
    expect(file.keys[1]).toEqual(minimalRecord());
  });

  it("accepts an empty key list", () => {
    expect(parseKeysFile('{"keys": []}', "keys.json").keys).toEqual([]);
  });

  it("accepts a leading byte-order mark", () => {
    expect(parseKeysFile('\ufeff{"keys": []}', "keys.json").keys).toEqual([]);
  });

  it("accepts a date-time with an offset and fractional seconds", () => {
    const file = parseKeysFile(
      fileWith(0, (r) => (r.expiresAt = "2027-01-01T02:00:00.250+02:00")),
      "keys.json",
    );
    expect(parseDateTime(file.keys[0]!.expiresAt!)).toBe(Date.UTC(2027, 0, 1, 0, 0, 0, 250));
  });

  it("accepts ids at the pattern's edges", () => {
    const id64 = "a" + "b".repeat(63);
    expect(
      parseKeysFile(
        fileWith(0, (r) => (r.id = id64)),
        "keys.json",
      ).keys[0]!.id,
    ).toBe(id64);
    expect(
      parseKeysFile(
        fileWith(0, (r) => (r.id = "0")),
        "keys.json",
      ).keys[0]!.id,
    ).toBe("0");
  });
});

describe("parseKeysFile: each rule broken once", () => {
  const cases: [string, string, string | RegExp][] = [
    ["bad id (uppercase)", fileWith(0, (r) => (r.id = "Acme")), /^keys\.json: keys\[0\]\.id: expected 1 to 64 characters/],
    ["bad id (leading dash)", fileWith(1, (r) => (r.id = "-acme")), /^keys\.json: keys\[1\]\.id: expected/],
    ["bad id (65 chars)", fileWith(0, (r) => (r.id = "a".repeat(65))), /^keys\.json: keys\[0\]\.id: expected/],
    [
      "bad sha256 (uppercase)",
      fileWith(1, (r) => (r.sha256 = HASH_B.toUpperCase())),
      /^keys\.json: keys\[1\]\.sha256: expected 64 lowercase hex characters/,
    ],
    ["bad sha256 (short)", fileWith(0, (r) => (r.sha256 = "abc")), /^keys\.json: keys\[0\]\.sha256: expected 64 lowercase hex characters/],
    [
      "bad status",
      fileWith(0, (r) => (r.status = "enabled")),
      'keys.json: keys[0].status: expected "active" or "disabled", found "enabled"',
    ],
    [
      "bad date (not ISO)",
      fileWith(0, (r) => (r.expiresAt = "next year")),
      /^keys\.json: keys\[0\]\.expiresAt: expected an ISO 8601 date-time/,
    ],
    [
      "bad date (no time zone)",
      fileWith(0, (r) => (r.expiresAt = "2027-01-01T00:00:00")),
      /^keys\.json: keys\[0\]\.expiresAt: expected an ISO 8601 date-time/,
    ],
    ["bad date (date only)", fileWith(0, (r) => (r.expiresAt = "2027-01-01")), /^keys\.json: keys\[0\]\.expiresAt: expected/],
    [
      "bad date (Feb 30)",
      fileWith(0, (r) => (r.expiresAt = "2027-02-30T00:00:00Z")),
      /^keys\.json: keys\[0\]\.expiresAt: "2027-02-30T00:00:00Z" is not a real calendar date-time$/,
    ],
    ["expiresAt null", fileWith(0, (r) => (r.expiresAt = null)), /^keys\.json: keys\[0\]\.expiresAt: expected/],
    [
      "rateLimit zero requests",
      fileWith(0, (r) => (r.rateLimit = { requests: 0, windowSeconds: 60 })),
      "keys.json: keys[0].rateLimit.requests: expected a positive integer, found 0",
    ],
    [
      "rateLimit zero window",
      fileWith(0, (r) => (r.rateLimit = { requests: 10, windowSeconds: 0 })),
      "keys.json: keys[0].rateLimit.windowSeconds: expected a positive integer, found 0",
    ],
    [
      "rateLimit fractional",
      fileWith(0, (r) => (r.rateLimit = { requests: 1.5, windowSeconds: 60 })),
      /^keys\.json: keys\[0\]\.rateLimit\.requests: expected a positive integer/,
    ],
    [
      "rateLimit string",
      fileWith(0, (r) => (r.rateLimit = { requests: "10", windowSeconds: 60 })),
      /^keys\.json: keys\[0\]\.rateLimit\.requests: expected a positive integer/,
    ],
    ["rateLimit not an object", fileWith(0, (r) => (r.rateLimit = 600)), /^keys\.json: keys\[0\]\.rateLimit: expected an object/],
    [
      "unknown route",
      fileWith(0, (r) => (r.routes = ["tokens", "swaps"])),
      'keys.json: keys[0].routes[1]: expected one of "tokens", "pools", "protocols", "stream", "history", "fleet", found "swaps"',
    ],
    ["duplicate route", fileWith(0, (r) => (r.routes = ["pools", "pools"])), "keys.json: keys[0].routes: expected each route at most once"],
    [
      "unsupported chain",
      fileWith(0, (r) => (r.chainIds = [1, 10])),
      /^keys\.json: keys\[0\]\.chainIds\[1\]: expected a supported chain id \(1, 130, 143, 999, 8453, 9745, 534352\), found 10$/,
    ],
    [
      "chain id as string",
      fileWith(0, (r) => (r.chainIds = ["1"])),
      /^keys\.json: keys\[0\]\.chainIds\[0\]: expected a supported chain id/,
    ],
    [
      "duplicate chain",
      fileWith(0, (r) => (r.chainIds = [8453, 8453])),
      "keys.json: keys[0].chainIds: expected each chain id at most once",
    ],
    ["name not a string", fileWith(1, (r) => (r.name = 5)), "keys.json: keys[1].name: expected a string, found 5"],
    ["missing sha256", fileWith(1, (r) => delete r.sha256), "keys.json: keys[1].sha256: missing required property"],
    [
      "unknown property (typo of expiresAt)",
      fileWith(0, (r) => {
        delete r.expiresAt;
        r.expiresAT = "2027-01-01T00:00:00Z";
      }),
      'keys.json: keys[0].expiresAT: unknown property "expiresAT" (did you mean "expiresAt"?)',
    ],
    [
      "unknown property",
      fileWith(1, (r) => (r.owner = "ops")),
      /^keys\.json: keys\[1\]\.owner: unknown property "owner" \(allowed: id, name, sha256, status, expiresAt, rateLimit, routes, chainIds\)$/,
    ],
    [
      "unknown property in rateLimit (typo)",
      fileWith(0, (r) => (r.rateLimit = { requests: 5, windowseconds: 60 })),
      'keys.json: keys[0].rateLimit.windowseconds: unknown property "windowseconds" (did you mean "windowSeconds"?)',
    ],
    [
      "typo of a required property",
      fileWith(1, (r) => {
        r.SHA256 = r.sha256;
        delete r.sha256;
      }),
      'keys.json: keys[1].SHA256: unknown property "SHA256" (did you mean "sha256"?)',
    ],
    ["typo of the top-level property", JSON.stringify({ Keys: [] }), 'keys.json: Keys: unknown property "Keys" (did you mean "keys"?)'],
    [
      "unknown top-level property",
      JSON.stringify({ keys: [], version: 2 }),
      'keys.json: version: unknown property "version" (allowed: keys)',
    ],
    ["keys not an array", JSON.stringify({ keys: {} }), "keys.json: keys: expected an array of key records, found {}"],
    ["keys missing", JSON.stringify({}), "keys.json: keys: missing required property"],
    ["record not an object", JSON.stringify({ keys: [1] }), "keys.json: keys[0]: expected a key record object, found 1"],
    ["top level an array", "[]", 'keys.json: expected a JSON object {"keys": [...]} at the top level, found []'],
    ["top level null", "null", /^keys\.json: expected a JSON object/],
    [
      "duplicate id",
      fileWith(1, (r) => (r.id = "partner-acme")),
      'keys.json: keys[1].id: duplicate id "partner-acme" (already used by keys[0])',
    ],
    [
      "duplicate sha256",
      fileWith(1, (r) => (r.sha256 = HASH_A)),
      /^keys\.json: keys\[1\]\.sha256: duplicate sha256: the same key as keys\[0\] \(id "partner-acme"\)/,
    ],
    [
      "invalid JSON",
      '{\n  "keys": [\n    {,}\n  ]\n}',
      /^keys\.json: invalid JSON: .*\(line 3, column 6\)$|^keys\.json: invalid JSON: .*line 3/,
    ],
    ["trailing comma", '{"keys": [],}', /^keys\.json: invalid JSON: /],
    ["empty file", "", /^keys\.json: invalid JSON: /],
  ];

  it.each(cases)("%s", (_name, text, expected) => {
    const error = parseError(text);
    if (typeof expected === "string") expect(error.message).toBe(expected);
    else expect(error.message).toMatch(expected);
    expect(error.source).toBe("keys.json");
  });

  it("exposes the offending path separately", () => {
    const error = parseError(fileWith(0, (r) => (r.sha256 = "x")));
    expect(error.path).toBe("keys[0].sha256");
    expect(error.problem).toMatch(/^expected 64 lowercase hex characters/);
    expect(parseError("{").path).toBeNull();
  });

  it("names the source it was given", () => {
    expect(parseError("nope", "/etc/gateway/keys.json").message).toMatch(/^\/etc\/gateway\/keys\.json: invalid JSON: /);
  });

  it("reports a later record's problem with its own index", () => {
    const keys = [fullRecord(), minimalRecord(), { ...minimalRecord(), id: "third", sha256: "f".repeat(63) }];
    expect(parseError(JSON.stringify({ keys })).message).toMatch(/^keys\.json: keys\[2\]\.sha256: expected 64 lowercase hex characters/);
  });

  it("counts further problems", () => {
    expect(parseError(JSON.stringify({ keys: [{ id: "x" }] })).message).toMatch(/\(2 more problems after this one\)$/);
  });
});

describe("loadKeysFile", () => {
  const dir = mkdtempSync(join(tmpdir(), "keys-file-test-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reads and parses a file from disk", () => {
    const path = join(dir, "keys.json");
    writeFileSync(
      path,
      fileWith(0, () => {}),
    );
    expect(loadKeysFile(path).keys.map((k) => k.id)).toEqual(["partner-acme", "second.key_2"]);
  });

  it("names the path in validation errors", () => {
    const path = join(dir, "broken.json");
    writeFileSync(
      path,
      fileWith(0, (r) => (r.status = "on")),
    );
    expect(() => loadKeysFile(path)).toThrow(`${path}: keys[0].status: expected "active" or "disabled", found "on"`);
  });

  it("turns a missing file into a KeysFileError", () => {
    const path = join(dir, "absent.json");
    expect(() => loadKeysFile(path)).toThrow(KeysFileError);
    expect(() => loadKeysFile(path)).toThrow(`${path}: cannot read the keys file: no such file (ENOENT)`);
  });

  it("turns a directory into a KeysFileError", () => {
    expect(() => loadKeysFile(dir)).toThrow(`${dir}: cannot read the keys file: the path is a directory, not a file (EISDIR)`);
  });

  it("loads the bundled sample file: one active sandbox key, no expiry, no restrictions", () => {
    const file = loadKeysFile(SAMPLE_PATH);
    expect(file.keys).toEqual([
      {
        id: "sandbox",
        name: "Public sandbox key (local trials only)",
        sha256: KeyStore.hashKey("lgw_sandbox_0123456789abcdef"),
        status: "active",
      },
    ]);
  });
});

describe("parseDateTime", () => {
  it("computes epoch ms, honouring offsets", () => {
    expect(parseDateTime("2027-01-01T00:00:00Z")).toBe(Date.UTC(2027, 0, 1));
    expect(parseDateTime("2027-01-01T00:00:00-05:30")).toBe(Date.UTC(2027, 0, 1, 5, 30));
    expect(parseDateTime("2024-02-29T23:59:59.999Z")).toBe(Date.UTC(2024, 1, 29, 23, 59, 59, 999));
  });

  it("rejects dates that do not exist", () => {
    expect(parseDateTime("2025-02-29T00:00:00Z")).toBeNaN();
    expect(parseDateTime("2027-04-31T00:00:00Z")).toBeNaN();
    expect(parseDateTime("2027-01-01")).toBeNaN();
  });
});

describe("the stream route group (live.md)", () => {
  it("a key's routes may name stream; the keys CLI takes it", async () => {
    const file = parseKeysFile(
      fileWith(0, (r) => (r.routes = ["stream", "pools"])),
      "keys.json",
    );
    expect(file.keys[0]!.routes).toEqual(["stream", "pools"]);
    const { parseRoutes } = await import("../../../src/cli/keys-cli.js");
    expect(parseRoutes("stream,tokens")).toEqual(["tokens", "stream"]);
  });
});
