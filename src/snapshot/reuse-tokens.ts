/**
 * The top level of a chain file whose previous version is served, read incrementally
 * (docs/decisions/013-incremental-builds.md): its `tokens` array is framed record by record and each record's
 * SHA-256 compared with the previous file's; a token whose bytes are unchanged is copied from the previous
 * columns (and its pool JSON from the previous token run) without being decoded; only new and changed tokens
 * are decoded, validated and normalized. The rest of the top level (format, chain, protocols, ...) is small and
 * decoded as usual.
 *
 * Same verdict as a full read: the whole top level decodes exactly when its rest and every token record do,
 * and every decoded record is decoded here before anything is checked; then the checks run in the full
 * read's order (top level, protocols, each token in order: structure, unique address), an unchanged record's
 * structure holding as it held before. When a record does not decode, or the top level does not frame, this
 * gives up (null) and the caller reads the top level in full, which reports the problem exactly as always.
 *
 * The token part of the change set falls out of the same comparison: an unchanged record is no change; a
 * decoded one is compared with the previous token of its address on the single-chain JSON's fields and price
 * (diff-chain.ts, tokenDiffers), and previous tokens no record took are removed.
 */
import type { ChainId } from "../chains/chains.js";
import type { ChainTokenColumns } from "../tables/compiled-chain.js";
import { columnString, sharedArray, sharedCopy, StringColumnBuilder } from "../tables/shared-columns.js";
import { arraySource } from "./byte-source.js";
import type { PreviousChainTables } from "./previous-chain.js";
import { decodeSnapshotBytes, decodeSnapshotRecord } from "./decode-snapshot.js";
import { tokenDiffers } from "./diff-chain.js";
import { poolTokenJson, type PoolTokenTable } from "./encode-pool.js";
import { splitArray } from "./pool-stream.js";
import type { NormalizedSnapshotToken } from "./normalize-token.js";
import { normalizeToken, type NormalizedSnapshotFile } from "./read-snapshot-file.js";
import { DigestIndex, digestColumn, writeDigest } from "./record-digests.js";
import { isSnapshotError } from "./snapshot-error.js";
import { TokenColumnsBuilder } from "./token-columns.js";
import { SnapshotChecker } from "./validate-snapshot.js";

/** A top level read incrementally. */
export interface ReusedHeader {
  /** Everything but the pools and the tokens (`tokens` is empty: they are `columns`), validated. */
  readonly snapshot: NormalizedSnapshotFile;
  /** The checker of the file's pools (every token checked). */
  readonly checker: SnapshotChecker;
  /** The token columns (null when read for pools only). */
  readonly columns: ChainTokenColumns | null;
  /** The tokens as the pools' JSON shows them. */
  readonly poolTokens: PoolTokenTable;
  /** Each token record's digest. */
  readonly digests: Uint8Array;
  /** Per token: the previous row it repeats (copied, not decoded), or -1 (decoded). */
  readonly rowFrom: Int32Array;
  /** Per previous token row: its row in this file, or -1 when no token of this file has its address. */
  readonly rowOf: Int32Array;
  /** Per previous token row: 1 when the token shows the same JSON in this file's pools (a pool holding only such tokens can keep its JSON). */
  readonly samePoolJson: Uint8Array;
  /** Tokens copied, not decoded. */
  readonly reused: number;
  /** The token part of the change set (unsorted; empty when read for pools only). */
  readonly upserted: string[];
  readonly removed: string[];
}

/**
 * The token records of a top level, framed, and what both build threads of a chain find of them, in shared memory:
 * each record's digest and the previous row it repeats. The records are matched in blocks that either thread
 * claims (matchTokens), so with a helper the chain's thread hashes about half of them, and the helper reads the
 * chain thread's half instead of hashing it again (docs/decisions/013-incremental-builds.md).
 */
export interface TokenMatch {
  /** Where the first token record starts in the top level, and where each ends (SplitArray). */
  readonly at: number;
  readonly ends: Float64Array;
  /** The top level with its tokens left out (an empty array). */
  readonly rest: Uint8Array;
  /** Each record's digest, written by the thread that matched its block. */
  readonly digests: Uint8Array;
  /**
   * Per record: the previous row whose record had the same bytes (same digest) and whose text the columns give
   * back (no U+FFFD: lossyRows), or -1 (the record is decoded). Written by the thread that matched its block.
   */
  readonly from: Int32Array;
  /** Records a block holds (the last one may hold fewer). */
  readonly blockRecords: number;
  /** [0]: the next block to claim; [1 + b]: block b's state (0: unclaimed, BLOCK_CLAIMED, BLOCK_MATCHED). */
  readonly blocks: Int32Array;
}

/** Records a block holds: small enough that two threads share the work evenly, large enough that claiming costs nothing. */
const MATCH_BLOCK = 1024;
export const BLOCK_CLAIMED = 1;
export const BLOCK_MATCHED = 2;
/** How long a thread waits for a block the other thread claimed before it matches the block itself (the same values). */
const BLOCK_WAIT_MS = 10;

