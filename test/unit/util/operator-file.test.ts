/**
 * The bounded operator-file reader (src/util/operator-file.ts) on real entries
 * in a temp directory: regular files, symbolic links (to a file, to
 * /dev/zero, looping, dangling), a directory, a FIFO with no writer, files at
 * and over the limit, a file that grows past the limit after it was opened, a
 * /proc file whose size stat does not tell. Then every reader of an operator
 * file (keys, baskets, TLS, snapshot) refuses the same entries, with its own
 * message, and leaves no descriptor open.
 */
import { execFileSync } from "node:child_process";
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadKeysFile, KeysFileError } from "../../../src/access/keys-file.js";
import { BasketsFileError, loadBasketsFile } from "../../../src/baskets/basket-file.js";
import { runKeysCli } from "../../../src/cli/keys-cli.js";
import { checkTlsFiles, TLS_SETTING_NAMES } from "../../../src/config/tls-files.js";
import { openSnapshotFile } from "../../../src/snapshot/read-snapshot-file.js";
import { SnapshotError } from "../../../src/snapshot/snapshot-error.js";
import {
  FILE_LIMITS,
  formatBytes,
  openOperatorFile,
  OperatorFileError,
  readOperatorFile,
  type FileLimit,
} from "../../../src/util/operator-file.js";

let dir: string;
const LIMIT: FileLimit = { maxBytes: 1000, what: "test file", setting: "TEST_FILE_MAX_MB" };

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "lgw-operator-file-"));
  writeFileSync(join(dir, "regular"), "hello");
  symlinkSync(join(dir, "regular"), join(dir, "link-to-regular"));
  symlinkSync("/dev/zero", join(dir, "link-to-zero"));
  symlinkSync(join(dir, "loop"), join(dir, "loop"));
  symlinkSync(join(dir, "nowhere"), join(dir, "dangling"));
  mkdirSync(join(dir, "directory"));
  execFileSync("mkfifo", [join(dir, "fifo")]);
  writeFileSync(join(dir, "at-limit"), Buffer.alloc(1000, 0x61));
  writeFileSync(join(dir, "over-limit"), Buffer.alloc(1001, 0x61));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Descriptors this process has open (every refusal must close what it opened). */
const openDescriptors = () => readdirSync("/proc/self/fd").length;

function refusal(path: string, limit: FileLimit = LIMIT): OperatorFileError {
  try {
    readOperatorFile(path, limit);
  } catch (error) {
    expect(error).toBeInstanceOf(OperatorFileError);
    return error as OperatorFileError;
  }
  throw new Error(`${path} was read`);
}

