/**
 * Builds the cross-chain token index from every loaded chain's token columns
 * and token run (runs in a build worker; the result is shared columns).
 *
 * Each chain's run (compile-token-run.ts, built with the chain) holds its
 * tokens in rank order within the chain and everything about a token that does
 * not depend on the other chains. The index is a k-way merge of the runs by
 * rank order (symbol asc, TVL desc, chainId asc, address asc): what is left
 * per instance is placing its columns and mapping its chain-local name and
 * search-string ids to index-wide ones, in rank order, so ids are handed out
 * exactly as a build from scratch hands them out. Its JSON pieces stay in its
 * chain's run: the index holds the runs' columns and each instance's position
 * there (TokenIndexColumns `json`, `jsonAt`).
 *
 * Given the served snapshot's index, a chain whose file is the one it was
 * built with is reused: its strings need no lookup (token-index-strings.ts)
 * and its instances come in that index's order (docs/decisions/004-early-token-index.md).
 */
import { SUPPORTED_CHAIN_IDS, type ChainId } from "../chains/chains.js";
import type { ChainJson, ReusedChain, TokenIndexColumns, TokenIndexData, TokenIndexReuse, TokenListData } from "../tables/token-index.js";
import { evaluateTokenList } from "../query/evaluate-token-list.js";
import { chainMask, DEFAULT_TOKEN_QUERY } from "../query/token-query.js";
import { ADDRESS_BYTES } from "../tables/token-index.js";
import { columnStrings, encodeStringColumn, sharedArray, sharedCopy } from "../tables/shared-columns.js";
import type { ChainTokenColumns, TokenRunData } from "../tables/compiled-chain.js";
import { compileAddressTable, compileChainOrders, type ChainOrderSource } from "./compile-token-lookups.js";
import { compileTokenRun } from "./compile-token-run.js";
import { searchStringsFromPairs } from "./compile-search-strings.js";
import { IndexStrings, type Numbering } from "./token-index-strings.js";

/** A chain's tokens and, when it was built with them, its token run (built here otherwise). */
export interface ChainTokens {
  readonly chainId: ChainId;
  readonly tokens: ChainTokenColumns;
  readonly run?: TokenRunData;
  /** SHA-256 of the chain's file: a chain with the one the previous index names for it reuses that index's strings and order. */
  readonly sha256?: string;
}

/** A distinct cleaned name's features. */
interface NameEntry {
  /** Interned cleaned name (IndexStrings, by name-parity.ts `cleanNameBytes`): nameId. */
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
  readonly sha256: string | null;
  /**
   * Whether the previous index holds this chain with the same file (tableIds): its strings are reused, and its orders
   * too unless lanesByBit refuses them.
   */
  reused: boolean;
  /** Table id (IndexStrings) of each of the run's names and of each of its search strings. */
  nameOf: Uint32Array;
  searchOf: Uint32Array;
  readonly count: number;
  /** Normalized symbol and TVL of each rank position (the merge reads them front to back). */
  readonly rankSymbol: readonly string[];
  readonly rankTvl: Float64Array;
  /** Index position of each rank position (filled by the merge). */
  readonly atOf: Uint32Array;
  /** Next position in the run. */
  at: number;
}

/**
 * A token index as its builder keeps it: the index, which is served, and beside it what the next build reuses,
 * which is not (no query reads it; the loader keeps it with the served index and hands both to the next build).
 */
export interface KeptTokenIndex {
  readonly index: TokenIndexData;
  readonly reuse: TokenIndexReuse;
  /** Chains this build took from the previous one (same file: their strings, and their order, were not looked at again). */
  readonly reusedChains: number;
}

/** Instances merged between two calls of compileTokenIndex's `onProgress`. */
export const INDEX_PROGRESS_INSTANCES = 8192;

/**
 * @param onProgress called every INDEX_PROGRESS_INSTANCES instances of the merge (most of the time): a build worker
 *   looks at the niceness its task should run at now (thread-niceness.ts), as a chain task does every 1024 pools, so
 *   the index of a push ageing under load gains priority while it runs, as the push's build does.
 */
