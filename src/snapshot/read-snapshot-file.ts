/**
 * One snapshot file on disk → its SHA-256 and a windowed reader of its bytes
 * (openSnapshotFile, what the build worker uses; readSnapshotBytes reads them
 * whole), then a validated snapshot with token defaults filled
 * (parseSnapshotBytes whole, openSnapshotSource one pool at a time).
 * Every failure is a SnapshotError (reasons `file-name`, `unsupported-chain`,
 * `not-a-file`, `too-large`, `io`, `decode`, `structure`, ...) carrying the file path in `error.file`.
 * Files are opened by the bounded operator-file reader (util/operator-file.ts):
 * without blocking, a regular file only, at most `maxBytes` (SNAPSHOT_FILE_MAX_MB).
 */
import { fstatSync, readSync } from "node:fs";
import { createHash, type Hash } from "node:crypto";
import { basename } from "node:path";
import { CHAINS, isSupportedChainId, NATIVE_ADDRESS, SUPPORTED_CHAIN_IDS_ASCENDING, type ChainId } from "../chains/chains.js";
import { decodeSnapshotBytes } from "./decode-snapshot.js";
import { SNAPSHOT_FILE_PATTERN, snapshotFileName, type SnapshotFile, type SnapshotToken } from "../api/snapshot-format.js";
import { DEFAULT_TOKEN_LOGO_TEMPLATE, fillTokenDefaultsInPlace, type NormalizedSnapshotToken } from "./normalize-token.js";
import { isSnapshotError, SnapshotError, type SnapshotErrorReason } from "./snapshot-error.js";
import { SnapshotChecker, validateSnapshot } from "./validate-snapshot.js";
import { poolArray, PoolStream, splitPools, type PoolSource, type SplitSnapshot } from "./pool-stream.js";
import { arraySource, FileSource, type ByteSource } from "./byte-source.js";
import { describeFileKind, FILE_LIMITS, OperatorFileError, openOperatorFile, tooLarge, type FileLimit } from "../util/operator-file.js";
import { unreachable } from "../util/unreachable.js";

/** A validated snapshot whose tokens all have normalizedSymbol, normalizedName and logoUrl. */
export type NormalizedSnapshotFile = Omit<SnapshotFile, "tokens"> & { tokens: NormalizedSnapshotToken[] };

/** The bytes of one snapshot file, as read in one pass. */
export interface SnapshotFileBytes {
  readonly chainId: ChainId;
  readonly bytes: Buffer;
  /** SHA-256 of the bytes (lowercase hex): the identity of the content. */
  readonly sha256: string;
  /** Modification time of the file read (ms since the epoch). */
  readonly mtimeMs: number;
}

export interface LoadedSnapshot {
  snapshot: NormalizedSnapshotFile;
  chainId: ChainId;
  /** Size of the file in bytes. */
  bytes: number;
  /** SHA-256 of the file's bytes (lowercase hex). */
  sha256: string;
  /** Modification time of the file read (ms since the epoch). */
  mtimeMs: number;
}

/**
 * The chain id named by a snapshot file name (`chain-8453.msgpack` → 8453; a
 * directory part is ignored). Throws `file-name` for any other name (leading
 * zeros included: `chain-01.msgpack`) and `unsupported-chain` for a chain the
 * gateway does not serve.
 */
export function chainIdFromSnapshotFileName(fileName: string): ChainId {
  const name = basename(fileName);
  const match = SNAPSHOT_FILE_PATTERN.exec(name);
  const chainId = match ? Number(match[1]) : NaN;
  if (!match || !Number.isSafeInteger(chainId) || snapshotFileName(chainId) !== name) {
    throw new SnapshotError("file-name", `${name}: not a snapshot file name, expected chain-<chainId>.msgpack (e.g. chain-8453.msgpack)`);
  }
  if (!isSupportedChainId(chainId)) {
    throw new SnapshotError(
      "unsupported-chain",
      `${name}: chain ${chainId} is not a supported chain (supported: ${SUPPORTED_CHAIN_IDS_ASCENDING.join(", ")})`,
    );
  }
  return chainId;
}

