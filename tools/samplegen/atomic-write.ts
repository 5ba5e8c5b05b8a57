/** Writes a file the way operators push snapshots: temporary name in the same directory, fsync, rename. */
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";

export function writeFileAtomic(dir: string, name: string, data: Uint8Array): string {
  const finalPath = join(dir, name);
  const tempPath = join(dir, `.${name}.tmp`);
  try {
    const fd = openSync(tempPath, "w");
    try {
      let offset = 0;
      while (offset < data.length) offset += writeSync(fd, data, offset, data.length - offset);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tempPath, finalPath);
  } catch (error) {
    rmSync(tempPath, { force: true });
    throw error;
  }
  return finalPath;
}