export function compileTokenIndex(
  chains: ReadonlyArray<ChainTokens>,
  onProgress: () => void = () => {},
  previous: KeptTokenIndex | null = null,
): TokenIndexData {
  return compileKeptTokenIndex(chains, onProgress, previous).index;
}

/** The index of `chains` and what the next build reuses; `kept`: the served snapshot's, or null. */
export function compileKeptTokenIndex(
  chains: ReadonlyArray<ChainTokens>,
  onProgress: () => void = () => {},
  kept: KeptTokenIndex | null = null,
): KeptTokenIndex {
  const previous = kept?.index ?? null;
  const ordered = [...chains].sort((a, b) => a.chainId - b.chainId);
  let n = 0;
  const lanes: Lane[] = ordered.map(({ chainId, tokens, run, sha256 }, index) => {
    const r = run ?? compileTokenRun(chainId, tokens);
    const symbols = columnStrings(tokens.normalizedSymbol);
    const count = tokens.count;
    const rankSymbol = new Array<string>(count);
    const rankTvl = new Float64Array(count);
    for (let position = 0; position < count; position++) {
      const row = r.rank[position];
      rankSymbol[position] = symbols[row];
      rankTvl[position] = tokens.tvl[row];
    }
    const lane: Lane = {
      chainId,
      index,
      chainBit: 1 << SUPPORTED_CHAIN_IDS.indexOf(chainId),
      tokens,
      run: r,
      sha256: sha256 ?? null,
      reused: false,
      nameOf: EMPTY,
      searchOf: EMPTY,
      count,
      rankSymbol,
      rankTvl,
      atOf: new Uint32Array(count),
      at: 0,
    };
    n += count;
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
  const addressWordsOut = new Uint32Array(addressBytes.buffer, 0, n * ADDRESS_WORDS);
  const jsonAt = sharedArray(Uint32Array, n);
  /** The lane of each instance. */
  const laneOf = new Uint8Array(n);
  const strings = tableIds(lanes, kept?.reuse ?? null);
  const reusedByBit = previous === null ? null : lanesByBit(lanes, previous);
  const entries: NameEntry[] = new Array(n);
  const groupSymbols: string[] = [];
  const groupStarts: number[] = [];
  const pairString = new Uint32Array(n * 4);
  const pairFields = new Uint8Array(n * 4);
  const pairCount = new Uint8Array(n);

  // 1. The order: which lane each instance comes from (symbol asc, TVL desc, chainId asc), reading each lane's
  // heads front to back. The lanes reused from the previous index come in its order (one head for all of them:
  // the previous index's next instance of a reused chain), so only the other lanes' heads are compared with it.
  const compared = reusedByBit === null ? lanes : lanes.filter((lane) => !lane.reused);
  const before = previous?.chainBit ?? EMPTY_BITS;
  let old = reusedByBit === null ? before.length : nextReused(before, reusedByBit!, 0);
  let symbol: string | null = null;
  for (let at = 0; at < n; at++) {
    if (at % INDEX_PROGRESS_INSTANCES === 0) onProgress();
    let best: Lane | null = null;
    let bestSymbol = "";
    let bestTvl = 0;
    if (old < before.length) {
      best = reusedByBit![before[old]]!;
      bestSymbol = best.rankSymbol[best.at];
      bestTvl = best.rankTvl[best.at];
    }
    for (let l = 0; l < compared.length; l++) {
      const lane = compared[l];
      if (lane.at === lane.count) continue;
      const s = lane.rankSymbol[lane.at];
      const t = lane.rankTvl[lane.at];
      if (best === null || s < bestSymbol || (s === bestSymbol && (t > bestTvl || (t === bestTvl && lane.index < best.index)))) {
        best = lane;
        bestSymbol = s;
        bestTvl = t;
      }
    }
    const lane = best!;
    lane.atOf[lane.at++] = at;
    if (reusedByBit !== null && lane.reused) old = nextReused(before, reusedByBit!, old + 1);
    if (bestSymbol !== symbol) {
      symbol = bestSymbol;
      groupSymbols.push(symbol);
      groupStarts.push(at);
    }
    groupOfAt[at] = groupSymbols.length - 1;
    laneOf[at] = lane.index;
  }

  // 2. Each lane's instances, in its rank order (rank position p is instance atOf[p]): the columns.
  for (const lane of lanes) {
    const { run, tokens, atOf } = lane;
    const fromAddress = run.addressBytes;
    const addressWords = wordsOf(fromAddress);
    for (let position = 0; position < lane.count; position++) {
      const at = atOf[position];
      const row = run.rank[position];
      chainId[at] = lane.chainId;
      chainBit[at] = lane.chainBit;
      chainRow[at] = row;
      jsonAt[at] = position;
      tvl[at] = tokens.tvl[row];
      price[at] = tokens.price[row];
      swaps[at] = tokens.swaps[row];
      volume[at] = tokens.volume[row];
      flags[at] = run.flags[row];
      if (addressWords !== null)
        for (let b = 0, from = position * ADDRESS_WORDS, to = at * ADDRESS_WORDS; b < ADDRESS_WORDS; b++)
          addressWordsOut[to + b] = addressWords[from + b];
      else
        for (let b = 0, from = position * ADDRESS_BYTES, to = at * ADDRESS_BYTES; b < ADDRESS_BYTES; b++)
          addressBytes[to + b] = fromAddress[from + b];
    }
  }

  // 3. Index-wide name and search string ids, handed out in rank order (order of first use), from the chain-local
  // ids of each instance's row.
  const nameIds = numbering(strings.nameCount);
  const cleanedIds = numbering(strings.cleanedCount);
  const wordIds = numbering(strings.wordCount + 1);
  const searchIds = numbering(strings.search.size);
  const entryOf = new Array<NameEntry | null>(strings.cleanedCount).fill(null);
  let totalWords = 0;
  for (let at = 0; at < n; at++) {
    const lane = lanes[laneOf[at]];
    const { run } = lane;
    const row = chainRow[at];
    const name = lane.nameOf[run.nameOf[row]];
    use(nameIds, name);
    const cleaned = strings.cleanedName(name);
    let entry = entryOf[cleaned];
    if (entry === null) {
      const { sequence, start, end } = strings.wordsOf(cleaned);
      const ids: number[] = [];
      for (let w = start; w < end; w++) ids.push(use(wordIds, sequence[w]));
      entry = entryOf[cleaned] = { id: use(cleanedIds, cleaned), firstWordId: ids.length > 0 ? ids[0] : 0, wordIds: sortedUnique(ids) };
    }
    nameId[at] = entry.id;
    firstWordId[at] = entry.firstWordId;
    entries[at] = entry;
    totalWords += entry.wordIds.length;
    const pairs = run.pairCount[row];
    pairCount[at] = pairs;
    for (let k = 0; k < pairs; k++) {
      pairString[at * 4 + k] = use(searchIds, lane.searchOf[run.pairString[row * 4 + k]]) - 1;
      pairFields[at * 4 + k] = run.pairFields[row * 4 + k];
    }
  }
  // Word table ids are from 1 (0: none), as the ids handed out: shift the order to table ids from 1.
  const wordOrder: Numbering = { order: wordIds.order.map((w) => w - 1), count: wordIds.count };
  const saved = strings.save(nameIds, cleanedIds, wordOrder, searchIds, cleanedIds.next, wordIds.next);
  const reuse: TokenIndexReuse = {
    ...saved,
    chains: lanes.map((lane): ReusedChain => ({
      chainId: lane.chainId,
      sha256: lane.sha256,
      nameOf: renumbered(lane.nameOf, nameIds.next),
      searchOf: renumbered(lane.searchOf, searchIds.next),
    })),
  };
  const groupCount = groupSymbols.length;
  const groupStart = sharedArray(Uint32Array, groupCount + 1);
  groupStart.set(groupStarts);
  groupStart[groupCount] = n;

  const words = sharedArray(Uint32Array, totalWords);
  let w = 0;
  for (let at = 0; at < n; at++) {
    wordStart[at] = w;
    const ids = entries[at].wordIds;
    for (let k = 0; k < ids.length; k++) words[w++] = ids[k];
  }
  wordStart[n] = w;

  const chainOrders = compileChainOrders(chainOrderSources(lanes, reusedByBit === null ? null : previous), n);
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
    json: chainJson(lanes),
    jsonAt,
    groupOf: groupOfAt,
    addressBytes,
    ...addressTable,
    ...chainOrders,
    ...searchStringsFromPairs(saved.search, pairString, pairFields, pairCount, n),
  };
  // The default token list, once here rather than in every serving thread as it takes the snapshot.
  const mask = chainMask(ordered.map((c) => c.chainId));
  return {
    index: { ...columns, defaultList: { mask, list: sharedList(evaluateTokenList(columns, DEFAULT_TOKEN_QUERY, mask)) } },
    reuse,
    reusedChains: lanes.filter((lane) => lane.reused).length,
  };
}

const EMPTY = new Uint32Array(0);
/** An address is five 32-bit words (copied a word at a time where the source is aligned). */
const ADDRESS_WORDS = ADDRESS_BYTES / 4;

/** The bytes as 32-bit words (a view), or null when they do not start on a word boundary. */
function wordsOf(bytes: Uint8Array): Uint32Array | null {
  return bytes.byteOffset % 4 === 0 ? new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.length >> 2) : null;
}
const EMPTY_BITS = new Uint8Array(0);

