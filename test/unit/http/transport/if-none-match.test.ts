/**
 * If-None-Match is read whole (issue 19 item 5): a tag anywhere in a list of
 * any length the header limit lets through matches, with the same member
 * rules as a plain split-and-compare reference, in one pass.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { bodyEtag, dataEtag, ifNoneMatchHits } from "../../../../src/http/transport/conditional.js";

/** The rules written the obvious way: split on commas, trim, drop W/ and the quotes, then a coding suffix. */
function referenceHits(header: string, etag: string): boolean {
  const opaque = (tag: string) => {
    let t = tag.replace(/^[ \t]+|[ \t]+$/g, "");
    if (t.startsWith("W/")) t = t.slice(2);
    if (t.length >= 2 && t.startsWith('"') && t.endsWith('"')) t = t.slice(1, -1);
    return t.replace(/-(gzip|br)$/, "");
  };
  if (header === "") return false;
  if (header.trim() === "*") return true;
  return header.split(",").some((member) => opaque(member) === opaque(etag));
}

const WEAK = dataEtag("00abcdef1234", 0xdeadbeef, 300);
const STRONG = bodyEtag(Buffer.from('{"status":"ok"}'), "identity");

describe("ifNoneMatchHits", () => {
  test("a matching tag after 60 KiB of other tags still matches; without it, none does", () => {
    const others = Array.from({ length: 3000 }, (_, i) => `W/"00abcdef1234-${i}-300"`).join(", ");
    expect(others.length).toBeGreaterThan(60_000);
    expect(ifNoneMatchHits(`${others}, ${WEAK}`, WEAK)).toBe(true);
    expect(ifNoneMatchHits(`${others},${STRONG.slice(0, -1)}-gzip"`, STRONG)).toBe(true);
    expect(ifNoneMatchHits(others, WEAK)).toBe(false);
    expect(ifNoneMatchHits(",".repeat(65_536), WEAK)).toBe(false);
    expect(ifNoneMatchHits(" \t".repeat(30_000) + WEAK, WEAK)).toBe(true);
  });

  test("agrees with split-and-compare on lists made of tag fragments", () => {
    const fragment = fc.constantFrom(
      WEAK,
      STRONG,
      '"00abcdef1234-3735928559-300"',
      "W/",
      '"',
      "-gzip",
      "-br",
      " ",
      "\t",
      ",",
      "*",
      "x",
      "00abcdef1234-3735928559-300",
      "",
    );
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 12 }), fc.constantFrom(WEAK, STRONG, `${STRONG.slice(0, -1)}-br"`), (parts, etag) => {
        const header = parts.join("");
        expect(ifNoneMatchHits(header, etag), JSON.stringify(header)).toBe(referenceHits(header, etag));
      }),
      { numRuns: 3000 },
    );
  });
});
