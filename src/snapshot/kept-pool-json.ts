/**
 * The pool JSON column of an incremental build (docs/decisions/013-incremental-builds.md): the pools it encoded
 * lie in one new block, and each pool it kept (its record's bytes unchanged) keeps its JSON where the previous
 * build has it, in the previous build's blocks, which are shared memory and never written again once served.
 * So an unchanged pool's JSON is never copied: copying it into fresh pages (their first touch) was most of what
 * an incremental build cost. Blocks whose pools changed hold bytes no pool uses any more; when the blocks held
 * come to more than MAX_HELD_PER_LIVE times what the pools use, or there are MAX_BLOCKS of them, every pool's JSON
 * is written into one new block again (what a full build does), and the old blocks are freed once unserved.
 */
import type { PoolJsonColumn } from "../tables/pool-table.js";
import { sharedArray, type StringColumn } from "../tables/shared-columns.js";

/** Most blocks a chain's pool JSON lies in (then it is written into one). */
export const MAX_BLOCKS = 8;

/** Most bytes of blocks held per byte of pool JSON (then it is written into one block). */
export const MAX_HELD_PER_LIVE = 1.5;

/** A new block is copied to a buffer of its own size when it uses less than this share of its buffer. */
const RIGHT_SIZE_SHARE = 0.25;

/**
 * @param previous the previous build's pool JSON
 * @param fresh the JSON of the pools encoded here, one value per pool whose `keptFrom` is 0, in pool order
 * @param keptFrom per pool: 1 + the previous pool whose compiled data it keeps, or 0 (encoded here)
 */
export function keptPoolJson(previous: PoolJsonColumn, fresh: StringColumn, keptFrom: Int32Array): PoolJsonColumn {
  const n = keptFrom.length;
  const freshCount = fresh.offsets.length - 1;
  const blockIndex = new Int32Array(previous.blocks.length).fill(-1);
  const blocks: Uint8Array[] = [];
  let live = 0;
  let encoded = 0;
  for (let i = 0; i < n; i++) {
    const k = keptFrom[i];
    if (k === 0) {
      encoded++;
      continue;
    }
    const j = k - 1;
    const b = previous.blockOf[j];
    if (blockIndex[b] < 0) {
      blockIndex[b] = blocks.length;
      blocks.push(previous.blocks[b]);
    }
    live += previous.ends[j] - previous.starts[j];
  }
  if (encoded !== freshCount) throw new Error(`${encoded} pools encoded but ${freshCount} JSON values written`);
  const freshBytes = fresh.offsets[freshCount] - fresh.offsets[0];
  live += freshBytes;
  let held = freshBytes;
  for (const block of blocks) held += block.length;
  if (blocks.length + (freshCount > 0 ? 1 : 0) > MAX_BLOCKS || held > MAX_HELD_PER_LIVE * live)
    return oneBlock(previous, fresh, keptFrom, live);
  const freshIndex = blocks.length;
  if (freshCount > 0) blocks.push(rightSized(fresh.bytes));
  const blockOf = sharedArray(Uint8Array, n);
  const starts = sharedArray(Uint32Array, n);
  const ends = sharedArray(Uint32Array, n);
  const { offsets } = fresh;
  let v = 0;
  for (let i = 0; i < n; i++) {
    const k = keptFrom[i];
    if (k === 0) {
      blockOf[i] = freshIndex;
      starts[i] = offsets[v];
      ends[i] = offsets[++v];
    } else {
      const j = k - 1;
      blockOf[i] = blockIndex[previous.blockOf[j]];
      starts[i] = previous.starts[j];
      ends[i] = previous.ends[j];
    }
  }
  return { blocks, blockOf, starts, ends };
}

/** Every pool's JSON written into one new block of `live` bytes (consecutive bytes of a block copied in one piece). */
function oneBlock(previous: PoolJsonColumn, fresh: StringColumn, keptFrom: Int32Array, live: number): PoolJsonColumn {
  const n = keptFrom.length;
  const bytes = sharedArray(Uint8Array, live);
  const starts = sharedArray(Uint32Array, n);
  const ends = sharedArray(Uint32Array, n);
  // Pieces [pieceFrom, pieceTo) of `pieceBlock` are copied to `pieceAt` once the next pool does not follow them.
  let pieceBlock: Uint8Array | null = null;
  let pieceFrom = 0;
  let pieceTo = 0;
  let pieceAt = 0;
  let at = 0;
  let v = 0;
  const freshBlock = fresh.bytes;
  for (let i = 0; i < n; i++) {
    const k = keptFrom[i];
    let block: Uint8Array;
    let start: number;
    let end: number;
    if (k === 0) {
      block = freshBlock;
      start = fresh.offsets[v];
      end = fresh.offsets[++v];
    } else {
      const j = k - 1;
      block = previous.blocks[previous.blockOf[j]];
      start = previous.starts[j];
      end = previous.ends[j];
    }
    if (block !== pieceBlock || start !== pieceTo) {
      if (pieceBlock !== null) bytes.set(pieceBlock.subarray(pieceFrom, pieceTo), pieceAt);
      pieceBlock = block;
      pieceFrom = start;
      pieceAt = at;
    }
    pieceTo = end;
    starts[i] = at;
    at += end - start;
    ends[i] = at;
  }
  if (pieceBlock !== null) bytes.set(pieceBlock.subarray(pieceFrom, pieceTo), pieceAt);
  return { blocks: [bytes], blockOf: sharedArray(Uint8Array, n), starts, ends };
}

/** `bytes`, or a copy in a buffer of its own size when it uses a small share of its buffer (only what is used is held). */
function rightSized(bytes: Uint8Array): Uint8Array {
  if (bytes.length >= RIGHT_SIZE_SHARE * bytes.buffer.byteLength) return bytes;
  const copy = sharedArray(Uint8Array, bytes.length);
  copy.set(bytes);
  return copy;
}
