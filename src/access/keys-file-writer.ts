/**
 * Changes the API keys file without ever exposing a bad or half-written file:
 * the current file is parsed and validated first (a malformed file is reported,
 * never overwritten), the changed content is validated with the gateway's own
 * rules (parseKeysFile), and the file is replaced atomically: a temporary file
 * in the same directory, fsync, rename over the target, fsync of the directory.
 * A reader (the running gateway) sees the old file or the new one, nothing in
 * between. The original file's permission bits (and, where allowed, owner) are
 * kept; a new file gets mode 0600.
 */
import { randomBytes } from "node:crypto";
import { closeSync, fchmodSync, fchownSync, fsyncSync, lstatSync, openSync, renameSync, rmSync, writeSync, type Stats } from "node:fs";
import { basename, dirname, join } from "node:path";
import { FILE_LIMITS, OperatorFileError, readOperatorFile } from "../util/operator-file.js";
import { KeysFileError, parseKeysFile, readKeysFileBytes, type KeysFile } from "./keys-file.js";

/** Mode of a keys file created from scratch: read and write for its owner only. */
export const NEW_KEYS_FILE_MODE = 0o600;

/** How often a change is re-applied when another writer replaced the file meanwhile. */
const MAX_ATTEMPTS = 5;

/** The file on disk changed between reading it and replacing it; nothing was written. */
export class KeysFileChangedError extends Error {
  constructor(readonly path: string) {
    super(`${path} was changed by someone else while this change was being written; nothing was written`);
    this.name = "KeysFileChangedError";
  }
}

/** The keys file as read: parsed content, exact bytes and stat (both null when the file does not exist yet). */
export interface KeysFileState {
  readonly file: KeysFile;
  readonly bytes: Buffer | null;
  readonly stats: Stats | null;
}

/**
 * A change to the keys file: the new content, or null to leave the file as it
 * is. It may throw to abort (nothing is written). It can run more than once
 * (when another writer replaced the file meanwhile), so it must have no side
 * effects.
 */
export type KeysFileChange = (current: KeysFile) => KeysFile | null;

export interface UpdateKeysFileOptions {
  /** Start from `{"keys": []}` when the file does not exist (else that is an error). */
  readonly createIfMissing?: boolean;
  /** Largest keys file read (KEYS_FILE_MAX_MB); default FILE_LIMITS.keys. */
  readonly maxBytes?: number;
}

export interface UpdateKeysFileResult {
  /** The content now on disk. */
  readonly file: KeysFile;
  /** False when the change returned null. */
  readonly written: boolean;
}

/**
 * Reads and validates the keys file, applies `change`, and writes the result
 * atomically. Throws KeysFileError when the current file or the result fails
 * validation, KeysFileChangedError when other writers kept replacing the file,
 * and the file system's errors as they are.
 */
export function updateKeysFile(path: string, change: KeysFileChange, options: UpdateKeysFileOptions = {}): UpdateKeysFileResult {
  for (let attempt = 1; ; attempt++) {
    const current = readKeysFileState(path, options.createIfMissing === true, options.maxBytes);
    const next = change(structuredClone(current.file));
    if (next === null) return { file: current.file, written: false };
    try {
      writeKeysFileAtomically(path, next, current, options.maxBytes);
      return { file: next, written: true };
    } catch (error) {
      if (!(error instanceof KeysFileChangedError) || attempt === MAX_ATTEMPTS) throw error;
    }
  }
}

/**
 * The current keys file, parsed and validated. A missing file is
 * `{"keys": []}` when `allowMissing`, else a KeysFileError; so are a symbolic
 * link (replacing it would turn the link into a copy) and anything that is
 * not a regular file.
 */
export function readKeysFileState(path: string, allowMissing: boolean, maxBytes: number = FILE_LIMITS.keys.maxBytes): KeysFileState {
  let stats: Stats;
  try {
    stats = lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" && allowMissing) return { file: { keys: [] }, bytes: null, stats: null };
    throw new KeysFileError(path, null, `cannot read the keys file: ${describeIoError(error)}`, { cause: error });
  }
  if (stats.isSymbolicLink()) {
    throw new KeysFileError(
      path,
      null,
      "the keys file is a symbolic link; name the file it points to, so that an edit does not replace the link with a copy",
    );
  }
  if (!stats.isFile()) throw new KeysFileError(path, null, "the keys file is not a regular file");
  const bytes = readKeysFileBytes(path, maxBytes);
  return { file: parseKeysFile(bytes.toString("utf8"), path), bytes, stats };
}

