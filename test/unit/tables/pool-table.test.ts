import { describe, expect, test } from "vitest";
import { buildPoolTable, findPool, poolJson } from "../../../src/tables/pool-table.js";
import { utf8 } from "../../../src/tables/shared-columns.js";

const hex = (n: number, digits: number) => `0x${n.toString(16).padStart(digits, "0")}`;

describe("pool table", () => {
  const addresses = [
    ...Array.from({ length: 500 }, (_, i) => hex(i * 7919 + 1, 40)),
    ...Array.from({ length: 500 }, (_, i) => hex(i * 104729 + 3, 64)),
  ];
  const table = buildPoolTable(
    addresses,
    addresses.map((a) => utf8(JSON.stringify({ address: a }))),
  );

  test("finds every pool, in any letter case, and its JSON", () => {
    addresses.forEach((address, i) => {
      expect(findPool(table, address)).toBe(i);
      expect(findPool(table, address.toUpperCase().replace("0X", "0x"))).toBe(i);
      expect(JSON.parse(Buffer.from(poolJson(table, i)).toString())).toEqual({ address });
    });
  });

  test("misses unknown addresses, prefixes and other lengths", () => {
    expect(findPool(table, hex(2, 40))).toBe(-1);
    expect(findPool(table, addresses[0].slice(0, 41))).toBe(-1);
    expect(findPool(table, `${addresses[0]}0`)).toBe(-1);
  });

  test("lives in shared memory", () => {
    expect(table.slots.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(table.json.blocks[0].buffer).toBeInstanceOf(SharedArrayBuffer);
  });

  test("an empty table answers misses", () => {
    expect(findPool(buildPoolTable([], []), hex(1, 40))).toBe(-1);
  });
});
