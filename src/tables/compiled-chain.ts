/**
 * One chain's compiled data, as a build worker hands it to the server: plain
 * metadata plus shared columns (no copies when posted between threads).
 */
import type { ChainId } from "../chains/chains.js";
import type { Protocol } from "../api/wire.js";
import type { StringColumn } from "./shared-columns.js";
import type { PoolSearchIndexData } from "./pool-search-index.js";
import type { PoolTableData } from "./pool-table.js";

export interface ChainSnapshotInfo {
  readonly chainId: ChainId;
  readonly generatedAt: number;
  readonly blockNumber: number | null;
  readonly file: string;
  readonly fileBytes: number;
  /** SHA-256 of the file's bytes (lowercase hex): the chain's content identity. */
  readonly sha256: string;
  readonly fileMtimeMs: number;
  readonly tokenCount: number;
  readonly poolCount: number;
  readonly buildMs: number;
}

/** Token columns of one chain, the input of the cross-chain token index. */
export interface ChainTokenColumns {
  readonly count: number;
  readonly address: StringColumn;
  readonly symbol: StringColumn;
  readonly name: StringColumn;
  readonly logoUrl: StringColumn;
  readonly normalizedSymbol: StringColumn;
  readonly normalizedName: StringColumn;
  readonly decimals: Uint8Array;
  /** trackedTotalValuePooledUsd */
  readonly tvl: Float64Array;
  /** trackedUsdPrice */
  readonly price: Float64Array;
  readonly swaps: Float64Array;
  /** trackedSwapVolumeUsd */
  readonly volume: Float64Array;
}

/**
 * One chain's part of the cross-chain token index (src/snapshot/compile-token-run.ts): per row of the
 * chain's token columns unless said otherwise; the index merges the chains' runs.
 */
export interface TokenRunData {
  /** Rows in the index's rank order within the chain: normalizedSymbol asc (code units), tracked TVL desc, address asc. */
  readonly rank: Uint32Array;
  /** Rows in address order. */
  readonly byAddress: Uint32Array;
  /** FLAG_* of the token index. */
  readonly flags: Uint8Array;
  /** 20 bytes per rank position: bytes [20j, 20j + 20) are row rank[j]'s address. */
  readonly addressBytes: Uint8Array;
  /** The JSON pieces, one value per rank position (value j is row rank[j]'s), so a merge reads them in order. */
  readonly addressJson: StringColumn;
  readonly headerJson: StringColumn;
  readonly metadataJson: StringColumn;
  /** Distinct normalizedName values of the chain, and each row's among them. */
  readonly names: StringColumn;
  readonly nameOf: Uint32Array;
  /** Distinct lowercased symbol, name, normalizedSymbol and normalizedName values of the chain. */
  readonly searchStrings: StringColumn;
  /** Up to four (search string, FIELD_* bits) pairs a row: pairString[row * 4 + k], k < pairCount[row]. */
  readonly pairString: Uint32Array;
  readonly pairFields: Uint8Array;
  readonly pairCount: Uint8Array;
}

export interface CompiledChain {
  readonly info: ChainSnapshotInfo;
  /** Protocols that have at least one pool on this chain, by id. */
  readonly protocols: readonly Protocol[];
  readonly pools: PoolTableData;
  readonly tokens: ChainTokenColumns;
  /** The chain's part of the cross-chain token index. */
  readonly tokenRun: TokenRunData;
  /** What pool search reads (api-extended.md §10). */
  readonly poolSearch: PoolSearchIndexData;
}
