/**
 * What is at a live snapshot name, and reading it: real entries in a temp
 * directory (regular file, symbolic links, directory, FIFO).
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync, statSync, renameSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inspectLiveEntry } from "../../../src/snapshot/live-entry.js";
import { readSnapshotBytes } from "../../../src/snapshot/read-snapshot-file.js";
import { SnapshotError } from "../../../src/snapshot/snapshot-error.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "lgw-live-entry-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

async function readError(path: string): Promise<SnapshotError> {
  const error = await readSnapshotBytes(path).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SnapshotError);
  return error as SnapshotError;
}

describe("inspectLiveEntry", () => {
  it("nothing at the name is missing", () => {
    expect(inspectLiveEntry(join(dir, "chain-1.msgpack"))).toEqual({ kind: "missing" });
  });

  it("a regular file, and a symbolic link to one, are files", () => {
    const path = join(dir, "chain-130.msgpack");
    writeFileSync(path, "x");
    expect(inspectLiveEntry(path).kind).toBe("file");
    writeFileSync(join(dir, "real-143"), "y");
    symlinkSync(join(dir, "real-143"), join(dir, "chain-143.msgpack"));
    expect(inspectLiveEntry(join(dir, "chain-143.msgpack")).kind).toBe("file");
  });

  it("the signature changes with the bytes, with a rename over the name, with chmod, and with a copy that restores mtime", () => {
    const path = join(dir, "chain-999.msgpack");
    writeFileSync(path, "aaaa");
    const sig = () => (inspectLiveEntry(path) as { signature: string }).signature;
    const s1 = sig();
    expect(sig()).toBe(s1);
    const { mtime } = statSync(path);
    writeFileSync(path, "bbbb"); // same size
    utimesSync(path, mtime, mtime); // same mtime (cp -p, rsync -t)
    const s2 = sig();
    expect(s2).not.toBe(s1);
    chmodSync(path, 0o600);
    const s3 = sig();
    expect(s3).not.toBe(s2);
    writeFileSync(join(dir, ".tmp"), "bbbb");
    renameSync(join(dir, ".tmp"), path);
    expect(sig()).not.toBe(s3);
  });

  it("a directory, a FIFO, a symbolic link loop and a dangling link are not files, each named", () => {
    mkdirSync(join(dir, "chain-1.msgpack"));
    execFileSync("mkfifo", [join(dir, "chain-8453.msgpack")]);
    symlinkSync(join(dir, "chain-9745.msgpack"), join(dir, "chain-9745.msgpack"));
    symlinkSync(join(dir, "nowhere"), join(dir, "chain-534352.msgpack"));
    expect(inspectLiveEntry(join(dir, "chain-1.msgpack"))).toMatchObject({ kind: "not-a-file", what: "directory" });
    expect(inspectLiveEntry(join(dir, "chain-8453.msgpack"))).toMatchObject({ kind: "not-a-file", what: "fifo" });
    expect(inspectLiveEntry(join(dir, "chain-9745.msgpack"))).toMatchObject({ kind: "not-a-file", what: "symlink-loop" });
    expect(inspectLiveEntry(join(dir, "chain-534352.msgpack"))).toMatchObject({ kind: "not-a-file", what: "dangling-symlink" });
  });
});

describe("readSnapshotBytes", () => {
  it("returns the bytes and their SHA-256, following a symbolic link", async () => {
    const bytes = Buffer.from("some snapshot bytes, any size: ".repeat(1000));
    writeFileSync(join(dir, "target-130"), bytes);
    rmSync(join(dir, "chain-130.msgpack"));
    symlinkSync(join(dir, "target-130"), join(dir, "chain-130.msgpack"));
    const read = await readSnapshotBytes(join(dir, "chain-130.msgpack"));
    expect(read.chainId).toBe(130);
    expect(read.bytes.equals(bytes)).toBe(true);
    expect(read.sha256).toBe(sha(bytes));
  });

  it("hashes files larger than one read chunk and empty files", async () => {
    const big = Buffer.alloc(9 * 1024 * 1024 + 7, 0x5a);
    big[big.length - 1] = 1;
    writeFileSync(join(dir, "chain-999.msgpack"), big);
    const read = await readSnapshotBytes(join(dir, "chain-999.msgpack"));
    expect(read.bytes.length).toBe(big.length);
    expect(read.sha256).toBe(sha(big));
    writeFileSync(join(dir, "chain-999.msgpack"), "");
    expect((await readSnapshotBytes(join(dir, "chain-999.msgpack"))).sha256).toBe(sha(Buffer.alloc(0)));
  });

  it("a FIFO is rejected as not-a-file at once: it is never read (which would block)", async () => {
    const error = await readError(join(dir, "chain-8453.msgpack"));
    expect(error.reason).toBe("not-a-file");
    expect(error.message).toBe("chain-8453.msgpack: a FIFO (named pipe), not a regular file");
  });

  it("a directory is rejected as not-a-file, a dangling link as io", async () => {
    expect((await readError(join(dir, "chain-1.msgpack"))).message).toBe("chain-1.msgpack: a directory, not a regular file");
    const dangling = await readError(join(dir, "chain-534352.msgpack"));
    expect(dangling.reason).toBe("io");
    expect(dangling.message).toBe("chain-534352.msgpack: cannot read the file (ENOENT)");
    expect((await readError(join(dir, "chain-9745.msgpack"))).message).toBe("chain-9745.msgpack: cannot read the file (ELOOP)");
  });
});
