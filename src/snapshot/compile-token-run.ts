/**
 * One chain's part of the cross-chain token index, built with the chain (in
 * its build worker): its tokens in the index's rank order restricted to the
 * chain, and everything about a token that does not depend on the other
 * chains (its JSON pieces, flags, address bytes, name and search strings as
 * chain-local ids). The token index is then a k-way merge of the chains' runs
 * (compile-token-index.ts), so a re-pushed chain costs its own run and the
 * merge, not a rebuild of every chain's tokens.
 */
import { CHAINS, type ChainId } from "../chains/chains.js";
import { containsSymbol, initialsMatchSymbol, nameWords, type NameWords } from "../tables/name-parity.js";
import {
  FIELD_NAME,
  FIELD_SYMBOL,
  FLAG_INITIALS_MATCH_SYMBOL,
  FLAG_NAME_CONTAINS_SYMBOL,
  FLAG_WRAPPED_NATIVE,
} from "../tables/token-index.js";
import { ADDRESS_BYTES } from "../tables/token-index.js";
import { fnv1a } from "../util/fnv1a.js";
import { sortByFloatKey } from "../util/float-key-sort.js";
import {
  columnString,
  columnStrings,
  sharedArray,
  sharedCopy,
  StringColumnBuilder,
  utf8,
  type StringColumn,
} from "../tables/shared-columns.js";
import type { ChainTokenColumns, TokenRunData } from "../tables/compiled-chain.js";

/**
 * A chain's earlier run and which of its rows each row of the new columns repeats: a row whose token record is
 * unchanged (reuse-tokens.ts) copies its flags, JSON pieces and address bytes, and maps its chain-local name and
 * search-string ids, instead of computing them from its strings (docs/decisions/013-incremental-builds.md).
 */
export interface PreviousRun {
  readonly run: TokenRunData;
  /** Per row of the new columns: the earlier row with the same values in every column, or -1. */
  readonly rowFrom: Int32Array;
}

