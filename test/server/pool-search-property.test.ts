/**
 * Property test of POST /v1/pools/search: over a seeded random data set (three chains, pools of
 * every type with two to four tokens, a token twice in one pool, many equal sort keys, tracked
 * and untracked TVL, the same address on several chains, a chain without a native record) and a
 * baskets file, random searches (sides from tokens in any letter case, the all-zero address,
 * unknown addresses and baskets with and without chains; filters; every order; both flags) are
 * walked page by page at several limits. The concatenation must equal the full scan of
 * test/support/reference-pool-search.ts, and every page of one walk must equal, byte for byte,
 * the pool-details texts of its pools (with the native rewrite), the effective filters and a
 * cursor exactly when more follow.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHAINS, NATIVE_ADDRESS, type ChainId } from "../../src/chains/chains.js";
import type { SnapshotFile, SnapshotPool, SnapshotToken } from "../../src/api/snapshot-format.js";
import {
  addr,
  algebraPool,
  chainFile,
  nativeToken,
  periodStats,
  poolToken,
  protocol,
  slipstreamPool,
  token,
  v2Pool,
  v3Pool,
  v4Pool,
  writeBasketsFile,
  writeKeysFile,
  writeSnapshotDir,
  wrappedNativeToken,
} from "../support/fixtures.js";
import { prng } from "../support/prng.js";
import { getPool, startGateway, walkPoolPages, type Gateway } from "../support/gateway-process.js";
import {
  dataText,
  detailsPoolText,
  effectiveFilters,
  expectedPoolText,
  referencePoolSearch,
  type BasketsJson,
  type SearchRequest,
} from "../support/reference-pool-search.js";

const DATA_SEED = Number(process.env.POOL_PROPERTY_DATA_SEED ?? 20_261_123);
const FC_SEED = Number(process.env.POOL_PROPERTY_FC_SEED ?? 9_120_412);
const NUM_RUNS = Number(process.env.POOL_PROPERTY_RUNS ?? 60);

const CHAIN_IDS: ChainId[] = [1, 8453, 130];
const PROTOCOL_IDS = ["uni-v2", "uni-v3", "algebra-x", "weird_id"];
const KEYS = [0, 0, 1, 2.5, 2.5, 10, 1_000, 1_000, 250_000, -4];
const SHARED = [addr("5a01"), addr("5a02")];

/** Token addresses of each chain: [native?, wrapped, majors, tail]. */
const TOKENS: Record<number, string[]> = {};

function generate(seed: number): SnapshotFile[] {
  const r = prng(seed);
  return CHAIN_IDS.map((chainId) => {
    const tokens: SnapshotToken[] = [];
    // Chain 130 has no native record: its native asset shows the template's logo.
    if (chainId !== 130)
      tokens.push(nativeToken(chainId, { logoUrl: chainId === 8453 ? undefined : `https://logos.test/native/${chainId}.png` }));
    tokens.push(wrappedNativeToken(chainId));
    for (let i = 0; i < 10; i++) tokens.push(token(chainId, { address: addr(`${chainId.toString(16)}0${i}`), symbol: `T${i}` }));
    for (const shared of SHARED) tokens.push(token(chainId, { address: shared, symbol: "SHR" }));
    const addresses = tokens.map((t) => t.address);
    TOKENS[chainId] = addresses;
    // The first few tokens are in most pools: long per-token lists.
    const weighted = [...addresses.slice(0, 5), ...addresses.slice(0, 5), ...addresses];
    const pools: SnapshotPool[] = [];
    const count = r.int(50, 70);
    for (let p = 0; p < count; p++) {
      const n = r.pick([2, 2, 2, 2, 3, 4]);
      const members = Array.from({ length: n }, () => r.pick(weighted));
      const stats = { stats24h: periodStats(1), stats7d: periodStats(2), stats30d: periodStats(3), stats90d: periodStats(4) };
      for (const s of Object.values(stats)) {
        s.yield = r.pick(KEYS);
        s.swapVolumeUsd = Math.abs(r.pick(KEYS));
        s.feesUsd = Math.abs(r.pick(KEYS));
      }
      const base = {
        address:
          r.next() < 0.15
            ? `0x${(p * 7919 + chainId).toString(16).padStart(64, "a")}`
            : `0x${(p * 104729 + chainId * 31).toString(16).padStart(40, "c")}`,
        protocolId: r.pick(PROTOCOL_IDS),
        tokens: members.map((m) => poolToken(m, r.int(0, 100), r.int(0, 1000))),
        totalValueLockedUsd: Math.abs(r.pick(KEYS)),
        trackedTotalValueLockedUsd: r.next() < 0.4 ? Math.abs(r.pick(KEYS)) : undefined,
        stats,
      };
      const make = r.pick([v2Pool, v3Pool, v4Pool, algebraPool, slipstreamPool] as const);
      pools.push(make(base as never));
    }
    return chainFile(chainId, { tokens, pools, protocols: PROTOCOL_IDS.map((id) => protocol(id)) });
  });
}

