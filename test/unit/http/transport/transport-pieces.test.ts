/** Pure pieces of the transport: content negotiation, stitched gzip members, CRC combination, entity tags, CORS origins, the compression cache. */
import { crc32, gunzipSync } from "node:zlib";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { CompressionCache } from "../../../../src/http/transport/compression-cache.js";
import { chooseContentCoding } from "../../../../src/http/transport/content-coding.js";
import { bodyEtag, dataEtag, ifNoneMatchHits } from "../../../../src/http/transport/conditional.js";
import { CorsPolicy } from "../../../../src/http/transport/cors.js";
import { deflatePiece, gzipMember } from "../../../../src/http/transport/gzip-member.js";
import { crc32Combine } from "../../../../src/util/crc32.js";

describe("chooseContentCoding", () => {
  test.each([
    ["", "identity"],
    ["gzip", "gzip"],
    ["br", "br"],
    ["gzip, deflate, br", "gzip"],
    ["deflate, gzip, br, zstd", "gzip"],
    ["br;q=1, gzip;q=0.5", "br"],
    ["gzip;q=0.2, br;q=0.8", "br"],
    ["GZIP", "gzip"],
    ["x-gzip", "gzip"],
    ["gzip;q=0", "identity"],
    ["gzip;q=0, br;q=0", "identity"],
    ["*", "gzip"],
    ["*;q=0.5, gzip;q=0", "br"],
    ["identity", "identity"],
    ["identity;q=1, gzip;q=0.5", "identity"],
    ["deflate", "identity"],
    ["zstd, deflate", "identity"],
    ["gzip;q=1.5", "identity"],
    ["gzip;q=abc", "identity"],
    ["identity;q=0", "identity"],
    ["identity;q=0, br", "br"],
    [" gzip ; q=0.9 , br ; q=0.9 ", "gzip"],
  ])("%j → %s", (header, coding) => {
    expect(chooseContentCoding(header)).toBe(coding);
  });

  test("brotli can be ruled out (large bodies): the next acceptable coding, else identity", () => {
    expect(chooseContentCoding("br;q=1, gzip;q=0.5", false)).toBe("gzip");
    expect(chooseContentCoding("br", false)).toBe("identity");
  });
});

describe("stitched gzip members", () => {
  test("crc32Combine agrees with the CRC of the concatenation", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2000 }), fc.uint8Array({ maxLength: 70_000 }), (a, b) => {
        expect(crc32Combine(crc32(a), crc32(b), b.length)).toBe(crc32(Buffer.concat([a, b])) >>> 0);
      }),
      { numRuns: 60 },
    );
  });

  test("any prefix, data and suffix decode to their concatenation (small and large pieces, with and without the raw data)", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 70_000 }),
        fc.string({ maxLength: 3000 }),
        fc.uint8Array({ maxLength: 300 }),
        fc.boolean(),
        (prefix, text, suffix, withRaw) => {
          const data = Buffer.from(text.repeat(1 + (text.length % 40)));
          const member = gzipMember(Buffer.from(prefix), deflatePiece(data), Buffer.from(suffix), withRaw ? data : undefined);
          expect(gunzipSync(member).equals(Buffer.concat([prefix, data, suffix]))).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe("entity tags", () => {
  test("weak data tags and strong body tags; If-None-Match compares weakly, lists and * included", () => {
    const weak = dataEtag("00abcdef1234", 0xdeadbeef, 300);
    expect(weak).toBe('W/"00abcdef1234-3735928559-300"');
    expect(ifNoneMatchHits(weak, weak)).toBe(true);
    expect(ifNoneMatchHits('"00abcdef1234-3735928559-300"', weak)).toBe(true);
    expect(ifNoneMatchHits('"x", W/"00abcdef1234-3735928559-300"', weak)).toBe(true);
    expect(ifNoneMatchHits("*", weak)).toBe(true);
    expect(ifNoneMatchHits('W/"00abcdef1234-3735928559-301"', weak)).toBe(false);
    expect(ifNoneMatchHits("", weak)).toBe(false);
    const body = Buffer.from('{"status":"ok"}');
    const strong = bodyEtag(body, "identity");
    expect(strong).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);
    expect(bodyEtag(body, "gzip")).toBe(`${strong.slice(0, -1)}-gzip"`);
    // A client holding either coding's tag revalidates the representation.
    expect(ifNoneMatchHits(bodyEtag(body, "gzip"), strong)).toBe(true);
    expect(ifNoneMatchHits(strong, bodyEtag(body, "br"))).toBe(true);
    expect(ifNoneMatchHits(bodyEtag(Buffer.from("other"), "identity"), strong)).toBe(false);
  });
});

describe("CorsPolicy", () => {
  test("`*` allows every origin; a list allows exactly its origins (scheme, host and port, any case)", () => {
    expect(CorsPolicy.parse("*").allowOrigin("https://a.example")).toBe("*");
    expect(CorsPolicy.parse("*").allowOrigin("")).toBeNull();
    const list = CorsPolicy.parse("https://app.example.com, http://localhost:3000");
    expect(list.any).toBe(false);
    expect(list.allowOrigin("https://app.example.com")).toBe("https://app.example.com");
    expect(list.allowOrigin("HTTPS://APP.EXAMPLE.COM")).toBe("HTTPS://APP.EXAMPLE.COM");
    expect(list.allowOrigin("http://localhost:3000")).toBe("http://localhost:3000");
    for (const other of [
      "http://app.example.com",
      "https://app.example.com:8443",
      "https://evil.example",
      "null",
      "https://app.example.com.evil",
    ])
      expect(list.allowOrigin(other), other).toBeNull();
  });

  test("anything but origins is refused with the reason", () => {
    for (const bad of ["", " , ", "app.example.com", "https://app.example.com/path", "ftp://x.example", "https://"])
      expect(() => CorsPolicy.parse(bad), bad).toThrow();
  });
});

describe("CompressionCache", () => {
  test("keeps at most its byte budget, least recently used out first, and never one entry over a quarter of it", () => {
    const cache = new CompressionCache<{ bytes: number }>(1000);
    for (let i = 0; i < 10; i++) cache.set(`k${i}`, { bytes: 200 });
    expect(cache.bytes).toBeLessThanOrEqual(1000);
    expect(cache.get("k0")).toBeUndefined();
    expect(cache.get("k9")).toBeDefined();
    cache.get("k6");
    cache.set("k10", { bytes: 200 });
    expect(cache.get("k6")).toBeDefined();
    cache.set("huge", { bytes: 300 });
    expect(cache.get("huge")).toBeUndefined();
  });
});
