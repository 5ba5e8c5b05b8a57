/**
 * Builds the cross-chain token index from the token columns of every loaded
 * chain (runs in a build worker; the result is shared columns).
 *
 * Every string column is decoded once per chain; the rank order (symbol asc,
 * TVL desc, chainId asc, address asc) comes from stable typed-array sorts
 * applied from the least significant key up, never from a comparator over
 * per-instance objects; name features are computed once per distinct name.
 */
import { CHAINS, SUPPORTED_CHAIN_IDS, type ChainId } from "../chains/chains.js";
import { containsSymbol, initialsMatchSymbol, nameWords, type NameWords } from "../tables/name-parity.js";
import { FLAG_INITIALS_MATCH_SYMBOL, FLAG_NAME_CONTAINS_SYMBOL, FLAG_WRAPPED_NATIVE, type TokenIndexData } from "../tables/token-index.js";
import { ADDRESS_BYTES } from "../tables/token-index.js";
import { sortByFloatKey } from "../util/float-key-sort.js";
import { columnStrings, encodeStringColumn, sharedArray, StringColumnBuilder, utf8, type StringColumn } from "../tables/shared-columns.js";
import type { ChainTokenColumns } from "../tables/compiled-chain.js";
import { SearchStringsBuilder } from "./compile-search-strings.js";
import { compileAddressTable, compileChainOrders } from "./compile-token-lookups.js";

type ChainTokens = { chainId: ChainId; tokens: ChainTokenColumns };

/** Every instance of every chain, ordered by chainId asc then address asc. */
interface Instances {
  readonly count: number;
  readonly chainId: Uint32Array;
  /** Position of the chain in SUPPORTED_CHAIN_IDS. */
  readonly chainPos: Uint8Array;
  /** Where the instance's display strings are: tokens of chains[chain], row. */
  readonly chain: Uint8Array;
  readonly row: Uint32Array;
  readonly wrappedNative: Uint8Array;
  readonly tvl: Float64Array;
  readonly price: Float64Array;
  readonly swaps: Float64Array;
  readonly volume: Float64Array;
  readonly normalizedSymbol: string[];
  readonly normalizedName: string[];
  readonly symbol: string[];
  readonly name: string[];
  /** In chainId order. */
  readonly chains: ChainTokens[];
}

/** A distinct name's interned features. */
interface NameEntry extends NameWords {
  readonly id: number;
  readonly firstWordId: number;
  /** Sorted, unique word ids. */
  readonly wordIds: Uint32Array;
}