/**
 * The token records of `header` framed for matching, or null when its tokens do not frame as one array.
 * @param blockRecords records a block holds (tests use small blocks)
 */
export function frameTokens(header: Uint8Array, blockRecords = MATCH_BLOCK): TokenMatch | null {
  const split = splitArray(arraySource(header), "tokens");
  if (split === null) return null;
  const n = split.count;
  return {
    at: split.at,
    ends: sharedCopy(Float64Array, split.ends),
    rest: split.rest,
    digests: digestColumn(n),
    from: sharedArray(Int32Array, n),
    blockRecords,
    blocks: sharedArray(Int32Array, 1 + Math.ceil(n / blockRecords)),
  };
}

/**
 * Matches every record of `match` (digest, previous row): the blocks nobody claimed yet here, then waits for those
 * the other thread claimed (or, when it is slow to finish one, matches it here too: both write the same values).
 */
function matchTokens(header: Uint8Array, match: TokenMatch, index: DigestIndex, lossy: Uint8Array): void {
  const blocks = match.blocks;
  const count = blocks.length - 1;
  for (let b = Atomics.add(blocks, 0, 1); b < count; b = Atomics.add(blocks, 0, 1)) {
    Atomics.store(blocks, 1 + b, BLOCK_CLAIMED);
    matchBlock(header, match, b, index, lossy);
    Atomics.store(blocks, 1 + b, BLOCK_MATCHED);
    Atomics.notify(blocks, 1 + b);
  }
  // Once a wait times out, the other thread is taken for stalled (descheduled, stopped): no more waiting for it.
  let waiting = true;
  for (let b = 0; b < count; b++) {
    if (Atomics.load(blocks, 1 + b) === BLOCK_MATCHED) continue;
    if (waiting) waiting = Atomics.wait(blocks, 1 + b, BLOCK_CLAIMED, BLOCK_WAIT_MS) !== "timed-out";
    if (Atomics.load(blocks, 1 + b) !== BLOCK_MATCHED) matchBlock(header, match, b, index, lossy);
  }
}

function matchBlock(header: Uint8Array, match: TokenMatch, b: number, index: DigestIndex, lossy: Uint8Array): void {
  const { ends, digests, from } = match;
  const first = b * match.blockRecords;
  const last = Math.min(from.length, first + match.blockRecords);
  let at = first === 0 ? match.at : ends[first - 1];
  for (let i = first; i < last; i++) {
    const end = ends[i];
    const j = index.find(writeDigest(header.subarray(at, end), digests, i));
    // A previous token whose text held U+FFFD may have been a lone surrogate, which the columns cannot give back: decode it.
    from[i] = j >= 0 && lossy[j] === 0 ? j : -1;
    at = end;
  }
}

/**
 * The top level of `header` (the file's top level with its pools left out) read against the previous file's
 * tokens, or null: no previous digests, another logo template, a top level that does not frame, or a record that
 * does not decode (the caller then reads it in full). Throws the SnapshotError a full read throws first.
 *
 * @param shared the records framed and matched with the chain's other build thread (frameTokens of the same
 *   header); absent or null: framed and matched here alone
 * @param poolsOnly read for the pools alone (a helper thread's pools): no token columns and no change set, the
 *   same checks and the same pool JSON
 */
