/**
 * The search strings of the token index (runs in a build worker): every
 * distinct lowercased symbol, name, normalizedSymbol and normalizedName once,
 * with the instances that hold it, so that a search scans each distinct
 * string once instead of four strings per instance.
 */
import { FIELD_NAME, FIELD_SYMBOL } from "../tables/token-index.js";
import { sharedArray } from "../tables/shared-columns.js";

export interface SearchStrings {
  readonly searchText: Uint8Array;
  readonly searchOffsets: Uint32Array;
  readonly postingStart: Uint32Array;
  readonly postings: Uint32Array;
}

/** Collects the strings instance by instance (index order), then lays them out. */
export class SearchStringsBuilder {
  private readonly ids = new Map<string, number>();
  private readonly texts: string[] = [];
  /** Per instance, up to four (string, fields) pairs. */
  private readonly pairString: Uint32Array;
  private readonly pairFields: Uint8Array;
  private readonly pairCount: Uint8Array;

  constructor(private readonly instances: number) {
    this.pairString = new Uint32Array(instances * 4);
    this.pairFields = new Uint8Array(instances * 4);
    this.pairCount = new Uint8Array(instances);
  }

  /** Adds instance `at`'s fields (call once per instance). */
  add(at: number, symbol: string, name: string, normalizedSymbol: string, normalizedName: string): void {
    this.field(at, symbol, FIELD_SYMBOL);
    this.field(at, normalizedSymbol, FIELD_SYMBOL);
    this.field(at, name, FIELD_NAME);
    this.field(at, normalizedName, FIELD_NAME);
  }

  private field(at: number, value: string, field: number): void {
    if (value.length === 0) return;
    const lower = value.toLowerCase();
    let id = this.ids.get(lower);
    if (id === undefined) {
      id = this.texts.length;
      this.ids.set(lower, id);
      this.texts.push(lower);
    }
    const base = at * 4;
    const count = this.pairCount[at];
    for (let k = 0; k < count; k++) {
      if (this.pairString[base + k] === id) {
        this.pairFields[base + k] |= field;
        return;
      }
    }
    this.pairString[base + count] = id;
    this.pairFields[base + count] = field;
    this.pairCount[at] = count + 1;
  }

  finish(): SearchStrings {
    const strings = this.texts.length;
    const searchOffsets = sharedArray(Uint32Array, strings + 1);
    for (let k = 0; k < strings; k++) searchOffsets[k + 1] = searchOffsets[k] + this.texts[k].length;
    const text = this.texts.join("");
    // A lone surrogate becomes U+FFFD (one code unit for one), so the offsets hold for the decoded text.
    const encoded = Buffer.from(text, "utf8");
    const searchText = sharedArray(Uint8Array, encoded.length);
    searchText.set(encoded);

    const postingStart = sharedArray(Uint32Array, strings + 1);
    const n = this.instances;
    for (let at = 0; at < n; at++) for (let k = 0; k < this.pairCount[at]; k++) postingStart[this.pairString[at * 4 + k] + 1]++;
    for (let k = 0; k < strings; k++) postingStart[k + 1] += postingStart[k];
    const fill = postingStart.slice(0, strings);
    const postings = sharedArray(Uint32Array, postingStart[strings]);
    for (let at = 0; at < n; at++) {
      for (let k = 0; k < this.pairCount[at]; k++) {
        const id = this.pairString[at * 4 + k];
        postings[fill[id]++] = (at << 2) | this.pairFields[at * 4 + k];
      }
    }
    return { searchText, searchOffsets, postingStart, postings };
  }
}
