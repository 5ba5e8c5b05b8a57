/**
 * The operator's way to roll a chain back without a restart: a marker file
 * `chain-<id>.allow-older` in the snapshot directory lets the next accepted
 * file of that chain be older than the one served (it is still checked in
 * every other way, the future bound included). The gateway removes the marker
 * once a file of that chain is accepted, so a marker is good for one file.
 *
 * `liquidity-gateway snapshots allow-older <chainId>` writes it; `touch` does too.
 */
import { lstatSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isSupportedChainId, type ChainId } from "../chains/chains.js";

const MARKER_PATTERN = /^chain-([1-9][0-9]*)\.allow-older$/;

export function allowOlderMarkerName(chainId: ChainId): string {
  return `chain-${chainId}.allow-older`;
}

/** Writes the marker of `chainId` into `dir`; returns its path. */
export function writeAllowOlderMarker(dir: string, chainId: ChainId): string {
  const path = join(dir, allowOlderMarkerName(chainId));
  writeFileSync(path, `The next accepted chain-${chainId}.msgpack may be older than the served one; the gateway removes this file then.\n`);
  return path;
}

/** The markers of a directory, as the loader sees them. */
export class AllowOlderMarkers {
  /** Markers that were used but could not be removed (by name → signature): not used again. */
  private readonly spent = new Map<string, string>();

  constructor(private readonly dir: string) {}

  /** Chains with a live marker among `names` (a directory listing). */
  find(names: readonly string[]): Set<ChainId> {
    const chains = new Set<ChainId>();
    for (const name of names) {
      const match = MARKER_PATTERN.exec(name);
      if (!match) continue;
      const chainId = Number(match[1]);
      if (!isSupportedChainId(chainId)) continue;
      const spentSignature = this.spent.get(name);
      if (spentSignature !== undefined) {
        if (spentSignature === signature(join(this.dir, name))) continue;
        this.spent.delete(name); // written again since
      }
      chains.add(chainId);
    }
    return chains;
  }

  /** The marker of `chainId` did its job: removes it. Returns the error when it cannot be removed (it is then ignored from now on). */
  consume(chainId: ChainId): Error | null {
    const name = allowOlderMarkerName(chainId);
    const path = join(this.dir, name);
    const before = signature(path);
    try {
      unlinkSync(path);
      return null;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      if (before !== null) this.spent.set(name, before);
      return error as Error;
    }
  }
}

function signature(path: string): string | null {
  try {
    const s = lstatSync(path);
    return `${s.dev}:${s.ino}:${s.mtimeMs}:${s.ctimeMs}`;
  } catch {
    return null;
  }
}