/**
 * Decodes and validates the bytes of the file of chain `fileChainId`, then fills
 * token defaults (in place: the decoded object belongs to the caller). The
 * native asset (zero address) always carries the chain's native symbol, name
 * and 18 decimals (api-decisions.md §4).
 */
export function parseSnapshotBytes(
  bytes: Uint8Array,
  fileChainId: ChainId,
  logoTemplate: string = DEFAULT_TOKEN_LOGO_TEMPLATE,
): NormalizedSnapshotFile {
  const snapshot = validateSnapshot(decodeSnapshotBytes(bytes), fileChainId);
  return normalizeTokens(snapshot, fileChainId, logoTemplate);
}

/** A snapshot whose pools are still to be read (see pool-stream.ts). */
export interface OpenedSnapshot {
  /** Everything but the pools, validated, token defaults filled; `pools` is empty. */
  readonly snapshot: NormalizedSnapshotFile;
  readonly pools: PoolSource;
  /**
   * The file's split and the checker of its pools, when its pools are read one at a time (null when the file
   * was decoded whole): with them a range of the pools can be read elsewhere (compile-pool-range.ts).
   */
  readonly split: { readonly layout: SplitSnapshot; readonly checker: SnapshotChecker } | null;
}

/** A split file's top level (its pools left out): validated, token defaults filled, and the checker of its pools. */
export function openSnapshotHeader(
  header: Uint8Array,
  fileChainId: ChainId,
  logoTemplate: string,
): { snapshot: NormalizedSnapshotFile; checker: SnapshotChecker } {
  const raw = decodeSnapshotBytes(header);
  const checker = new SnapshotChecker(raw, fileChainId);
  return { snapshot: normalizeTokens(raw as SnapshotFile, fileChainId, logoTemplate), checker };
}

/**
 * The same checks as parseSnapshotBytes, but the pools are decoded and
 * validated one at a time as the caller takes them (a pool's error is thrown
 * then), so a build never holds the whole decoded file. The bytes must stay
 * unchanged until every pool is taken.
 */
export function openSnapshotBytes(
  bytes: Uint8Array,
  fileChainId: ChainId,
  logoTemplate: string = DEFAULT_TOKEN_LOGO_TEMPLATE,
): OpenedSnapshot {
  return openSnapshotSource(arraySource(bytes), fileChainId, logoTemplate);
}

/** openSnapshotBytes over bytes in memory or read from the file through a window (openSnapshotFile). */
export function openSnapshotSource(
  bytes: ByteSource,
  fileChainId: ChainId,
  logoTemplate: string = DEFAULT_TOKEN_LOGO_TEMPLATE,
): OpenedSnapshot {
  return openSplitSource(bytes, bytes.length === 0 ? null : splitPools(bytes), fileChainId, logoTemplate);
}

/**
 * openSnapshotSource's second step, given its first (`splitPools` of these bytes, or null for none): a caller
 * can hand the split's pools to another thread before the top level is read here.
 */
export function openSplitSource(
  bytes: ByteSource,
  split: SplitSnapshot | null,
  fileChainId: ChainId,
  logoTemplate: string = DEFAULT_TOKEN_LOGO_TEMPLATE,
): OpenedSnapshot {
  if (split === null) {
    const whole = parseSnapshotBytes(bytes.view(0, bytes.length), fileChainId, logoTemplate);
    const pools = poolArray(whole.pools);
    return { snapshot: { ...whole, pools: [] }, pools, split: null };
  }
  const { snapshot, checker } = openSnapshotHeader(split.header, fileChainId, logoTemplate);
  return { snapshot, pools: new PoolStream(bytes, split, checker), split: { layout: split, checker } };
}