describe("readOperatorFile", () => {
  it("reads a regular file, and follows a symbolic link to one", () => {
    expect(readOperatorFile(join(dir, "regular"), LIMIT).bytes.toString()).toBe("hello");
    const { bytes, stats } = readOperatorFile(join(dir, "link-to-regular"), LIMIT);
    expect(bytes.toString()).toBe("hello");
    expect(stats.isFile()).toBe(true);
  });

  it("reads a file of exactly the limit; one byte more is too-large, naming the size, the limit and the setting", () => {
    expect(readOperatorFile(join(dir, "at-limit"), LIMIT).bytes.length).toBe(1000);
    const error = refusal(join(dir, "over-limit"));
    expect(error.reason).toBe("too-large");
    expect(error.details.size).toBe(1001);
    expect(error.problem).toBe("the file has 1001 bytes; a test file may have at most 1000 bytes (TEST_FILE_MAX_MB raises it)");
    expect(error.message).toBe(`${join(dir, "over-limit")}: ${error.problem}`);
  });

  it("a symbolic link to /dev/zero is refused as a device, never read", () => {
    const error = refusal(join(dir, "link-to-zero"));
    expect(error.reason).toBe("not-a-file");
    expect(error.details.kind).toBe("device");
    expect(error.problem).toBe("the path is a symbolic link to a device, not a regular file");
  });

  it("a FIFO with no writer is refused at once (neither open nor read blocks)", () => {
    const error = refusal(join(dir, "fifo"));
    expect(error.reason).toBe("not-a-file");
    expect(error.problem).toBe("the path is a FIFO (named pipe), not a regular file");
  });

  it("a directory, a missing path, a dangling link and a link loop are each named", () => {
    expect(refusal(join(dir, "directory"))).toMatchObject({
      reason: "not-a-file",
      problem: "the path is a directory, not a file (EISDIR)",
    });
    expect(refusal(join(dir, "absent"))).toMatchObject({ reason: "missing", problem: "no such file (ENOENT)" });
    expect(refusal(join(dir, "dangling"))).toMatchObject({ reason: "missing", problem: "a symbolic link to nothing (ENOENT)" });
    expect(refusal(join(dir, "loop"))).toMatchObject({ reason: "io", problem: "a symbolic link that loops (ELOOP)" });
  });

  it("a file that grows past the limit after it was opened is refused, not read beyond limit + 1 bytes", () => {
    const path = join(dir, "growing");
    writeFileSync(path, Buffer.alloc(10, 0x62));
    const file = openOperatorFile(path, LIMIT);
    try {
      appendFileSync(path, Buffer.alloc(100_000, 0x62));
      const error = (() => {
        try {
          file.readAll();
        } catch (e) {
          return e as OperatorFileError;
        }
        throw new Error("the grown file was read");
      })();
      expect(error).toBeInstanceOf(OperatorFileError);
      expect(error.reason).toBe("too-large");
      expect(error.details.size).toBeNull();
      expect(error.problem).toMatch(/^the file grew past the limit while it was read; a test file may have at most 1000 bytes/);
    } finally {
      file.close();
    }
  });

  it("a /proc file (stat says 0 bytes) is read to its end, and refused once it passes the limit", () => {
    const small: FileLimit = { maxBytes: 16, what: "test file" };
    const error = refusal("/proc/self/status", small);
    expect(error.reason).toBe("too-large");
    expect(readOperatorFile("/proc/self/status", { ...LIMIT, maxBytes: 1 << 20 }).bytes.toString()).toMatch(/^Name:/);
  });

  it("refusals leave no descriptor open", () => {
    const before = openDescriptors();
    for (const name of ["link-to-zero", "fifo", "directory", "over-limit", "dangling", "loop", "absent"]) refusal(join(dir, name));
    const path = join(dir, "growing");
    for (let i = 0; i < 5; i++) {
      const file = openOperatorFile(path, { ...LIMIT, maxBytes: 1 << 20 });
      file.close();
      file.close(); // closing twice is harmless
    }
    expect(openDescriptors()).toBe(before);
  });

  it("formats sizes for people", () => {
    expect(formatBytes(512)).toBe("512 bytes");
    expect(formatBytes(16 * 1024 * 1024)).toBe("16 MiB");
    expect(formatBytes(64 * 1024)).toBe("64 KiB");
    expect(formatBytes(1_572_864)).toBe("1.5 MiB (1572864 bytes)");
  });

  it("the default limits: 16 MiB keys and baskets files, 1 MiB TLS files, 1 GiB snapshot files (the large generated set has files of ~250 MB)", () => {
    expect(FILE_LIMITS.keys.maxBytes).toBe(16 << 20);
    expect(FILE_LIMITS.baskets.maxBytes).toBe(16 << 20);
    expect(FILE_LIMITS.tls.maxBytes).toBe(1 << 20);
    expect(FILE_LIMITS.snapshot.maxBytes).toBe(1 << 30);
  });
});

