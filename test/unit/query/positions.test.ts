/**
 * Positions (live.md §12, src/query/positions.ts): the text of a position is exactly what encodePosition
 * writes; decoding gives back the position; anything else (garbage, altered, non-canonical, unsupported or
 * unordered chains, another format, too long) is refused.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SUPPORTED_CHAIN_IDS_ASCENDING, type ChainId } from "../../../src/chains/chains.js";
import { decodePosition, encodePosition, MAX_POSITION_CHARS, parseChangeSetId, type Position } from "../../../src/query/positions.js";

const hex12 = fc.stringMatching(/^[0-9a-f]{12}$/);
const generatedAt = fc.integer({ min: 0, max: 2 ** 48 - 1 });
const changeSetId = fc.tuple(generatedAt, hex12).map(([g, h]) => `${g}.${h}`);
const position: fc.Arbitrary<Position> = fc
  .subarray([...SUPPORTED_CHAIN_IDS_ASCENDING])
  .chain((chains) => fc.tuple(...chains.map(() => changeSetId)).map((ids) => new Map(chains.map((c, i) => [c, ids[i]!]))));

/** The raw bytes of a position text. */
const bytesOf = (text: string) => Buffer.from(text, "base64url");

describe("positions", () => {
  it("decode(encode(x)) = x, and the text is short and base64url", () => {
    fc.assert(
      fc.property(position, (p) => {
        const text = encodePosition(p);
        expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
        expect(text.length).toBeLessThanOrEqual(MAX_POSITION_CHARS);
        expect(decodePosition(text)).toEqual(p);
        // The order of the map does not change the text.
        expect(encodePosition(new Map([...p].reverse()))).toBe(text);
      }),
      { numRuns: 500 },
    );
  });

  it("the layout: format 1, then per chain (ascending) its id, generatedAt and 6 hash bytes", () => {
    const p = new Map<ChainId, string>([
      [8453, "1767382310.0123456789ab"],
      [1, "0.ffffffffffff"],
    ]);
    const bytes = bytesOf(encodePosition(p));
    expect(bytes.length).toBe(33);
    expect(bytes[0]).toBe(1);
    expect(bytes.readUInt32BE(1)).toBe(1);
    expect(bytes.readUIntBE(5, 6)).toBe(0);
    expect(bytes.toString("hex", 11, 17)).toBe("ffffffffffff");
    expect(bytes.readUInt32BE(17)).toBe(8453);
    expect(bytes.readUIntBE(21, 6)).toBe(1767382310);
    expect(bytes.toString("hex", 27, 33)).toBe("0123456789ab");
    // The empty position (no chain seen) is the format byte alone.
    expect(encodePosition(new Map())).toBe("AQ");
    expect(decodePosition("AQ")).toEqual(new Map());
  });

  it("refuses ids no position can hold", () => {
    for (const id of ["-1.0123456789ab", "1.0123456789AB", "1.0123456789a", "01.0123456789ab", `${2 ** 48}.0123456789ab`, "1", "x.y"]) {
      expect(parseChangeSetId(id), id).toBeNull();
      expect(() => encodePosition(new Map([[1, id]])), id).toThrow(RangeError);
    }
  });

  it("garbage is null", () => {
    const refused = [
      "",
      "A",
      "AA", // format 0
      "Ag", // format 2
      "AQ=", // padding
      "AQ==",
      "A Q",
      "AQ\n",
      "AQ+/",
      "AQAAAAEAAGlYHToZ60ebRT", // cut inside an entry
      "x".repeat(MAX_POSITION_CHARS + 1),
      "🙂🙂",
    ];
    for (const text of refused) expect(decodePosition(text), JSON.stringify(text)).toBeNull();
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const decoded = decodePosition(text);
        // Whatever decodes is exactly what encodePosition writes for it.
        if (decoded !== null) expect(encodePosition(decoded)).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });

  it("altered texts are refused or name another position (never a crash)", () => {
    fc.assert(
      fc.property(position, fc.nat(), fc.integer({ min: 0, max: 63 }), (p, at, char) => {
        const text = encodePosition(p);
        const i = at % text.length;
        const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        const altered = text.slice(0, i) + alphabet[char] + text.slice(i + 1);
        const decoded = decodePosition(altered);
        if (decoded !== null) expect(encodePosition(decoded)).toBe(altered);
      }),
      { numRuns: 1000 },
    );
  });

  it("refuses non-canonical text, unsupported chains, unordered or repeated chains, too many chains", () => {
    const one = bytesOf(encodePosition(new Map([[1, "5.0123456789ab"]])));
    // 17 bytes: the last base64url character carries 2 stray bits; setting them is not canonical.
    const text = one.toString("base64url");
    const last = text[text.length - 1]!;
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const stray = alphabet[alphabet.indexOf(last) | 1]!;
    expect(stray).not.toBe(last);
    expect(decodePosition(text.slice(0, -1) + stray)).toBeNull();

    const entry = (chainId: number, g = 5) => {
      const b = Buffer.alloc(16);
      b.writeUInt32BE(chainId, 0);
      b.writeUIntBE(g, 4, 6);
      b.write("0123456789ab", 10, "hex");
      return b;
    };
    const text1 = (...entries: Buffer[]) => Buffer.concat([Buffer.from([1]), ...entries]).toString("base64url");
    expect(decodePosition(text1(entry(1), entry(8453)))).not.toBeNull();
    expect(decodePosition(text1(entry(5)))).toBeNull(); // unsupported chain
    expect(decodePosition(text1(entry(8453), entry(1)))).toBeNull(); // not ascending
    expect(decodePosition(text1(entry(1), entry(1)))).toBeNull(); // repeated
    expect(decodePosition(Buffer.concat([Buffer.from([2]), entry(1)]).toString("base64url"))).toBeNull(); // other format
    const all = SUPPORTED_CHAIN_IDS_ASCENDING.map((c) => entry(c));
    expect(decodePosition(text1(...all))).not.toBeNull();
    expect(decodePosition(text1(...all, entry(999)))).toBeNull(); // eight entries
  });
});