function normalizeTokens(snapshot: SnapshotFile, fileChainId: ChainId, logoTemplate: string): NormalizedSnapshotFile {
  const tokens = snapshot.tokens;
  for (let i = 0; i < tokens.length; i++) normalizeToken(tokens[i], fileChainId, logoTemplate);
  return snapshot as NormalizedSnapshotFile;
}

/**
 * A validated token as the gateway serves it (in place): the native asset (zero address) always carries the
 * chain's native symbol, name and 18 decimals (api-decisions.md §4), and the defaults are filled.
 */
export function normalizeToken(token: SnapshotToken, fileChainId: ChainId, logoTemplate: string): NormalizedSnapshotToken {
  if (token.address === NATIVE_ADDRESS) {
    const chain = CHAINS[fileChainId];
    token.symbol = chain.nativeSymbol;
    token.name = chain.nativeName;
    token.decimals = 18;
  }
  return fillTokenDefaultsInPlace(token, fileChainId, logoTemplate);
}

/**
 * The bytes of one `chain-<chainId>.msgpack` file and their SHA-256, read by
 * the same reader the build worker uses (openSnapshotFile: opened without
 * blocking, a regular file only, hashed in one pass), then read whole.
 */
export async function readSnapshotBytes(path: string, maxBytes: number = FILE_LIMITS.snapshot.maxBytes): Promise<SnapshotFileBytes> {
  const file = openSnapshotFile(path, maxBytes);
  try {
    const whole = file.source.view(0, file.source.length);
    return {
      chainId: file.chainId,
      bytes: Buffer.from(whole.buffer, whole.byteOffset, whole.length),
      sha256: file.hash(),
      mtimeMs: file.mtimeMs,
    };
  } finally {
    file.close();
  }
}

/** Reads, decodes and validates one `chain-<chainId>.msgpack` file. */
export async function readSnapshotFile(
  path: string,
  logoTemplate: string = DEFAULT_TOKEN_LOGO_TEMPLATE,
  maxBytes: number = FILE_LIMITS.snapshot.maxBytes,
): Promise<LoadedSnapshot> {
  const read = await readSnapshotBytes(path, maxBytes);
  try {
    const snapshot = parseSnapshotBytes(read.bytes, read.chainId, logoTemplate);
    return { snapshot, chainId: read.chainId, bytes: read.bytes.length, sha256: read.sha256, mtimeMs: read.mtimeMs };
  } catch (error) {
    if (error instanceof SnapshotError) error.file ??= path;
    throw error;
  }
}

/**
 * The hash pass reads the file in pieces this large into one reused buffer: one that stays in the core's cache. On the
 * 2-core AMD EPYC VM, 248 MB hashed in 128 KiB pieces read in 36-50 ms (SHA-256 160 ms), in 4 MiB pieces 113-170 ms
 * (bench/RESULTS.md, issue 30).
 */
const HASH_CHUNK_BYTES = 128 << 10;

/** A snapshot file opened for a build that reads it through a window (see byte-source.ts). */
export interface OpenSnapshotFile {
  readonly chainId: ChainId;
  readonly mtimeMs: number;
  readonly source: FileSource;
  /** The open file (valid until `close`): another thread of this process may read it meanwhile (compile-pool-range.ts). */
  readonly fd: number;
  /**
   * SHA-256 of the file's bytes (lowercase hex), from a pass over all of them: made when the file is opened
   * (`hash: "now"`), or on the first call (`"later"`: a build frames the file first, and the framing reads hash it as
   * they go, so the call reads only what they skipped; docs/decisions/013-incremental-builds.md). A file
   * whose length then differs from the length it was opened with was written meanwhile: an `io` rejection.
   */
  hash(): string;
  /** Whether `hash` reads the file (false: it was hashed as it was opened); another thread may make it instead (hashOpenFile). */
  readonly hashLater: boolean;
  /** True when the file's size, mtime or ctime differ from when it was opened (written in place meanwhile). */
  changedSinceOpen(): boolean;
  close(): void;
}

