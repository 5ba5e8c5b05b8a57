/**
 * The cross-chain token index: every token instance of every loaded chain,
 * grouped by normalizedSymbol (groups in code-unit order) and ranked inside a
 * group by tracked TVL desc, chainId asc, address asc (api-decisions.md §3.2).
 * Plain shared columns, built once per snapshot by a worker.
 */
import type { TokenRunData } from "./compiled-chain.js";
import { columnBytes, type StringColumn } from "./shared-columns.js";

export const FLAG_WRAPPED_NATIVE = 1;
export const FLAG_NAME_CONTAINS_SYMBOL = 2;
export const FLAG_INITIALS_MATCH_SYMBOL = 4;

/**
 * A token list (api-decisions.md §3): its entries (symbol groups) in list order, each with its listed
 * members (query/evaluate-token-list.ts computes them).
 */
export interface TokenListData {
  readonly count: number;
  /** Group index (into the token index) of each entry, in list order. */
  readonly group: Uint32Array;
  /** Group TVL of each entry, in list order. */
  readonly tvl: Float64Array;
  /** Members of entry e: members[memberStart[e]..memberStart[e+1]], in rank order. */
  readonly memberStart: Uint32Array;
  readonly members: Uint32Array;
  /** Relevance tier of each entry, in list order (searches ordered by relevance); null otherwise. */
  readonly tier: Uint8Array | null;
}

export interface TokenIndexData extends TokenIndexColumns {
  /**
   * The list of the default token query (every chain of the index, the default filters, TVL desc: what
   * `POST /v1/tokens {}` pages through), evaluated once when the index is built, so that no serving
   * thread evaluates it when it takes the snapshot; `mask`: the chains it was evaluated over.
   */
  readonly defaultList: { readonly mask: number; readonly list: TokenListData };
}

/**
 * Distinct UTF-8 strings, string k being bytes [ends[k - 1], ends[k]) (from 0 for k = 0), with the UTF-16 code
 * units of the strings up to and including k (units[k]) and the FNV-1a hash of each (compile-search-strings.ts,
 * ByteStrings).
 */
export interface SavedStrings {
  readonly count: number;
  readonly bytes: Uint8Array;
  readonly ends: Uint32Array;
  readonly units: Uint32Array;
  readonly hashes: Uint32Array;
}

/**
 * The strings a token index interned, in the order of its ids, and what each chain's strings are among them: a
 * build where some chains did not change maps those chains' strings through `chains` and interns only the
 * changed chains' strings (docs/decisions/004-early-token-index.md). The builder keeps it beside the index it
 * serves (compile-token-index.ts, KeptTokenIndex): no query reads it and no serving thread is handed it. Its
 * strings are in the order of the ids the index hands out, so it is the same whether the index was built afresh
 * or reusing.
 */
export interface TokenIndexReuse {
  /** Distinct normalized names, in order of first use (rank order). */
  readonly names: SavedStrings;
  /** Cleaned name of each normalized name (nameId - 1). */
  readonly cleanedOf: Uint32Array;
  /** Distinct cleaned names, by nameId - 1. */
  readonly cleaned: SavedStrings;
  /** The words of cleaned name c, in order and with repeats: wordSequence[wordSequenceStart[c]..[c + 1]] (word ids). */
  readonly wordSequenceStart: Uint32Array;
  readonly wordSequence: Uint32Array;
  /** Distinct words, by word id - 1. */
  readonly words: SavedStrings;
  /** Distinct search strings, by search string id (searchText, searchOffsets). */
  readonly search: SavedStrings;
  readonly chains: readonly ReusedChain[];
}

/** One chain of a token index: its file, and its token run's names and search strings among the index's. */
export interface ReusedChain {
  readonly chainId: number;
  /** SHA-256 of the chain's file (null: not known, never reused). */
  readonly sha256: string | null;
  /** Index of each of the run's `names` among `names`. */
  readonly nameOf: Uint32Array;
  /** Search string id of each of the run's `searchStrings`. */
  readonly searchOf: Uint32Array;
}

