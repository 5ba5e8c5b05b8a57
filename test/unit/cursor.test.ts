import { describe, expect, test } from "vitest";
import { CursorCodec } from "../../src/query/cursor.js";

const codec = new CursorCodec(Buffer.from("test-secret-test-secret"));
const q = CursorCodec.queryHash("q1");
const position = { version: 0xfedcba987654, offset: 42, lastTvl: 12345.678, lastSymbol: "USD₮0" };

describe("CursorCodec", () => {
  test("round-trips a position as base64url", () => {
    const cursor = codec.encode(q, position);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(codec.decode(cursor, q)).toEqual(position);
  });

  test("the whole 48-bit version range round-trips", () => {
    for (const version of [0, 1, 0xffffffff, 0x100000000, 2 ** 48 - 1]) {
      expect(codec.decode(codec.encode(q, { ...position, version }), q)).toEqual({ ...position, version });
    }
  });

  test("a cursor of another query is reported as such", () => {
    expect(codec.decode(codec.encode(q, position), CursorCodec.queryHash("q2"))).toBe("query");
  });

  test("any flipped character is detected", () => {
    const cursor = codec.encode(q, position);
    for (let i = 0; i < cursor.length; i++) {
      const c = cursor[i] === "A" ? "B" : "A";
      const tampered = cursor.slice(0, i) + c + cursor.slice(i + 1);
      expect(codec.decode(tampered, q)).not.toEqual(position);
    }
  });

  test("garbage, truncation and other secrets are rejected", () => {
    const cursor = codec.encode(q, position);
    expect(codec.decode("not a cursor!", q)).toBe("garbage");
    expect(codec.decode("AAAA", q)).toBe("garbage");
    expect(codec.decode(cursor.slice(0, -2), q)).toBe("garbage");
    expect(new CursorCodec(Buffer.from("another-secret-123")).decode(cursor, q)).toBe("garbage");
  });
});