/**
 * The reused lanes by chain bit, when each has as many instances in the previous index as it has tokens (it has,
 * being the same file's: this only guards the merge's reading of it); null otherwise (every chain's orders are then sorted).
 */
function lanesByBit(lanes: readonly Lane[], previous: TokenIndexData): (Lane | null)[] | null {
  const byBit = new Array<Lane | null>(256).fill(null);
  let any = false;
  for (const lane of lanes) {
    if (!lane.reused) continue;
    const position = SUPPORTED_CHAIN_IDS.indexOf(lane.chainId);
    if (previous.chainStart[position + 1] - previous.chainStart[position] !== lane.count) return null;
    byBit[lane.chainBit] = lane;
    any = true;
  }
  return any ? byBit : null;
}

/** The first instance of the previous index from `from` on whose chain is reused (its length: none). */
function nextReused(chainBits: Uint8Array, byBit: (Lane | null)[], from: number): number {
  let at = from;
  while (at < chainBits.length && byBit[chainBits[at]] === null) at++;
  return at;
}

/**
 * Fills each lane's table ids of its run's names and search strings: a lane whose chain the previous index holds
 * with the same file (SHA-256) takes them from there, with no lookup; the other lanes' strings are looked up in
 * the previous index's tables (or in empty ones, when no lane reuses anything), new ones added.
 */
