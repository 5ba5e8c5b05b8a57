/**
 * What a chain's build adds to memory (src/snapshot/chain-memory.ts): the bytes of the buffers its columns lie in
 * that its previous tables do not hold, each buffer counted once however many views it has.
 */
import { describe, expect, it } from "vitest";
import { buffersOf, chainMemory } from "../../../src/snapshot/chain-memory.js";
import type { PreviousChainTables } from "../../../src/snapshot/previous-chain.js";
import type { CompiledChain } from "../../../src/tables/compiled-chain.js";

describe("chainMemory", () => {
  const kept = new Uint8Array(new SharedArrayBuffer(1000));
  const oldCrc = new Uint32Array(new SharedArrayBuffer(40));
  const previous = { pools: { json: { blocks: [kept] }, jsonCrc: oldCrc }, tokens: {}, protocols: [] } as unknown as PreviousChainTables;

  it("counts each buffer once, through objects and arrays of objects, and the buffers the previous tables hold as kept", () => {
    const fresh = new SharedArrayBuffer(300);
    const chain = {
      info: { chainId: 8453, file: "chain-8453.msgpack" },
      protocols: [{ id: "p", name: "P" }],
      pools: { json: { blocks: [kept, new Uint8Array(fresh)] }, jsonCrc: new Uint32Array(fresh, 0, 10), names: ["a", "b"] },
      tokens: { order: new Int32Array(5) },
    } as unknown as CompiledChain;
    expect(buffersOf(chain).size).toBe(3);
    expect(chainMemory(chain, previous)).toEqual({ bytes: 1000 + 300 + 20, addedBytes: 300 + 20 });
    expect(chainMemory(chain, null)).toEqual({ bytes: 1320, addedBytes: 1320 });
  });

  it("a chain that holds nothing of its previous tables added all of it", () => {
    const chain = { pools: { json: { blocks: [new Uint8Array(64)] } } } as unknown as CompiledChain;
    expect(chainMemory(chain, previous)).toEqual({ bytes: 64, addedBytes: 64 });
  });
});
