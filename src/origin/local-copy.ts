/**
 * The instance's copy of its origin (fleet.md §19): the snapshot directory holds the last accepted
 * manifest (exact bytes), its signature, its ETag and generation (`.origin/` in the directory), and its
 * files under their live names. At start the files are hashed again against that manifest; while running,
 * LocalFiles remembers which verified bytes each live name holds, so a poll fetches only what changed.
 * Writes are atomic (temporary file, fsync, rename, fsync of the directory): a crash leaves the old state
 * or the new one.
 */
import { createHash, randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, open, readFile, rename, stat, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import typia, { type tags } from "typia";
import type { ManifestEntry } from "./manifest.js";

export const LOCAL_COPY_DIR = ".origin";

export interface LocalState {
  schema: 1;
  generation: number & tags.Type<"uint64"> & tags.Minimum<1>;
  manifestSha256: string & tags.Pattern<"^[0-9a-f]{64}$">;
  /** The manifest's ETag, sent as If-None-Match; null after a failed or refused generation (the next poll reads it in full). */
  etag: (string & tags.MaxLength<1024>) | null;
  lastModified: (string & tags.MaxLength<128>) | null;
  acceptedAt: string & tags.Format<"date-time">;
}

const validateState = typia.createValidateEquals<LocalState>();

export interface LocalCopy {
  readonly state: LocalState;
  readonly manifest: Buffer;
  readonly signature: Buffer | null;
}

/** Where each kind of file lives on this instance. */
export interface LivePaths {
  readonly snapshotDir: string;
  readonly basketsFile: string;
  /** API_KEYS_FILE; null when it is not set (the bundled sample is never overwritten). */
  readonly keysFile: string | null;
}

/** The live path of an entry, or null when this instance has nowhere to put it (keys without API_KEYS_FILE). */
export function livePathOf(entry: ManifestEntry, paths: LivePaths): string | null {
  if (entry.kind === "chain") return join(paths.snapshotDir, `chain-${entry.chainId}.msgpack`);
  if (entry.kind === "baskets") return paths.basketsFile;
  return paths.keysFile;
}

const copyPath = (dir: string, name: string) => join(dir, LOCAL_COPY_DIR, name);

/** The copy in `dir`, null when there is none; throws when it is there but unreadable or inconsistent. */
export async function readLocalCopy(dir: string): Promise<LocalCopy | null> {
  let stateText: string;
  try {
    stateText = await readFile(copyPath(dir, "state.json"), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  const checked = validateState(JSON.parse(stateText));
  if (!checked.success) throw new Error(`${LOCAL_COPY_DIR}/state.json is not a state this gateway writes (${checked.errors[0].path})`);
  const manifest = await readFile(copyPath(dir, "manifest.json"));
  if (createHash("sha256").update(manifest).digest("hex") !== checked.data.manifestSha256)
    throw new Error(`${LOCAL_COPY_DIR}/manifest.json does not match ${LOCAL_COPY_DIR}/state.json`);
  const signature = await readFile(copyPath(dir, "manifest.json.sig")).catch(() => null);
  return { state: checked.data, manifest, signature };
}

/** Saves a newly accepted manifest and its state (the state last). */
export async function writeLocalCopy(dir: string, copy: LocalCopy): Promise<void> {
  await mkdir(join(dir, LOCAL_COPY_DIR), { recursive: true });
  if (copy.signature === null) await unlink(copyPath(dir, "manifest.json.sig")).catch(() => {});
  else await writeAtomically(copyPath(dir, "manifest.json.sig"), copy.signature);
  await writeAtomically(copyPath(dir, "manifest.json"), copy.manifest);
  await writeState(dir, copy.state);
}

/** Saves the state alone (a new ETag, or the ETag cleared). */
export async function writeState(dir: string, state: LocalState): Promise<void> {
  await mkdir(join(dir, LOCAL_COPY_DIR), { recursive: true });
  await writeAtomically(copyPath(dir, "state.json"), Buffer.from(`${JSON.stringify(state)}\n`));
}

/** Writes `bytes` to `path` through a temporary file, fsync and rename, then fsyncs the directory. */
export async function writeAtomically(path: string, bytes: Buffer): Promise<void> {
  const temporary = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  const handle = await open(temporary, "wx", 0o644);
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temporary, path);
  } catch (error) {
    await unlink(temporary).catch(() => {});
    throw error;
  }
  await syncDirectory(dirname(path));
}

/** fsync of a directory (a rename in it is then durable). */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** SHA-256 of a file, streamed. */
export function hashFile(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash("sha256");
    createReadStream(path)
      .on("data", (chunk) => hash.update(chunk))
      .on("error", reject)
      .on("end", () => resolve(hash.digest("hex")));
  });
}

interface Held {
  readonly sha256: string;
  readonly size: number;
  readonly mtimeMs: number;
  readonly ino: number;
}

/**
 * Which verified bytes each live path holds: recorded when a file is renamed into place or hashed at
 * start, and trusted while the path's size, mtime and inode are unchanged (anything else at the path is
 * fetched again).
 */
export class LocalFiles {
  private readonly held = new Map<string, Held>();

  async record(path: string, sha256: string): Promise<void> {
    const s = await stat(path);
    this.held.set(path, { sha256, size: s.size, mtimeMs: s.mtimeMs, ino: s.ino });
  }

  forget(path: string): void {
    this.held.delete(path);
  }

  /** Whether `path` holds these bytes now. */
  async holds(path: string, sha256: string): Promise<boolean> {
    const h = this.held.get(path);
    if (h === undefined || h.sha256 !== sha256) return false;
    const s = await stat(path).catch(() => null);
    return s !== null && s.size === h.size && s.mtimeMs === h.mtimeMs && s.ino === h.ino;
  }

  /** Hashes `path` (start-up): true and recorded when it holds `sha256`. */
  async verify(path: string, sha256: string): Promise<boolean> {
    const actual = await hashFile(path).catch(() => null);
    if (actual !== sha256) return false;
    await this.record(path, sha256);
    return true;
  }
}
