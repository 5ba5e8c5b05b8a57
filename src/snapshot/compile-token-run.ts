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
import { sortByFloatKey } from "../util/float-key-sort.js";
import {
  columnStrings,
  encodeStringColumn,
  sharedArray,
  sharedCopy,
  StringColumnBuilder,
  utf8,
  type StringColumn,
} from "../tables/shared-columns.js";
import type { ChainTokenColumns, TokenRunData } from "../tables/compiled-chain.js";

export function compileTokenRun(chainId: ChainId, tokens: ChainTokenColumns): TokenRunData {
  const m = tokens.count;
  const address = columnStrings(tokens.address);
  const normalizedSymbol = columnStrings(tokens.normalizedSymbol);
  const normalizedName = columnStrings(tokens.normalizedName);
  const symbol = columnStrings(tokens.symbol);
  const name = columnStrings(tokens.name);

  // Address order, then rank order: stable by TVL desc over address order, then a stable counting sort by symbol.
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

  // Per row: flags, chain-local name and search-string ids.
  const wrapped = CHAINS[chainId].wrappedNative;
  const flags = sharedArray(Uint8Array, m);
  const addressBytes = sharedArray(Uint8Array, m * ADDRESS_BYTES);
  let textBytes = tokens.symbol.bytes.length + tokens.name.bytes.length + tokens.logoUrl.bytes.length;
  textBytes += textBytes >> 3;
  const addressJson = new StringColumnBuilder(m, m * 80);
  const headerJson = new StringColumnBuilder(m, m * 32 + textBytes);
  const metadataJson = new StringColumnBuilder(m, m * 110 + textBytes);
  const prefix = utf8(`{"chainId":${chainId},"address":`);
  const nameIds = new Map<string, number>();
  const names: string[] = [];
  const nameFeatures: NameWords[] = [];
  const nameOf = sharedArray(Uint32Array, m);
  const search = new LocalSearchStrings(m);
  for (let row = 0; row < m; row++) {
    let id = nameIds.get(normalizedName[row]);
    if (id === undefined) {
      id = names.length;
      nameIds.set(normalizedName[row], id);
      names.push(normalizedName[row]);
      nameFeatures.push(nameWords(normalizedName[row]));
    }
    nameOf[row] = id;
    const lowerSymbol = normalizedSymbol[row].toLowerCase();
    let f = 0;
    if (address[row] === wrapped) f |= FLAG_WRAPPED_NATIVE;
    if (containsSymbol(nameFeatures[id], lowerSymbol)) f |= FLAG_NAME_CONTAINS_SYMBOL;
    if (initialsMatchSymbol(nameFeatures[id], lowerSymbol)) f |= FLAG_INITIALS_MATCH_SYMBOL;
    flags[row] = f;
    search.add(row, symbol[row], name[row], normalizedSymbol[row], normalizedName[row]);
  }
  // JSON pieces and address bytes in rank order (value j is row rank[j]): the index's merge then
  // reads each chain's pieces front to back instead of gathering them from all over the columns.
  for (let j = 0; j < m; j++) {
    const row = rank[j];
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
    names: encodeStringColumn(names),
    nameOf,
    ...search.finish(),
  };
}

/**
 * The lowercased symbol, name, normalizedSymbol and normalizedName of each row
 * as chain-local string ids, up to four (string, fields) pairs per row in the
 * order the token index's search strings take them.
 */
class LocalSearchStrings {
  private readonly ids = new Map<string, number>();
  private readonly texts: string[] = [];
  private readonly pairString: Uint32Array;
  private readonly pairFields: Uint8Array;
  private readonly pairCount: Uint8Array;

  constructor(rows: number) {
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

  private field(row: number, value: string, field: number): void {
    if (value.length === 0) return;
    const lower = value.toLowerCase();
    let id = this.ids.get(lower);
    if (id === undefined) {
      id = this.texts.length;
      this.ids.set(lower, id);
      this.texts.push(lower);
    }
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
      searchStrings: encodeStringColumn(this.texts),
      pairString: this.pairString,
      pairFields: this.pairFields,
      pairCount: this.pairCount,
    };
  }
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
