/**
 * Baskets resolved once per (baskets file, snapshot) (src/serving/basket-view.ts) and the pool-search
 * sides made from them (src/serving/pool-search-sides.ts), on random data: chains whose tokens share
 * addresses, TVLs drawn from a few values (many ties), a chain without a native record; random
 * baskets of held and unheld addresses in any letter case, the all-zero address among them.
 *
 * - the rows a basket resolves to on a chain are exactly those of the addresses the chain holds;
 * - every answer, for every scope, is byte for byte the JSON of test/support/reference-token-baskets.ts;
 * - a search's sides are the rows of the reference's address sets (wrapped native token included);
 * - one view per pair, shared; answers kept.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BasketCatalogue } from "../../../src/baskets/basket-catalogue.js";
import { parseBasketsFile } from "../../../src/baskets/basket-file.js";
import { CHAINS, NATIVE_ADDRESS, SUPPORTED_CHAIN_IDS, type ChainId } from "../../../src/chains/chains.js";
import { BasketView } from "../../../src/serving/basket-view.js";
import { toPoolSearchSpec } from "../../../src/query/pool-search-query.js";
import { resolveSearch } from "../../../src/serving/pool-search-sides.js";
import { instanceAddress } from "../../../src/tables/token-lookup.js";
import { compileTokenIndex } from "../../../src/snapshot/compile-token-index.js";
import type { SnapshotFile, SnapshotToken } from "../../../src/api/snapshot-format.js";
import { ServingSnapshot } from "../../../src/serving/serving-snapshot.js";
import { addr, chainFile, nativeToken, poolToken, protocol, token, v2Pool, wrappedNativeToken } from "../../support/fixtures.js";
import { prng } from "../../support/prng.js";
import type { BasketsJson } from "../../support/reference-pool-search.js";
import { referenceBasket } from "../../support/reference-token-baskets.js";
import { compileFile } from "../../support/compiled-chains.js";

const CHAIN_IDS: ChainId[] = [1, 8453, 130];
const TVLS = [0, 5, 5, 1_000, 1_000, 250_000];
const SHARED = Array.from({ length: 6 }, (_, i) => addr(`5aed${i}`));

function generate(seed: number): SnapshotFile[] {
  const r = prng(seed);
  return CHAIN_IDS.map((chainId) => {
    const tokens: SnapshotToken[] = [];
    if (chainId !== 130) tokens.push(nativeToken(chainId, { trackedTotalValuePooledUsd: r.pick(TVLS) }));
    tokens.push(wrappedNativeToken(chainId, { trackedTotalValuePooledUsd: r.pick(TVLS) }));
    for (const shared of SHARED)
      if (r.chance(0.7)) tokens.push(token(chainId, { address: shared, symbol: "SH", trackedTotalValuePooledUsd: r.pick(TVLS) }));
    for (let i = 0; i < 40; i++) {
      const name = r.pick(["Plain", 'With "quotes"', "Café ☕", "Back\\slash"]);
      tokens.push(
        token(chainId, {
          address: addr(`${chainId.toString(16)}0${i}`),
          symbol: `T${i}`,
          name,
          trackedTotalValuePooledUsd: r.pick(TVLS),
          logoUrl: r.chance(0.3) ? undefined : `https://logos.test/${i}.png`,
        }),
      );
    }
    const addresses = tokens.map((t) => t.address);
    const pools = Array.from({ length: 60 }, (_, p) =>
      v2Pool({
        address: addr(`b00${chainId.toString(16)}0${p}`),
        protocolId: "uni-v2",
        tokens: [poolToken(r.pick(addresses), 1, 1), poolToken(r.pick(addresses), 1, 1)],
        totalValueLockedUsd: r.pick(TVLS),
      }),
    );
    return chainFile(chainId, { tokens, pools, protocols: [protocol("uni-v2")] });
  });
}

const FILES = generate(20_261_124);
const CHAINS_COMPILED = FILES.map((f) => compileFile(f));
const INDEX = compileTokenIndex(CHAINS_COMPILED.map((c) => ({ chainId: c.info.chainId, tokens: c.tokens })));
const SNAPSHOT = ServingSnapshot.of(1, CHAINS_COMPILED, INDEX);

/** Addresses a basket may list on a chain: the chain's tokens, other chains' tokens, unknown ones, the all-zero address. */
function candidates(chainId: number): string[] {
  const own = FILES.find((f) => f.chainId === chainId)?.tokens.map((t) => t.address) ?? [];
  const others = FILES.filter((f) => f.chainId !== chainId).flatMap((f) => f.tokens.slice(0, 8).map((t) => t.address));
  return [...new Set([...own, ...others, NATIVE_ADDRESS, addr("dead1"), addr("dead2")])];
}

const casing = (address: string, upper: boolean) => (upper ? "0x" + address.slice(2).toUpperCase() : address);

