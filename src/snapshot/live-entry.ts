/**
 * What is at a live snapshot name (`chain-<id>.msgpack`), found with lstat and
 * stat only: nothing is opened here, so a FIFO at the name can never block a
 * scan. A symbolic link to a regular file is a file (it is followed); anything
 * else that is not a regular file is reported as such with what it is.
 *
 * The signature changes whenever the entry may have changed: it holds the
 * device, inode, size, mtime and ctime of the file (of the link too, when the
 * name is a symbolic link). ctime cannot be set from user space, so even a copy
 * that restores the old mtime (`cp -p`, `rsync -t`) or a `chmod` changes it.
 */
import { lstatSync, statSync, type Stats } from "node:fs";
import { describeFileKind, fileKind } from "../util/operator-file.js";

export type NotAFileKind = "directory" | "fifo" | "socket" | "device" | "symlink-loop" | "dangling-symlink";

export type LiveEntry =
  | { readonly kind: "missing" }
  /** `bytes`: the file's size (0 when it cannot be looked at). */
  | { readonly kind: "file"; readonly signature: string; readonly bytes: number }
  | { readonly kind: "not-a-file"; readonly what: NotAFileKind; readonly signature: string };

const LINK_TEXT = {
  "symlink-loop": "a symbolic link that loops",
  "dangling-symlink": "a symbolic link to nothing (dangling)",
} as const;

export function describeNotAFile(what: NotAFileKind): string {
  return what === "symlink-loop" || what === "dangling-symlink" ? LINK_TEXT[what] : describeFileKind(what);
}

function signatureOf(stats: Stats): string {
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
}

export function inspectLiveEntry(path: string): LiveEntry {
  let link: Stats;
  try {
    link = lstatSync(path);
  } catch (error) {
    if (errorCode(error) === "ENOENT" || errorCode(error) === "ENOTDIR") return { kind: "missing" };
    // Cannot even look at it (e.g. EACCES on the directory): let the reader fail with an I/O error.
    return { kind: "file", signature: `lstat-error:${errorCode(error)}`, bytes: 0 };
  }
  if (!link.isSymbolicLink()) {
    const kind = fileKind(link);
    return kind === "file"
      ? { kind, signature: signatureOf(link), bytes: link.size }
      : { kind: "not-a-file", what: kind, signature: `${kind}:${signatureOf(link)}` };
  }
  const linkSignature = `link:${signatureOf(link)}`;
  let target: Stats;
  try {
    target = statSync(path);
  } catch (error) {
    const code = errorCode(error);
    if (code === "ELOOP") return { kind: "not-a-file", what: "symlink-loop", signature: linkSignature };
    if (code === "ENOENT" || code === "ENOTDIR") return { kind: "not-a-file", what: "dangling-symlink", signature: linkSignature };
    // A target that cannot be looked at (EACCES on its directory, ...): an I/O failure for the reader to report.
    return { kind: "file", signature: `${linkSignature}:stat-error:${code}`, bytes: 0 };
  }
  const kind = fileKind(target);
  const signature = `${linkSignature}>${signatureOf(target)}`;
  return kind === "file" ? { kind, signature, bytes: target.size } : { kind: "not-a-file", what: kind, signature };
}

function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException | undefined)?.code ?? "unknown";
}
