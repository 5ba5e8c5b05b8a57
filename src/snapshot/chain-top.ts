/**
 * The top level of a split chain file (everything but its pools), as each thread that reads the file's pools
 * needs it: read in full, or, when the chain's last accepted file kept its records' digests, against that
 * file (reuse-tokens.ts: only new and changed tokens decoded), with what its pools are then compared with
 * (reuse-pools.ts). Both build threads of a chain read it the same way from the same bytes, so they agree.
 */
import type { ChainId } from "../chains/chains.js";
import { arraySource } from "./byte-source.js";
import type { PreparedTokens } from "./compile-chain.js";
import { splitArray } from "./pool-stream.js";
import type { PreviousChainTables } from "./previous-chain.js";
import { openSnapshotHeader, type NormalizedSnapshotFile } from "./read-snapshot-file.js";
import { digestColumn, writeDigest } from "./record-digests.js";
import { PoolReuse } from "./reuse-pools.js";
import { readReusedHeader, type ReusedHeader, type TokenMatch } from "./reuse-tokens.js";
import type { SnapshotChecker } from "./validate-snapshot.js";

export interface ChainTop {
  /** The top level, validated, token defaults filled (`tokens` empty when read incrementally: see `prepared`). */
  readonly snapshot: NormalizedSnapshotFile;
  /** The checker of the file's pools. */
  readonly checker: SnapshotChecker;
  /** Read incrementally: the tokens against the previous file's; null when read in full. */
  readonly reused: ReusedHeader | null;
  /** Read incrementally (not for pools only): the tokens compiled already, and the previous file's pools to keep. */
  readonly prepared: PreparedTokens | null;
  readonly reuse: PoolReuse | null;
}

/**
 * @param previous the chain's last accepted file, or null
 * @param present one byte per previous pool (PoolReuseInput.present), or null for a full read
 * @param tokens the token records framed for both build threads (reuse-tokens.ts, frameTokens), or null
 * @param poolsOnly read for the pools alone (the helper's pools: reuse-tokens.ts, readReusedHeader)
 */
export function openChainTop(
  header: Uint8Array,
  chainId: ChainId,
  logoTemplate: string,
  previous: PreviousChainTables | null,
  present: Uint8Array | null,
  tokens: TokenMatch | null = null,
  poolsOnly = false,
): ChainTop {
  if (previous !== null && present !== null) {
    const reused = readReusedHeader(header, chainId, logoTemplate, previous, tokens, poolsOnly);
    if (reused !== null) {
      const reuse = new PoolReuse({ previous, tokens: reused, protocols: reused.snapshot.protocols, present });
      reused.checker.knowPreviousPools(previous.pools);
      const { columns, poolTokens } = reused;
      const previousRun = { run: previous.tokenRun, rowFrom: reused.rowFrom };
      const prepared = columns === null ? null : { columns, poolTokens, previousRun };
      return { snapshot: reused.snapshot, checker: reused.checker, reused, prepared, reuse };
    }
  }
  const { snapshot, checker } = openSnapshotHeader(header, chainId, logoTemplate);
  return { snapshot, checker, reused: null, prepared: null, reuse: null };
}

/**
 * Whether a build of a file may read it against the chain's last accepted file: that file kept its records'
 * digests with the same logo template (a token's logoUrl may come from it).
 */
export function mayReuse(previous: PreviousChainTables | null, logoTemplate: string): previous is PreviousChainTables {
  return previous !== null && previous.digests !== null && previous.digests.logoTemplate === logoTemplate;
}

/** The digest of each token record of a top level read in full (null when its tokens do not frame as one array). */
export function tokenDigests(header: Uint8Array): Uint8Array | null {
  const split = splitArray(arraySource(header), "tokens");
  if (split === null) return null;
  const digests = digestColumn(split.count);
  let at = split.at;
  for (let i = 0; i < split.count; i++) {
    writeDigest(header.subarray(at, split.ends[i]), digests, i);
    at = split.ends[i];
  }
  return digests;
}
