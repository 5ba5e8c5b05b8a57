/**
 * `liquidity-gateway publish` (fleet.md §21): the one way an operator publishes a generation. It hashes
 * the directory's operator files (every `chain-<id>.msgpack`, and `baskets.json` and `keys.json` when
 * present or named), uploads the objects the origin lacks under content keys, then writes the generation:
 * `manifests/<n>.json` created only if absent (the claim on generation n where writes are conditional),
 * the signature, and `manifest.json` last (replacing only the version read). Publishing the same files
 * again writes nothing. `--prune N` deletes the objects no manifest of the last N generations names.
 */
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import type { KeyObject } from "node:crypto";
import { isSupportedChainId } from "../chains/chains.js";
import { SNAPSHOT_FILE_PATTERN } from "../api/snapshot-format.js";
import { hashFile } from "./local-copy.js";
import {
  contentKey,
  MANIFEST_NAME,
  parseManifest,
  serializeManifest,
  SIGNATURE_NAME,
  type KindLimits,
  type ManifestEntry,
  type OriginManifest,
} from "./manifest.js";
import { signManifest } from "./manifest-signature.js";
import { PublishError, type OriginWriter } from "./origin-writer.js";

export interface PublishOptions {
  readonly from: string;
  /** The baskets file (default: `baskets.json` in `from`, when there). */
  readonly basketsFile: string | null;
  /** The keys file (default: `keys.json` in `from`, when there). */
  readonly keysFile: string | null;
  readonly writer: OriginWriter;
  readonly sign: { readonly key: KeyObject; readonly keyId: string } | null;
  /** Each manifest expires this long after it is published (s); a manifest past half of it is renewed. */
  readonly expiresInSeconds: number | null;
  /** Keep the objects of this many generations and delete the others. */
  readonly prune: number | null;
  readonly limits: KindLimits;
  readonly now: () => number;
  /** Tells the fleet (Redis); resolves with how many instances heard it. */
  readonly poke: ((generation: number) => Promise<number>) | null;
  readonly say: (line: string) => void;
}

export interface PublishResult {
  readonly generation: number;
  /** A new generation was written. */
  readonly published: boolean;
  readonly uploaded: number;
  readonly pruned: number;
}

interface LocalFile {
  readonly entry: ManifestEntry;
  readonly path: string;
}

export const historyKey = (generation: number) => `manifests/${generation}.json`;

export async function publish(options: PublishOptions): Promise<PublishResult> {
  const { writer, say } = options;
  const files = await localFiles(options);
  const current = await writer.read(MANIFEST_NAME);
  const currentManifest = current === null ? null : readCurrent(current.bytes, options.limits);
  const generation = (currentManifest?.generation ?? 0) + 1;
  if (currentManifest !== null && sameFiles(currentManifest.files, files) && !needsRenewal(currentManifest, options)) {
    say(`${writer.display}: generation ${currentManifest.generation} already holds these ${files.length} files; nothing published`);
    const pruned = options.prune === null ? 0 : await prune(writer, currentManifest.generation, options.prune, say);
    return { generation: currentManifest.generation, published: false, uploaded: 0, pruned };
  }
  let uploaded = 0;
  for (const { entry, path } of files) {
    if (await writer.exists(entry.key)) continue;
    // Content-addressed: a failed create-only write means the same bytes are there already.
    await writer.put(entry.key, { file: path, size: entry.size }, { ifNoneMatch: "*" });
    uploaded++;
    say(`uploaded ${entry.key} (${entry.size} bytes)`);
  }
  const manifest: OriginManifest = {
    schema: 1,
    generation,
    publishedAt: new Date(options.now()).toISOString(),
    ...(options.expiresInSeconds === null ? {} : { expires: new Date(options.now() + options.expiresInSeconds * 1000).toISOString() }),
    files: files.map((f) => f.entry),
  };
  const bytes = serializeManifest(manifest);
  if (!(await writer.put(historyKey(generation), bytes, { ifNoneMatch: "*" })))
    throw new PublishError(
      `generation ${generation} is taken: ${historyKey(generation)} exists at the origin (another publisher is publishing it, or a publish ` +
        `was interrupted: when no other one runs, delete ${historyKey(generation)} at the origin and publish again)`,
    );
  if (options.sign !== null) await writer.put(SIGNATURE_NAME, signManifest(bytes, options.sign.key, options.sign.keyId), null);
  const condition = current === null ? ({ ifNoneMatch: "*" } as const) : current.etag === null ? null : { ifMatch: current.etag };
  if (!(await writer.put(MANIFEST_NAME, bytes, condition)))
    throw new PublishError(`${MANIFEST_NAME} changed while generation ${generation} was published (another publisher won); publish again`);
  await distinctEtag(writer, bytes, current?.etag ?? null, say);
  if (options.sign === null && (await writer.exists(SIGNATURE_NAME))) await writer.remove(SIGNATURE_NAME);
  say(
    `${writer.display}: published generation ${generation} (${files.length} files, ${uploaded} uploaded${options.sign === null ? "" : `, signed by ${options.sign.keyId}`})`,
  );
  if (options.poke !== null) {
    const heard = await options.poke(generation).catch((error: Error) => {
      say(`warning: the poke through Redis failed (${error.message}); instances pick the generation up on their next poll`);
      return null;
    });
    if (heard !== null) say(`poked the fleet through Redis (${heard} instances listening)`);
  }
  const pruned = options.prune === null ? 0 : await prune(writer, generation, options.prune, say);
  return { generation, published: true, uploaded, pruned };
}

