/**
 * What a chain's build adds to memory: the bytes of the buffers its compiled chain's columns lie in that the chain's
 * previous tables do not (an incremental build keeps the unchanged pools' JSON where the previous build wrote it:
 * kept-pool-json.ts). Counted on the build thread, where a buffer the build kept is the very object it was handed
 * (once handed to another thread, the same memory is another object). The batch rule judges a batch by it
 * (batch-rule.ts).
 */
import type { CompiledChain } from "../tables/compiled-chain.js";
import type { PreviousChainTables } from "./previous-chain.js";

/** A compiled chain's memory (bytes of the distinct buffers of its columns), and how much of it the build added. */
export interface ChainMemory {
  readonly bytes: number;
  readonly addedBytes: number;
}

/** The share of the chain's memory its build added (1 for a chain of no bytes: nothing to reuse). */
export function addedShare(memory: ChainMemory): number {
  return memory.bytes === 0 ? 1 : memory.addedBytes / memory.bytes;
}

/** The distinct buffers under `root` (every typed array's, found by walking its objects and arrays of objects). */
export function buffersOf(root: unknown, into = new Set<ArrayBufferLike>()): Set<ArrayBufferLike> {
  const seen = new Set<object>();
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value !== "object" || value === null || seen.has(value)) continue;
    seen.add(value);
    if (ArrayBuffer.isView(value)) into.add(value.buffer);
    else if (value instanceof ArrayBuffer || value instanceof SharedArrayBuffer) into.add(value);
    else if (Array.isArray(value)) {
      // Arrays of strings or numbers hold no buffers: only arrays of objects are walked.
      if (value.length > 0 && typeof value[0] === "object") for (const item of value) stack.push(item);
    } else if (!(value instanceof Map) && !(value instanceof Set)) {
      for (const key of Object.keys(value)) stack.push((value as Record<string, unknown>)[key]);
    }
  }
  return into;
}

/** `chain`'s memory, and the part of it not in `previous`'s buffers (all of it without a previous). */
export function chainMemory(chain: CompiledChain, previous: PreviousChainTables | null): ChainMemory {
  const kept = previous === null ? new Set<ArrayBufferLike>() : buffersOf(previous);
  let bytes = 0;
  let addedBytes = 0;
  for (const buffer of buffersOf(chain)) {
    bytes += buffer.byteLength;
    if (!kept.has(buffer)) addedBytes += buffer.byteLength;
  }
  return { bytes, addedBytes };
}