const FILES = generate(DATA_SEED);
const t = (chainId: number, i: number) => TOKENS[chainId][i]!;
const BASKETS: BasketsJson = {
  baskets: [
    {
      id: "stables",
      name: "Stables",
      description: "d",
      logoUrl: "https://logos.test/b/stables.png",
      addresses: { "1": [t(1, 3), t(1, 4).toUpperCase().replace("0X", "0x")], "8453": [t(8453, 3)], "130": [t(130, 2)] },
    },
    {
      id: "eth-like",
      name: "ETH",
      description: "d",
      logoUrl: "https://logos.test/b/eth.png",
      addresses: {
        "1": [NATIVE_ADDRESS, CHAINS[1].wrappedNative],
        "8453": [CHAINS[8453].wrappedNative],
        "130": [NATIVE_ADDRESS],
        "999": [addr("999")],
      },
    },
    {
      id: "sparse",
      name: "Sparse",
      description: "d",
      logoUrl: "https://logos.test/b/s.png",
      addresses: { "1": [addr("dead"), t(1, 9)], "8453": [SHARED[0]!] },
    },
  ],
};

let gw: Gateway;
let base: string;
/** `data.pool` text of every pool, by chain/address. */
const DETAILS = new Map<string, string>();

beforeAll(async () => {
  const dir = writeSnapshotDir(FILES);
  writeBasketsFile(dir, BASKETS);
  gw = await startGateway({ snapshotDir: dir, keysFile: writeKeysFile() });
  base = gw.baseUrl;
  for (const file of FILES) {
    for (const pool of file.pools) {
      const res = await getPool(base, file.chainId, pool.address);
      expect(res.status).toBe(200);
      DETAILS.set(`${file.chainId}/${pool.address}`, detailsPoolText(res.text));
    }
  }
}, 60_000);

afterAll(async () => {
  await gw?.stop();
});

const fileOf = (chainId: number) => FILES.find((f) => f.chainId === chainId)!;

/** Mostly the first tokens of a chain (the ones most pools hold), sometimes any, the all-zero address or an unknown one. */
const tokenArb = fc
  .tuple(
    fc.constantFrom(...CHAIN_IDS),
    fc.oneof({ weight: 3, arbitrary: fc.integer({ min: 0, max: 5 }) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 16 }) }),
    fc.boolean(),
  )
  .map(([chainId, i, upper]) => {
    const list = TOKENS[chainId];
    const address = i < list.length ? list[i]! : i === list.length ? NATIVE_ADDRESS : addr(`beef${i}`);
    return { chainId, address: upper ? "0x" + address.slice(2).toUpperCase() : address };
  });
