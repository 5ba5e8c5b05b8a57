/**
 * The strings a token index build interns (runs in a build worker): normalized names, their cleaned names
 * and words, and search strings, each found by its UTF-8 bytes (ByteStrings), never decoded into a Map. A new
 * name is cleaned and split from its bytes by the one rule there is (name-parity.ts, cleanNameBytes). A
 * build starts from none, or from those of the index it reuses (TokenIndexReuse: then the chains that did not
 * change need no lookup at all, and only the changed chains' strings are looked up). The ids handed out here
 * are the table's own; the index numbers what it uses anew, in rank order (compile-token-index.ts), and saves
 * the tables in that order for the next build.
 */
import { cleanNameBytes, forEachWord } from "../tables/name-parity.js";
import { sharedArray, type StringColumn } from "../tables/shared-columns.js";
import type { TokenIndexReuse } from "../tables/token-index.js";
import { ByteStrings, grownCopy } from "./compile-search-strings.js";

/** The ids a build hands out anew, in order of first use: order[k] is the table id of new id k. */
export interface Numbering {
  readonly order: Uint32Array;
  readonly count: number;
}

export class IndexStrings {
  /** Cleaned name of each normalized name. */
  private cleanedOf: Uint32Array;
  /** Words (ids from 1, with repeats, in order) of each cleaned name: sequence[sequenceStart[c]..sequenceStart[c + 1]]. */
  private sequenceStart: Uint32Array;
  private sequence: Uint32Array;
  private sequenceLength: number;
  /** The cleaned name being interned, and a one-value column over a stretch of it. */
  private scratch = new Uint8Array(256);
  private readonly piece = { bytes: this.scratch, offsets: new Uint32Array(2) };

  private constructor(
    private readonly names: ByteStrings,
    private readonly cleaned: ByteStrings,
    private readonly words: ByteStrings,
    readonly search: ByteStrings,
    cleanedOf: Uint32Array,
    sequenceStart: Uint32Array,
    sequence: Uint32Array,
  ) {
    this.cleanedOf = cleanedOf;
    this.sequenceStart = sequenceStart;
    this.sequence = sequence;
    this.sequenceLength = sequenceStart[cleaned.size];
  }

  /** No strings yet; `names`, `strings`: upper bounds on the distinct names and search strings to come. */
  static fresh(names: number, strings: number): IndexStrings {
    return new IndexStrings(
      new ByteStrings(names),
      new ByteStrings(names),
      new ByteStrings(names * 2),
      new ByteStrings(strings),
      new Uint32Array(Math.max(16, names)),
      new Uint32Array(Math.max(16, names + 1)),
      new Uint32Array(Math.max(16, names * 2)),
    );
  }

  /** The strings of a saved index (with their ids there), and room for `names` and `strings` more. */
  static restore(saved: TokenIndexReuse, names: number, strings: number): IndexStrings {
    const cleanedOf = new Uint32Array(saved.names.count + names);
    cleanedOf.set(saved.cleanedOf);
    const sequenceStart = new Uint32Array(saved.cleaned.count + names + 1);
    sequenceStart.set(saved.wordSequenceStart);
    const sequence = new Uint32Array(saved.wordSequence.length + names * 2 + 16);
    sequence.set(saved.wordSequence);
    return new IndexStrings(
      ByteStrings.restore(saved.names, names),
      ByteStrings.restore(saved.cleaned, names),
      ByteStrings.restore(saved.words, names * 2),
      ByteStrings.restore(saved.search, strings),
      cleanedOf,
      sequenceStart,
      sequence,
    );
  }

  get nameCount(): number {
    return this.names.size;
  }

  get cleanedCount(): number {
    return this.cleaned.size;
  }

  get wordCount(): number {
    return this.words.size;
  }

