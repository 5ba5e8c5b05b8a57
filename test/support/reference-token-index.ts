/**
 * The token index as it was built before issue 30 (src/snapshot/compile-token-index.ts at d64b4a3, verbatim
 * but for imports and names): a k-way merge that reads every instance's pieces one at a time, keys search
 * strings and names by decoded string in Maps, and lays the search strings out from strings. What the
 * faster build must equal, column for column (test/unit/snapshot/token-index-reference.test.ts).
 */
import { SUPPORTED_CHAIN_IDS, type ChainId } from "../../src/chains/chains.js";
import { nameWords, type NameWords } from "../../src/tables/name-parity.js";
import type { TokenIndexColumns, TokenIndexData, TokenListData } from "../../src/tables/token-index.js";
import { evaluateTokenList } from "../../src/query/evaluate-token-list.js";
import { chainMask, DEFAULT_TOKEN_QUERY } from "../../src/query/token-query.js";
import { ADDRESS_BYTES } from "../../src/tables/token-index.js";
import {
  columnString,
  columnStrings,
  encodeStringColumn,
  sharedArray,
  sharedCopy,
  type StringColumn,
} from "../../src/tables/shared-columns.js";
import type { ChainTokenColumns, TokenRunData } from "../../src/tables/compiled-chain.js";
import { compileAddressTable, compileChainOrders } from "../../src/snapshot/compile-token-lookups.js";
import { compileTokenRun } from "../../src/snapshot/compile-token-run.js";

/** A chain's tokens and, when it was built with them, its token run (built here otherwise). */
interface ChainTokens {
  readonly chainId: ChainId;
  readonly tokens: ChainTokenColumns;
  readonly run?: TokenRunData;
}

/** A distinct name's interned features. */
interface NameEntry extends NameWords {
  readonly id: number;
  readonly firstWordId: number;
  /** Sorted, unique word ids. */
  readonly wordIds: Uint32Array;
}

/** One chain in the merge. */
interface Lane {
  readonly chainId: ChainId;
  /** Position among the lanes (chainId order). */
  readonly index: number;
  /** 1 << position of the chain in SUPPORTED_CHAIN_IDS. */
  readonly chainBit: number;
  readonly tokens: ChainTokenColumns;
  readonly run: TokenRunData;
  readonly symbols: readonly string[];
  /** Index-wide name entry of each chain-local name (null until first met). */
  readonly nameEntry: (NameEntry | null)[];
  /** Index-wide search string id + 1 of each chain-local one (0 until first met). */
  readonly searchId: Uint32Array;
  readonly searchText: readonly string[];
  /** Position of the chain's first instance in (chainId, address) order. */
  readonly base: number;
  /** Each row's position in the chain's address order (the inverse of its run's `byAddress`). */
  readonly addressPosition: Uint32Array;
  /** Next position in the run. */
  at: number;
  /** Normalized symbol and TVL of the instance at `at` (read once per advance, compared many times). */
  headSymbol: string;
  headTvl: number;
}

/** Instances merged between two calls of compileTokenIndex's `onProgress`. */
const INDEX_PROGRESS_INSTANCES = 8192;

/**
 * @param onProgress called every INDEX_PROGRESS_INSTANCES instances of the merge (most of the time): a build worker
 *   looks at the niceness its task should run at now (thread-niceness.ts), as a chain task does every 1024 pools, so
 *   the index of a push ageing under load gains priority while it runs, as the push's build does.
 */
