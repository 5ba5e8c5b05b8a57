/**
 * The in-process token-list engine (compile → index → evaluateTokenList → entry JSON)
 * against the reference implementation, on random data built to produce ties in
 * group TVL (so the ordering and its tie-break are exercised in both directions),
 * every parity branch, and groups spread over several chains.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { CHAINS, SUPPORTED_CHAIN_IDS, type ChainId } from "../../../src/chains/chains.js";
import { evaluateTokenList } from "../../../src/query/evaluate-token-list.js";
import { TokenListView } from "../../../src/query/token-list-view.js";
import { chainMask, DEFAULT_TOKEN_QUERY, toTokenQuery } from "../../../src/query/token-query.js";
import { ServingSnapshot } from "../../../src/serving/serving-snapshot.js";
import type { CompiledChain } from "../../../src/tables/compiled-chain.js";
import { compileTokenIndex } from "../../../src/snapshot/compile-token-index.js";
import type { SnapshotFile, SnapshotToken } from "../../../src/api/snapshot-format.js";
import { chainFile, token } from "../../support/fixtures.js";
import { referenceTokenList, type ReferenceRequest } from "../../support/reference-token-list.js";
import { compileFile } from "../../support/compiled-chains.js";

const SYMBOLS = ["ETH", "USDC", "usdc", "ABC", "Z", "TIE", "TIE2", "Q1", "WETH"];
const NAMES = [
  "Alpha Beta Coin",
  "Alpha Beta",
  "Zeta",
  "usd coin",
  "USD Coin",
  "Tie Breaker",
  "Tie Maker Coin",
  "***",
  "Ether",
  "Wrapped Ether",
];
const TVLS = [0, 5_000, 10_000, 10_001, 20_000, 30_000, 50_000, 50_000.5];
const PRICES = [0, 1, 1.2, 1.21, 0.8, 0.79, 3000];

const tokenArb = fc.record({
  symbol: fc.constantFrom(...SYMBOLS),
  name: fc.constantFrom(...NAMES),
  tvl: fc.constantFrom(...TVLS),
  price: fc.constantFrom(...PRICES),
  swaps: fc.constantFrom(0, 1_000, 1_001, 5_000),
  volume: fc.constantFrom(0, 100_000, 100_001, 500_000),
  wrapped: fc.boolean(),
});

const dataArb = fc.array(fc.tuple(fc.constantFrom(...SUPPORTED_CHAIN_IDS), fc.array(tokenArb, { minLength: 1, maxLength: 14 })), {
  minLength: 1,
  maxLength: 5,
});

type TokenSpec = { symbol: string; name: string; tvl: number; price: number; swaps: number; volume: number; wrapped: boolean };

function files(data: ReadonlyArray<readonly [ChainId, readonly TokenSpec[]]>): SnapshotFile[] {
  const byChain = new Map<ChainId, SnapshotToken[]>();
  for (const [chainId, tokens] of data) {
    const list = byChain.get(chainId) ?? [];
    for (const t of tokens) {
      const address =
        t.wrapped && !list.some((x) => x.address === CHAINS[chainId].wrappedNative)
          ? CHAINS[chainId].wrappedNative
          : `0x${(list.length + 1).toString(16).padStart(40, "0")}`;
      if (list.some((x) => x.address === address)) continue;
      list.push(
        token(chainId, {
          address,
          symbol: t.symbol,
          name: t.name,
          trackedTotalValuePooledUsd: t.tvl,
          trackedUsdPrice: t.price,
          swapsCount: t.swaps,
          trackedSwapVolumeUsd: t.volume,
        }),
      );
    }
    byChain.set(chainId, list);
  }
  return [...byChain].map(([chainId, tokens]) => chainFile(chainId, { tokens }));
}

const requestArb: fc.Arbitrary<ReferenceRequest> = fc.record({
  config: fc.record({ matchAllSymbols: fc.boolean(), orderBy: fc.record({ direction: fc.constantFrom("asc" as const, "desc" as const) }) }),
  filters: fc.record({
    chainIds: fc.subarray([...SUPPORTED_CHAIN_IDS] as number[]),
    minimumTotalValuePooledUsd: fc.constantFrom(0, 5_000, 10_000, 20_000),
    minimumSwapsCount: fc.constantFrom(0, 1_000),
    minimumSwapVolumeUsd: fc.constantFrom(0, 100_000),
    ignoreWrappedNative: fc.boolean(),
  }),
});

function compiled(snapshots: SnapshotFile[]): CompiledChain[] {
  return snapshots.map((f) => compileFile(f));
}

function engineList(snapshots: SnapshotFile[], request: ReferenceRequest): unknown[] {
  const chains = compiled(snapshots);
  const index = compileTokenIndex(chains.map((c) => ({ chainId: c.info.chainId, tokens: c.tokens })));
  const query = toTokenQuery(request as Parameters<typeof toTokenQuery>[0]);
  const loaded = chainMask(chains.map((c) => c.info.chainId));
  const mask = query.chainIds.length === 0 ? loaded : chainMask(query.chainIds) & loaded;
  const view = new TokenListView(index, evaluateTokenList(index, query, mask), query.direction);
  return Array.from({ length: view.count }, (_, e) => JSON.parse(view.entry(e).toString()));
}

describe("token-list engine vs the reference", () => {
  test("random data with TVL ties, random queries", () => {
    fc.assert(
      fc.property(dataArb, requestArb, (data, request) => {
        const snapshots = files(data);
        const loaded = new Set(snapshots.map((f) => f.chainId));
        const requested = request.filters!.chainIds!.filter((id) => loaded.has(id));
        // The gateway answers 503 for a requested chain that never loaded; the engine is asked for loaded ones only.
        const asked = {
          ...request,
          filters: {
            ...request.filters,
            chainIds: requested.length > 0 || request.filters!.chainIds!.length === 0 ? requested : [...loaded].slice(0, 1),
          },
        };
        expect(engineList(snapshots, asked)).toEqual(referenceTokenList(snapshots, asked));
      }),
      { numRuns: 300 },
    );
  });

  test("the default list evaluated with the index is what a snapshot serves for the default request, over its own chains", () => {
    fc.assert(
      fc.property(dataArb, (data) => {
        const snapshots = files(data);
        const chains = compiled(snapshots);
        const index = compileTokenIndex(chains.map((c) => ({ chainId: c.info.chainId, tokens: c.tokens })));
        const served = (snapshot: ServingSnapshot) => {
          const view = snapshot.tokenList(DEFAULT_TOKEN_QUERY);
          return Array.from({ length: view.count }, (_, e) => JSON.parse(view.entry(e).toString()));
        };
        const snapshot = ServingSnapshot.of(1, chains, index);
        // The view serves the list built with the index (nothing evaluated when the snapshot is taken) ...
        expect(snapshot.tokenList(DEFAULT_TOKEN_QUERY).result).toBe(index.defaultList.list);
        expect(served(snapshot)).toEqual(referenceTokenList(snapshots, {}));
        // ... and a snapshot that holds fewer chains than its index evaluates its own.
        if (chains.length > 1) {
          const fewer = ServingSnapshot.of(2, chains.slice(0, 1), index);
          expect(fewer.tokenList(DEFAULT_TOKEN_QUERY).result).not.toBe(index.defaultList.list);
          expect(served(fewer)).toEqual(referenceTokenList(snapshots.slice(0, 1), {}));
        }
      }),
      { numRuns: 100 },
    );
  });

  test("entries that tie on group TVL keep normalizedSymbol order in both directions", () => {
    const f = chainFile(1, {
      tokens: ["B", "A", "C"].map((symbol, i) =>
        token(1, { address: `0x${(i + 1).toString(16).padStart(40, "0")}`, symbol, trackedTotalValuePooledUsd: 20_000 }),
      ),
    });
    for (const direction of ["asc", "desc"] as const) {
      const list = engineList([f], { config: { orderBy: { direction } } }) as Array<{ symbol: string }>;
      expect(list.map((e) => e.symbol)).toEqual(["A", "B", "C"]);
    }
  });
});