describe("every operator-file reader refuses the same entries", () => {
  const hostile = ["link-to-zero", "fifo", "directory"] as const;
  const expectedText: Record<(typeof hostile)[number], RegExp> = {
    "link-to-zero": /a symbolic link to a device, not a regular file/,
    fifo: /a FIFO \(named pipe\), not a regular file/,
    directory: /a directory, not a (regular )?file/,
  };

  it("the keys file", () => {
    for (const name of hostile) {
      const path = join(dir, name);
      expect(() => loadKeysFile(path)).toThrow(KeysFileError);
      expect(() => loadKeysFile(path)).toThrow(expectedText[name]);
    }
    expect(() => loadKeysFile(join(dir, "over-limit"), 1000)).toThrow(
      `${join(dir, "over-limit")}: cannot read the keys file: the file has 1001 bytes; a keys file may have at most 1000 bytes (KEYS_FILE_MAX_MB raises it)`,
    );
  });

  it("the baskets file", () => {
    for (const name of hostile) {
      const path = join(dir, name);
      expect(() => loadBasketsFile(path)).toThrow(BasketsFileError);
      expect(() => loadBasketsFile(path)).toThrow(expectedText[name]);
    }
    expect(() => loadBasketsFile(join(dir, "over-limit"), 1000)).toThrow(
      /cannot read the baskets file: the file has 1001 bytes; a baskets file may have at most 1000 bytes \(BASKETS_FILE_MAX_MB raises it\)/,
    );
  });

  it("the TLS files (each names its setting)", () => {
    const big = join(dir, "big.pem");
    writeFileSync(big, Buffer.alloc(FILE_LIMITS.tls.maxBytes + 1, 0x41));
    for (const name of hostile) {
      const path = join(dir, name);
      expect(() => checkTlsFiles({ certFile: path, keyFile: join(dir, "regular") }, TLS_SETTING_NAMES)).toThrow(
        new RegExp(`^TLS_CERT_FILE: cannot read "${path}" \\(.*${expectedText[name].source}`),
      );
      expect(() => checkTlsFiles({ certFile: join(dir, "regular"), keyFile: path }, TLS_SETTING_NAMES)).toThrow(
        /^TLS_KEY_FILE: cannot read/,
      );
    }
    expect(() => checkTlsFiles({ certFile: big, keyFile: join(dir, "regular") }, TLS_SETTING_NAMES)).toThrow(
      /^TLS_CERT_FILE: cannot read ".*big\.pem" \(the file has 1\.0 MiB \(1048577 bytes\); a TLS file may have at most 1 MiB\)$/,
    );
  });

  it("a snapshot file (reasons not-a-file and too-large; the limit is SNAPSHOT_FILE_MAX_MB)", () => {
    const snapshots = join(dir, "snapshots");
    mkdirSync(snapshots);
    symlinkSync("/dev/zero", join(snapshots, "chain-1.msgpack"));
    execFileSync("mkfifo", [join(snapshots, "chain-130.msgpack")]);
    mkdirSync(join(snapshots, "chain-143.msgpack"));
    writeFileSync(join(snapshots, "chain-999.msgpack"), Buffer.alloc(1001));
    const rejection = (name: string, maxBytes?: number) => {
      try {
        openSnapshotFile(join(snapshots, name), maxBytes).close();
      } catch (error) {
        expect(error).toBeInstanceOf(SnapshotError);
        return error as SnapshotError;
      }
      throw new Error(`${name} was opened`);
    };
    expect(rejection("chain-1.msgpack")).toMatchObject({ reason: "not-a-file", message: "chain-1.msgpack: a device, not a regular file" });
    expect(rejection("chain-130.msgpack")).toMatchObject({
      reason: "not-a-file",
      message: "chain-130.msgpack: a FIFO (named pipe), not a regular file",
    });
    expect(rejection("chain-143.msgpack")).toMatchObject({
      reason: "not-a-file",
      message: "chain-143.msgpack: a directory, not a regular file",
    });
    const big = rejection("chain-999.msgpack", 1000);
    expect(big.reason).toBe("too-large");
    expect(big.message).toBe(
      "chain-999.msgpack: the file has 1001 bytes; a snapshot file may have at most 1000 bytes (SNAPSHOT_FILE_MAX_MB raises it)",
    );
    expect(big.file).toBe(join(snapshots, "chain-999.msgpack"));
    openSnapshotFile(join(snapshots, "chain-999.msgpack"), 1001).close();
  });
});

describe("the keys CLI reads the keys file under the same rules and limit", () => {
  async function cli(argv: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
    let stdout = "";
    let stderr = "";
    const code = await runKeysCli(argv, { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), env, cwd: dir });
    return { code, stdout, stderr };
  }

  it("refuses a FIFO, and a file over KEYS_FILE_MAX_MB; a larger KEYS_FILE_MAX_MB reads it", async () => {
    const fifo = await cli(["list"], { API_KEYS_FILE: join(dir, "fifo") });
    expect(fifo.code).toBe(1);
    expect(fifo.stderr).toContain("cannot read the keys file: the path is a FIFO (named pipe), not a regular file");
    const created = await cli(["create", "--id", "k1"], { API_KEYS_FILE: join(dir, "cli-keys.json") });
    expect(created.code).toBe(0);
    // Pad the file past 1 MiB with whitespace (still valid JSON).
    appendFileSync(join(dir, "cli-keys.json"), " ".repeat(1024 * 1024));
    const refused = await cli(["create", "--id", "k2"], { API_KEYS_FILE: join(dir, "cli-keys.json"), KEYS_FILE_MAX_MB: "1" });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /cannot read the keys file: the file has 1\.0 MiB \(\d+ bytes\); a keys file may have at most 1 MiB \(KEYS_FILE_MAX_MB raises it\); nothing was written/,
    );
    const listed = await cli(["list", "--json"], { API_KEYS_FILE: join(dir, "cli-keys.json"), KEYS_FILE_MAX_MB: "2" });
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).keys.map((k: { id: string }) => k.id)).toEqual(["k1"]);
    const bad = await cli(["list"], { API_KEYS_FILE: join(dir, "cli-keys.json"), KEYS_FILE_MAX_MB: "0" });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('KEYS_FILE_MAX_MB must be an integer from 1 to 1024; got "0"');
  });
});
