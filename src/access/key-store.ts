/**
 * The keys of one validated keys file, indexed for the request path. A store
 * is immutable: a reloaded file builds a new store, swapped in whole.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { ChainId } from "../chains/chains.js";
import type { AccessGroup } from "../api/access-groups.js";
import { parseDateTime, type ApiKeyRecord, type KeyRateLimit, type KeysFile } from "./keys-file.js";

/**
 * One key as the request path uses it: the record plus values precomputed
 * once, so that authentication and restriction checks allocate nothing.
 * Later stages (rate limiting) may key their own state off `id` or the entry.
 */
export interface KeyEntry {
  /** The record as read from the file (frozen). */
  readonly record: Readonly<ApiKeyRecord>;
  /** = record.id; the only key identity for logs and metrics. */
  readonly id: string;
  /** The 32-byte SHA-256 of the key. */
  readonly digest: Buffer;
  /** record.status === "active". */
  readonly active: boolean;
  /** record.expiresAt as epoch ms; +Infinity when the key never expires. */
  readonly expiresAtMs: number;
  /** Allowed routes; null = all. */
  readonly routes: ReadonlySet<AccessGroup> | null;
  /** Allowed chains; null = all. */
  readonly chainIds: ReadonlySet<number> | null;
  /** The allowed chains in ascending order (for error metadata and list filtering); null = all. */
  readonly allowedChainIds: readonly ChainId[] | null;
  /** The key's own rate limit; null = the gateway default. */
  readonly rateLimit: Readonly<KeyRateLimit> | null;
}

/** Confirmed keys remembered per store at most (one per active client, in practice). */
const CONFIRMED_KEYS_MAX = 10_000;

export class KeyStore {
  readonly #byDigest: ReadonlyMap<string, KeyEntry>;
  /** Presented keys already confirmed, so repeat requests skip the hash (only valid keys enter). */
  readonly #confirmed = new Map<string, KeyEntry>();
  /** The same for keys presented as bytes (see find). */
  readonly #confirmedBytes = new Map<string, KeyEntry>();
  readonly #byId: ReadonlyMap<string, KeyEntry>;

  /**
   * Builds the store from a file that parseKeysFile accepted. Throws a plain
   * Error on duplicate ids or digests or an unusable expiresAt (which
   * parseKeysFile already rules out).
   */
  constructor(file: KeysFile) {
    const byDigest = new Map<string, KeyEntry>();
    const byId = new Map<string, KeyEntry>();
    for (const source of file.keys) {
      const entry = buildEntry(source);
      if (byId.has(entry.id)) throw new Error(`KeyStore: duplicate key id ${JSON.stringify(entry.id)}`);
      if (byDigest.has(entry.record.sha256)) throw new Error(`KeyStore: key ${JSON.stringify(entry.id)} repeats another key's sha256`);
      byDigest.set(entry.record.sha256, entry);
      byId.set(entry.id, entry);
    }
    this.#byDigest = byDigest;
    this.#byId = byId;
    Object.freeze(this);
  }

  /** SHA-256 of the UTF-8 key, as 64 lowercase hex digits (the keys file's `sha256`). */
  static hashKey(key: string): string {
    return createHash("sha256").update(key, "utf8").digest("hex");
  }

  /** Number of keys. */
  get size(): number {
    return this.#byId.size;
  }

  /**
   * The entry whose sha256 is the presented key's digest, whatever its status
   * or expiry (authenticate decides those), or undefined. `encoding` says what
   * the string is: the key's text (`utf8`, hashed as UTF-8) or the bytes a
   * client sent, one character per byte (`latin1`, hashed as those bytes).
   */
  find(presentedKey: string, encoding: "utf8" | "latin1" = "utf8"): KeyEntry | undefined {
    // Keys already confirmed skip the hash (a store lives until the keys file
    // changes, so nothing here outlives a disabled, deleted or rotated key).
    const memo = encoding === "utf8" ? this.#confirmed : this.#confirmedBytes;
    const known = memo.get(presentedKey);
    if (known !== undefined) return known;
    const digest = createHash("sha256").update(presentedKey, encoding).digest();
    const entry = this.#byDigest.get(digest.toString("hex"));
    // Constant-time confirmation on the 32-byte digests.
    if (entry === undefined || !timingSafeEqual(digest, entry.digest)) return undefined;
    if (memo.size >= CONFIRMED_KEYS_MAX) memo.clear();
    memo.set(presentedKey, entry);
    return entry;
  }

  /** The entry of a key presented as bytes (see find) that this store has already confirmed; no hashing. */
  confirmedBytes(presentedKey: string): KeyEntry | undefined {
    return this.#confirmedBytes.get(presentedKey);
  }

  /** The record of the presented key (any status or expiry), or undefined. */
  lookup(presentedKey: string): ApiKeyRecord | undefined {
    return this.find(presentedKey)?.record;
  }

  /**
   * The entry whose `sha256` is this (64 lowercase hex), or undefined: what a key admitted earlier (its
   * entry's digest) matches in this store. Never for authenticating a presented key (`find`).
   */
  bySha256(sha256: string): KeyEntry | undefined {
    return this.#byDigest.get(sha256);
  }

  /** The entry with this id, or undefined (for operators' tools and metrics, never for authentication). */
  getById(id: string): KeyEntry | undefined {
    return this.#byId.get(id);
  }

  /** Every entry, in file order. */
  entries(): IterableIterator<KeyEntry> {
    return this.#byId.values();
  }
}

function buildEntry(source: ApiKeyRecord): KeyEntry {
  const record = deepFreeze(structuredClone(source));
  let expiresAtMs = Number.POSITIVE_INFINITY;
  if (record.expiresAt !== undefined) {
    expiresAtMs = parseDateTime(record.expiresAt);
    if (Number.isNaN(expiresAtMs)) throw new Error(`KeyStore: key ${JSON.stringify(record.id)} has an unusable expiresAt`);
  }
  const digest = Buffer.from(record.sha256, "hex");
  if (digest.length !== 32 || digest.toString("hex") !== record.sha256) {
    throw new Error(`KeyStore: key ${JSON.stringify(record.id)} has a sha256 that is not 64 lowercase hex digits`);
  }
  const allowedChainIds = record.chainIds === undefined ? null : Object.freeze([...record.chainIds].sort((a, b) => a - b));
  return Object.freeze({
    record,
    id: record.id,
    digest,
    active: record.status === "active",
    expiresAtMs,
    routes: record.routes === undefined ? null : new Set<AccessGroup>(record.routes),
    chainIds: allowedChainIds === null ? null : new Set<number>(allowedChainIds),
    allowedChainIds,
    rateLimit: record.rateLimit ?? null,
  });
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object") {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
