/**
 * Bytes of a snapshot, in memory or read from its file through a window.
 *
 * A build reads a file's pools one at a time (pool-stream.ts), so it needs
 * only the bytes of the pool at hand: `FileSource` keeps a window of the file
 * (a few MiB, grown only for a single larger value) instead of the whole file,
 * which on the largest chain of the large set is a quarter of a gigabyte held
 * through the whole build. Reads are synchronous: this runs in a build worker.
 */
import { readSync } from "node:fs";
import { SnapshotError } from "./snapshot-error.js";

export interface ByteSource {
  readonly length: number;
  /** The byte at `pos` (0 <= pos < length). */
  byte(pos: number): number;
  /** Bytes [from, to): a view valid until the next call on this source. */
  view(from: number, to: number): Uint8Array;
}

export function arraySource(bytes: Uint8Array): ByteSource {
  return { length: bytes.length, byte: (pos) => bytes[pos], view: (from, to) => bytes.subarray(from, to) };
}

const WINDOW_BYTES = 4 << 20;

/** An open snapshot file read through a window. */
export class FileSource implements ByteSource {
  private window: Buffer;
  private start = 0;
  private end = 0;

  constructor(
    private readonly fd: number,
    readonly length: number,
    private readonly name: string,
    windowBytes = WINDOW_BYTES,
  ) {
    this.window = Buffer.allocUnsafe(windowBytes);
  }

  byte(pos: number): number {
    if (pos < this.start || pos >= this.end) this.fill(pos, 1);
    return this.window[pos - this.start];
  }

  view(from: number, to: number): Uint8Array {
    if (from < this.start || to > this.end) this.fill(from, to - from);
    return this.window.subarray(from - this.start, to - this.start);
  }

  /** Reads from `pos` so that at least `need` bytes are in the window. */
  private fill(pos: number, need: number): void {
    if (need > this.window.length) this.window = Buffer.allocUnsafe(Math.max(need, this.window.length * 2));
    const want = Math.min(this.window.length, this.length - pos);
    let got = 0;
    while (got < want) {
      const n = readSync(this.fd, this.window, got, want - got, pos + got);
      if (n === 0) break;
      got += n;
    }
    if (got < need)
      throw new SnapshotError(
        "io",
        `${this.name}: the file ended early (${pos + got} of ${this.length} bytes): it changed while it was read`,
      );
    this.start = pos;
    this.end = pos + got;
  }
}