/** The text of a keys file (2-space JSON, final newline), validated with parseKeysFile; `source` names the file in errors. */
export function serializeKeysFile(file: KeysFile, source: string): string {
  const text = `${JSON.stringify(file, null, 2)}\n`;
  try {
    parseKeysFile(text, source);
  } catch (error) {
    if (!(error instanceof KeysFileError)) throw error;
    throw new KeysFileError(source, error.path, `refusing to write an invalid keys file: ${error.problem}`, { cause: error });
  }
  return text;
}

/**
 * Validates `file` and replaces `path` with it atomically. `previous` is the
 * state the change was computed from: its mode (and owner) are kept, and the
 * write is abandoned with KeysFileChangedError if the file on disk no longer
 * has its bytes when the new file is about to be renamed into place.
 */
export function writeKeysFileAtomically(
  path: string,
  file: KeysFile,
  previous: Pick<KeysFileState, "bytes" | "stats">,
  maxBytes: number = FILE_LIMITS.keys.maxBytes,
): void {
  const data = Buffer.from(serializeKeysFile(file, path), "utf8");
  const directory = dirname(path);
  const temp = join(directory, `.${basename(path)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
  const mode = previous.stats === null ? NEW_KEYS_FILE_MODE : previous.stats.mode & 0o777;
  const fd = openSync(temp, "wx", mode);
  try {
    try {
      fchmodSync(fd, mode); // the umask may have narrowed the mode given to open
      keepOwner(fd, previous.stats);
      writeAll(fd, data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    assertUnchanged(path, previous.bytes, maxBytes);
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  try {
    syncDirectory(directory);
  } catch (error) {
    // Not an errno error: the new file is in place, only its durability is in doubt.
    throw new Error(`${path} was replaced, but syncing its directory failed (${(error as Error).message})`, { cause: error });
  }
}

function describeIoError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return "no such file (ENOENT)";
  if (code === "EACCES" || code === "EPERM") return `permission denied (${code})`;
  return (error as Error).message;
}

function writeAll(fd: number, data: Buffer): void {
  let offset = 0;
  while (offset < data.length) offset += writeSync(fd, data, offset, data.length - offset);
}

/** Gives the new file the original's owner and group when they differ and the process may (e.g. root). */
function keepOwner(fd: number, original: Stats | null): void {
  if (original === null || process.getuid === undefined || process.getgid === undefined) return;
  if (original.uid === process.getuid() && original.gid === process.getgid()) return;
  try {
    fchownSync(fd, original.uid, original.gid);
  } catch (error) {
    // Without the privilege the file belongs to whoever wrote it, as after any editor's save.
    if ((error as NodeJS.ErrnoException).code !== "EPERM") throw error;
  }
}

function assertUnchanged(path: string, expected: Buffer | null, maxBytes: number): void {
  let actual: Buffer | null;
  try {
    actual = readOperatorFile(path, { ...FILE_LIMITS.keys, maxBytes }).bytes;
  } catch (error) {
    if (!(error instanceof OperatorFileError)) throw error;
    if (error.reason === "io") throw error.cause;
    // Gone: as before it existed. Replaced by something that is no file, or too large: changed.
    if (error.reason !== "missing") throw new KeysFileChangedError(path);
    actual = null;
  }
  const same = actual === null || expected === null ? actual === expected : actual.equals(expected);
  if (!same) throw new KeysFileChangedError(path);
}

/** Makes the rename durable. Skipped where directories cannot be synced (Windows, some file systems). */
function syncDirectory(directory: string): void {
  if (process.platform === "win32") return;
  const fd = openSync(directory, "r");
  try {
    fsyncSync(fd);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "EINVAL" && code !== "ENOTSUP" && code !== "EISDIR") throw error;
  } finally {
    closeSync(fd);
  }
}
