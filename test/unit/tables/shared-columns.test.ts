import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { columnString, columnStrings, encodeStringColumn, StringColumnBuilder, utf8 } from "../../../src/tables/shared-columns.js";

const TEXTS = [
  "",
  "USDC",
  "USD₮0",
  "Ünï",
  "ＵＳＤＣ",
  'a"b\\c',
  "tab\there\nnew",
  "\u0000\u001f\u007f",
  "emoji 🦄",
  "lone \ud800 surrogate",
  "\u2028\u2029",
];

describe("StringColumnBuilder", () => {
  test("strings, bytes and pieces become one shared column", () => {
    const b = new StringColumnBuilder(2, 8); // tiny start: forces growth
    b.add("first");
    b.addBytes(utf8("second"));
    b.write("thi");
    b.writeAscii("rd-");
    b.writeBytes(utf8("xx4yy"), 2, 3);
    b.writeByte(0x21);
    b.writeNumber(-12.5);
    b.endValue();
    b.add("USD₮0");
    for (let i = 0; i < 100; i++) b.add(`value ${i}`);
    const column = b.finish();
    expect(column.bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(column.offsets.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(column.offsets.length).toBe(105);
    expect([0, 1, 2, 3].map((i) => columnString(column, i))).toEqual(["first", "second", "third-4!-12.5", "USD₮0"]);
    expect(columnString(column, 103)).toBe("value 99");
  });

  test("encodes like TextEncoder (lone surrogates as U+FFFD)", () => {
    const column = encodeStringColumn(TEXTS);
    TEXTS.forEach((t, i) =>
      expect(Buffer.from(column.bytes.subarray(column.offsets[i], column.offsets[i + 1]))).toEqual(Buffer.from(utf8(t))),
    );
  });

  test("writeJsonString gives JSON.stringify's literal of the text", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constantFrom(...TEXTS), fc.string(), fc.string({ unit: "binary" })), { maxLength: 20 }), (texts) => {
        const source = encodeStringColumn(texts);
        const b = new StringColumnBuilder(texts.length, 16);
        for (let i = 0; i < texts.length; i++) {
          b.writeJsonString(source.bytes, source.offsets[i], source.offsets[i + 1]);
          b.endValue();
        }
        const json = b.finish();
        texts.forEach((_, i) => expect(columnString(json, i)).toBe(JSON.stringify(columnString(source, i))));
      }),
      { numRuns: 300 },
    );
  });

  test("an empty column", () => {
    const column = new StringColumnBuilder().finish();
    expect(column.bytes.length).toBe(0);
    expect([...column.offsets]).toEqual([0]);
    expect(columnStrings(column)).toEqual([]);
  });
});

describe("StringColumnBuilder in regions of one buffer, joined (two threads writing one column)", () => {
  const values = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}-${"x".repeat(i % 7)}`);
  const all = (c: { bytes: Uint8Array; offsets: Uint32Array }) =>
    Array.from({ length: c.offsets.length - 1 }, (_, i) => columnString(c, i));

  test("the second region's values move down in place, in the same buffer, after the first's", () => {
    const buffer = new SharedArrayBuffer(4096);
    const first = new StringColumnBuilder(4, 0, new Uint8Array(buffer, 0, 2048));
    const second = new StringColumnBuilder(4, 0, new Uint8Array(buffer, 2048, 2048));
    for (const v of values(5, "a")) first.add(v);
    for (const v of values(6, "b")) second.add(v);
    expect(Buffer.from(first.lastValue()).toString()).toBe(values(5, "a")[4]);
    first.appendColumn(second.finish());
    const column = first.finish();
    expect(column.bytes.buffer).toBe(buffer);
    expect(column.offsets[0]).toBe(0);
    expect(all(column)).toEqual([...values(5, "a"), ...values(6, "b")]);
  });

  test("a region too small moves its builder to a blob of its own; the join then copies; the other region is never written over", () => {
    const buffer = new SharedArrayBuffer(256);
    const first = new StringColumnBuilder(4, 0, new Uint8Array(buffer, 0, 64));
    const second = new StringColumnBuilder(4, 0, new Uint8Array(buffer, 64, 192));
    second.add("kept");
    for (const v of values(20, "a")) first.add(v); // far past 64 bytes
    expect(Buffer.from(buffer, 64, 4).toString()).toBe("kept");
    for (const v of values(3, "b")) second.add(v);
    first.appendColumn(second.finish());
    const column = first.finish();
    expect(column.bytes.buffer).not.toBe(buffer);
    expect(all(column)).toEqual([...values(20, "a"), "kept", ...values(3, "b")]);
  });

  test("claimRest: a region builder that takes the rest of its buffer does not move", () => {
    const buffer = new SharedArrayBuffer(1024);
    const b = new StringColumnBuilder(4, 0, new Uint8Array(buffer, 0, 16));
    b.claimRest();
    for (const v of values(30, "c")) b.add(v);
    const column = b.finish();
    expect(column.bytes.buffer).toBe(buffer);
    expect(all(column)).toEqual(values(30, "c"));
  });
});

describe("columnStrings", () => {
  test("ASCII columns (one decode) and non-ASCII ones (per value) give every value", () => {
    const ascii = ["0xabc", "", "USDC", "x".repeat(300)];
    expect(columnStrings(encodeStringColumn(ascii))).toEqual(ascii);
    const mixed = TEXTS.map((t) => t.replace("\ud800", "\ufffd"));
    expect(columnStrings(encodeStringColumn(mixed))).toEqual(mixed);
  });
});
