/**
 * The one reader of files an operator supplies (the keys file, the baskets
 * file, the TLS certificate, key and CA bundle, the snapshot files): whoever
 * may write such a path may put anything there, and the gateway must neither
 * hang nor run out of memory reading it (docs/operator-files.md).
 *
 * - The path is looked at first (stat, following symbolic links): anything but
 *   a regular file is refused without being opened, and so is a file over the
 *   limit.
 * - It is then opened with O_NONBLOCK (a FIFO swapped in meanwhile cannot hang
 *   the open) and O_NOCTTY, and the OPENED descriptor is checked again
 *   (fstat): what is read is what was checked, whatever the name points to by
 *   then.
 * - At most `maxBytes + 1` bytes are read: a file that grew past the limit
 *   while it was read is refused too, as is one whose size stat cannot tell
 *   (a /proc file) once it passes the limit.
 *
 * Every refusal is an OperatorFileError with a machine `reason` and a
 * `problem` an operator acts on; callers name the file and what it is for.
 * Reads are synchronous: on the supervisor they are bounded by the limit (a
 * regular file of at most a few MiB), in a build worker by the snapshot limit.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, statSync, type Stats } from "node:fs";

/** Why a file was refused: `missing`, `io` (cannot be read), `not-a-file`, `too-large`. */
export type OperatorFileReason = "missing" | "io" | "not-a-file" | "too-large";

/** What a path can be besides a regular file. */
export type FileKind = "file" | "directory" | "fifo" | "socket" | "device";

const KIND_TEXT: Readonly<Record<Exclude<FileKind, "file">, string>> = {
  directory: "a directory",
  fifo: "a FIFO (named pipe)",
  socket: "a socket",
  device: "a device",
};

/** "a FIFO (named pipe)", "a directory", ... */
export function describeFileKind(kind: Exclude<FileKind, "file">): string {
  return KIND_TEXT[kind];
}

/** The kind of a stat result: "file" for a regular file, else what it is. */
export function fileKind(stats: Stats): FileKind {
  if (stats.isFile()) return "file";
  if (stats.isDirectory()) return "directory";
  if (stats.isFIFO()) return "fifo";
  if (stats.isSocket()) return "socket";
  return "device";
}

/** The size limit of one kind of operator file. */
export interface FileLimit {
  /** Largest size accepted, bytes. */
  readonly maxBytes: number;
  /** What the file is, for messages: "keys file". */
  readonly what: string;
  /** The setting that raises the limit, for messages; absent when the limit is fixed. */
  readonly setting?: string;
}

export class OperatorFileError extends Error {
  override name = "OperatorFileError";

  constructor(
    readonly reason: OperatorFileReason,
    readonly path: string,
    /** The problem in words, without the path: "the path is a FIFO (named pipe), not a regular file". */
    readonly problem: string,
    readonly details: {
      /** `not-a-file`: what the path is. */
      readonly kind?: Exclude<FileKind, "file">;
      /** `missing`, `io`: the error code (ENOENT, EACCES, ELOOP, ...). */
      readonly code?: string;
      /** `too-large`: the size seen (bytes), or null when the file grew while it was read. */
      readonly size?: number | null;
    } = {},
    options?: { cause?: unknown },
  ) {
    super(`${path}: ${problem}`, options);
  }
}

/** An operator file opened and checked: a regular file of at most the limit when it was opened. */
export interface OpenedOperatorFile {
  readonly fd: number;
  /** fstat of the descriptor at open. */
  readonly stats: Stats;
  readonly path: string;
  readonly limit: FileLimit;
  /** The whole file, read from its start (at most `limit.maxBytes`; more is a `too-large` refusal). */
  readAll(): Buffer;
  close(): void;
}

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | (constants.O_NOCTTY ?? 0);