  /** Table id of value k of a column of normalized names, added (cleaned, its words found) when new. */
  nameOf(column: StringColumn, k: number): number {
    const known = this.names.size;
    const id = this.names.idOf(column, k);
    if (id < known) return id;
    const length = this.clean(column, k);
    this.piece.offsets[0] = 0;
    this.piece.offsets[1] = length;
    const cleanedKnown = this.cleaned.size;
    const cleaned = this.cleaned.idOf(this.piece, 0);
    if (cleaned === cleanedKnown) this.addWords(cleaned, length);
    if (id === this.cleanedOf.length) this.cleanedOf = grownCopy(this.cleanedOf, id * 2);
    this.cleanedOf[id] = cleaned;
    return id;
  }

  /** Cleaned name (table id) of name `id`. */
  cleanedName(id: number): number {
    return this.cleanedOf[id];
  }

  /** The words of cleaned name `cleaned` (ids from 1, in order, with repeats) are sequence[start, end). */
  wordsOf(cleaned: number): { readonly sequence: Uint32Array; readonly start: number; readonly end: number } {
    return { sequence: this.sequence, start: this.sequenceStart[cleaned], end: this.sequenceStart[cleaned + 1] };
  }

  /**
   * The tables in the order of the ids the index handed out (each numbering's `order`: table ids), as the next
   * build restores them; `wordNew`: the new word id (from 1) of each table word id (from 1).
   */
  save(
    names: Numbering,
    cleaned: Numbering,
    words: Numbering,
    search: Numbering,
    cleanedNew: Uint32Array,
    wordNew: Uint32Array,
  ): Omit<TokenIndexReuse, "chains"> {
    const cleanedOf = sharedArray(Uint32Array, names.count);
    for (let k = 0; k < names.count; k++) cleanedOf[k] = cleanedNew[this.cleanedOf[names.order[k]]] - 1;
    const wordSequenceStart = sharedArray(Uint32Array, cleaned.count + 1);
    let total = 0;
    for (let k = 0; k < cleaned.count; k++) {
      const c = cleaned.order[k];
      total += this.sequenceStart[c + 1] - this.sequenceStart[c];
      wordSequenceStart[k + 1] = total;
    }
    const wordSequence = sharedArray(Uint32Array, total);
    for (let k = 0, at = 0; k < cleaned.count; k++) {
      const c = cleaned.order[k];
      for (let w = this.sequenceStart[c]; w < this.sequenceStart[c + 1]; w++) wordSequence[at++] = wordNew[this.sequence[w]];
    }
    return {
      names: this.names.save(names.order, names.count),
      cleanedOf,
      cleaned: this.cleaned.save(cleaned.order, cleaned.count),
      wordSequenceStart,
      wordSequence,
      words: this.words.save(words.order, words.count),
      search: this.search.save(search.order, search.count),
    };
  }

  /** Finds the words of new cleaned name `cleaned` (in `scratch`, `length` bytes) and records them in order. */
  private addWords(cleaned: number, length: number): void {
    forEachWord(this.scratch, length, (start, end) => {
      this.piece.offsets[0] = start;
      this.piece.offsets[1] = end;
      const word = this.words.idOf(this.piece, 0) + 1;
      if (this.sequenceLength === this.sequence.length) this.sequence = grownCopy(this.sequence, this.sequenceLength * 2);
      this.sequence[this.sequenceLength++] = word;
    });
    if (cleaned + 1 >= this.sequenceStart.length) this.sequenceStart = grownCopy(this.sequenceStart, (cleaned + 2) * 2);
    this.sequenceStart[cleaned + 1] = this.sequenceLength;
  }

  /** Writes the cleaned name of value k (name-parity.ts, cleanNameBytes) into `scratch`; returns its length. */
  private clean(column: StringColumn, k: number): number {
    const from = column.offsets[k];
    const to = column.offsets[k + 1];
    this.room(to - from);
    return cleanNameBytes(column.bytes, from, to, this.scratch);
  }

  private room(length: number): void {
    if (length <= this.scratch.length) return;
    this.scratch = new Uint8Array(length * 2);
    this.piece.bytes = this.scratch;
  }
}