/** The chain's part of the token index; with `previous`, the rows it repeats are copied (the same bytes either way). */
export function compileTokenRun(chainId: ChainId, tokens: ChainTokenColumns, previous: PreviousRun | null = null): TokenRunData {
  const m = tokens.count;
  const rowFrom = previous?.rowFrom ?? null;
  const before = previous?.run ?? null;
  // Address and rank order: merged from the earlier run's (the changed rows taken out and put back) when it has
  // one; else sorted. Every row's text at once for a build from scratch (one decode per column); an incremental
  // build decodes the changed rows' only.
  const merged = previous === null ? null : mergedOrders(tokens, previous);
  const address = merged === null ? columnStrings(tokens.address) : null;
  const normalizedSymbol = merged === null ? columnStrings(tokens.normalizedSymbol) : null;
  const normalizedName = before === null ? columnStrings(tokens.normalizedName) : null;
  const symbol = before === null ? columnStrings(tokens.symbol) : null;
  const name = before === null ? columnStrings(tokens.name) : null;
  const { byAddress, rank } = merged ?? sortedOrders(tokens, address!, normalizedSymbol!);

  // Per row: flags, chain-local name and search-string ids (ids in order of first use, row by row).
  const wrapped = CHAINS[chainId].wrappedNative;
  const flags = sharedArray(Uint8Array, m);
  const addressBytes = sharedArray(Uint8Array, m * ADDRESS_BYTES);
  let textBytes = tokens.symbol.bytes.length + tokens.name.bytes.length + tokens.logoUrl.bytes.length;
  textBytes += textBytes >> 3;
  const addressJson = new StringColumnBuilder(m, m * 80);
  const headerJson = new StringColumnBuilder(m, m * 32 + textBytes);
  const metadataJson = new StringColumnBuilder(m, m * 110 + textBytes);
  const prefix = utf8(`{"chainId":${chainId},"address":`);
  const names = new LocalStrings(m, before?.names ?? null);
  const nameFeatures = new Map<number, NameWords>();
  const nameOf = sharedArray(Uint32Array, m);
  const search = new LocalSearchStrings(m, before?.searchStrings ?? null);
  for (let row = 0; row < m; row++) {
    const from = rowFrom === null ? -1 : rowFrom[row];
    if (from >= 0) {
      nameOf[row] = names.idOfEarlier(before!.nameOf[from]);
      flags[row] = before!.flags[from];
      search.copyRow(row, before!, from);
      continue;
    }
    const rowName = normalizedName?.[row] ?? columnString(tokens.normalizedName, row);
    const id = names.idOf(rowName);
    nameOf[row] = id;
    let features = nameFeatures.get(id);
    if (features === undefined) nameFeatures.set(id, (features = nameWords(rowName)));
    const rowSymbol = normalizedSymbol?.[row] ?? columnString(tokens.normalizedSymbol, row);
    const lowerSymbol = rowSymbol.toLowerCase();
    let f = 0;
    if ((address?.[row] ?? columnString(tokens.address, row)) === wrapped) f |= FLAG_WRAPPED_NATIVE;
    if (containsSymbol(features, lowerSymbol)) f |= FLAG_NAME_CONTAINS_SYMBOL;
    if (initialsMatchSymbol(features, lowerSymbol)) f |= FLAG_INITIALS_MATCH_SYMBOL;
    flags[row] = f;
    search.add(row, symbol?.[row] ?? columnString(tokens.symbol, row), name?.[row] ?? columnString(tokens.name, row), rowSymbol, rowName);
  }
  // JSON pieces and address bytes in rank order (value j is row rank[j]): the index's merge then
  // reads each chain's pieces front to back instead of gathering them from all over the columns.
  const positionBefore = before === null ? null : inverse(before.rank);
  for (let j = 0; j < m; j++) {
    const row = rank[j];
    const from = rowFrom === null ? -1 : rowFrom[row];
    if (from >= 0) {
      // A run of repeated rows that were consecutive in the earlier run too: copied in one piece per column.
      const p = positionBefore![from];
      let end = j + 1;
      while (end < m && rowFrom![rank[end]] >= 0 && positionBefore![rowFrom![rank[end]]] === p + (end - j)) end++;
      const q = p + (end - j);
      addressJson.appendValues(before!.addressJson, p, q);
      headerJson.appendValues(before!.headerJson, p, q);
      metadataJson.appendValues(before!.metadataJson, p, q);
      addressBytes.set(before!.addressBytes.subarray(p * ADDRESS_BYTES, q * ADDRESS_BYTES), j * ADDRESS_BYTES);
      j = end - 1;
      continue;
    }
    // {"chainId":…,"address":"0x…"} and "symbol":…,"name":…,"logoUrl":…, straight from the UTF-8 columns.
    addressJson.writeBytes(prefix, 0, prefix.length);
    writeJsonField(addressJson, null, tokens.address, row);
    addressJson.writeBytes(CLOSE_OBJECT, 0, 1);
    addressJson.endValue();
    writeJsonField(headerJson, SYMBOL_KEY, tokens.symbol, row);
    writeJsonField(headerJson, NAME_KEY, tokens.name, row);
    writeJsonField(headerJson, LOGO_URL_KEY, tokens.logoUrl, row);
    headerJson.endValue();
    // {"chainId":…,"address":"0x…","decimals":…,"name":…,"symbol":…,"logoUrl":…}
    metadataJson.writeBytes(prefix, 0, prefix.length);
    writeJsonField(metadataJson, null, tokens.address, row);
    metadataJson.writeBytes(DECIMALS_KEY, 0, DECIMALS_KEY.length);
    metadataJson.writeNumber(tokens.decimals[row]);
    writeJsonField(metadataJson, NAME_KEY, tokens.name, row);
    writeJsonField(metadataJson, SYMBOL_AFTER_KEY, tokens.symbol, row);
    writeJsonField(metadataJson, LOGO_URL_KEY, tokens.logoUrl, row);
    metadataJson.writeBytes(CLOSE_OBJECT, 0, 1);
    metadataJson.endValue();

    writeAddressBytes(addressBytes, j * ADDRESS_BYTES, tokens.address, row);
  }
  return {
    rank,
    byAddress,
    flags,
    addressBytes,
    addressJson: addressJson.finish(),
    headerJson: headerJson.finish(),
    metadataJson: metadataJson.finish(),
    names: names.finish(),
    nameOf,
    ...search.finish(),
  };
}

/** A chain's rows in address order and in rank order (normalized symbol ascending, TVL descending, address ascending). */
interface RowOrders {
  readonly byAddress: Uint32Array;
  readonly rank: Uint32Array;
}

