/**
 * Whether a chain file is worth reading against the chain's last accepted file
 * (docs/decisions/013-incremental-builds.md), judged before it is read: an incremental read pays, per record,
 * for comparing it with the previous file's and, per changed record, for the change set it keeps as it goes;
 * with most records changed that is more than it saves, and a full read and a diff are faster (chain 8453 of
 * the large set with every record changed: incremental 9.7-12.9 s, full 8.7-10.9 s, bench/RESULTS.md). So a
 * sample of the file's pools, spread evenly over it, is hashed as the framing pass hashes every pool and looked
 * up among the previous file's digests; with too few found, the file is read in full. The choice changes
 * how long a build takes, never what it answers: an incremental build equals the full build of the same file
 * to the byte (test/unit/snapshot/incremental-build.test.ts).
 */
import type { ByteSource } from "./byte-source.js";
import type { SplitSnapshot } from "./pool-stream.js";
import { digestColumn, DigestIndex, writeDigest } from "./record-digests.js";

/** Pools hashed to judge a file. */
export const SAMPLED_POOLS = 512;
/** Files with fewer pools are always read incrementally: reading them costs little either way. */
export const MIN_POOLS_TO_SAMPLE = 4096;
/**
 * A file is read in full when fewer than this share of its sampled pools have a previous pool's bytes (an
 * incremental read was measured slower at 100 % changed and 0.6-0.8x a full one at 20 %; the break-even,
 * interpolated, lies near 75-80 % changed).
 */
export const MIN_UNCHANGED_SHARE = 0.25;

/**
 * True when the file's pools are mostly changed since the previous file (whose pool digests are `previousDigests`,
 * one per previous pool): fewer than MIN_UNCHANGED_SHARE of SAMPLED_POOLS pools, evenly spread, found among them.
 * False for a file of fewer than MIN_POOLS_TO_SAMPLE pools.
 *
 * @param bytes the file (a small window is enough: each sampled pool is read on its own)
 */
export function mostPoolsChanged(bytes: ByteSource, layout: SplitSnapshot, previousDigests: Uint8Array, previousCount: number): boolean {
  const count = layout.poolCount;
  if (count < MIN_POOLS_TO_SAMPLE || previousCount === 0) return count >= MIN_POOLS_TO_SAMPLE;
  const index = new DigestIndex(previousDigests, previousCount);
  const scratch = digestColumn(1);
  let found = 0;
  for (let s = 0; s < SAMPLED_POOLS; s++) {
    const i = Math.floor(((s + 0.5) * count) / SAMPLED_POOLS);
    const from = i === 0 ? layout.poolsAt : layout.poolEnds[i - 1];
    if (index.find(writeDigest(bytes.view(from, layout.poolEnds[i]), scratch, 0)) >= 0) found++;
  }
  return found < MIN_UNCHANGED_SHARE * SAMPLED_POOLS;
}