export function readReusedHeader(
  header: Uint8Array,
  fileChainId: ChainId,
  logoTemplate: string,
  previous: PreviousChainTables,
  shared: TokenMatch | null = null,
  poolsOnly = false,
): ReusedHeader | null {
  const before = previous.digests;
  if (before === null || before.logoTemplate !== logoTemplate) return null;
  const match = shared ?? frameTokens(header);
  if (match === null) return null;
  const n = match.from.length;
  const old = previous.tokens;
  const lossy = lossyRows(old);
  matchTokens(header, match, new DigestIndex(before.tokens, old.count), lossy);
  /** Previous row of each unchanged token; -1 for a decoded one (its value in `decoded`). */
  const from = match.from;
  const digests = match.digests;
  const decoded: unknown[] = new Array(n);
  let reusable = 0;
  let raw: unknown;
  try {
    raw = decodeSnapshotBytes(match.rest);
    const ends = match.ends;
    for (let i = 0; i < n; i++) {
      if (from[i] >= 0) reusable++;
      else decoded[i] = decodeSnapshotRecord(header.subarray(i === 0 ? match.at : ends[i - 1], ends[i]), `tokens[${i}]`);
    }
  } catch (error) {
    if (isSnapshotError(error)) return null;
    throw error;
  }

  const checker = new SnapshotChecker(raw, fileChainId, true);
  // Unchanged tokens are checked unique by their previous row, changed ones by their address found among the
  // previous rows (or in a map when new): no map entry, and no address string, per unchanged token.
  checker.knowPreviousTokens(old.address, previous.tokenRun.byAddress);
  const metadataAt = inverse(previous.tokenRun.rank);
  const metadata = previous.tokenRun.metadataJson;
  const columns = poolsOnly ? null : new TokenColumnsBuilder(n, (f) => old[f].bytes.length + (old[f].bytes.length >> 3));
  /** Per row: its pool JSON in the previous run's metadataJson (>= 0), or -1 - its value in `json` (decoded rows). */
  const jsonFrom = new Int32Array(n);
  const json = new StringColumnBuilder(Math.max(16, n - reusable), (n - reusable) * 256);
  const rowOf = new Int32Array(old.count).fill(-1);
  const samePoolJson = new Uint8Array(old.count);
  /** Rows decoded, and their previous rows (-1: new). */
  const changedRows: number[] = [];
  const changedFrom: number[] = [];
  const upserted: string[] = [];
  for (let i = 0; i < n; i++) {
    const j = from[i];
    if (j >= 0) {
      // A run of unchanged tokens in the previous file's order: their columns copied in one piece.
      let end = i + 1;
      while (end < n && from[end] === j + (end - i)) end++;
      const length = end - i;
      columns?.copyRun(old, j, length);
      checker.knownPreviousTokenRun(i, j, length);
      for (let r = 0; r < length; r++) {
        jsonFrom[i + r] = metadataAt[j + r];
        rowOf[j + r] = i + r;
      }
      samePoolJson.fill(1, j, j + length);
      i = end - 1;
    } else {
      const token = normalizeToken(checker.token(i, decoded[i]), fileChainId, logoTemplate);
      columns?.add(token);
      jsonFrom[i] = -1 - json.length;
      json.add(poolTokenJson(fileChainId, token));
      const k = checker.previousTokenRow(token.address);
      if (k >= 0) {
        rowOf[k] = i;
        // The file passed the checks so far, so no other token of this file has row k's address: set once.
        samePoolJson[k] = lossy[k] === 0 && samePoolToken(old, k, token) ? 1 : 0;
      } else if (columns !== null) upserted.push(token.address);
      changedRows.push(i);
      changedFrom.push(k);
    }
  }
  const merged = columns?.finish() ?? null;
  const removed: string[] = [];
  if (merged !== null) {
    for (let c = 0; c < changedRows.length; c++) {
      const k = changedFrom[c];
      if (k >= 0 && tokenDiffers(old, k, merged, changedRows[c])) upserted.push(columnString(old.address, k));
    }
    for (let j = 0; j < old.count; j++) if (rowOf[j] < 0) removed.push(columnString(old.address, j));
  }
  return {
    snapshot: raw as NormalizedSnapshotFile,
    checker,
    columns: merged,
    poolTokens: { json: json.finish(), earlier: { column: metadata, from: jsonFrom }, rows: checker.tokenRows },
    digests,
    rowFrom: from,
    rowOf,
    samePoolJson,
    reused: n - changedRows.length,
    upserted,
    removed,
  };
}

/**
 * Whether row j of `a` (whose text holds no U+FFFD: lossyRows) and a validated token show the same JSON in pools
 * (decimals, symbol, name, logoUrl): compared as strings, which for such a row is comparing their UTF-8 bytes
 * (a token's text with a lone surrogate writes U+FFFD, which the row does not hold).
 */
function samePoolToken(a: ChainTokenColumns, j: number, token: NormalizedSnapshotToken): boolean {
  return (
    a.decimals[j] === token.decimals &&
    columnString(a.symbol, j) === token.symbol &&
    columnString(a.name, j) === token.name &&
    columnString(a.logoUrl, j) === token.logoUrl
  );
}

const REPLACEMENT = Buffer.from([0xef, 0xbf, 0xbd]);

/**
 * Per row of `columns`: 1 when the text a pool shows of the token (symbol, name, logoUrl) holds U+FFFD (bytes
 * EF BF BD), found by one native search per column rather than a scan per row.
 */
export function lossyRows(columns: ChainTokenColumns): Uint8Array {
  const rows = new Uint8Array(columns.count);
  for (const { bytes, offsets } of [columns.symbol, columns.name, columns.logoUrl]) {
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, offsets[columns.count]);
    for (let at = buffer.indexOf(REPLACEMENT, offsets[0]); at >= 0; at = buffer.indexOf(REPLACEMENT, at + 1)) {
      const row = rowHolding(offsets, columns.count, at);
      if (at + 3 <= offsets[row + 1]) rows[row] = 1;
    }
  }
  return rows;
}

/** The row r of a column of n values with offsets[r] <= at < offsets[r + 1] (offsets[0] <= at < offsets[n]). */
function rowHolding(offsets: Uint32Array, n: number, at: number): number {
  let low = 0;
  let high = n - 1;
  while (low < high) {
    const mid = (low + high + 1) >>> 1;
    if (offsets[mid] <= at) low = mid;
    else high = mid - 1;
  }
  return low;
}

/** position[rows[p]] = p. */
function inverse(rows: Uint32Array): Uint32Array {
  const position = new Uint32Array(rows.length);
  for (let p = 0; p < rows.length; p++) position[rows[p]] = p;
  return position;
}
