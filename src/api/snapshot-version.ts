/**
 * Snapshot identity, derived from content only: the SHA-256 of every chain
 * file's bytes. The same files give the same identity on any instance, and any
 * change of a file's bytes gives a new one.
 *
 * - `snapshotContentKey`: the full identity (chain ids and file hashes). It
 *   alone decides whether a snapshot changed.
 * - `snapshotVersion`: a 48-bit number taken from a SHA-256 of that key (the
 *   first 6 bytes), small enough to stay a JavaScript number; it names the
 *   snapshot in `x-snapshot-version`, `/ready`, cursors, logs and metrics as
 *   12 lowercase hex digits. A collision between two of the few live versions
 *   is a 2^-48 event per pair.
 */
import { createHash } from "node:crypto";
import type { ChainId } from "../chains/chains.js";

export const VERSION_BYTES = 6;
export const VERSION_HEX_DIGITS = VERSION_BYTES * 2;

export interface ChainContent {
  readonly chainId: ChainId;
  /** SHA-256 of the chain file's bytes, lowercase hex. */
  readonly sha256: string;
}

/** `chainId:sha256` of every chain, by chain id. */
export function snapshotContentKey(chains: readonly ChainContent[]): string {
  return [...chains]
    .sort((a, b) => a.chainId - b.chainId)
    .map((c) => `${c.chainId}:${c.sha256}`)
    .join(";");
}

export function snapshotVersion(chains: readonly ChainContent[]): number {
  return createHash("sha256").update(snapshotContentKey(chains)).digest().readUIntBE(0, VERSION_BYTES);
}

/** A version as 12 lowercase hex digits. */
export function versionHex(version: number): string {
  return version.toString(16).padStart(VERSION_HEX_DIGITS, "0");
}