/** The index's columns: what a token list is evaluated from. */
export interface TokenIndexColumns {
  readonly instanceCount: number;
  readonly groupCount: number;
  /** groupStart[g]..groupStart[g+1] are the instances of group g, in rank order. */
  readonly groupStart: Uint32Array;
  /** normalizedSymbol of each group. */
  readonly groupSymbol: StringColumn;
  readonly chainId: Uint32Array;
  /** 1 << position of the chain in SUPPORTED_CHAIN_IDS. */
  readonly chainBit: Uint8Array;
  /** Row of each instance among its chain's snapshot tokens (what the chain's pools and pool-search index refer to). */
  readonly chainRow: Uint32Array;
  readonly tvl: Float64Array;
  readonly price: Float64Array;
  readonly swaps: Float64Array;
  readonly volume: Float64Array;
  readonly flags: Uint8Array;
  /** Interned cleaned name: equal ids, equal names. */
  readonly nameId: Uint32Array;
  /** Interned first word of the cleaned name; 0 when the name has no word. */
  readonly firstWordId: Uint32Array;
  /** Sorted, unique interned word ids of each name: words[wordStart[i]..wordStart[i+1]]. */
  readonly wordStart: Uint32Array;
  readonly words: Uint32Array;
  /**
   * The JSON pieces of each chain's instances, by chain position in SUPPORTED_CHAIN_IDS (null: the chain is not in
   * the index): its token run's columns, held there and never copied into the index (a push that changes one
   * chain merges the index again without copying the others' JSON). Instance i's pieces are value `jsonAt[i]` of
   * its chain's columns (instanceJson, jsonColumn).
   */
  readonly json: readonly (ChainJson | null)[];
  /** Position of each instance among its chain's `json` values (its position in the chain's token run). */
  readonly jsonAt: Uint32Array;

  // ---- what search, single-chain lists and lookups need (api-extended.md §8-§9)

  /** Group of each instance (groupStart[groupOf[i]] <= i < groupStart[groupOf[i] + 1]). */
  readonly groupOf: Uint32Array;
  /** The address of each instance, 20 bytes (byte order = lowercase hex order). */
  readonly addressBytes: Uint8Array;
  /** Address hash table: slots hold instance + 1 (0 = empty); length is a power of two. */
  readonly addressSlots: Uint32Array;
  /** Next instance with the same address (+1; 0 = none): the other chains of a slot's instance. */
  readonly addressNext: Uint32Array;
  /**
   * Single-chain orders, per chain position in SUPPORTED_CHAIN_IDS: the instances of chain c are
   * chainByTvlDesc[chainStart[c]..chainStart[c+1]] by tracked TVL desc, then address asc, and
   * chainByTvlAsc[…] by tracked TVL asc, then address asc.
   */
  readonly chainStart: Uint32Array;
  readonly chainByTvlDesc: Uint32Array;
  readonly chainByTvlAsc: Uint32Array;
  /** Position of each instance in its chain's desc / asc order. */
  readonly chainRankDesc: Uint32Array;
  readonly chainRankAsc: Uint32Array;
  /**
   * Search strings: every distinct lowercased symbol, name, normalizedSymbol and normalizedName,
   * as one UTF-8 text; string k is code units [searchOffsets[k], searchOffsets[k+1]) of the decoded text.
   */
  readonly searchText: Uint8Array;
  readonly searchOffsets: Uint32Array;
  /**
   * Instances holding each search string: postings[postingStart[k]..postingStart[k+1]], ascending,
   * each `instance << 2 | fields` (FIELD_SYMBOL: symbol or normalizedSymbol; FIELD_NAME: name or normalizedName).
   */
  readonly postingStart: Uint32Array;
  readonly postings: Uint32Array;
}

/**
 * The JSON pieces of one chain's instances (compile-token-run.ts), one value per run position:
 * - addressJson: `{"chainId":1,"address":"0x…"}`;
 * - headerJson: `"symbol":…,"name":…,"logoUrl":…` (used when the instance anchors its group);
 * - metadataJson: SingleChainTokenMetadata, `{"chainId":…,"address":…,"decimals":…,"name":…,"symbol":…,"logoUrl":…}`.
 */
export type ChainJson = Pick<TokenRunData, "addressJson" | "headerJson" | "metadataJson">;

export type JsonPiece = keyof ChainJson;

/** The column that holds instance i's `piece`, as value `ix.jsonAt[i]`. */
export function jsonColumn(ix: TokenIndexColumns, piece: JsonPiece, i: number): StringColumn {
  return ix.json[31 - Math.clz32(ix.chainBit[i])]![piece];
}

/** Instance i's `piece` (a view of its chain's column). */
export function instanceJson(ix: TokenIndexColumns, piece: JsonPiece, i: number): Uint8Array {
  return columnBytes(jsonColumn(ix, piece, i), ix.jsonAt[i]);
}

/** The length of instance i's `piece` (no view made: a reply is sized before it is written). */
export function instanceJsonLength(ix: TokenIndexColumns, piece: JsonPiece, i: number): number {
  const { offsets } = jsonColumn(ix, piece, i);
  const at = ix.jsonAt[i];
  return offsets[at + 1] - offsets[at];
}

/** A posting's string is the instance's symbol or normalizedSymbol. */
export const FIELD_SYMBOL = 1;
/** A posting's string is the instance's name or normalizedName. */
export const FIELD_NAME = 2;

/** Width of one address in addressBytes. */
export const ADDRESS_BYTES = 20;
