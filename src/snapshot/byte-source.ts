/**
 * Bytes of a snapshot, in memory or read from its file through a window.
 *
 * A build reads a file's pools one at a time (pool-stream.ts), so it needs
 * only the bytes of the pool at hand: `FileSource` keeps a window of the file
 * (a few MiB, grown only for a single larger value) instead of the whole file,
 * which on the largest chain of the large set is a quarter of a gigabyte held
 * through the whole build. Reads are synchronous: this runs in a build worker.
 */
import type { Hash } from "node:crypto";
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

/**
 * While hashing along, the window is read in pieces this large, each hashed at once: from the core's cache (as
 * read-snapshot-file.ts's own hash pass reads, HASH_CHUNK_BYTES), where hashing a whole window after it is read
 * would read it from memory again.
 */
const HASH_PIECE_BYTES = 128 << 10;

/** An open snapshot file read through a window. */
export class FileSource implements ByteSource {
  private window: Buffer;
  private start = 0;
  private end = 0;
  /** With `hashAlong`: the hash of the file's bytes [0, hashed), updated as reads reach past `hashed`. */
  private hash: Hash | null = null;
  private hashed = 0;
  /** With `hashAlong`: true once the hash is made elsewhere (the reads then stop hashing). */
  private hashedElsewhere: () => boolean = () => false;

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

  /**
   * Hashes the file's bytes in order as they are read (from byte 0): the pass that frames a file reads every byte,
   * so the file's hash needs no pass of its own (read-snapshot-file.ts). Reads that skip bytes not hashed yet
   * leave the hash where it was; `stopHashing` tells how far it got. Once `elsewhere` holds (asked at each read),
   * the hash is dropped: another thread makes it (chain-file-task.ts).
   */
  hashAlong(hash: Hash, elsewhere: () => boolean = () => false): void {
    this.hash = hash;
    this.hashed = 0;
    this.hashedElsewhere = elsewhere;
    if (this.start === 0 && this.end > 0) this.hashRead();
  }

  /** The hash of bytes [0, hashed) (hashAlong), no longer updated; null when none (or dropped: made elsewhere). */
  stopHashing(): { hash: Hash; hashed: number } | null {
    const hash = this.hash;
    this.hash = null;
    return hash === null ? null : { hash, hashed: this.hashed };
  }

  private hashRead(): void {
    if (this.start <= this.hashed && this.end > this.hashed) {
      this.hash!.update(this.window.subarray(this.hashed - this.start, this.end - this.start));
      this.hashed = this.end;
    }
  }

  /** Reads from `pos` so that at least `need` bytes are in the window. */
  private fill(pos: number, need: number): void {
    if (this.hash !== null && this.hashedElsewhere()) this.hash = null;
    if (need > this.window.length) this.window = Buffer.allocUnsafe(Math.max(need, this.window.length * 2));
    // While hashing along, a read just past the bytes hashed (a value skipped across the window's end) starts
    // at them, so that no byte is left out of the hash.
    const hashed = this.hashed;
    const from = this.hash !== null && hashed < pos && pos + need - hashed <= this.window.length ? hashed : pos;
    const want = Math.min(this.window.length, this.length - from);
    // Read in pieces while hashing, each hashed as soon as it is read (while it is in the core's cache).
    const piece = this.hash === null ? want : HASH_PIECE_BYTES;
    this.start = from;
    this.end = from;
    while (this.end - from < want) {
      const n = readSync(this.fd, this.window, this.end - from, Math.min(piece, want - (this.end - from)), this.end);
      if (n === 0) break;
      this.end += n;
      if (this.hash !== null) this.hashRead();
    }
    if (this.end < pos + need)
      throw new SnapshotError(
        "io",
        `${this.name}: the file ended early (${this.end} of ${this.length} bytes): it changed while it was read`,
      );
  }
}