/** Both orders sorted from the rows' strings: stable by TVL desc over address order, then a stable counting sort by symbol. */
function sortedOrders(tokens: ChainTokenColumns, address: readonly string[], normalizedSymbol: readonly string[]): RowOrders {
  const m = tokens.count;
  const byAddress = sharedCopy(Uint32Array, rowsByAddress(address));
  const tvlByAddress = new Float64Array(m);
  for (let k = 0; k < m; k++) tvlByAddress[k] = tokens.tvl[byAddress[k]];
  const byTvl = sortByFloatKey(tvlByAddress, m, true);
  const symbolSlot = new Map<string, number>();
  const distinct: string[] = [];
  const slotOf = new Uint32Array(m);
  for (let row = 0; row < m; row++) {
    const s = normalizedSymbol[row];
    let slot = symbolSlot.get(s);
    if (slot === undefined) {
      slot = distinct.length;
      symbolSlot.set(s, slot);
      distinct.push(s);
    }
    slotOf[row] = slot;
  }
  const sortedSymbols = distinct.slice().sort();
  const rankOfSlot = new Uint32Array(distinct.length);
  for (let g = 0; g < sortedSymbols.length; g++) rankOfSlot[symbolSlot.get(sortedSymbols[g])!] = g;
  const groupStart = new Uint32Array(sortedSymbols.length + 1);
  for (let row = 0; row < m; row++) groupStart[rankOfSlot[slotOf[row]] + 1]++;
  for (let g = 0; g < sortedSymbols.length; g++) groupStart[g + 1] += groupStart[g];
  const rank = sharedArray(Uint32Array, m);
  for (let j = 0; j < m; j++) {
    const row = byAddress[byTvl[j]];
    rank[groupStart[rankOfSlot[slotOf[row]]]++] = row;
  }
  return { byAddress, rank };
}

/**
 * Both orders from the earlier run's (docs/decisions/013-incremental-builds.md): the repeated rows keep their
 * earlier relative order (their values are the earlier rows'), the changed rows are sorted among themselves and
 * merged in; the same orders as sortedOrders, the keys total (addresses are unique). Null when two rows repeat
 * the same earlier row (duplicate addresses, a file the checks reject): then they are sorted.
 */
function mergedOrders(tokens: ChainTokenColumns, previous: PreviousRun): RowOrders | null {
  const { run, rowFrom } = previous;
  const m = tokens.count;
  const rowOfEarlier = new Int32Array(run.rank.length).fill(-1);
  const changed: number[] = [];
  for (let row = 0; row < m; row++) {
    const from = rowFrom[row];
    if (from < 0) changed.push(row);
    else if (rowOfEarlier[from] >= 0) return null;
    else rowOfEarlier[from] = row;
  }
  const { address, normalizedSymbol, tvl } = tokens;
  const addressOrder = (a: number, b: number): number => compareValues(address, a, b);
  const rankOrder = (a: number, b: number): number =>
    compareValues(normalizedSymbol, a, b) || (tvl[a] > tvl[b] ? -1 : tvl[a] < tvl[b] ? 1 : 0) || compareValues(address, a, b);
  return {
    byAddress: mergeRows(run.byAddress, rowOfEarlier, changed.slice().sort(addressOrder), addressOrder, m),
    rank: mergeRows(run.rank, rowOfEarlier, changed.sort(rankOrder), rankOrder, m),
  };
}

/** The rows of an earlier order that repeat (rowOfEarlier >= 0, as their new rows), merged with `sorted` by `order`. */
function mergeRows(
  earlier: Uint32Array,
  rowOfEarlier: Int32Array,
  sorted: readonly number[],
  order: (a: number, b: number) => number,
  m: number,
): Uint32Array {
  const out = sharedArray(Uint32Array, m);
  let at = 0;
  let c = 0;
  for (let p = 0; p < earlier.length; p++) {
    const row = rowOfEarlier[earlier[p]];
    if (row < 0) continue;
    while (c < sorted.length && order(sorted[c], row) < 0) out[at++] = sorted[c++];
    out[at++] = row;
  }
  while (c < sorted.length) out[at++] = sorted[c++];
  if (at !== m) throw new Error(`token run: ${at} of ${m} rows ordered`);
  return out;
}

/**
 * Values a and b of a UTF-8 column in the order JavaScript compares their strings (UTF-16 code units), from their
 * bytes: UTF-8 byte order is code point order, which differs only where a character above U+FFFF (a surrogate
 * pair, lead byte F0-F4) meets one in U+E000-U+FFFF (lead byte EE or EF) at the first difference.
 */