function tableIds(lanes: readonly Lane[], previous: TokenIndexReuse | null): IndexStrings {
  const reused = new Map<Lane, ReusedChain>();
  let moreNames = 0;
  let moreStrings = 0;
  for (const lane of lanes) {
    const names = lane.run.names.offsets.length - 1;
    const searchStrings = lane.run.searchStrings.offsets.length - 1;
    const before = previous?.chains.find((c) => c.chainId === lane.chainId);
    if (
      before !== undefined &&
      lane.sha256 !== null &&
      before.sha256 === lane.sha256 &&
      before.nameOf.length === names &&
      before.searchOf.length === searchStrings
    )
      reused.set(lane, before);
    else {
      moreNames += names;
      moreStrings += searchStrings;
    }
  }
  const strings = reused.size > 0 ? IndexStrings.restore(previous!, moreNames, moreStrings) : IndexStrings.fresh(moreNames, moreStrings);
  for (const lane of lanes) {
    const before = reused.get(lane);
    if (before !== undefined) {
      lane.reused = true;
      lane.nameOf = before.nameOf;
      lane.searchOf = before.searchOf;
      continue;
    }
    const { names, searchStrings } = lane.run;
    lane.nameOf = new Uint32Array(names.offsets.length - 1);
    for (let k = 0; k < lane.nameOf.length; k++) lane.nameOf[k] = strings.nameOf(names, k);
    lane.searchOf = new Uint32Array(searchStrings.offsets.length - 1);
    for (let k = 0; k < lane.searchOf.length; k++) lane.searchOf[k] = strings.search.idOf(searchStrings, k);
  }
  return strings;
}