export function referenceTokenIndex(chains: ReadonlyArray<ChainTokens>, onProgress: () => void = () => {}): TokenIndexData {
  const ordered = [...chains].sort((a, b) => a.chainId - b.chainId);
  let n = 0;
  const lanes: Lane[] = ordered.map(({ chainId, tokens, run }, index) => {
    const r = run ?? compileTokenRun(chainId, tokens);
    const lane: Lane = {
      chainId,
      index,
      chainBit: 1 << SUPPORTED_CHAIN_IDS.indexOf(chainId),
      tokens,
      run: r,
      symbols: columnStrings(tokens.normalizedSymbol),
      nameEntry: new Array<NameEntry | null>(r.names.offsets.length - 1).fill(null),
      searchId: new Uint32Array(r.searchStrings.offsets.length - 1),
      searchText: columnStrings(r.searchStrings),
      base: n,
      addressPosition: inverse(r.byAddress),
      at: 0,
      headSymbol: "",
      headTvl: 0,
    };
    readHead(lane);
    n += tokens.count;
    return lane;
  });

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
  const groupOfAt = sharedArray(Uint32Array, n);
  const addressBytes = sharedArray(Uint8Array, n * ADDRESS_BYTES);
  /** The lane of each instance (its JSON pieces are copied once the order is known: interleave). */
  const laneOf = new Uint8Array(n);
  /** Index position of each instance in (chainId, address) order. */
  const positionOf = new Uint32Array(n);
  const names = new NameInterner();
  const entries: NameEntry[] = new Array(n);
  const groupSymbols: string[] = [];
  const groupStarts: number[] = [];
  const pairString = new Uint32Array(n * 4);
  const pairFields = new Uint8Array(n * 4);
  const pairCount = new Uint8Array(n);
  const searchTexts: string[] = [];
  /** Index-wide search string id + 1 of each string met so far. */
  const searchIds = new Map<string, number>();

  let totalWords = 0;
  let symbol: string | null = null;
  for (let at = 0; at < n; at++) {
    if (at % INDEX_PROGRESS_INSTANCES === 0) onProgress();
    // The lane whose next instance comes first: symbol asc, TVL desc, chainId asc (lanes are in chainId order).
    let best: Lane | null = null;
    let bestSymbol = "";
    let bestTvl = 0;
    for (let l = 0; l < lanes.length; l++) {
      const lane = lanes[l];
      if (lane.at === lane.tokens.count) continue;
      const s = lane.headSymbol;
      const t = lane.headTvl;
      if (best === null || s < bestSymbol || (s === bestSymbol && t > bestTvl)) {
        best = lane;
        bestSymbol = s;
        bestTvl = t;
      }
    }
    const lane = best!;
    const { run, tokens } = lane;
    /** Rank position within the chain: where the run's JSON pieces and address bytes of this instance are. */
    const position = lane.at++;
    const row = run.rank[position];
    readHead(lane);
    if (bestSymbol !== symbol) {
      symbol = bestSymbol;
      groupSymbols.push(symbol);
      groupStarts.push(at);
    }
    groupOfAt[at] = groupSymbols.length - 1;
    positionOf[lane.base + lane.addressPosition[row]] = at;
    chainId[at] = lane.chainId;
    chainBit[at] = lane.chainBit;
    chainRow[at] = row;
    tvl[at] = tokens.tvl[row];
    price[at] = tokens.price[row];
    swaps[at] = tokens.swaps[row];
    volume[at] = tokens.volume[row];
    flags[at] = run.flags[row];

    const local = run.nameOf[row];
    let entry = lane.nameEntry[local];
    if (entry === null) {
      entry = lane.nameEntry[local] = names.get(columnString(run.names, local));
    }
    nameId[at] = entry.id;
    firstWordId[at] = entry.firstWordId;
    entries[at] = entry;
    totalWords += entry.wordIds.length;

    laneOf[at] = lane.index;
    const fromAddress = run.addressBytes;
    for (let b = 0, from = position * ADDRESS_BYTES, to = at * ADDRESS_BYTES; b < ADDRESS_BYTES; b++)
      addressBytes[to + b] = fromAddress[from + b];

    const pairs = run.pairCount[row];
    pairCount[at] = pairs;
    for (let k = 0; k < pairs; k++) {
      const localString = run.pairString[row * 4 + k];
      let id = lane.searchId[localString];
      if (id === 0) {
        const text = lane.searchText[localString];
        let known = searchIds.get(text);
        if (known === undefined) {
          searchTexts.push(text);
          searchIds.set(text, (known = searchTexts.length));
        }
        id = lane.searchId[localString] = known;
      }
      pairString[at * 4 + k] = id - 1;
      pairFields[at * 4 + k] = run.pairFields[row * 4 + k];
    }
  }
  const groupCount = groupSymbols.length;
  const groupStart = sharedArray(Uint32Array, groupCount + 1);
  groupStart.set(groupStarts);
  groupStart[groupCount] = n;

  const words = sharedArray(Uint32Array, totalWords);
  let w = 0;
  for (let at = 0; at < n; at++) {
    wordStart[at] = w;
    words.set(entries[at].wordIds, w);
    w += entries[at].wordIds.length;
  }
  wordStart[n] = w;

  // (chainId, address) order: what the single-chain orders break TVL ties with.
  const gatheredTvl = new Float64Array(n);
  const gatheredChainPos = new Uint8Array(n);
  for (const lane of lanes) {
    const pos = SUPPORTED_CHAIN_IDS.indexOf(lane.chainId);
    const { byAddress } = lane.run;
    for (let k = 0; k < byAddress.length; k++) {
      gatheredTvl[lane.base + k] = lane.tokens.tvl[byAddress[k]];
      gatheredChainPos[lane.base + k] = pos;
    }
  }
  const chainOrders = compileChainOrders(gatheredTvl, gatheredChainPos, positionOf, SUPPORTED_CHAIN_IDS.length);
  const addressTable = compileAddressTable(addressBytes, n);

  const columns: TokenIndexColumns = {
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
    addressJson: interleave(
      lanes.map((l) => l.run.addressJson),
      laneOf,
    ),
    headerJson: interleave(
      lanes.map((l) => l.run.headerJson),
      laneOf,
    ),
    groupOf: groupOfAt,
    metadataJson: interleave(
      lanes.map((l) => l.run.metadataJson),
      laneOf,
    ),
    addressBytes,
    ...addressTable,
    ...chainOrders,
    ...searchStringsFromPairs(searchTexts, pairString, pairFields, pairCount, n),
  };
  // The default token list, once here rather than in every serving thread as it takes the snapshot.
  const mask = chainMask(ordered.map((c) => c.chainId));
  return { ...columns, defaultList: { mask, list: sharedList(evaluateTokenList(columns, DEFAULT_TOKEN_QUERY, mask)) } };
}