/** When openSnapshotFile hashes the file: as it opens it, or when asked (OpenSnapshotFile.hash). */
export type HashWhen = "now" | "later";

/**
 * Opens `chain-<chainId>.msgpack` through the bounded operator-file reader
 * (without blocking: a FIFO at the name must not hang the build; a regular
 * file only, after following links; at most `maxBytes`), and hashes it in one
 * streaming pass that stops past `maxBytes` (a file that grows while it is
 * read, or whose size stat does not tell, such as a /proc file: such a file is
 * always hashed as it is opened, the pass finding its length); its bytes are
 * then read again, through a window, as the build needs them. With `hash`
 * "later" a file whose size stat tells is hashed when first asked. Errors are
 * SnapshotErrors (`file-name`, `unsupported-chain`, `not-a-file`, `too-large`,
 * `io`) carrying the path.
 */
export function openSnapshotFile(
  path: string,
  maxBytes: number = FILE_LIMITS.snapshot.maxBytes,
  when: HashWhen = "now",
  hashedElsewhere: () => boolean = () => false,
): OpenSnapshotFile {
  const name = basename(path);
  const limit: FileLimit = { ...FILE_LIMITS.snapshot, maxBytes };
  let file: ReturnType<typeof openOperatorFile> | null = null;
  try {
    const chainId = chainIdFromSnapshotFileName(path);
    file = openOperatorFile(path, limit);
    const opened = file.stats;
    const handle = file.fd;
    // A size the stat does not tell (0: an empty file, or a /proc file) is found by a hash pass of its own.
    const early = when === "now" || opened.size === 0 ? hashFile(handle, path, limit) : null; // refused by the catch below
    const length = early?.length ?? opened.size;
    const source = new FileSource(handle, length, name);
    // Otherwise the reads that frame the file hash it as they go (FileSource.hashAlong): `hash` reads what they skipped.
    // They stop once `hashedElsewhere` holds (another thread hashes the file: hashOpenFile).
    if (early === null) source.hashAlong(createHash("sha256"), hashedElsewhere);
    let sha256 = early?.sha256 ?? null;
    const close = file.close;
    return {
      chainId,
      mtimeMs: opened.mtimeMs,
      source,
      fd: handle,
      hash() {
        sha256 ??= hashRest(handle, path, limit, length, source.stopHashing());
        return sha256;
      },
      hashLater: early === null,
      changedSinceOpen() {
        const now = statOf(handle, name);
        return now.size !== opened.size || now.mtimeMs !== opened.mtimeMs || now.ctimeMs !== opened.ctimeMs;
      },
      close,
    };
  } catch (error) {
    file?.close();
    throw rejectionOf(error, name, path);
  }
}

/** What another thread needs to hash a file opened here (same process: the descriptor is valid there until closed). */
export interface FileHashJob {
  readonly fd: number;
  readonly path: string;
  /** Its length when it was opened. */
  readonly length: number;
  readonly maxBytes: number;
}

/** A file's SHA-256 (lowercase hex), or why it is refused (OpenSnapshotFile.hash's SnapshotError, as a value). */
export type FileHash =
  { readonly sha256: string } | { readonly refused: { readonly reason: SnapshotErrorReason; readonly message: string } };

/**
 * OpenSnapshotFile.hash made on another thread (the chain's helper, while the chain's thread frames the file): the
 * same pass and the same refusals. `stop` is asked before each piece (the answer of a stopped pass is `io`).
 */
export function hashOpenFile(job: FileHashJob, stop: () => boolean = () => false): FileHash {
  try {
    return { sha256: hashRest(job.fd, job.path, { ...FILE_LIMITS.snapshot, maxBytes: job.maxBytes }, job.length, null, stop) };
  } catch (error) {
    if (!isSnapshotError(error)) throw error;
    return { refused: { reason: error.reason, message: error.message } };
  }
}

