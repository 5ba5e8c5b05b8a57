/**
 * The baskets file (api-extended.md §9, docs/baskets.md): valid files parse into a catalogue
 * with lowercase addresses in file order; each rule broken once is rejected as a whole with a
 * message naming the file and the path.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { BasketCatalogue } from "../../../src/baskets/basket-catalogue.js";
import { BasketsFileError, loadBasketsFile, parseBasketsFile } from "../../../src/baskets/basket-file.js";

const SAMPLE_PATH = fileURLToPath(new URL("../../../snapshots/baskets.json", import.meta.url));

const A = "0x" + "a".repeat(40);
const B = "0x" + "B".repeat(40);
const C = "0x" + "0c".repeat(20);

function basket(id: string, addresses: Record<string, string[]> = { "1": [A, B], "8453": [C] }): Record<string, unknown> {
  return { id, name: `Basket ${id}`, description: `About ${id}`, logoUrl: `https://logos.test/${id}.png`, addresses };
}

function fileWith(change: (baskets: Record<string, unknown>[]) => void): string {
  const baskets = [basket("usd-stablecoins"), basket("eth2")];
  change(baskets);
  return JSON.stringify({ baskets }, null, 2);
}

function parseError(text: string): BasketsFileError {
  try {
    parseBasketsFile(text, "baskets.json");
  } catch (error) {
    expect(error).toBeInstanceOf(BasketsFileError);
    return error as BasketsFileError;
  }
  throw new Error("expected parseBasketsFile to throw");
}

describe("parseBasketsFile: valid files", () => {
  it("parses baskets; the catalogue keeps file order per chain, lowercases addresses, lists ids ascending", () => {
    const file = parseBasketsFile(
      fileWith((b) => b.reverse()),
      "baskets.json",
    );
    const catalogue = new BasketCatalogue(file);
    expect(catalogue.ids()).toEqual(["eth2", "usd-stablecoins"]);
    expect(catalogue.size).toBe(2);
    const usd = catalogue.get("usd-stablecoins")!;
    expect(usd).toMatchObject({
      id: "usd-stablecoins",
      name: "Basket usd-stablecoins",
      description: "About usd-stablecoins",
      logoUrl: "https://logos.test/usd-stablecoins.png",
    });
    expect([...usd.addresses]).toEqual([
      [1, [A, B.toLowerCase()]],
      [8453, [C]],
    ]);
    expect(catalogue.get("nope")).toBeUndefined();
  });

  it("chains come out ascending whatever the file order; an empty address list is kept", () => {
    const file = parseBasketsFile(
      fileWith((b) => (b[0] = basket("x", { "534352": [A], "1": [], "130": [B] }))),
      "baskets.json",
    );
    expect([...new BasketCatalogue(file).get("x")!.addresses.keys()]).toEqual([1, 130, 534352]);
  });

  it("accepts an empty file and a byte-order mark", () => {
    expect(parseBasketsFile('\ufeff{"baskets": []}', "baskets.json").baskets).toEqual([]);
    expect(BasketCatalogue.EMPTY.ids()).toEqual([]);
  });

  it("accepts ids at the pattern's edges", () => {
    for (const id of ["a", "0", "a-b-c", "x".repeat(64), "usd-1"]) {
      expect(
        new BasketCatalogue(
          parseBasketsFile(
            fileWith((b) => (b[0] = basket(id))),
            "baskets.json",
          ),
        ).get(id)?.id,
      ).toBe(id);
    }
  });

  it("the bundled sample has the reference's seven ids and loads", () => {
    const catalogue = new BasketCatalogue(loadBasketsFile(SAMPLE_PATH));
    expect(catalogue.ids()).toEqual([
      "btc-pegged-tokens",
      "eth-pegged-tokens",
      "eur-stablecoins",
      "hype-pegged-tokens",
      "monad-pegged-tokens",
      "usd-stablecoins",
      "xau-stablecoins",
    ]);
  });
});

describe("parseBasketsFile: each rule broken once", () => {
  const cases: [string, string, RegExp][] = [
    ["not JSON", "{baskets: []}", /^baskets\.json: invalid JSON: .*\(line 1, column 2\)/],
    ["top level not an object", "[]", /^baskets\.json: expected a JSON object \{"baskets": \[\.\.\.\]\} at the top level, found \[\]/],
    ["no baskets array", "{}", /^baskets\.json: baskets: missing required property/],
    ["baskets not an array", '{"baskets": {}}', /^baskets\.json: baskets: expected an array of basket objects, found \{\}/],
    ["a basket not an object", '{"baskets": [5]}', /^baskets\.json: baskets\[0\]: expected a basket object/],
    ["unknown top-level property", '{"baskets": [], "extra": 1}', /^baskets\.json: extra: unknown property "extra" \(allowed: baskets\)/],
    [
      "unknown basket property",
      fileWith((b) => (b[1].tags = [])),
      /^baskets\.json: baskets\[1\]\.tags: unknown property "tags" \(allowed: id, name, description, logoUrl, addresses\)/,
    ],
    ["missing id", fileWith((b) => delete b[0].id), /^baskets\.json: baskets\[0\]\.id: missing required property/],
    ["id with uppercase", fileWith((b) => (b[0].id = "USD")), /^baskets\.json: baskets\[0\]\.id: expected 1 to 64 characters.*found "USD"/],
    ["id with a double dash", fileWith((b) => (b[0].id = "usd--x")), /^baskets\.json: baskets\[0\]\.id: expected/],
    ["id with a trailing dash", fileWith((b) => (b[0].id = "usd-")), /^baskets\.json: baskets\[0\]\.id: expected/],
    ["id of 65 characters", fileWith((b) => (b[0].id = "x".repeat(65))), /^baskets\.json: baskets\[0\]\.id: expected/],
    ["empty id", fileWith((b) => (b[0].id = "")), /^baskets\.json: baskets\[0\]\.id: expected/],
    [
      "duplicate id",
      fileWith((b) => (b[1].id = "usd-stablecoins")),
      /^baskets\.json: baskets\[1\]\.id: duplicate id "usd-stablecoins" \(already used by baskets\[0\]\)/,
    ],
    ["name not a string", fileWith((b) => (b[0].name = 5)), /^baskets\.json: baskets\[0\]\.name: expected a string, found 5/],
    [
      "missing description",
      fileWith((b) => delete b[1].description),
      /^baskets\.json: baskets\[1\]\.description: missing required property/,
    ],
    ["logoUrl null", fileWith((b) => (b[0].logoUrl = null)), /^baskets\.json: baskets\[0\]\.logoUrl: expected a string, found null/],
    [
      "addresses an array",
      fileWith((b) => (b[0].addresses = [A])),
      /^baskets\.json: baskets\[0\]\.addresses: expected an object \{"<chainId>": \["0x…", …\]\}/,
    ],
    [
      "a chain's list not an array",
      fileWith((b) => (b[0].addresses = { "1": A })),
      /^baskets\.json: baskets\[0\]\.addresses\["1"\]: expected an array of token addresses/,
    ],
    [
      "unsupported chain key",
      fileWith((b) => (b[0].addresses = { "5": [A] })),
      /^baskets\.json: baskets\[0\]\.addresses\["5"\]: "5" is not a supported chain id \(supported: 1, 130, 143, 999, 8453, 9745, 534352\)/,
    ],
    [
      "chain key with a leading zero",
      fileWith((b) => (b[1].addresses = { "01": [A] })),
      /^baskets\.json: baskets\[1\]\.addresses\["01"\]: "01" is not a supported chain id/,
    ],
    [
      "chain key not a number",
      fileWith((b) => (b[0].addresses = { base: [A] })),
      /^baskets\.json: baskets\[0\]\.addresses\["base"\]: "base" is not a supported chain id/,
    ],
    [
      "address too short",
      fileWith((b) => (b[0].addresses = { "1": [A.slice(0, -1)] })),
      /^baskets\.json: baskets\[0\]\.addresses\["1"\]\[0\]: expected a token address: 0x and 40 hex digits, found "0xa{39}"/,
    ],
    [
      "address without 0x",
      fileWith((b) => (b[0].addresses = { "1": [A, "a".repeat(42)] })),
      /^baskets\.json: baskets\[0\]\.addresses\["1"\]\[1\]: expected a token address/,
    ],
    [
      "address with 0X",
      fileWith((b) => (b[0].addresses = { "1": ["0X" + "a".repeat(40)] })),
      /^baskets\.json: baskets\[0\]\.addresses\["1"\]\[0\]: expected a token address/,
    ],
    [
      "address not a string",
      fileWith((b) => (b[0].addresses = { "1": [1] })),
      /^baskets\.json: baskets\[0\]\.addresses\["1"\]\[0\]: expected a token address.*found 1/,
    ],
    [
      "address twice on a chain (other case)",
      fileWith((b) => (b[0].addresses = { "1": [A, B, A.toUpperCase().replace("0X", "0x")] })),
      /^baskets\.json: baskets\[0\]\.addresses\["1"\]\[2\]: duplicate address "0xA{40}" \(already listed at \[0\]\)/,
    ],
  ];
  for (const [name, text, message] of cases) {
    it(name, () => {
      expect(parseError(text).message).toMatch(message);
    });
  }

  it("the same address on two chains is fine", () => {
    expect(() =>
      parseBasketsFile(
        fileWith((b) => (b[0].addresses = { "1": [A], "8453": [A] })),
        "baskets.json",
      ),
    ).not.toThrow();
  });

  it("an unreadable path is a BasketsFileError naming it", () => {
    const dir = mkdtempSync(join(tmpdir(), "lgw-baskets-"));
    expect(() => loadBasketsFile(join(dir, "missing.json"))).toThrow(
      /missing\.json: cannot read the baskets file: no such file \(ENOENT\)/,
    );
    expect(() => loadBasketsFile(dir)).toThrow(/cannot read the baskets file: the path is a directory/);
    writeFileSync(join(dir, "b.json"), '{"baskets": []}');
    expect(loadBasketsFile(join(dir, "b.json")).baskets).toEqual([]);
  });
});
