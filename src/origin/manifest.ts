/**
 * The manifest (fleet.md §17): one small JSON file at the origin prefix, `manifest.json`, names a
 * generation: its number, when it was published, optionally when it expires, and every file of the
 * fleet's state (chain files, baskets, keys) by content-addressed key, SHA-256 and size. It is written
 * last by `publish`, read first by an instance; the one type of it is OriginManifest (typia checks it,
 * unknown properties refused: it is a contract between two programs we own), and parseManifest adds the
 * rules a type cannot say. Every refusal is a ManifestError with a code status and logs show.
 */
import typia, { type tags } from "typia";
import { isSupportedChainId, SUPPORTED_CHAIN_IDS_ASCENDING } from "../chains/chains.js";

/** Largest manifest read (bytes); a larger one is refused. */
export const MANIFEST_MAX_BYTES = 1 << 20;
export const MANIFEST_NAME = "manifest.json";
export const SIGNATURE_NAME = "manifest.json.sig";

type Sha256Hex = string & tags.Pattern<"^[0-9a-f]{64}$">;
type IsoTime = string & tags.Format<"date-time">;
/** Checked further by checkKey (segments, content address). */
type ObjectKey = string & tags.MinLength<1> & tags.MaxLength<512>;
type Size = number & tags.Type<"uint64">;

export interface ChainEntry {
  kind: "chain";
  chainId: number & tags.Type<"uint32">;
  key: ObjectKey;
  sha256: Sha256Hex;
  size: Size;
}

export interface BasketsEntry {
  kind: "baskets";
  key: ObjectKey;
  sha256: Sha256Hex;
  size: Size;
}

/** The keys file of keys-file.md (hashes only, never a key). */
export interface KeysEntry {
  kind: "keys";
  key: ObjectKey;
  sha256: Sha256Hex;
  size: Size;
}

export type ManifestEntry = ChainEntry | BasketsEntry | KeysEntry;
export type ManifestFileKind = ManifestEntry["kind"];

export interface OriginManifest {
  schema: 1;
  /** Higher than every generation before it. */
  generation: number & tags.Type<"uint64"> & tags.Minimum<1>;
  publishedAt: IsoTime;
  /** After this (plus ORIGIN_MAX_SKEW_S) the manifest is refused: a frozen origin is noticed. */
  expires?: IsoTime;
  files: ManifestEntry[];
}

const validateManifest = typia.createValidateEquals<OriginManifest>();

export type ManifestProblem =
  "manifest-too-large" | "malformed-manifest" | "unsupported-chain" | "duplicate-file" | "bad-key" | "file-too-large";

export class ManifestError extends Error {
  override name = "ManifestError";
  constructor(
    readonly code: ManifestProblem,
    message: string,
  ) {
    super(message);
  }
}

/** Largest file of each kind (SNAPSHOT_FILE_MAX_MB, BASKETS_FILE_MAX_MB, KEYS_FILE_MAX_MB). */
export type KindLimits = Readonly<Record<ManifestFileKind, number>>;

/** A key: segments of A-Z a-z 0-9 . _ ~ -, none `.` or `..`; so never absolute, never a scheme, never escaping the prefix. */
const KEY_SEGMENT = /^[A-Za-z0-9._~-]+$/;

/** The manifest in `bytes`, checked; throws ManifestError. */
export function parseManifest(bytes: Buffer, limits: KindLimits): OriginManifest {
  if (bytes.length > MANIFEST_MAX_BYTES)
    throw new ManifestError("manifest-too-large", `the manifest is larger than ${MANIFEST_MAX_BYTES} bytes (1 MiB)`);
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch (error) {
    throw new ManifestError("malformed-manifest", `the manifest is not UTF-8 JSON: ${(error as Error).message}`);
  }
  const checked = validateManifest(value);
  if (!checked.success) {
    const first = checked.errors[0];
    const path = first.path.replace(/^\$input/, "manifest");
    const unknown = first.expected === "undefined";
    throw new ManifestError(
      "malformed-manifest",
      unknown ? `${path} is not a property of a manifest (schema 1)` : `${path} must be ${first.expected}`,
    );
  }
  const manifest = checked.data;
  const seen = new Set<string>();
  for (const entry of manifest.files) {
    const name = entryName(entry);
    if (entry.kind === "chain" && !isSupportedChainId(entry.chainId))
      throw new ManifestError(
        "unsupported-chain",
        `chain ${entry.chainId} is not supported (supported: ${SUPPORTED_CHAIN_IDS_ASCENDING.join(", ")})`,
      );
    if (seen.has(name)) throw new ManifestError("duplicate-file", `the manifest names ${name} twice`);
    seen.add(name);
    checkKey(entry);
    if (entry.size > limits[entry.kind])
      throw new ManifestError(
        "file-too-large",
        `${name} is ${entry.size} bytes, over the limit of ${limits[entry.kind]} bytes for a ${entry.kind} file`,
      );
  }
  return manifest;
}

/** "chain 8453", "baskets", "keys": what messages and `partial` call an entry. */
export function entryName(entry: ManifestEntry): string {
  return entry.kind === "chain" ? `chain ${entry.chainId}` : entry.kind;
}

function checkKey(entry: ManifestEntry): void {
  const { key } = entry;
  const segments = key.split("/");
  const plain = segments.every((s) => KEY_SEGMENT.test(s) && s !== "." && s !== "..");
  if (!plain)
    throw new ManifestError(
      "bad-key",
      `the key of ${entryName(entry)} ("${key.slice(0, 100)}") is not a relative path of plain segments (absolute, \`..\`, a scheme or another character)`,
    );
  if (!segments[segments.length - 1].startsWith(entry.sha256))
    throw new ManifestError(
      "bad-key",
      `the key of ${entryName(entry)} ("${key.slice(0, 100)}") does not end in its SHA-256: objects are content-addressed`,
    );
}

/** The manifest's bytes as publish writes them: fixed property order, files by kind then chain id, one line per file. */
export function serializeManifest(manifest: OriginManifest): Buffer {
  const order: Record<ManifestFileKind, number> = { chain: 0, baskets: 1, keys: 2 };
  const files = [...manifest.files].sort(
    (a, b) => order[a.kind] - order[b.kind] || (a.kind === "chain" && b.kind === "chain" ? a.chainId - b.chainId : 0),
  );
  const lines = files.map((f) =>
    JSON.stringify(
      f.kind === "chain"
        ? { kind: f.kind, chainId: f.chainId, key: f.key, sha256: f.sha256, size: f.size }
        : { kind: f.kind, key: f.key, sha256: f.sha256, size: f.size },
    ),
  );
  const head = { schema: manifest.schema, generation: manifest.generation, publishedAt: manifest.publishedAt };
  const expires = manifest.expires === undefined ? "" : `,"expires":${JSON.stringify(manifest.expires)}`;
  const text = `${JSON.stringify(head).slice(0, -1)}${expires},"files":[\n${lines.join(",\n")}\n]}\n`;
  return Buffer.from(text, "utf8");
}

/** The content key of an object: `chains/<id>/<sha256>.msgpack`, `baskets/<sha256>.json`, `keys/<sha256>.json`. */
export function contentKey(kind: ManifestFileKind, sha256: string, chainId?: number): string {
  if (kind === "chain") return `chains/${chainId}/${sha256}.msgpack`;
  return `${kind}/${sha256}.json`;
}
