/**
 * An object's body streamed to a staging file beside where it will live (fleet.md §18): hashed as it
 * arrives, cut off past the size the manifest names (and the kind's limit), never whole in memory,
 * fsynced; a wrong size or hash, a cut-off body, a full disk or any other failure removes the staging
 * file and throws StagingError. Staging names start with a dot and never match a live name, so a scan of
 * the directory never takes one for a push.
 */
import { createHash, randomBytes } from "node:crypto";
import { open, readdir, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { Readable } from "node:stream";

export type StagingProblem = "object-too-large" | "object-truncated" | "object-hash-mismatch" | "disk-full" | "io" | "body";

export class StagingError extends Error {
  override name = "StagingError";
  constructor(
    readonly code: StagingProblem,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The prefix of every staging file's name. */
export const STAGING_PREFIX = ".origin-staging-";

export interface StagingTarget {
  /** Where the file will live (the staging file is created in its directory). */
  readonly livePath: string;
  readonly sha256: string;
  readonly size: number;
  /** What the file is, for messages ("chain 8453"). */
  readonly what: string;
}

export interface StagedFile {
  readonly path: string;
  readonly livePath: string;
  readonly sha256: string;
  readonly size: number;
}

/** Streams `body` into a staging file for `target`; `counted(n)` hears every chunk's length. */
export async function stageObject(body: Readable, target: StagingTarget, counted: (bytes: number) => void): Promise<StagedFile> {
  const path = join(dirname(target.livePath), `${STAGING_PREFIX}${basename(target.livePath)}-${randomBytes(6).toString("hex")}`);
  let handle;
  try {
    handle = await open(path, "wx", 0o644);
  } catch (error) {
    throw fileError(error, target, "cannot create a staging file");
  }
  const hash = createHash("sha256");
  let total = 0;
  try {
    try {
      for await (const chunk of body as AsyncIterable<Buffer>) {
        total += chunk.length;
        counted(chunk.length);
        if (total > target.size)
          throw new StagingError(
            "object-too-large",
            `${target.what}: the object is longer than the ${target.size} bytes the manifest names`,
          );
        hash.update(chunk);
        await writeAll(handle, chunk).catch((error) => {
          throw fileError(error, target, "cannot write the staging file");
        });
      }
    } catch (error) {
      if (error instanceof StagingError) throw error;
      const e = error as NodeJS.ErrnoException;
      const why = e.name === "ExchangeError" ? e.message : `the body was cut off (${e.code ?? e.message})`;
      throw new StagingError("body", `${target.what}: ${why}`, { cause: error });
    }
    if (total < target.size)
      throw new StagingError(
        "object-truncated",
        `${target.what}: the object ended after ${total} of the ${target.size} bytes the manifest names`,
      );
    const sha256 = hash.digest("hex");
    if (sha256 !== target.sha256)
      throw new StagingError(
        "object-hash-mismatch",
        `${target.what}: the object's SHA-256 is ${sha256}, not the ${target.sha256} the manifest names`,
      );
    await handle.sync().catch((error) => {
      throw fileError(error, target, "cannot flush the staging file");
    });
    await handle.close();
    handle = null;
    return { path, livePath: target.livePath, sha256, size: total };
  } catch (error) {
    body.destroy();
    await handle?.close().catch(() => {});
    await unlink(path).catch(() => {});
    throw error;
  }
}

async function writeAll(
  handle: { write(b: Buffer, o: number, l: number): Promise<{ bytesWritten: number }> },
  chunk: Buffer,
): Promise<void> {
  let offset = 0;
  while (offset < chunk.length) offset += (await handle.write(chunk, offset, chunk.length - offset)).bytesWritten;
}

function fileError(error: unknown, target: StagingTarget, what: string): StagingError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOSPC" || code === "EDQUOT")
    return new StagingError(
      "disk-full",
      `${target.what}: the disk is full (${what} in ${dirname(target.livePath)}); the last good data is kept`,
      {
        cause: error,
      },
    );
  return new StagingError("io", `${target.what}: ${what} in ${dirname(target.livePath)} (${code ?? (error as Error).message})`, {
    cause: error,
  });
}

/** Removes staging files a crash left behind in `dir`. */
export async function removeStaleStaging(dir: string): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  await Promise.all(names.filter((n) => n.startsWith(STAGING_PREFIX)).map((n) => unlink(join(dir, n)).catch(() => {})));
}