function compareValues(column: StringColumn, a: number, b: number): number {
  const { bytes, offsets } = column;
  const aStart = offsets[a];
  const aLength = offsets[a + 1] - aStart;
  const bStart = offsets[b];
  const bLength = offsets[b + 1] - bStart;
  const common = Math.min(aLength, bLength);
  for (let k = 0; k < common; k++) {
    const x = bytes[aStart + k];
    const y = bytes[bStart + k];
    if (x === y) continue;
    if (x >= 0xf0 && (y === 0xee || y === 0xef)) return -1;
    if (y >= 0xf0 && (x === 0xee || x === 0xef)) return 1;
    return x - y;
  }
  return aLength - bLength;
}

/**
 * Distinct strings of a chain as chain-local ids, numbered in order of first use. With the earlier run's column of
 * them, a row copied from the earlier run uses an earlier id (idOfEarlier), mapped to the id it has now, and a
 * string met as a string gets the id of the same earlier string when there is one: the ids are those a build from
 * the strings alone hands out. Earlier strings that take consecutive ids in their earlier order (most of them, in a
 * push that changed few rows) are copied in one piece (`pending`), not one value at a time.
 */
class LocalStrings {
  private readonly ids = new Map<string, number>();
  private readonly column: StringColumnBuilder;
  private count = 0;
  /** Per earlier id: its id now, -1 until used. */
  private readonly now: Int32Array;
  private readonly earlierIndex: ColumnIndex | null;
  /** Earlier values [pendingFrom, pendingTo) given the ids just before `count`, not yet copied into the column. */
  private pendingFrom = 0;
  private pendingTo = 0;

  constructor(
    rows: number,
    private readonly earlier: StringColumn | null,
  ) {
    this.column = new StringColumnBuilder(
      rows,
      Math.max(64, earlier === null ? rows * 16 : earlier.bytes.length + (earlier.bytes.length >> 3)),
    );
    this.now = new Int32Array(earlier === null ? 0 : earlier.offsets.length - 1).fill(-1);
    this.earlierIndex = earlier === null ? null : new ColumnIndex(earlier);
  }

  idOf(text: string): number {
    let id = this.ids.get(text);
    if (id === undefined) {
      const earlier = this.earlierIndex?.find(text) ?? -1;
      if (earlier >= 0) id = this.idOfEarlier(earlier);
      else {
        this.flush();
        id = this.count++;
        this.column.add(text);
      }
      this.ids.set(text, id);
    }
    return id;
  }

  idOfEarlier(earlier: number): number {
    let id = this.now[earlier];
    if (id < 0) {
      id = this.now[earlier] = this.count++;
      if (earlier !== this.pendingTo) {
        this.flush();
        this.pendingFrom = earlier;
      }
      this.pendingTo = earlier + 1;
    }
    return id;
  }

  finish(): StringColumn {
    this.flush();
    return this.column.finish();
  }

  private flush(): void {
    if (this.pendingTo > this.pendingFrom) this.column.appendValues(this.earlier!, this.pendingFrom, this.pendingTo);
    this.pendingFrom = this.pendingTo = 0;
  }
}

/**
 * The lowercased symbol, name, normalizedSymbol and normalizedName of each row
 * as chain-local string ids, up to four (string, fields) pairs per row in the
 * order the token index's search strings take them.
 */
class LocalSearchStrings {
  private readonly strings: LocalStrings;
  private readonly pairString: Uint32Array;
  private readonly pairFields: Uint8Array;
  private readonly pairCount: Uint8Array;

  constructor(rows: number, earlier: StringColumn | null) {
    this.strings = new LocalStrings(rows * 2, earlier);
    this.pairString = sharedArray(Uint32Array, rows * 4);
    this.pairFields = sharedArray(Uint8Array, rows * 4);
    this.pairCount = sharedArray(Uint8Array, rows);
  }

  add(row: number, symbol: string, name: string, normalizedSymbol: string, normalizedName: string): void {
    this.field(row, symbol, FIELD_SYMBOL);
    this.field(row, normalizedSymbol, FIELD_SYMBOL);
    this.field(row, name, FIELD_NAME);
    this.field(row, normalizedName, FIELD_NAME);
  }

