/**
 * A verified generation put in force (fleet.md §18, "Apply"): each staged file renamed into place under
 * its live name (keys first, then baskets, then chain files), the directory fsynced, then the unchanged
 * pipeline: the loader scans the chain files at once (it would on its watcher's next event anyway) and
 * the keys and baskets reloaders read their files. What they say about each file (accepted, or rejected
 * and why) is the generation's verdict: a rejected file keeps its chain's last good data, exactly as a
 * bad local push does, and the generation is `partial`.
 */
import { rename, unlink } from "node:fs/promises";
import { basename, dirname } from "node:path";
import type { ManifestEntry } from "./manifest.js";
import { syncDirectory } from "./local-copy.js";
import type { StagedFile } from "./staging.js";

/** What the pipeline made of a file: taken, or rejected with its reason. */
export type FileVerdict = { readonly accepted: true } | { readonly accepted: false; readonly reason: string };

/** The gateway's side of applying a generation (wired by the composition root). */
export interface ApplyHooks {
  /** Scans the snapshot directory now; resolves with the verdict on each named live chain file once the scan is done. */
  chainFilesChanged(names: readonly string[]): Promise<ReadonlyMap<string, FileVerdict>>;
  /** Reads the keys file now. */
  keysChanged(): FileVerdict;
  /** Reads the baskets file now. */
  basketsChanged(): FileVerdict;
}

export interface StagedEntry {
  readonly entry: ManifestEntry;
  readonly staged: StagedFile;
}

const ORDER: Readonly<Record<ManifestEntry["kind"], number>> = { keys: 0, baskets: 1, chain: 2 };

/** Renames every staged file into place (fsyncing each directory touched). */
export async function renameIntoPlace(files: readonly StagedEntry[]): Promise<void> {
  const sorted = [...files].sort((a, b) => ORDER[a.entry.kind] - ORDER[b.entry.kind]);
  const dirs = new Set<string>();
  for (const { staged } of sorted) {
    await rename(staged.path, staged.livePath);
    dirs.add(dirname(staged.livePath));
  }
  for (const dir of dirs) await syncDirectory(dir);
}

/** Removes staging files of a generation that is not applied. */
export async function discardStaged(files: readonly StagedFile[]): Promise<void> {
  await Promise.all(files.map((f) => unlink(f.path).catch(() => {})));
}

/** The `partial` name of an entry's file. */
export function partialName(entry: ManifestEntry, livePath: string | null): string {
  return entry.kind === "chain" ? (livePath === null ? `chain-${entry.chainId}.msgpack` : basename(livePath)) : entry.kind;
}