/** Ids handed out anew, by first use: next[t] is the new id (from 1) of table id t (0: not used yet). */
interface NewIds extends Numbering {
  readonly next: Uint32Array;
  count: number;
}

function numbering(tableIds: number): NewIds {
  return { order: new Uint32Array(tableIds), next: new Uint32Array(tableIds), count: 0 };
}

/** The new id (from 1) of table id t, handed out now when t was not used before. */
function use(ids: NewIds, t: number): number {
  let id = ids.next[t];
  if (id === 0) {
    ids.order[ids.count] = t;
    id = ids.next[t] = ++ids.count;
  }
  return id;
}

/** A lane's table ids as the new ids (from 0) they were given. */
function renumbered(tableIds: Uint32Array, next: Uint32Array): Uint32Array {
  const out = sharedArray(Uint32Array, tableIds.length);
  for (let k = 0; k < tableIds.length; k++) out[k] = next[tableIds[k]] - 1;
  return out;
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

/** The lanes' JSON pieces by chain position: their runs' columns, not copied. */
function chainJson(lanes: readonly Lane[]): (ChainJson | null)[] {
  const json = new Array<ChainJson | null>(SUPPORTED_CHAIN_IDS.length).fill(null);
  for (const { chainId, run } of lanes)
    json[SUPPORTED_CHAIN_IDS.indexOf(chainId)] = {
      addressJson: run.addressJson,
      headerJson: run.headerJson,
      metadataJson: run.metadataJson,
    };
  return json;
}

/**
 * Each lane's instances for the single-chain orders (by chain position): a lane whose order is reused (`previous`
 * given: it is the lanes' index) has the previous index's orders of its chain, mapped to the instances' new
 * positions through their run positions; any other has its TVLs and positions in address order, to sort.
 */
function chainOrderSources(lanes: readonly Lane[], previous: TokenIndexData | null): (ChainOrderSource | null)[] {
  const sources = new Array<ChainOrderSource | null>(SUPPORTED_CHAIN_IDS.length).fill(null);
  for (const lane of lanes) {
    const c = SUPPORTED_CHAIN_IDS.indexOf(lane.chainId);
    const { atOf, count } = lane;
    if (previous !== null && lane.reused) {
      const start = previous.chainStart[c];
      const mapped = (order: Uint32Array) => {
        const out = new Uint32Array(count);
        for (let k = 0; k < count; k++) out[k] = atOf[previous.jsonAt[order[start + k]]];
        return out;
      };
      sources[c] = { desc: mapped(previous.chainByTvlDesc), asc: mapped(previous.chainByTvlAsc) };
      continue;
    }
    // In address order: what the orders break TVL ties with.
    const { byAddress, rank } = lane.run;
    const positionOfRow = new Uint32Array(count);
    for (let p = 0; p < count; p++) positionOfRow[rank[p]] = atOf[p];
    const tvl = new Float64Array(count);
    const positionOf = new Uint32Array(count);
    for (let k = 0; k < count; k++) {
      tvl[k] = lane.tokens.tvl[byAddress[k]];
      positionOf[k] = positionOfRow[byAddress[k]];
    }
    sources[c] = { tvl, positionOf };
  }
  return sources;
}

/** The ids, sorted and without duplicates. */
function sortedUnique(ids: readonly number[]): Uint32Array {
  const sorted = Uint32Array.from(ids).sort();
  let unique = 0;
  for (let k = 0; k < sorted.length; k++) if (k === 0 || sorted[k] !== sorted[k - 1]) sorted[unique++] = sorted[k];
  return unique === sorted.length ? sorted : sorted.slice(0, unique);
}