const basketArb = (id: string) =>
  fc
    .record({
      chains: fc.subarray([...CHAIN_IDS, 999] as number[]),
      picks: fc.array(fc.tuple(fc.nat(), fc.boolean()), { maxLength: 30 }),
    })
    .map(({ chains, picks }) => {
      const addresses: Record<string, string[]> = {};
      chains.forEach((chainId, k) => {
        const pool = candidates(chainId);
        const chosen = new Map<string, string>();
        picks.forEach(([n, upper], j) => {
          if (j % chains.length !== k) return;
          const address = pool[n % pool.length]!;
          if (!chosen.has(address)) chosen.set(address, casing(address, upper));
        });
        addresses[String(chainId)] = [...chosen.values()];
      });
      return { id, name: `Basket ${id}`, description: `About "${id}"`, logoUrl: `https://logos.test/b/${id}.png`, addresses };
    });
const basketsArb: fc.Arbitrary<BasketsJson> = fc
  .tuple(basketArb("b-one"), basketArb("b-two"), basketArb("b-three"))
  .map((baskets) => ({ baskets }));
const scopeArb = fc.subarray([...SUPPORTED_CHAIN_IDS] as number[], { minLength: 1 }).map((s) => [...s].sort((a, b) => a - b) as ChainId[]);

const catalogueOf = (json: BasketsJson) => new BasketCatalogue(parseBasketsFile(JSON.stringify(json), "baskets.json"));

/** Instance of (chain, row). */
const INSTANCE_OF = new Map<string, number>();
for (let i = 0; i < INDEX.instanceCount; i++) INSTANCE_OF.set(`${INDEX.chainId[i]}:${INDEX.chainRow[i]}`, i);
const addressOfRow = (chainId: number, row: number) => instanceAddress(INDEX, INSTANCE_OF.get(`${chainId}:${row}`)!);
const heldOn = (chainId: number, address: string) =>
  FILES.find((f) => f.chainId === chainId)?.tokens.some((t) => t.address === address) ?? false;

