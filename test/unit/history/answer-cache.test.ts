/**
 * The answers a serving thread keeps (src/history/answer-cache.ts): an open answer is good while the chain's
 * epoch and the answer's floor are those it was made at, a closed one while its floor is; the entries stay
 * within the byte budget, least recently used out first; one entry takes at most an eighth; 0 keeps none.
 */
import { describe, expect, it } from "vitest";
import { ENTRY_OVERHEAD_BYTES, HistoryAnswerCache, type CachedAnswer } from "../../../src/history/answer-cache.js";

const answer = (bytes: number, closed: boolean, epoch = 1, floor = 100): CachedAnswer => ({
  data: Buffer.alloc(bytes, 0x31),
  crc: 0,
  closed,
  epoch,
  floor,
  name: `n${bytes}`,
});

describe("HistoryAnswerCache", () => {
  it("keeps an open answer for its epoch and floor, a closed one for its floor", () => {
    const seen: boolean[] = [];
    const cache = new HistoryAnswerCache(1 << 20, (hit) => seen.push(hit));
    cache.set("open", answer(10, false, 7, 100));
    cache.set("closed", answer(10, true, 7, 100));
    expect(cache.get("open", 7, 100)?.closed).toBe(false);
    expect(cache.get("closed", 8, 100)?.closed).toBe(true);
    expect(cache.get("open", 8, 100)).toBeUndefined(); // the chain observed a file: dropped
    expect(cache.get("open", 7, 100)).toBeUndefined();
    expect(cache.get("closed", 8, 160)).toBeUndefined(); // retention moved the floor
    expect(cache.get("absent", 7, 100)).toBeUndefined();
    expect(seen).toEqual([true, true, false, false, false, false]);
    expect(cache.figures()).toEqual({ entries: 0, bytes: 0, hits: 2, misses: 4 });
  });

  it("stays within its budget, the least recently used out first", () => {
    const per = 1000 + 2 * 2 + ENTRY_OVERHEAD_BYTES; // data, a 2-character key, the overhead
    const cache = new HistoryAnswerCache(per * 8);
    for (let i = 0; i < 8; i++) cache.set(`k${i}`, answer(1000, true));
    expect(cache.figures()).toMatchObject({ entries: 8, bytes: per * 8 });
    expect(cache.get("k0", 1, 100)).toBeDefined(); // k0 used: k1 is now the oldest
    cache.set("k8", answer(1000, true));
    expect(cache.figures()).toMatchObject({ entries: 8, bytes: per * 8 });
    expect(cache.get("k1", 1, 100)).toBeUndefined();
    expect(cache.get("k0", 1, 100)).toBeDefined();
    cache.set("k0", answer(1000, false)); // replacing an entry counts it once
    expect(cache.figures()).toMatchObject({ entries: 8, bytes: per * 8 });
  });

  it("takes no entry over an eighth of the budget, and none with a budget of 0", () => {
    const cache = new HistoryAnswerCache(8 * 1000);
    cache.set("big", answer(1000, true));
    expect(cache.figures().entries).toBe(0);
    cache.set("small", answer(1000 - 4 * 2 - 2 * 5 - ENTRY_OVERHEAD_BYTES, true));
    expect(cache.figures().entries).toBe(1);
    const none = new HistoryAnswerCache(0);
    none.set("a", answer(1, true));
    expect(none.figures().entries).toBe(0);
  });
});
