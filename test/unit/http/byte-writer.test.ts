/** The response byte writer and envelope prefix (issue 23): whatever they write is exactly the UTF-8 of the text it stands for. */
import { describe, expect, it } from "vitest";
import { ByteWriter } from "../../../src/http/byte-writer.js";
import { successPrefix } from "../../../src/http/envelope.js";
import { newTraceId, traceIdFor } from "../../../src/http/trace-id.js";

const written = (write: (w: ByteWriter) => void, initial = 4): string => {
  const w = new ByteWriter(initial);
  write(w);
  return w.view().toString("utf8");
};

describe("ByteWriter", () => {
  it("writes text as UTF-8, ASCII or not, growing its buffer", () => {
    for (const text of ["", "plain ascii", "café", "Ω at the start", "ascii then 日本語", "\u{1F600} emoji", "lone \ud800 surrogate"]) {
      const w = new ByteWriter(1);
      w.utf8(text);
      expect(w.view().equals(Buffer.from(text, "utf8"))).toBe(true);
    }
    const w = new ByteWriter(1);
    w.ascii("trace-id.0123");
    w.utf8("é");
    expect(w.view().toString("utf8")).toBe("trace-id.0123é");
  });

  it("writes integers in decimal, and anything else as String() does", () => {
    for (const n of [0, 7, 10, 99, 100, 1_000_000_000, 123456789012345, Number.MAX_SAFE_INTEGER, -1, 1.5, NaN, 2 ** 60]) {
      expect(written((w) => w.uint(n))).toBe(String(n));
    }
  });

  it("copies runs short and long after what is written", () => {
    const long = Buffer.alloc(300, 0x61);
    expect(written((w) => (w.bytes(Buffer.from("ab")), w.bytes(long), w.bytes(Buffer.from("c"))))).toBe(`ab${"a".repeat(300)}c`);
  });

  it("the success prefix quotes the path exactly as JSON.stringify", () => {
    for (const path of [
      "/v1/pools/8453/0xabc",
      "/v1/tokens?x=1&y=2",
      '/v1/x?q="1"',
      "/v1/back\\slash",
      "/v1/tab\t",
      "/v1/é",
      "/v1/\u2028",
      "/v1/a\ud800b",
      "",
    ]) {
      const prefix = successPrefix({ path, traceId: "abc-123" }, "2026-01-01T00:00:00.000Z");
      expect(prefix).toBe(
        `{"statusCode":200,"timestamp":"2026-01-01T00:00:00.000Z","path":${JSON.stringify(path)},"traceId":"abc-123","data":`,
      );
    }
  });
});

describe("trace ids", () => {
  it("new ids are distinct, 36 characters of the trace id alphabet, and well-formed client ids are kept", () => {
    const ids = new Set<string>();
    for (let i = 0; i < 10_000; i++) {
      const id = newTraceId();
      expect(id).toMatch(/^[A-Za-z0-9_-]{22}-[0-9]{13}$/);
      ids.add(id);
    }
    expect(ids.size).toBe(10_000);
    expect(traceIdFor("client.id-1")).toBe("client.id-1");
    expect(traceIdFor("not valid!")).toMatch(/^[A-Za-z0-9_-]{22}-[0-9]{13}$/);
    expect(traceIdFor("")).toMatch(/^[A-Za-z0-9_-]{22}-[0-9]{13}$/);
  });
});
