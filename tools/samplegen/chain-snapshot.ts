/** Assembles the snapshot of one chain: tokens, pools, protocols. */
import type { ChainId } from "../../src/chains/chains.js";
import type { SnapshotFile, SnapshotPool, SnapshotProtocol } from "../../src/api/snapshot-format.js";
import { createChainContext } from "./chain-context.js";
import { buildPools, type ProgressListener } from "./pool-factory.js";
import { planPools } from "./pool-planner.js";
import { PROTOCOLS } from "./protocol-catalog.js";
import type { ScaleProfile } from "./scale.js";
import { blockNumberAt, generatedAtFor } from "./snapshot-time.js";
import { addSharedMinors, addTail, pinThresholdEdges, type SharedMinor } from "./tail-tokens.js";
import { TokenBook } from "./token-book.js";
import { addMajors, addNativeAndWrapped, addSpecials } from "./token-factory.js";

export interface ChainSnapshotInput {
  readonly chainId: ChainId;
  readonly seed: number;
  readonly scale: ScaleProfile;
  readonly sharedCatalog: readonly SharedMinor[];
  readonly reservedSymbols: ReadonlySet<string>;
  readonly onPoolProgress?: ProgressListener;
}

function byAddress<T extends { address: string }>(a: T, b: T): number {
  return a.address < b.address ? -1 : a.address > b.address ? 1 : 0;
}

/** The protocols that have at least one pool, ordered by id. */
function protocolsOf(pools: readonly SnapshotPool[]): SnapshotProtocol[] {
  const ids = [...new Set(pools.map((p) => p.protocolId))].sort();
  return ids.map((id) => {
    const protocol = PROTOCOLS[id];
    if (!protocol) throw new Error(`unknown protocol ${id}`);
    return { ...protocol };
  });
}

export function buildChainSnapshot(input: ChainSnapshotInput): SnapshotFile {
  const { chainId, seed, scale } = input;
  const generatedAt = generatedAtFor(seed, chainId);
  const ctx = createChainContext(chainId, seed, scale, generatedAt);

  const book = new TokenBook();
  addNativeAndWrapped(ctx, book);
  addMajors(ctx, book);
  addSpecials(ctx, book);
  addSharedMinors(ctx, book, input.sharedCatalog, input.reservedSymbols);
  const tail = addTail(ctx, book, scale.chains[chainId].tailTokens, input.reservedSymbols);
  pinThresholdEdges(ctx, tail);

  const plans = planPools(ctx, book.entries);
  const pools = buildPools(ctx, book.entries, plans, input.onPoolProgress);

  return {
    format: "liquidity-snapshot",
    version: 1,
    chainId,
    generatedAt,
    blockNumber: blockNumberAt(ctx.profile, generatedAt),
    protocols: protocolsOf(pools),
    tokens: book.entries.map((entry) => entry.record).sort(byAddress),
    pools: pools.sort(byAddress),
  };
}