/** How long a server whose ETags are a modification time in seconds and a size may take to give a new one. */
const ETAG_SECOND_MS = 1100;

/**
 * Instances poll with If-None-Match, and some servers' ETags are the file's modification time in whole seconds and
 * its size (nginx, Apache): a manifest of the same size written within the same second as the one before gets the
 * same ETag, and instances would be answered 304 until the next generation. So the new manifest's ETag is read
 * back; while it equals the old one, the manifest is written again a second later.
 */
async function distinctEtag(writer: OriginWriter, bytes: Buffer, previous: string | null, say: (line: string) => void): Promise<void> {
  if (previous === null) return;
  for (let attempt = 0; attempt < 3; attempt++) {
    const written = await writer.read(MANIFEST_NAME);
    if (written === null || written.etag !== previous || !written.bytes.equals(bytes)) return;
    say(`the origin gave ${MANIFEST_NAME} its previous ETag (a time in seconds and a size); writing it again a second later`);
    await new Promise((resolve) => setTimeout(resolve, ETAG_SECOND_MS));
    await writer.put(MANIFEST_NAME, bytes, { ifMatch: written.etag });
  }
}

function readCurrent(bytes: Buffer, limits: KindLimits): OriginManifest {
  try {
    return parseManifest(bytes, limits);
  } catch (error) {
    throw new PublishError(
      `the origin's ${MANIFEST_NAME} cannot be read (${(error as Error).message}); fix or remove it before publishing`,
    );
  }
}

/** The operator files of the directory, hashed. */
async function localFiles(options: PublishOptions): Promise<LocalFile[]> {
  const names = await readdir(options.from).catch((error: NodeJS.ErrnoException) => {
    throw new PublishError(`cannot read ${options.from} (${error.code ?? error.message})`);
  });
  const files: LocalFile[] = [];
  const add = async (kind: ManifestEntry["kind"], path: string, chainId?: number) => {
    const size = (await stat(path)).size;
    const limit = options.limits[kind];
    if (size > limit) throw new PublishError(`${path} is ${size} bytes, over the ${limit}-byte limit of a ${kind} file`);
    const sha256 = await hashFile(path);
    const key = contentKey(kind, sha256, chainId);
    const entry: ManifestEntry = kind === "chain" ? { kind, chainId: chainId!, key, sha256, size } : { kind, key, sha256, size };
    files.push({ entry, path });
  };
  for (const name of names.sort()) {
    const match = SNAPSHOT_FILE_PATTERN.exec(name);
    if (match === null) continue;
    const chainId = Number(match[1]);
    if (!isSupportedChainId(chainId)) throw new PublishError(`${name}: chain ${chainId} is not supported`);
    await add("chain", join(options.from, name), chainId);
  }
  const optionalFile = (named: string | null, fallback: string) =>
    named ?? (names.includes(fallback) ? join(options.from, fallback) : null);
  const baskets = optionalFile(options.basketsFile, "baskets.json");
  const keys = optionalFile(options.keysFile, "keys.json");
  if (baskets !== null) await add("baskets", baskets);
  if (keys !== null) await add("keys", keys);
  if (files.length === 0) throw new PublishError(`${options.from} holds no chain-<id>.msgpack, baskets.json or keys.json`);
  return files;
}

function identity(entry: ManifestEntry): string {
  return `${entry.kind}:${entry.kind === "chain" ? entry.chainId : ""}:${entry.sha256}:${entry.size}`;
}

function sameFiles(entries: readonly ManifestEntry[], files: readonly LocalFile[]): boolean {
  const a = entries.map(identity).sort();
  const b = files.map((f) => identity(f.entry)).sort();
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** With --expires-in: a manifest without `expires`, or past half of its life, is published again. */
function needsRenewal(manifest: OriginManifest, options: PublishOptions): boolean {
  if (options.expiresInSeconds === null) return false;
  if (manifest.expires === undefined) return true;
  return Date.parse(manifest.expires) - options.now() < (options.expiresInSeconds * 1000) / 2;
}

/** Deletes the objects no manifest of the last `keep` generations names, and the older manifests. */
async function prune(writer: OriginWriter, generation: number, keep: number, say: (line: string) => void): Promise<number> {
  const kept = new Set<string>();
  for (let g = generation; g > generation - keep && g >= 1; g--) {
    const record = await writer.read(historyKey(g));
    if (record !== null) for (const entry of JSON.parse(record.bytes.toString("utf8")).files as ManifestEntry[]) kept.add(entry.key);
  }
  const removed = new Set<string>();
  for (let g = generation - keep; g >= 1; g--) {
    const record = await writer.read(historyKey(g));
    if (record === null) break; // pruned before
    for (const entry of JSON.parse(record.bytes.toString("utf8")).files as ManifestEntry[]) {
      if (kept.has(entry.key) || removed.has(entry.key)) continue;
      await writer.remove(entry.key);
      removed.add(entry.key);
    }
    await writer.remove(historyKey(g));
  }
  say(`pruned ${removed.size} objects no manifest of the last ${keep} generations names`);
  return removed.size;
}
