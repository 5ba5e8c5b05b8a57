/**
 * Bytes written one after another into a reusable buffer (grown when short):
 * how a response's head (status line and headers) and its identity body are
 * put together without a string per piece, a native call per header, or a
 * UTF-8 conversion of text that is ASCII (issue 23). Pre-encoded runs are
 * copied, integers are written digit by digit, text known to be ASCII goes
 * through Buffer's latin1 writer, and other text through its UTF-8 writer, so
 * the bytes are always exactly those of the text in UTF-8. (Copying text
 * character by character in JavaScript measured slower than one native write
 * from about 10 characters on.)
 */
const UTF8_MAX_BYTES_PER_UNIT = 3;

/** Buffer's encoding-specific writers (what `buf.write(text, at, encoding)` calls after resolving the encoding name). */
interface EncodingWriters {
  latin1Write(text: string, offset: number): number;
  utf8Write(text: string, offset: number): number;
}

export class ByteWriter {
  buf: Buffer;
  /** Bytes written so far (the next write goes here). */
  at = 0;

  constructor(initialBytes: number) {
    this.buf = Buffer.allocUnsafe(initialBytes);
  }

  /** Makes room for `bytes` more (keeping what was written). */
  room(bytes: number): void {
    const need = this.at + bytes;
    if (need <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(need, this.buf.length * 2));
    this.buf.copy(grown, 0, 0, this.at);
    this.buf = grown;
  }

  bytes(run: Uint8Array): void {
    this.room(run.length);
    this.buf.set(run, this.at);
    this.at += run.length;
  }

  /** Text that is ASCII by construction (a trace id, an ETag): its latin1 bytes are its UTF-8 bytes. */
  ascii(text: string): void {
    this.room(text.length);
    this.at += (this.buf as unknown as EncodingWriters).latin1Write(text, this.at);
  }

  /** Any text, as UTF-8. */
  utf8(text: string): void {
    this.room(text.length * UTF8_MAX_BYTES_PER_UNIT);
    this.at += (this.buf as unknown as EncodingWriters).utf8Write(text, this.at);
  }

  /** A non-negative safe integer in decimal (anything else as `String(value)`). */
  uint(value: number): void {
    if (!(value >= 0 && value <= Number.MAX_SAFE_INTEGER && Math.floor(value) === value)) {
      this.utf8(String(value));
      return;
    }
    let digits = 1;
    for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) digits++;
    this.room(digits);
    const buf = this.buf;
    let at = this.at + digits;
    this.at = at;
    let rest = value;
    do {
      buf[--at] = 0x30 + (rest % 10);
      rest = Math.floor(rest / 10);
    } while (rest > 0);
  }

  /** What was written, as a view of the buffer (valid until the next write). */
  view(): Buffer {
    return this.buf.subarray(0, this.at);
  }
}
