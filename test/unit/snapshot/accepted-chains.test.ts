/**
 * The loader's bookkeeping of accepted chains (src/snapshot/accepted-chains.ts): what a batch publishes, the
 * change sets it hands over, what a token index is built from, and removed files, on real compiled chains.
 */
import { describe, expect, it } from "vitest";
import { type ChainId } from "../../../src/chains/chains.js";
import { snapshotContentKey, snapshotVersion } from "../../../src/api/snapshot-version.js";
import { AcceptedChains } from "../../../src/snapshot/accepted-chains.js";
import { diffChain } from "../../../src/snapshot/diff-chain.js";
import type { CompiledChain } from "../../../src/tables/compiled-chain.js";
import { oneTokenChain } from "../../support/fixtures.js";
import { compileFileAsRead } from "../../support/compiled-chains.js";

const NOW_S = 1_760_000_000;

function compiled(chainId: ChainId, generatedAt: number, symbol: string): CompiledChain {
  return compileFileAsRead(oneTokenChain(chainId, generatedAt, symbol));
}

function accept(chains: AcceptedChains, chain: CompiledChain): void {
  chains.accept(chain, diffChain(chains.chain(chain.info.chainId) ?? null, chain));
}

describe("AcceptedChains", () => {
  it("publishes every last-good chain under the version of their files, with the change sets in the order accepted, once", () => {
    const chains = new AcceptedChains();
    expect(chains.serving).toBe(false);
    const [a1, b1, a2] = [compiled(1, NOW_S, "A"), compiled(8453, NOW_S, "B"), compiled(1, NOW_S + 1, "A2")];
    accept(chains, a1);
    accept(chains, b1);
    accept(chains, a2);
    const batch = chains.nextBatch()!;
    expect(batch.chains).toEqual([a2, b1]);
    expect(batch.version).toBe(snapshotVersion([a2.info, b1.info]));
    const changes = chains.published(batch);
    expect(changes.map((c) => [c.chainId, c.generatedAt, c.previousGeneratedAt])).toEqual([
      [1, NOW_S, null],
      [8453, NOW_S, null],
      [1, NOW_S + 1, NOW_S],
    ]);
    expect([chains.serving, chains.version, chains.servedBytes()]).toEqual([true, batch.version, a2.info.fileBytes + b1.info.fileBytes]);
    expect(chains.nextBatch()).toBeNull();
  });

  it("contents back at what is published make no batch, and their change sets are dropped", () => {
    const chains = new AcceptedChains();
    const [a1, a2] = [compiled(1, NOW_S, "A"), compiled(1, NOW_S + 1, "A2")];
    accept(chains, a1);
    chains.published(chains.nextBatch()!);
    accept(chains, a2);
    accept(chains, a1);
    expect(chains.nextBatch()).toBeNull();
    accept(chains, a2);
    expect(chains.published(chains.nextBatch()!).map((c) => c.generatedAt)).toEqual([NOW_S + 1]);
  });

  it("a token index's inputs: every chain, one chain's tokens replaced by a file's early tokens, or added", () => {
    const chains = new AcceptedChains();
    const [a1, b1, a2, c1] = [compiled(1, NOW_S, "A"), compiled(8453, NOW_S, "B"), compiled(1, NOW_S + 1, "A2"), compiled(130, NOW_S, "C")];
    accept(chains, a1);
    accept(chains, b1);
    const early = (c: CompiledChain) => ({ chainId: c.info.chainId, sha256: c.info.sha256, tokens: c.tokens, run: c.tokenRun });
    expect(chains.indexInputs()).toEqual([early(a1), early(b1)]);
    expect(chains.indexInputs(early(a2))).toEqual([early(a2), early(b1)]);
    expect(chains.indexInputs(early(c1))).toEqual([early(a1), early(b1), early(c1)]);
    // The content key of the replaced inputs is the key of the batch the file makes once accepted.
    accept(chains, a2);
    expect(chains.nextBatch()!.contentKey).toBe(snapshotContentKey([a2.info, b1.info]));
  });

  it("a removed chain file is reported once, and again after the chain is accepted anew", () => {
    const chains = new AcceptedChains();
    accept(chains, compiled(1, NOW_S, "A"));
    accept(chains, compiled(8453, NOW_S, "B"));
    expect(chains.removedSince(new Set([8453]))).toEqual([1]);
    expect(chains.removedSince(new Set([8453]))).toEqual([]);
    accept(chains, compiled(1, NOW_S + 1, "A2"));
    expect(chains.removedSince(new Set())).toEqual([1, 8453]);
    expect(chains.chain(1)?.info.generatedAt).toBe(NOW_S + 1);
    expect(chains.chain(12345)).toBeUndefined();
  });
});