export function compileTokenIndex(chains: ReadonlyArray<ChainTokens>): TokenIndexData {
  const all = gatherInstances(chains);
  const n = all.count;

  // Distinct symbols in code-unit order: the groups.
  const symbolSlot = new Map<string, number>();
  const distinct: string[] = [];
  const slotOf = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const s = all.normalizedSymbol[i];
    let slot = symbolSlot.get(s);
    if (slot === undefined) {
      slot = distinct.length;
      symbolSlot.set(s, slot);
      distinct.push(s);
    }
    slotOf[i] = slot;
  }
  const groupSymbols = distinct.slice().sort();
  const groupCount = groupSymbols.length;
  const rankOfSlot = new Uint32Array(groupCount);
  for (let g = 0; g < groupCount; g++) rankOfSlot[symbolSlot.get(groupSymbols[g])!] = g;

  // Rank order: stable by TVL desc over (chainId, address) order, then a
  // stable counting sort by group.
  const byTvl = sortByFloatKey(all.tvl, n, true);
  const groupStart = sharedArray(Uint32Array, groupCount + 1);
  const groupOf = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const g = rankOfSlot[slotOf[i]];
    groupOf[i] = g;
    groupStart[g + 1]++;
  }
  for (let g = 0; g < groupCount; g++) groupStart[g + 1] += groupStart[g];
  const next = groupStart.slice(0, groupCount);
  const order = new Uint32Array(n);
  for (let j = 0; j < n; j++) {
    const i = byTvl[j];
    order[next[groupOf[i]]++] = i;
  }

  const chainId = sharedArray(Uint32Array, n);
  const chainBit = sharedArray(Uint8Array, n);
  const chainRow = sharedArray(Uint32Array, n);
  const tvl = sharedArray(Float64Array, n);
  const price = sharedArray(Float64Array, n);
  const swaps = sharedArray(Float64Array, n);
  const volume = sharedArray(Float64Array, n);
  const flags = sharedArray(Uint8Array, n);
  const nameId = sharedArray(Uint32Array, n);
  const firstWordId = sharedArray(Uint32Array, n);
  const wordStart = sharedArray(Uint32Array, n + 1);
  let textBytes = 0;
  for (const { tokens } of all.chains) textBytes += tokens.symbol.bytes.length + tokens.name.bytes.length + tokens.logoUrl.bytes.length;
  const addressJson = new StringColumnBuilder(n, n * 80);
  const headerJson = new StringColumnBuilder(n, n * 32 + textBytes + (textBytes >> 3));
  const metadataJson = new StringColumnBuilder(n, n * 110 + textBytes + (textBytes >> 3));
  const groupOfAt = sharedArray(Uint32Array, n);
  const addressBytes = sharedArray(Uint8Array, n * ADDRESS_BYTES);
  const positionOf = new Uint32Array(n);
  const searchStrings = new SearchStringsBuilder(n);
  const metadataPrefix = all.chains.map((c) => utf8(`{"chainId":${c.chainId},"address":`));
  const chainBits = new Map<number, number>(SUPPORTED_CHAIN_IDS.map((id, i) => [id, 1 << i]));
  const addressPrefix = all.chains.map((c) => utf8(`{"chainId":${c.chainId},"address":`));
  const names = new NameInterner();
  const entries: NameEntry[] = new Array(n);

  let totalWords = 0;
  let g = -1;
  let lowerSymbol = "";
  for (let at = 0; at < n; at++) {
    while (at === groupStart[g + 1]) lowerSymbol = groupSymbols[++g].toLowerCase();
    const i = order[at];
    positionOf[i] = at;
    groupOfAt[at] = g;
    const chain = all.chainId[i];
    chainId[at] = chain;
    chainBit[at] = chainBits.get(chain)!;
    chainRow[at] = all.row[i];
    tvl[at] = all.tvl[i];
    price[at] = all.price[i];
    swaps[at] = all.swaps[i];
    volume[at] = all.volume[i];

    const entry = names.get(all.normalizedName[i]);
    let f = 0;
    if (all.wrappedNative[i]) f |= FLAG_WRAPPED_NATIVE;
    if (containsSymbol(entry, lowerSymbol)) f |= FLAG_NAME_CONTAINS_SYMBOL;
    if (initialsMatchSymbol(entry, lowerSymbol)) f |= FLAG_INITIALS_MATCH_SYMBOL;
    flags[at] = f;
    nameId[at] = entry.id;
    firstWordId[at] = entry.firstWordId;
    entries[at] = entry;
    totalWords += entry.wordIds.length;

    // {"chainId":…,"address":"0x…"} and "symbol":…,"name":…,"logoUrl":…, straight from the UTF-8 columns.
    const c = all.chain[i];
    const row = all.row[i];
    const tokens = all.chains[c].tokens;
    const prefix = addressPrefix[c];
    addressJson.writeBytes(prefix, 0, prefix.length);
    writeJsonField(addressJson, null, tokens.address, row);
    addressJson.writeBytes(CLOSE_OBJECT, 0, 1);
    addressJson.endValue();
    writeJsonField(headerJson, SYMBOL_KEY, tokens.symbol, row);
    writeJsonField(headerJson, NAME_KEY, tokens.name, row);
    writeJsonField(headerJson, LOGO_URL_KEY, tokens.logoUrl, row);
    headerJson.endValue();

    // {"chainId":…,"address":"0x…","decimals":…,"name":…,"symbol":…,"logoUrl":…}
    const metaPrefix = metadataPrefix[c];
    metadataJson.writeBytes(metaPrefix, 0, metaPrefix.length);
    writeJsonField(metadataJson, null, tokens.address, row);
    metadataJson.writeBytes(DECIMALS_KEY, 0, DECIMALS_KEY.length);
    metadataJson.writeNumber(tokens.decimals[row]);
    writeJsonField(metadataJson, NAME_KEY, tokens.name, row);
    writeJsonField(metadataJson, SYMBOL_AFTER_KEY, tokens.symbol, row);
    writeJsonField(metadataJson, LOGO_URL_KEY, tokens.logoUrl, row);
    metadataJson.writeBytes(CLOSE_OBJECT, 0, 1);
    metadataJson.endValue();

    writeAddressBytes(addressBytes, at * ADDRESS_BYTES, tokens.address, row);
    searchStrings.add(at, all.symbol[i], all.name[i], all.normalizedSymbol[i], all.normalizedName[i]);
  }

  const words = sharedArray(Uint32Array, totalWords);
  let w = 0;
  for (let at = 0; at < n; at++) {
    wordStart[at] = w;
    words.set(entries[at].wordIds, w);
    w += entries[at].wordIds.length;
  }
  wordStart[n] = w;

  const chainOrders = compileChainOrders(all.tvl, all.chainPos, positionOf, SUPPORTED_CHAIN_IDS.length);
  const addressTable = compileAddressTable(addressBytes, n);

  return {
    instanceCount: n,
    groupCount,
    groupStart,
    groupSymbol: encodeStringColumn(groupSymbols),
    chainId,
    chainBit,
    chainRow,
    tvl,
    price,
    swaps,
    volume,
    flags,
    nameId,
    firstWordId,
    wordStart,
    words,
    addressJson: addressJson.finish(),
    headerJson: headerJson.finish(),
    groupOf: groupOfAt,
    metadataJson: metadataJson.finish(),
    addressBytes,
    ...addressTable,
    ...chainOrders,
    ...searchStrings.finish(),
  };
}

