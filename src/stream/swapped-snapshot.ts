/**
 * A snapshot a serving thread swapped in, as its streams see it: what a
 * publication publishes (fan-out.ts) and what a connection resuming from a
 * position is replayed from (replay.ts), with the pool and token JSON an event
 * carries (the bytes the REST routes answer).
 */
import type { ChainId } from "../chains/chains.js";
import type { ServingSnapshot } from "../serving/serving-snapshot.js";
import type { CompiledChain } from "../tables/compiled-chain.js";
import { findPool, poolJson } from "../tables/pool-table.js";
import { instanceOnChain, parseAddress, tokenInfoChunks } from "../tables/token-lookup.js";

/** A snapshot swapped in and not yet published (or the last published one), with its pool tables (kept even if the store releases them meanwhile). */
export interface SwappedSnapshot {
  readonly snapshot: ServingSnapshot;
  readonly chains: ReadonlyMap<ChainId, CompiledChain>;
  /** When this thread swapped it in (epoch ms). */
  readonly swappedAt: number;
}

export function swappedSnapshot(snapshot: ServingSnapshot, swappedAt: number): SwappedSnapshot {
  return { snapshot, chains: snapshot.hasPools ? snapshot.chains : new Map(), swappedAt };
}

/** A pool's or token's JSON as its REST route answers it, from `entry`'s tables, in pieces; null when the chain's file no longer has it. */
export function recordJson(entry: SwappedSnapshot, kind: "pool" | "token", chainId: ChainId, address: string): Uint8Array[] | null {
  if (kind === "pool") {
    const chain = entry.chains.get(chainId);
    if (chain === undefined) return null;
    const i = findPool(chain.pools, address);
    return i < 0 ? null : [poolJson(chain.pools, i)];
  }
  const ix = entry.snapshot.tokenIndex;
  const bytes = parseAddress(address);
  const i = bytes === null ? -1 : instanceOnChain(ix, chainId, bytes);
  if (i < 0) return null;
  const [head, tail] = tokenInfoChunks(ix, i);
  return [head, Buffer.from(tail)];
}