  /** Row `row` as row `from` of an earlier run (the same four strings): its pairs, their ids mapped. */
  copyRow(row: number, earlier: TokenRunData, from: number): void {
    const count = earlier.pairCount[from];
    for (let k = 0; k < count; k++) {
      this.pairString[row * 4 + k] = this.strings.idOfEarlier(earlier.pairString[from * 4 + k]);
      this.pairFields[row * 4 + k] = earlier.pairFields[from * 4 + k];
    }
    this.pairCount[row] = count;
  }

  private field(row: number, value: string, field: number): void {
    if (value.length === 0) return;
    const id = this.strings.idOf(value.toLowerCase());
    const base = row * 4;
    const count = this.pairCount[row];
    for (let k = 0; k < count; k++) {
      if (this.pairString[base + k] === id) {
        this.pairFields[base + k] |= field;
        return;
      }
    }
    this.pairString[base + count] = id;
    this.pairFields[base + count] = field;
    this.pairCount[row] = count + 1;
  }

  finish(): Pick<TokenRunData, "searchStrings" | "pairString" | "pairFields" | "pairCount"> {
    return {
      searchStrings: this.strings.finish(),
      pairString: this.pairString,
      pairFields: this.pairFields,
      pairCount: this.pairCount,
    };
  }
}

/** The values of a string column found by their text (an open-addressing table over their UTF-8 bytes). */
class ColumnIndex {
  private readonly slots: Int32Array;
  private readonly mask: number;

  constructor(private readonly column: StringColumn) {
    const n = column.offsets.length - 1;
    let size = 2;
    while (size < n * 2) size <<= 1;
    this.slots = new Int32Array(size);
    this.mask = size - 1;
    const { bytes, offsets } = column;
    for (let i = 0; i < n; i++) {
      let slot = fnv1a(bytes, offsets[i], offsets[i + 1]) & this.mask;
      while (this.slots[slot] !== 0) slot = (slot + 1) & this.mask;
      this.slots[slot] = i + 1;
    }
  }

  /** The value equal to `text`, or -1. */
  find(text: string): number {
    const key = Buffer.from(text, "utf8");
    const { bytes, offsets } = this.column;
    let slot = fnv1a(key, 0, key.length) & this.mask;
    for (;;) {
      const entry = this.slots[slot];
      if (entry === 0) return -1;
      const i = entry - 1;
      const start = offsets[i];
      if (offsets[i + 1] - start === key.length) {
        let k = 0;
        while (k < key.length && bytes[start + k] === key[k]) k++;
        if (k === key.length) return i;
      }
      slot = (slot + 1) & this.mask;
    }
  }
}

/** position[rows[p]] = p. */
function inverse(rows: Uint32Array): Uint32Array {
  const position = new Uint32Array(rows.length);
  for (let p = 0; p < rows.length; p++) position[rows[p]] = p;
  return position;
}

const SYMBOL_KEY = utf8('"symbol":');
const NAME_KEY = utf8(',"name":');
const LOGO_URL_KEY = utf8(',"logoUrl":');
const CLOSE_OBJECT = utf8("}");
const DECIMALS_KEY = utf8(',"decimals":');
const SYMBOL_AFTER_KEY = utf8(',"symbol":');

/** The 20 bytes of a lowercase `0x` + 40 hex address held in a string column. */
function writeAddressBytes(out: Uint8Array, at: number, column: StringColumn, row: number): void {
  const from = column.offsets[row] + 2;
  for (let k = 0; k < ADDRESS_BYTES; k++)
    out[at + k] = (hexValue(column.bytes[from + 2 * k]) << 4) | hexValue(column.bytes[from + 2 * k + 1]);
}

function hexValue(c: number): number {
  return c <= 0x39 ? c - 0x30 : c - 0x57;
}

/** Writes `key` (when given) and the JSON string of column value `row`. */
function writeJsonField(out: StringColumnBuilder, key: Uint8Array | null, column: StringColumn, row: number): void {
  if (key !== null) out.writeBytes(key, 0, key.length);
  out.writeJsonString(column.bytes, column.offsets[row], column.offsets[row + 1]);
}

/** Row indices in address order (code units). */
function rowsByAddress(address: readonly string[]): Uint32Array {
  const rows = new Uint32Array(address.length);
  let sorted = true;
  for (let r = 0; r < rows.length; r++) {
    rows[r] = r;
    if (r > 0 && address[r - 1] > address[r]) sorted = false;
  }
  if (sorted) return rows;
  return rows.sort((a, b) => (address[a] < address[b] ? -1 : address[a] > address[b] ? 1 : 0));
}