describe("baskets resolved per (file, snapshot)", () => {
  it("a basket's rows on a chain are exactly the rows of the addresses the chain holds, each once", () => {
    fc.assert(
      fc.property(basketsArb, (json) => {
        const catalogue = catalogueOf(json);
        const view = new BasketView(catalogue, INDEX);
        for (const record of json.baskets) {
          const basket = catalogue.get(record.id)!;
          for (const chainId of [...SUPPORTED_CHAIN_IDS]) {
            const rows = [...view.rowsOn(basket, chainId)];
            expect(new Set(rows).size).toBe(rows.length);
            const expected = (record.addresses[String(chainId)] ?? []).map((a) => a.toLowerCase()).filter((a) => heldOn(chainId, a));
            expect(rows.map((row) => addressOfRow(chainId, row)).sort()).toEqual([...expected].sort());
          }
        }
      }),
      { numRuns: 60, seed: 7_001 },
    );
  });

  it("every answer, in every scope, is byte for byte the reference basket", () => {
    fc.assert(
      fc.property(basketsArb, fc.array(scopeArb, { minLength: 1, maxLength: 4 }), (json, scopes) => {
        const catalogue = catalogueOf(json);
        const view = new BasketView(catalogue, INDEX);
        for (const scope of [...scopes, [...SUPPORTED_CHAIN_IDS].sort((a, b) => a - b)]) {
          for (const record of json.baskets) {
            const expected = referenceBasket(FILES, json, record.id, scope);
            const answer = view.basketJson(catalogue.get(record.id)!, scope);
            expect(answer === null ? null : answer.toString(), `${record.id} on ${scope}`).toBe(
              expected === null ? null : JSON.stringify(expected),
            );
          }
        }
      }),
      { numRuns: 60, seed: 7_002 },
    );
  });

  it("without a snapshot: the addresses, no tokens", () => {
    fc.assert(
      fc.property(basketsArb, scopeArb, (json, scope) => {
        const catalogue = catalogueOf(json);
        const view = new BasketView(catalogue, null);
        for (const record of json.baskets) {
          const expected = referenceBasket([], json, record.id, scope);
          const answer = view.basketJson(catalogue.get(record.id)!, scope);
          expect(answer === null ? null : JSON.parse(answer.toString())).toEqual(expected);
          if (expected !== null) expect(expected.tokens).toEqual([]);
          for (const chainId of scope) expect(view.rowsOn(catalogue.get(record.id)!, chainId).length).toBe(0);
        }
      }),
      { numRuns: 30, seed: 7_003 },
    );
  });

  it("a search's sides are the rows of the reference's address sets, the wrapped native token added for the all-zero address", () => {
    const tokenArb = fc.tuple(fc.constantFrom(...CHAIN_IDS), fc.nat(), fc.boolean()).map(([chainId, n, upper]) => {
      const pool = candidates(chainId);
      return { chainId, address: casing(pool[n % pool.length]!, upper) };
    });
    const selectionArb = fc.record(
      { basketId: fc.constantFrom("b-one", "b-two", "b-three"), chainIds: fc.subarray(CHAIN_IDS as number[], { minLength: 1 }) },
      { requiredKeys: ["basketId"] },
    );
    fc.assert(
      fc.property(
        basketsArb,
        fc.array(tokenArb, { maxLength: 4 }),
        fc.array(selectionArb, { maxLength: 3 }),
        fc.option(fc.array(selectionArb, { minLength: 1, maxLength: 2 }), { nil: undefined }),
        fc.boolean(),
        fc.option(fc.subarray(CHAIN_IDS as number[], { minLength: 1 }), { nil: null }),
        (json, tokensA, basketsA, basketsB, useWrapped, keyChains) => {
          if (tokensA.length === 0 && basketsA.length === 0) return;
          const catalogue = catalogueOf(json);
          const request = {
            tokensA,
            basketsA,
            basketsB,
            config: { useWrappedForNative: useWrapped, parseWrappedToNative: "AUTO" as const },
          };
          const keyScope = keyChains === null ? null : ([...keyChains].sort((a, b) => a - b) as ChainId[]);
          const { chains, toNative } = resolveSearch(toPoolSearchSpec(request), SNAPSHOT, SNAPSHOT.baskets(catalogue), keyScope);

          const side = (tokens: typeof tokensA, baskets: typeof basketsA | undefined) => {
            const set = new Set<string>();
            for (const t of tokens) set.add(`${t.chainId}:${t.address.toLowerCase()}`);
            for (const b of baskets ?? []) {
              const record = json.baskets.find((x) => x.id === b.basketId)!;
              for (const chainId of b.chainIds ?? keyScope ?? SUPPORTED_CHAIN_IDS)
                for (const a of record.addresses[String(chainId)] ?? []) set.add(`${chainId}:${a.toLowerCase()}`);
            }
            return set;
          };
          const a = side(tokensA, basketsA);
          const b = basketsB === undefined ? null : side([], basketsB);
          const rowsOf = (set: Set<string>, chainId: number) => {
            const out = new Set<string>();
            for (const entry of set) {
              const [c, address] = entry.split(":") as [string, string];
              if (Number(c) !== chainId) continue;
              if (heldOn(chainId, address)) out.add(address);
              if (useWrapped && address === NATIVE_ADDRESS && heldOn(chainId, CHAINS[chainId as ChainId].wrappedNative))
                out.add(CHAINS[chainId as ChainId].wrappedNative);
            }
            return [...out].sort();
          };
          const expectedChains = [...CHAIN_IDS].sort((x, y) => x - y).filter((chainId) => [...a].some((e) => e.startsWith(`${chainId}:`)));
          expect(chains.map((c) => c.chainId)).toEqual(expectedChains);
          chains.forEach((c, k) => {
            expect([...c.a].map((row) => addressOfRow(c.chainId, row)).sort(), `side A on ${c.chainId}`).toEqual(rowsOf(a, c.chainId));
            expect(new Set(c.a).size).toBe(c.a.length);
            if (b === null) expect(c.b).toBeNull();
            else {
              expect([...c.b!].map((row) => addressOfRow(c.chainId, row)).sort(), `side B on ${c.chainId}`).toEqual(rowsOf(b, c.chainId));
              expect(new Set(c.b!).size).toBe(c.b!.length);
            }
            const nativeNamed = a.has(`${c.chainId}:${NATIVE_ADDRESS}`) || (b?.has(`${c.chainId}:${NATIVE_ADDRESS}`) ?? false);
            expect(toNative[k]).toBe(nativeNamed);
          });
        },
      ),
      { numRuns: 150, seed: 7_004 },
    );
  });

  it("one view per (catalogue, snapshot), shared by every request; each answer encoded once", () => {
    const catalogue = catalogueOf({
      baskets: [{ id: "x", name: "X", description: "d", logoUrl: "l", addresses: { "1": [NATIVE_ADDRESS] } }],
    });
    const view = SNAPSHOT.baskets(catalogue);
    expect(SNAPSHOT.baskets(catalogue)).toBe(view);
    const answer = view.basketJson(catalogue.get("x")!, [1]);
    expect(view.basketJson(catalogue.get("x")!, [1])).toBe(answer);
    const other = ServingSnapshot.of(2, CHAINS_COMPILED, INDEX);
    expect(other.baskets(catalogue)).not.toBe(view);
    const next = catalogueOf({
      baskets: [{ id: "x", name: "X", description: "d", logoUrl: "l", addresses: { "8453": [NATIVE_ADDRESS] } }],
    });
    expect(SNAPSHOT.baskets(next)).not.toBe(view);
    expect(JSON.parse(SNAPSHOT.baskets(next).basketJson(next.get("x")!, [1, 8453])!.toString()).chainIds).toEqual([8453]);
    expect(next.revision).not.toBe(catalogue.revision);
    expect(
      catalogueOf({ baskets: [{ id: "x", name: "X", description: "d", logoUrl: "l", addresses: { "8453": [NATIVE_ADDRESS] } }] }).revision,
    ).toBe(next.revision);
  });
});
