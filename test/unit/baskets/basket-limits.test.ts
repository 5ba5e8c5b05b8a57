/**
 * The baskets file's size limits (src/baskets/basket-file.ts, docs/baskets.md "Limits"): a file
 * exactly at every limit is accepted; one item more is rejected as a whole, with a message that
 * names the file, the path and the limit.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BasketCatalogue } from "../../../src/baskets/basket-catalogue.js";
import {
  BasketsFileError,
  loadBasketsFile,
  MAX_BASKET_ADDRESSES,
  MAX_BASKET_TEXT,
  MAX_BASKETS,
  MAX_FILE_ADDRESSES,
  parseBasketsFile,
} from "../../../src/baskets/basket-file.js";

const CHAINS = ["1", "8453", "130", "999", "143", "9745", "534352"];

/** `count` distinct addresses spread over the chains (`salt` keeps baskets apart). */
function addresses(count: number, salt: number): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (let i = 0; i < count; i++) {
    const chain = CHAINS[i % CHAINS.length]!;
    (out[chain] ??= []).push("0x" + salt.toString(16).padStart(8, "0") + i.toString(16).padStart(32, "0"));
  }
  return out;
}

function basket(index: number, count: number, text: Partial<Record<"name" | "description" | "logoUrl", string>> = {}) {
  return {
    id: `b-${index}`,
    name: `Basket ${index}`,
    description: "d",
    logoUrl: "https://logos.test/b.png",
    ...text,
    addresses: addresses(count, index),
  };
}

function rejection(file: unknown): BasketsFileError {
  try {
    parseBasketsFile(JSON.stringify(file), "baskets.json");
  } catch (error) {
    expect(error).toBeInstanceOf(BasketsFileError);
    return error as BasketsFileError;
  }
  throw new Error("expected the file to be rejected");
}

describe("baskets file limits", () => {
  it("the limits are what docs/baskets.md states", () => {
    expect({ MAX_BASKETS, MAX_BASKET_ADDRESSES, MAX_FILE_ADDRESSES, MAX_BASKET_TEXT }).toEqual({
      MAX_BASKETS: 100,
      MAX_BASKET_ADDRESSES: 1_000,
      MAX_FILE_ADDRESSES: 10_000,
      MAX_BASKET_TEXT: { name: 256, description: 2_048, logoUrl: 2_048 },
    });
  });

  it("a file at every limit is accepted: the most baskets, the largest basket, the most addresses, the longest texts", () => {
    const perBasket = MAX_FILE_ADDRESSES / MAX_BASKETS;
    const baskets = Array.from({ length: MAX_BASKETS }, (_, i) =>
      basket(i, i < MAX_FILE_ADDRESSES / MAX_BASKET_ADDRESSES ? MAX_BASKET_ADDRESSES : 0),
    );
    // 10 baskets of 1,000 and 90 empty ones: 10,000 addresses in 100 baskets.
    expect(baskets.reduce((n, b) => n + Object.values(b.addresses).flat().length, 0)).toBe(MAX_FILE_ADDRESSES);
    const longest = basket(0, MAX_BASKET_ADDRESSES, {
      name: "n".repeat(MAX_BASKET_TEXT.name),
      description: "d".repeat(MAX_BASKET_TEXT.description),
      logoUrl: "l".repeat(MAX_BASKET_TEXT.logoUrl),
    });
    baskets[0] = longest;
    const file = parseBasketsFile(JSON.stringify({ baskets }), "baskets.json");
    const catalogue = new BasketCatalogue(file);
    expect(catalogue.size).toBe(MAX_BASKETS);
    expect(catalogue.get("b-0")!.chains.reduce((n, c) => n + c.addresses.length, 0)).toBe(MAX_BASKET_ADDRESSES);
    expect(perBasket).toBe(100);
  });

  it("one basket too many", () => {
    const error = rejection({ baskets: Array.from({ length: MAX_BASKETS + 1 }, (_, i) => basket(i, 1)) });
    expect(error.path).toBe("baskets");
    expect(error.message).toBe("baskets.json: baskets: 101 baskets, more than the 100 a file may hold");
  });

  it("one address too many in a basket, counted over every chain", () => {
    const baskets = [basket(0, 3), basket(1, MAX_BASKET_ADDRESSES + 1)];
    const error = rejection({ baskets });
    expect(error.path).toBe("baskets[1].addresses");
    expect(error.message).toBe(
      "baskets.json: baskets[1].addresses: 1,001 addresses, more than the 1,000 a basket may list (every chain together)",
    );
  });

  it("one address too many in the file: the basket where the count passes the limit is named", () => {
    const baskets = Array.from({ length: MAX_FILE_ADDRESSES / MAX_BASKET_ADDRESSES }, (_, i) => basket(i, MAX_BASKET_ADDRESSES));
    baskets.push(basket(99, 0), basket(100, 1));
    const error = rejection({ baskets });
    expect(error.path).toBe("baskets[11].addresses");
    expect(error.message).toBe(
      "baskets.json: baskets[11].addresses: the baskets up to this one list 10,001 addresses, more than the 10,000 a file may list (every basket and chain together)",
    );
  });

  it("texts one character too long", () => {
    for (const field of ["name", "description", "logoUrl"] as const) {
      const error = rejection({ baskets: [basket(0, 1), basket(1, 1, { [field]: "x".repeat(MAX_BASKET_TEXT[field] + 1) })] });
      expect(error.path).toBe(`baskets[1].${field}`);
      expect(error.message).toBe(
        `baskets.json: baskets[1].${field}: ${(MAX_BASKET_TEXT[field] + 1).toLocaleString("en-US")} characters, more than the ${MAX_BASKET_TEXT[field].toLocaleString("en-US")} allowed`,
      );
    }
  });

  it("read from disk, the error names the file's path", () => {
    const dir = mkdtempSync(join(tmpdir(), "lgw-basket-limits-"));
    const path = join(dir, "baskets.json");
    writeFileSync(path, JSON.stringify({ baskets: [basket(0, MAX_BASKET_ADDRESSES + 1)] }));
    expect(() => loadBasketsFile(path)).toThrow(`${path}: baskets[0].addresses: 1,001 addresses`);
  });
});
