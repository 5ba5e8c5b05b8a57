/** Where the package is, and the files it brings that settings default to. */
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The directory of this package's package.json (from src/ under vitest, or from dist/src/ when built). */
export const PROJECT_ROOT = findProjectRoot(dirname(fileURLToPath(import.meta.url)));

function findProjectRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(resolve(dir, "package.json"))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

/** API_KEYS_FILE when unset: the bundled sample (a sandbox key). */
export const SAMPLE_KEYS_FILE = resolve(PROJECT_ROOT, "config/keys.sample.json");
/** SNAPSHOT_DIR when unset: the bundled sample snapshots. */
export const DEFAULT_SNAPSHOT_DIR = resolve(PROJECT_ROOT, "snapshots");