/** Opens `path` under the rules above; throws OperatorFileError. The caller closes it. */
export function openOperatorFile(path: string, limit: FileLimit): OpenedOperatorFile {
  // Looked at before it is opened: opening a device can have effects of its own.
  let seen: Stats;
  try {
    seen = statSync(path);
  } catch (error) {
    throw ioError(path, error);
  }
  checkStats(path, seen, limit);
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (error) {
    throw ioError(path, error);
  }
  try {
    let stats: Stats;
    try {
      stats = fstatSync(fd);
    } catch (error) {
      throw ioError(path, error);
    }
    checkStats(path, stats, limit);
    const handle = fd;
    let closed = false;
    return {
      fd: handle,
      stats,
      path,
      limit,
      readAll: () => readAllBounded(handle, path, stats.size, limit),
      close() {
        if (closed) return;
        closed = true;
        closeSync(handle);
      },
    };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** Opens, reads whole and closes `path` under the rules above; throws OperatorFileError. */
export function readOperatorFile(path: string, limit: FileLimit): { bytes: Buffer; stats: Stats } {
  const file = openOperatorFile(path, limit);
  try {
    return { bytes: file.readAll(), stats: file.stats };
  } finally {
    file.close();
  }
}

/** `maxBytes` for a limit given in MiB. */
export function mebibytes(mb: number): number {
  return mb * 1024 * 1024;
}

/**
 * The limit of each kind of operator file, by default (docs/operator-files.md).
 * Keys, baskets and snapshot files have a setting that raises (or lowers) it;
 * a PEM certificate chain, key or CA bundle is a few KiB to a few hundred KiB.
 */
export const FILE_LIMITS = {
  keys: { maxBytes: mebibytes(16), what: "keys file", setting: "KEYS_FILE_MAX_MB" },
  baskets: { maxBytes: mebibytes(16), what: "baskets file", setting: "BASKETS_FILE_MAX_MB" },
  snapshot: { maxBytes: mebibytes(1024), what: "snapshot file", setting: "SNAPSHOT_FILE_MAX_MB" },
  tls: { maxBytes: mebibytes(1), what: "TLS file" },
} as const satisfies Record<string, FileLimit>;

/** The range (MiB) each limit's setting accepts. */
export const FILE_LIMIT_RANGE_MB = { keys: [1, 1024], baskets: [1, 1024], snapshot: [1, 16_384] } as const;

/** The limit of a kind with another size (a configured one). */
export function limitOf(kind: keyof typeof FILE_LIMITS, maxBytes: number = FILE_LIMITS[kind].maxBytes): FileLimit {
  return { ...FILE_LIMITS[kind], maxBytes };
}

function checkStats(path: string, stats: Stats, limit: FileLimit): void {
  const kind = fileKind(stats);
  if (kind !== "file") throw notAFile(path, kind);
  if (stats.size > limit.maxBytes) throw tooLarge(path, stats.size, limit);
}

/** Reads from offset 0 until the end, refusing the file once more than `limit.maxBytes` arrived. */
function readAllBounded(fd: number, path: string, sizeHint: number, limit: FileLimit): Buffer {
  const cap = limit.maxBytes + 1;
  let buffer = Buffer.allocUnsafe(Math.min(Math.max(sizeHint + 1, 4096), cap));
  let length = 0;
  for (;;) {
    if (length === buffer.length) {
      if (buffer.length >= cap) break;
      const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2, cap));
      buffer.copy(grown, 0, 0, length);
      buffer = grown;
    }
    let n: number;
    try {
      n = readSync(fd, buffer, length, buffer.length - length, length);
    } catch (error) {
      throw ioError(path, error);
    }
    if (n === 0) break;
    length += n;
  }
  if (length > limit.maxBytes) throw tooLarge(path, null, limit);
  return buffer.subarray(0, length);
}

function notAFile(path: string, kind: Exclude<FileKind, "file">): OperatorFileError {
  if (kind === "directory" && !isSymbolicLink(path))
    return new OperatorFileError("not-a-file", path, "the path is a directory, not a file (EISDIR)", { kind });
  const via = isSymbolicLink(path) ? "a symbolic link to " : "";
  return new OperatorFileError("not-a-file", path, `the path is ${via}${describeFileKind(kind)}, not a regular file`, { kind });
}

/** The refusal of a file over its limit; `size` null: it grew past the limit while it was read. */
export function tooLarge(path: string, size: number | null, limit: FileLimit): OperatorFileError {
  const allowed = `${limit.what === "" ? "the file" : `a ${limit.what}`} may have at most ${formatBytes(limit.maxBytes)}${limit.setting === undefined ? "" : ` (${limit.setting} raises it)`}`;
  const problem =
    size === null ? `the file grew past the limit while it was read; ${allowed}` : `the file has ${formatBytes(size)}; ${allowed}`;
  return new OperatorFileError("too-large", path, problem, { size });
}

function ioError(path: string, error: unknown): OperatorFileError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case "ENOENT":
      return new OperatorFileError(
        "missing",
        path,
        isSymbolicLink(path) ? "a symbolic link to nothing (ENOENT)" : "no such file (ENOENT)",
        { code },
        { cause: error },
      );
    case "ENOTDIR":
      return new OperatorFileError(
        "missing",
        path,
        "no such file: a part of the path is not a directory (ENOTDIR)",
        { code },
        { cause: error },
      );
    case "EACCES":
    case "EPERM":
      return new OperatorFileError("io", path, `permission denied (${code})`, { code }, { cause: error });
    case "ELOOP":
      return new OperatorFileError("io", path, "a symbolic link that loops (ELOOP)", { code }, { cause: error });
    case undefined: // not a system error: its own message
    default:
      return new OperatorFileError("io", path, error instanceof Error ? error.message : String(error), code === undefined ? {} : { code }, {
        cause: error,
      });
  }
}

function isSymbolicLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** "1 MiB", "1.5 MiB (1572864 bytes)", "512 bytes". */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const mib = bytes / (1024 * 1024);
  if (Number.isInteger(mib)) return `${mib} MiB`;
  const kib = bytes / 1024;
  if (Number.isInteger(kib) && kib < 1024) return `${kib} KiB`;
  return `${mib >= 0.1 ? mib.toFixed(1) : "<0.1"} MiB (${bytes} bytes)`;
}
