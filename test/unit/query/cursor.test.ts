import { describe, expect, test } from "vitest";
import { CursorCodec, PositionWriter, type DecodedCursor } from "../../../src/query/cursor.js";

const codec = new CursorCodec(Buffer.from("test-secret-test-secret"));
const scope = codec.scope("tokens.list", "q1");
const VERSION = 0xabcdef123456; // 48 bits
const position = () => new PositionWriter().u32(42).f64(12345.678).string("USD₮0").bytes();

function read(
  decoded: DecodedCursor | string,
): { version: number; offset: number; tvl: number; symbol: string; complete: boolean } | string {
  if (typeof decoded === "string") return decoded;
  const offset = decoded.position.u32();
  const tvl = decoded.position.f64();
  const symbol = decoded.position.string();
  return { version: decoded.version, offset, tvl, symbol, complete: decoded.position.complete() };
}

describe("CursorCodec", () => {
  test("round-trips a 48-bit version and a position as base64url", () => {
    const cursor = codec.encode(scope, VERSION, position());
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(read(codec.decode(cursor, scope))).toEqual({ version: VERSION, offset: 42, tvl: 12345.678, symbol: "USD₮0", complete: true });
  });

  test("a cursor of another route or query is reported as such", () => {
    const cursor = codec.encode(scope, VERSION, position());
    expect(codec.decode(cursor, codec.scope("tokens.list", "q2"))).toBe("scope");
    expect(codec.decode(cursor, codec.scope("tokens.search", "q1"))).toBe("scope");
  });

  test("any flipped character is detected", () => {
    const cursor = codec.encode(scope, VERSION, position());
    for (let i = 0; i < cursor.length; i++) {
      const c = cursor[i] === "A" ? "B" : "A";
      const tampered = cursor.slice(0, i) + c + cursor.slice(i + 1);
      const decoded = read(codec.decode(tampered, scope));
      expect(typeof decoded === "string" || decoded.version !== VERSION || decoded.offset !== 42 || !decoded.complete).toBe(true);
    }
  });

  test("garbage, truncation and other secrets are rejected", () => {
    const cursor = codec.encode(scope, VERSION, position());
    expect(codec.decode("not a cursor!", scope)).toBe("garbage");
    expect(codec.decode("AAAA", scope)).toBe("garbage");
    expect(codec.decode(cursor.slice(0, -2), scope)).toBe("garbage");
    expect(new CursorCodec(Buffer.from("another-secret-123")).decode(cursor, scope)).toBe("garbage");
  });

  test("a position read with other fields than written is incomplete", () => {
    const decoded = codec.decode(codec.encode(scope, 1, new PositionWriter().u32(7).bytes()), scope);
    if (typeof decoded === "string") throw new Error(decoded);
    decoded.position.u32();
    decoded.position.f64();
    expect(decoded.position.complete()).toBe(false);
    const extra = codec.decode(codec.encode(scope, 1, new PositionWriter().u32(7).u32(8).bytes()), scope);
    if (typeof extra === "string") throw new Error(extra);
    extra.position.u32();
    expect(extra.position.complete()).toBe(false);
  });
});
