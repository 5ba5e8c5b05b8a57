/**
 * Snapshots compiled in this thread as the build workers and the supervisor
 * make them: each chain diffed against its previous compile, its change set
 * drafted, stamped and retained, and the whole posted as the supervisor's
 * snapshot message. What the in-process app swaps in, and what the stream's
 * unit tests (test/unit/stream/) publish and replay from.
 */
import { snapshotVersion } from "../../src/api/snapshot-version.js";
import type { SnapshotFile } from "../../src/api/snapshot-format.js";
import type { ChainId } from "../../src/chains/chains.js";
import type { SnapshotMessage } from "../../src/server/messages.js";
import { ChangeHistoryKeeper } from "../../src/serving/change-history.js";
import { ServingSnapshot } from "../../src/serving/serving-snapshot.js";
import { ChangeSetDrafts } from "../../src/snapshot/change-set-drafts.js";
import { compileTokenIndex } from "../../src/snapshot/compile-token-index.js";
import { diffChain } from "../../src/snapshot/diff-chain.js";
import type { ChangeHistoryMessage, ChangeSetDraft } from "../../src/tables/change-sets.js";
import type { CompiledChain } from "../../src/tables/compiled-chain.js";
import { compileFileAsRead } from "./compiled-chains.js";

/**
 * The change sets of an in-process app's snapshots, as the loader and the supervisor make them: each chain
 * diffed against its previous compile, stamped and retained.
 */
export class InProcessChanges {
  private readonly keeper = new ChangeHistoryKeeper();
  private readonly last = new Map<ChainId, CompiledChain>();
  private readonly drafts = new ChangeSetDrafts();

  /** The history message of a snapshot serving `chains` (every chain whose file changed gets a set). */
  publish(chains: readonly CompiledChain[], version: number, nowMs = Date.now()): ChangeHistoryMessage {
    const drafts: ChangeSetDraft[] = [];
    for (const chain of chains) {
      const { info } = chain;
      const previous = this.last.get(info.chainId);
      if (previous?.info.sha256 === info.sha256) continue;
      drafts.push(this.drafts.draft(info, previous?.info ?? null, diffChain(previous ?? null, chain)));
      this.last.set(info.chainId, chain);
    }
    return this.keeper.publish(drafts, version, nowMs);
  }
}

/** Compiles snapshot files as the build workers do, into the message the supervisor posts a serving thread. */
export function compileSnapshot(files: readonly SnapshotFile[], changes: InProcessChanges, slot: number): SnapshotMessage {
  const chains = files.map((file) => compileFileAsRead(file));
  const index = compileTokenIndex(chains.map((c) => ({ chainId: c.info.chainId, tokens: c.tokens })));
  const version = snapshotVersion(chains.map((c) => c.info));
  const chainIds = chains.map((c) => c.info.chainId).sort((a, b) => a - b);
  return { type: "snapshot", version, slot, chainIds, chains, tokenIndex: index, changes: changes.publish(chains, version) };
}

/** The snapshot a serving thread makes of `message` (as ThreadUpdates does). */
export function servingSnapshotOf(message: SnapshotMessage): ServingSnapshot {
  return new ServingSnapshot(message.version, message.chainIds, message.chains, message.tokenIndex, message.changes);
}