/** A FileHash's SHA-256, or its refusal thrown (carrying the path). */
export function fileHashOf(hashed: FileHash, path: string): string {
  if ("sha256" in hashed) return hashed.sha256;
  throw new SnapshotError(hashed.refused.reason, hashed.refused.message, { file: path });
}

/**
 * The SHA-256 of a file opened with `length` bytes, hashed from `along` (bytes [0, along.hashed) already, or none):
 * `io` when it has another length now (written meanwhile).
 */
function hashRest(
  fd: number,
  path: string,
  limit: FileLimit,
  length: number,
  along: { hash: Hash; hashed: number } | null,
  stop: () => boolean = () => false,
): string {
  const name = basename(path);
  const read = hashOrRefuse(() => hashFile(fd, path, limit, along?.hash, along?.hashed, stop), name, path);
  if (read.length !== length) {
    throw new SnapshotError(
      "io",
      `${name}: the file was written while it was read (${read.length} bytes hashed of the ${length} it had when opened); it is read again on the next scan`,
    );
  }
  return read.sha256;
}

function hashOrRefuse(pass: () => { sha256: string; length: number }, name: string, path: string): { sha256: string; length: number } {
  try {
    return pass();
  } catch (error) {
    throw rejectionOf(error, name, path);
  }
}

/** An error of opening or hashing the file in the snapshot's terms, carrying the path. */
function rejectionOf(error: unknown, name: string, path: string): unknown {
  const rejection = error instanceof OperatorFileError ? refusal(name, error) : error;
  if (rejection instanceof SnapshotError) rejection.file ??= path;
  return rejection;
}

/**
 * SHA-256 and length of the file's bytes, read to its end, at most `limit.maxBytes` (more is `too-large`); `hash`
 * holds bytes [0, from) already.
 */
function hashFile(
  fd: number,
  path: string,
  limit: FileLimit,
  hash = createHash("sha256"),
  from = 0,
  stop: () => boolean = () => false,
): { sha256: string; length: number } {
  const chunk = Buffer.allocUnsafe(HASH_CHUNK_BYTES);
  let length = from;
  for (;;) {
    if (stop()) throw new SnapshotError("io", `${basename(path)}: hashing stopped (the build ended)`);
    let n: number;
    try {
      // One byte past the limit at most: enough to know the file is over it.
      n = readSync(fd, chunk, 0, Math.min(chunk.length, limit.maxBytes + 1 - length), length);
    } catch (error) {
      throw ioError(path, error);
    }
    if (n === 0) break;
    hash.update(chunk.subarray(0, n));
    length += n;
    if (length > limit.maxBytes) throw tooLarge(path, null, limit); // it grew while it was read
  }
  return { sha256: hash.digest("hex"), length };
}

/** A refusal of the operator-file reader in the snapshot's terms (the messages of docs/snapshot-format.md). */
function refusal(name: string, error: OperatorFileError): SnapshotError {
  switch (error.reason) {
    case "not-a-file":
      return new SnapshotError("not-a-file", `${name}: ${describeFileKind(error.details.kind ?? "device")}, not a regular file`, {
        cause: error,
      });
    case "too-large":
      return new SnapshotError("too-large", `${name}: ${error.problem}`, { cause: error });
    case "io":
    case "missing":
      return ioError(name, error.cause ?? error);
    default:
      return unreachable(error.reason, "operator-file refusal");
  }
}

function statOf(fd: number, name: string) {
  try {
    return fstatSync(fd);
  } catch (error) {
    throw ioError(name, error);
  }
}

function ioError(path: string, error: unknown): SnapshotError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const detail = code ?? (error instanceof Error ? error.message : String(error));
  return new SnapshotError("io", `${basename(path)}: cannot read the file (${detail})`, { cause: error });
}
