/**
 * Reads an open file to its end and hashes it in the same pass: each chunk is
 * hashed right after it is read, while it is still in the CPU cache, so the
 * bytes are walked once.
 */
import { createHash } from "node:crypto";
import type { FileHandle } from "node:fs/promises";

const CHUNK_BYTES = 4 << 20;

export interface HashedBytes {
  readonly bytes: Buffer;
  /** SHA-256 of `bytes`, lowercase hex. */
  readonly sha256: string;
}

/**
 * The bytes of `file` from offset 0 to its end. `expectedSize` (from fstat)
 * sizes the buffer, with one spare byte so that reaching the end of a file of
 * exactly that size needs no larger buffer; a file that grew meanwhile is read
 * to its end too.
 */
export async function readHashed(file: FileHandle, expectedSize: number): Promise<HashedBytes> {
  const hash = createHash("sha256");
  let buffer = Buffer.allocUnsafe(expectedSize + 1);
  let length = 0;
  for (;;) {
    if (length === buffer.length) {
      const grown = Buffer.allocUnsafe(buffer.length * 2);
      buffer.copy(grown, 0, 0, length);
      buffer = grown;
    }
    const { bytesRead } = await file.read(buffer, length, Math.min(CHUNK_BYTES, buffer.length - length), length);
    if (bytesRead === 0) break;
    hash.update(buffer.subarray(length, length + bytesRead));
    length += bytesRead;
  }
  return { bytes: buffer.subarray(0, length), sha256: hash.digest("hex") };
}
