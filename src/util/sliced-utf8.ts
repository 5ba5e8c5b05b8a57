/**
 * UTF-8 bytes decoded into one string a slice at a time, so that a large
 * text (the token index's search strings, about a megabyte on the large set)
 * is decoded between requests instead of in one event-loop turn. `text()`
 * finishes whatever is left at once when the string is needed first.
 */
export class SlicedUtf8 {
  private readonly decoder = new TextDecoder("utf-8");
  private readonly parts: string[] = [];
  private at = 0;
  private done: string | null = null;

  constructor(
    private readonly bytes: Uint8Array,
    /** Bytes decoded per step. */
    private readonly sliceBytes = 128 * 1024,
  ) {
    if (!(sliceBytes > 0)) throw new RangeError("sliceBytes must be positive");
  }

  /** Decodes the next slice; false once the whole text is decoded. */
  step(): boolean {
    if (this.done !== null) return false;
    const end = Math.min(this.bytes.length, this.at + this.sliceBytes);
    const last = end === this.bytes.length;
    // `stream`: a character cut by the slice's end is completed by the next slice.
    this.parts.push(this.decoder.decode(this.bytes.subarray(this.at, end), { stream: !last }));
    this.at = end;
    if (last) {
      this.done = this.parts.join("");
      this.parts.length = 0;
    }
    return !last;
  }

  /** The whole text (decoding what is left now). */
  text(): string {
    while (this.done === null) this.step();
    return this.done;
  }
}
