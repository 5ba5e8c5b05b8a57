/**
 * A chain's change set (live.md §12), computed once per accepted file in the
 * build worker, from the tables of the chain's last accepted file and the new
 * ones:
 * - pools: a pool is upserted when it is new or when its pool-details JSON
 *   (the pre-encoded `data.pool` bytes) differs; removed when its address is
 *   no longer in the file. The JSON slices are compared natively (memcmp).
 * - tokens: the same over the single-chain token JSON's fields (decimals,
 *   name, symbol, logoUrl, tracked TVL) and the tracked USD price.
 * Every list is lowercase and sorted ascending. Without previous tables (the
 * chain's first load) every address is upserted and nothing removed.
 */
import type { ChangeCounts, ChainDiff } from "../tables/change-sets.js";
import type { ChainTokenColumns } from "../tables/compiled-chain.js";
import { addressAt, findEntryOf } from "../tables/address-hash-table.js";
import type { PoolTableData } from "../tables/pool-table.js";
import { columnStrings, encodeStringColumn, type StringColumn } from "../tables/shared-columns.js";

/** The tables the diff reads of one file. */
export interface DiffTables {
  readonly pools: PoolTableData;
  readonly tokens: ChainTokenColumns;
}

export function diffChain(previous: DiffTables | null, next: DiffTables): ChainDiff {
  const started = performance.now();
  const pools = diffPools(previous?.pools ?? null, next.pools);
  const tokens = diffTokens(previous?.tokens ?? null, next.tokens);
  return changeSet(pools, tokens, started);
}

/** A change's address lists, in any order (each sorted here). */
export interface Lists {
  readonly upserted: string[];
  readonly removed: string[];
}

/**
 * The change set of these lists (sorted in place), its `ms` counted from `started` (a performance.now()): what an
 * incremental build, which finds the lists as it compares records (reuse-pools.ts, reuse-tokens.ts), answers.
 */
export function changeSet(pools: Lists, tokens: Lists, started: number): ChainDiff {
  const counts: ChangeCounts = {
    poolsUpserted: pools.upserted.length,
    poolsRemoved: pools.removed.length,
    tokensUpserted: tokens.upserted.length,
    tokensRemoved: tokens.removed.length,
  };
  return {
    poolsUpserted: sortedColumn(pools.upserted),
    poolsRemoved: sortedColumn(pools.removed),
    tokensUpserted: sortedColumn(tokens.upserted),
    tokensRemoved: sortedColumn(tokens.removed),
    counts,
    ms: performance.now() - started,
  };
}

function diffPools(previous: PoolTableData | null, next: PoolTableData): Lists {
  const upserted: string[] = [];
  const removed: string[] = [];
  if (previous === null) {
    for (let i = 0; i < next.count; i++) upserted.push(addressAt(next, i));
    return { upserted, removed };
  }
  const nextBlocks = next.json.blocks.map(asBuffer);
  const oldBlocks = previous.json.blocks.map(asBuffer);
  const { blockOf: nextBlockOf, starts: nextStarts, ends: nextEnds } = next.json;
  const { blockOf: oldBlockOf, starts: oldStarts, ends: oldEnds } = previous.json;
  // Addresses are made into strings only for the lists; lookups compare the tables' stored bytes.
  for (let i = 0; i < next.count; i++) {
    const j = findEntryOf(previous, next, i);
    if (j >= 0) {
      const start = nextStarts[i];
      const end = nextEnds[i];
      const oldStart = oldStarts[j];
      const oldEnd = oldEnds[j];
      const nextJson = nextBlocks[nextBlockOf[i]];
      if (end - start === oldEnd - oldStart && nextJson.compare(oldBlocks[oldBlockOf[j]], oldStart, oldEnd, start, end) === 0) continue;
    }
    upserted.push(addressAt(next, i));
  }
  for (let j = 0; j < previous.count; j++) if (findEntryOf(next, previous, j) < 0) removed.push(addressAt(previous, j));
  return { upserted, removed };
}

function diffTokens(previous: ChainTokenColumns | null, next: ChainTokenColumns): Lists {
  const upserted: string[] = [];
  const removed: string[] = [];
  const nextAddresses = columnStrings(next.address);
  if (previous === null) return { upserted: nextAddresses, removed };
  const oldAddresses = columnStrings(previous.address);
  const oldRow = new Map<string, number>();
  for (let j = 0; j < oldAddresses.length; j++) oldRow.set(oldAddresses[j], j);
  const nextRows = new Set<string>();
  for (let i = 0; i < nextAddresses.length; i++) {
    const address = nextAddresses[i];
    nextRows.add(address);
    const j = oldRow.get(address);
    if (j === undefined || tokenDiffers(previous, j, next, i)) upserted.push(address);
  }
  for (const address of oldAddresses) if (!nextRows.has(address)) removed.push(address);
  return { upserted, removed };
}

/** Whether row j of `a` and row i of `b` answer different single-chain JSON or price. */
export function tokenDiffers(a: ChainTokenColumns, j: number, b: ChainTokenColumns, i: number): boolean {
  return (
    a.decimals[j] !== b.decimals[i] ||
    a.tvl[j] !== b.tvl[i] ||
    a.price[j] !== b.price[i] ||
    !sameValue(a.symbol, j, b.symbol, i) ||
    !sameValue(a.name, j, b.name, i) ||
    !sameValue(a.logoUrl, j, b.logoUrl, i)
  );
}

function sameValue(a: StringColumn, j: number, b: StringColumn, i: number): boolean {
  const aStart = a.offsets[j];
  const aEnd = a.offsets[j + 1];
  const bStart = b.offsets[i];
  const bEnd = b.offsets[i + 1];
  if (aEnd - aStart !== bEnd - bStart) return false;
  for (let k = 0; k < aEnd - aStart; k++) if (a.bytes[aStart + k] !== b.bytes[bStart + k]) return false;
  return true;
}

/** Lowercase ASCII addresses: the default sort (code-unit order) is byte order. */
function sortedColumn(addresses: string[]): StringColumn {
  addresses.sort();
  return encodeStringColumn(addresses);
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