const basketArb = fc.record(
  { basketId: fc.constantFrom("stables", "eth-like", "sparse"), chainIds: fc.subarray(CHAIN_IDS as number[], { minLength: 1 }) },
  { requiredKeys: ["basketId"] },
);
/** Absent most of the time. */
const rarely = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });
const TYPES = ["V2", "V3", "V4", "ALGEBRA", "SLIPSTREAM"];
const requestArb: fc.Arbitrary<SearchRequest> = fc
  .record({
    tokensA: fc.array(tokenArb, { maxLength: 4 }),
    basketsA: rarely(fc.array(basketArb, { minLength: 1, maxLength: 2 })),
    tokensB: rarely(fc.array(tokenArb, { maxLength: 3 })),
    basketsB: rarely(fc.array(basketArb, { maxLength: 2 })),
    filters: rarely(
      fc.record({
        minimumTotalValueLockedUsd: rarely(fc.constantFrom(0, 1, 2.5, 1_000, 250_000)),
        protocols: rarely(fc.subarray([...PROTOCOL_IDS.slice(0, 3), "unknown-proto"], { minLength: 2 })),
        blockedProtocols: rarely(fc.subarray([...PROTOCOL_IDS.slice(0, 3), "unknown-proto"], { maxLength: 1 })),
        poolTypes: rarely(fc.subarray(TYPES, { minLength: 3 })),
        blockedPoolTypes: rarely(fc.subarray(TYPES, { maxLength: 1 })),
      }),
    ),
    config: fc.record({
      orderBy: rarely(
        fc.record({
          field: rarely(fc.constantFrom("tvl", "yield", "volume", "fees")),
          direction: rarely(fc.constantFrom("asc", "desc")),
          timeframe: rarely(fc.constantFrom("24h", "7d", "30d", "90d")),
        }),
      ),
      parseWrappedToNative: rarely(fc.constantFrom("ALWAYS", "AUTO", "NEVER")),
      useWrappedForNative: rarely(fc.boolean()),
    }),
  })
  .map((q) => JSON.parse(JSON.stringify(q)) as SearchRequest) // drop the absent (undefined) properties
  .filter((q) => (q.tokensA?.length ?? 0) > 0 || (q.basketsA?.length ?? 0) > 0);

/** The page's `data` text up to the cursor, as the reference says it must be. */
function expectedPageText(request: SearchRequest, pools: { chainId: number; address: string; native: boolean }[]): string {
  const texts = pools.map((p) => expectedPoolText(fileOf(p.chainId), DETAILS.get(`${p.chainId}/${p.address}`)!, p.native));
  return `{"pools":[${texts.join(",")}],"filters":${JSON.stringify(effectiveFilters(request))},"nextCursor":`;
}

const identity = (p: { chainId: number; address: string }) => `${p.chainId}/${p.address}`;

describe("pool search property: paged answers equal a full scan", () => {
  it("the data set has what the rules need", () => {
    const pools = FILES.flatMap((f) => f.pools);
    expect(pools.length).toBeGreaterThan(150);
    expect(pools.some((p) => p.tokens.length > 2)).toBe(true);
    expect(pools.some((p) => new Set(p.tokens.map((x) => x.address)).size < p.tokens.length)).toBe(true);
    expect(pools.some((p) => p.tokens.some((x) => x.address === NATIVE_ADDRESS))).toBe(true);
    expect(new Set(pools.map((p) => p.type)).size).toBe(5);
    const all = referencePoolSearch(FILES, BASKETS, { basketsA: [{ basketId: "stables" }, { basketId: "eth-like" }] });
    expect(all.length).toBeGreaterThan(60);
  });

  it("random searches walked at limits 3, 10 and 500 and at varying limits; every page of the limit-10 walk byte for byte", async () => {
    await fc.assert(
      fc.asyncProperty(requestArb, fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 6 }), async (request, varying) => {
        const expected = referencePoolSearch(FILES, BASKETS, request);
        const ids = expected.map(identity);
        for (const limit of [3, 10, 500]) {
          const { pools, pages } = await walkPoolPages(base, request as never, limit);
          expect(pools.map(identity), `limit ${limit}, request ${JSON.stringify(request)}`).toEqual(ids);
          expect(pages.length).toBe(Math.max(1, Math.ceil(expected.length / limit)));
          if (limit !== 10) continue;
          pages.forEach((page, i) => {
            const text = dataText(page.response.text);
            const prefix = expectedPageText(request, expected.slice(i * limit, (i + 1) * limit));
            expect(text.slice(0, prefix.length), `page ${i} of ${JSON.stringify(request)}`).toBe(prefix);
            expect(text.slice(prefix.length)).toBe(page.nextCursor === null ? "null}" : `${JSON.stringify(page.nextCursor)}}`);
            expect(page.nextCursor === null).toBe(i === pages.length - 1);
          });
        }
        const { pools } = await walkPoolPages(base, request as never, (i) => varying[i % varying.length]!);
        expect(pools.map(identity), `varying limits ${varying}`).toEqual(ids);
      }),
      { numRuns: NUM_RUNS, seed: FC_SEED, endOnFailure: true },
    );
  }, 120_000);
});