/** The list in shared memory: handed to every serving thread without a copy. */
function sharedList(list: TokenListData): TokenListData {
  return {
    count: list.count,
    group: sharedCopy(Uint32Array, list.group),
    tvl: sharedCopy(Float64Array, list.tvl),
    memberStart: sharedCopy(Uint32Array, list.memberStart),
    members: sharedCopy(Uint32Array, list.members),
    tier: list.tier === null ? null : sharedCopy(Uint8Array, list.tier),
  };
}

/** Caches the symbol and TVL of the lane's next instance (nothing when the lane is done). */
function readHead(lane: Lane): void {
  if (lane.at === lane.tokens.count) return;
  const row = lane.run.rank[lane.at];
  lane.headSymbol = lane.symbols[row];
  lane.headTvl = lane.tokens.tvl[row];
}

/** The inverse permutation: inverse[order[k]] = k. */
function inverse(order: Uint32Array): Uint32Array {
  const out = new Uint32Array(order.length);
  for (let k = 0; k < order.length; k++) out[order[k]] = k;
  return out;
}

/**
 * One column of the index from the lanes' columns of the same piece, each in rank order: value `at` is the next
 * value of lane laneOf[at]. Each lane's values are read front to back, so a stretch of instances from one lane
 * is one copy (a value at a time cost the merge a quarter of its time).
 */
function interleave(columns: readonly StringColumn[], laneOf: Uint8Array): StringColumn {
  const n = laneOf.length;
  let total = 0;
  for (const c of columns) total += c.offsets[c.offsets.length - 1] - c.offsets[0];
  const bytes = sharedArray(Uint8Array, total);
  const offsets = sharedArray(Uint32Array, n + 1);
  const next = new Uint32Array(columns.length);
  let out = 0;
  let at = 0;
  while (at < n) {
    const l = laneOf[at];
    const from = next[l];
    const { bytes: source, offsets: ends } = columns[l];
    let to = from;
    // The stretch of instances from lane l (their values are contiguous in its column).
    do {
      to++;
      offsets[++at] = out + ends[to] - ends[from];
    } while (at < n && laneOf[at] === l);
    bytes.set(source.subarray(ends[from], ends[to]), out);
    out += ends[to] - ends[from];
    next[l] = to;
  }
  return { bytes, offsets };
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

function intern(map: Map<string, number>, key: string): number {
  let id = map.get(key);
  if (id === undefined) map.set(key, (id = map.size + 1));
  return id;
}

function searchStringsFromPairs(
  texts: readonly string[],
  pairString: Uint32Array,
  pairFields: Uint8Array,
  pairCount: Uint8Array,
  instances: number,
): { searchText: Uint8Array; searchOffsets: Uint32Array; postingStart: Uint32Array; postings: Uint32Array } {
  const strings = texts.length;
  const searchOffsets = sharedArray(Uint32Array, strings + 1);
  for (let k = 0; k < strings; k++) searchOffsets[k + 1] = searchOffsets[k] + texts[k].length;
  const text = texts.join("");
  // A lone surrogate becomes U+FFFD (one code unit for one), so the offsets hold for the decoded text.
  const encoded = Buffer.from(text, "utf8");
  const searchText = sharedArray(Uint8Array, encoded.length);
  searchText.set(encoded);

  const postingStart = sharedArray(Uint32Array, strings + 1);
  for (let at = 0; at < instances; at++) for (let k = 0; k < pairCount[at]; k++) postingStart[pairString[at * 4 + k] + 1]++;
  for (let k = 0; k < strings; k++) postingStart[k + 1] += postingStart[k];
  const fill = postingStart.slice(0, strings);
  const postings = sharedArray(Uint32Array, postingStart[strings]);
  for (let at = 0; at < instances; at++) {
    for (let k = 0; k < pairCount[at]; k++) {
      const id = pairString[at * 4 + k];
      postings[fill[id]++] = (at << 2) | pairFields[at * 4 + k];
    }
  }
  return { searchText, searchOffsets, postingStart, postings };
}