/**
 * Interns cleaned names and words. Ids are handed out in order of first use,
 * so they depend only on the order in which names are asked for.
 */
class NameInterner {
  private readonly byName = new Map<string, NameEntry>();
  private readonly cleanedIds = new Map<string, number>();
  private readonly wordIds = new Map<string, number>();

  get(normalizedName: string): NameEntry {
    let entry = this.byName.get(normalizedName);
    if (entry === undefined) {
      const { cleaned, words, initials } = nameWords(normalizedName);
      const ids = words.map((word) => intern(this.wordIds, word));
      entry = {
        cleaned,
        words,
        initials,
        id: intern(this.cleanedIds, cleaned),
        firstWordId: ids.length > 0 ? ids[0] : 0,
        wordIds: Uint32Array.from(new Set(ids)).sort(),
      };
      this.byName.set(normalizedName, entry);
    }
    return entry;
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

function intern(map: Map<string, number>, key: string): number {
  let id = map.get(key);
  if (id === undefined) map.set(key, (id = map.size + 1));
  return id;
}

/** Decodes each chain's grouping strings once, in (chainId asc, address asc) order. */
function gatherInstances(chains: ReadonlyArray<ChainTokens>): Instances {
  const ordered = [...chains].sort((a, b) => a.chainId - b.chainId);
  let count = 0;
  for (const c of ordered) count += c.tokens.count;
  const all: Instances = {
    count,
    chainId: new Uint32Array(count),
    chainPos: new Uint8Array(count),
    chain: new Uint8Array(count),
    row: new Uint32Array(count),
    wrappedNative: new Uint8Array(count),
    tvl: new Float64Array(count),
    price: new Float64Array(count),
    swaps: new Float64Array(count),
    volume: new Float64Array(count),
    normalizedSymbol: new Array(count),
    normalizedName: new Array(count),
    symbol: new Array(count),
    name: new Array(count),
    chains: ordered,
  };
  let at = 0;
  for (let c = 0; c < ordered.length; c++) {
    const { chainId, tokens } = ordered[c];
    const wrapped = CHAINS[chainId].wrappedNative;
    const address = columnStrings(tokens.address);
    const normalizedSymbol = columnStrings(tokens.normalizedSymbol);
    const normalizedName = columnStrings(tokens.normalizedName);
    const symbol = columnStrings(tokens.symbol);
    const name = columnStrings(tokens.name);
    const chainPos = SUPPORTED_CHAIN_IDS.indexOf(chainId);
    for (const row of rowsByAddress(address)) {
      all.chainId[at] = chainId;
      all.chainPos[at] = chainPos;
      all.chain[at] = c;
      all.row[at] = row;
      all.wrappedNative[at] = address[row] === wrapped ? 1 : 0;
      all.tvl[at] = tokens.tvl[row];
      all.price[at] = tokens.price[row];
      all.swaps[at] = tokens.swaps[row];
      all.volume[at] = tokens.volume[row];
      all.normalizedSymbol[at] = normalizedSymbol[row];
      all.normalizedName[at] = normalizedName[row];
      all.symbol[at] = symbol[row];
      all.name[at] = name[row];
      at++;
    }
  }
  return all;
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
