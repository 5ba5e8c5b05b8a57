/**
 * Bytes written one after another into a reusable buffer (grown when short):
 * how a response's head (status line and headers) and its identity body are
 * put together without a string per piece, a native call per header, or a
 * UTF-8 conversion of text that is ASCII (issue 23). Pre-encoded runs are
 * copied, short ASCII text and integers are written byte by byte in
 * JavaScript, and anything else falls back to Buffer's UTF-8 writer, so the
 * bytes are always exactly those of the text in UTF-8.
 */
const UTF8_MAX_BYTES_PER_UNIT = 3;
/** Runs at most this long are copied by a loop (cheaper than TypedArray#set for a few bytes). */
const LOOP_COPY_MAX = 48;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

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
    const length = run.length;
    this.room(length);
    const buf = this.buf;
    let at = this.at;
    if (length <= LOOP_COPY_MAX) for (let i = 0; i < length; i++) buf[at++] = run[i];
    else {
      buf.set(run, at);
      at += length;
    }
    this.at = at;
  }

  /** Text as UTF-8: ASCII byte by byte, the rest (from the first other character) through Buffer's writer. */
  text(text: string): void {
    const length = text.length;
    this.room(length);
    const buf = this.buf;
    let at = this.at;
    for (let i = 0; i < length; i++) {
      const code = text.charCodeAt(i);
      if (code > 0x7f) {
        this.at = at;
        this.utf8(i === 0 ? text : text.slice(i));
        return;
      }
      buf[at++] = code;
    }
    this.at = at;
  }

  /** Text through Buffer's UTF-8 writer. */
  utf8(text: string): void {
    this.room(text.length * UTF8_MAX_BYTES_PER_UNIT);
    this.at += this.buf.write(text, this.at, "utf8");
  }

  /** `JSON.stringify(text)` as UTF-8; printable ASCII without `"` or `\` (every usual path) is written as it is. */
  jsonString(text: string): void {
    const length = text.length;
    this.room(length + 2);
    const buf = this.buf;
    const start = this.at;
    let at = start;
    buf[at++] = QUOTE;
    for (let i = 0; i < length; i++) {
      const code = text.charCodeAt(i);
      if (code < 0x20 || code > 0x7e || code === QUOTE || code === BACKSLASH) {
        this.at = start;
        this.utf8(JSON.stringify(text));
        return;
      }
      buf[at++] = code;
    }
    buf[at++] = QUOTE;
    this.at = at;
  }

  /** A non-negative safe integer in decimal (anything else as `String(value)`). */
  uint(value: number): void {
    if (!(value >= 0 && value <= Number.MAX_SAFE_INTEGER && Math.floor(value) === value)) {
      this.text(String(value));
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
