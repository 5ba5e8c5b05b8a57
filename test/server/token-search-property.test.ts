/**
 * Property tests of POST /v1/tokens/search, POST /v1/tokens/{chainId} and
 * POST /v1/tokens/{chainId}/search (api-extended.md §8, §11): over a seeded random data set
 * (overlapping symbols and names, literal `%` and `_`, case and non-ASCII variants, shared
 * addresses, TVL ties), random requests are walked page by page at several limits, following
 * nextCursor until null; the concatenation must equal the reference implementation's list
 * exactly (test/support/reference-token-search.ts, which reuses the token list reference for
 * grouping), and every page but the last is full.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SUPPORTED_CHAIN_IDS } from "../../src/chains/chains.js";
import { startWithFixtures, walkPages, type Gateway } from "../support/gateway-process.js";
import {
  referenceChainTokens,
  referenceSearch,
  type ReferenceChainRequest,
  type ReferenceSearchRequest,
} from "../support/reference-token-search.js";
import { prng } from "../support/prng.js";
import { generateSearchData, randomTerm } from "../support/search-data.js";

const DATA_SEED = Number(process.env.SEARCH_PROPERTY_DATA_SEED ?? 20_261_123);
const FC_SEED = Number(process.env.SEARCH_PROPERTY_FC_SEED ?? 4_242_025);
const NUM_RUNS = Number(process.env.SEARCH_PROPERTY_RUNS ?? 40);
const LIMITS = [1, 4, 500];

const DATA = generateSearchData(DATA_SEED);

let gw: Gateway;
let base: string;

beforeAll(async () => {
  gw = await startWithFixtures(DATA);
  base = gw.baseUrl;
});

afterAll(async () => {
  await gw?.stop();
});

/** A term from the data set (from one chain's tokens when given), chosen by fast-check's seed. */
const termArb = (chainId?: number) =>
  fc
    .integer({ min: 0, max: 2 ** 31 - 1 })
    .map((seed) => randomTerm(prng(seed), chainId === undefined ? DATA : DATA.filter((f) => f.chainId === chainId)));

const orderArb = fc.oneof(
  fc.record({ field: fc.constantFrom("tvl" as const), direction: fc.constantFrom("asc" as const, "desc" as const) }, { requiredKeys: [] }),
  fc.record({ field: fc.constant("relevance" as const), direction: fc.constant("desc" as const) }, { requiredKeys: ["field"] }),
);

// Mostly low, so that most walks have something to page through.
const thresholds = {
  minimumTotalValuePooledUsd: fc.constantFrom(0, 0, 0, 9_999, 10_000, 50_000),
  minimumSwapsCount: fc.constantFrom(0, 0, 0, 999, 1000),
  minimumSwapVolumeUsd: fc.constantFrom(0, 0, 0, 99_999, 100_000),
  ignoreWrappedNative: fc.boolean(),
};

const searchArb: fc.Arbitrary<ReferenceSearchRequest> = fc.record(
  {
    search: termArb(),
    config: fc.record({ matchAllSymbols: fc.boolean(), orderBy: orderArb }, { requiredKeys: [] }),
    filters: fc.record({ chainIds: fc.shuffledSubarray([...SUPPORTED_CHAIN_IDS] as number[]), ...thresholds }, { requiredKeys: [] }),
  },
  { requiredKeys: ["search"] },
);

const chainRequestArb = (chainId: number, searching: boolean): fc.Arbitrary<ReferenceChainRequest> =>
  fc.record(
    {
      ...(searching ? { search: termArb(chainId) } : {}),
      config: fc.record(
        {
          orderBy: searching
            ? orderArb
            : fc.record(
                { field: fc.constant("tvl" as const), direction: fc.constantFrom("asc" as const, "desc" as const) },
                { requiredKeys: [] },
              ),
        },
        { requiredKeys: [] },
      ),
      filters: fc.record(thresholds, { requiredKeys: [] }),
    },
    { requiredKeys: searching ? ["search"] : [] },
  ) as fc.Arbitrary<ReferenceChainRequest>;

const chainAndRequest = (searching: boolean) =>
  fc
    .constantFrom(...SUPPORTED_CHAIN_IDS)
    .chain((chainId) => chainRequestArb(chainId, searching).map((request) => [chainId, request] as const));

const varyingArb = fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 6 });

/** Lengths of the expected lists, per property (the properties must not pass on empty lists). */
const walked: Record<string, number[]> = {};

async function expectWalks(
  kind: string,
  path: string,
  body: Record<string, unknown>,
  expected: unknown[],
  varying: number[],
): Promise<void> {
  (walked[kind] ??= []).push(expected.length);
  for (const limit of LIMITS) {
    const { tokens, pages } = await walkPages(base, path, body, limit);
    expect(tokens, `${path} limit ${limit}, ${JSON.stringify(body)}`).toEqual(expected);
    for (const p of pages.slice(0, -1)) expect(p.tokens.length).toBe(limit);
    expect(pages.length).toBe(Math.max(1, Math.ceil(expected.length / limit)));
  }
  const { tokens } = await walkPages(base, path, body, (i) => varying[i % varying.length]!);
  expect(tokens, `${path} varying limits ${varying}, ${JSON.stringify(body)}`).toEqual(expected);
}

/** Most walks had something to page through, and some had more than one page at every limit but 500. */
function expectNonTrivial(kind: string): void {
  const lengths = walked[kind] ?? [];
  expect(lengths.filter((n) => n > 0).length, `${kind}: non-empty lists among ${lengths}`).toBeGreaterThanOrEqual(lengths.length / 2);
  expect(
    lengths.some((n) => n > 4),
    `${kind}: a list longer than one page of 4 among ${lengths}`,
  ).toBe(true);
}

describe("search and single-chain lists: paged answers equal the reference", () => {
  it("the data set is rich enough: searches hit several groups, tiers and chains", () => {
    const tokens = DATA.reduce((n, f) => n + f.tokens.length, 0);
    expect(tokens).toBeGreaterThan(180);
    const usd = referenceSearch(DATA, { search: "usd" });
    expect(usd.length).toBeGreaterThan(4);
    expect(usd.some((e) => e.chainIds.length >= 3)).toBe(true);
    const relevance = referenceSearch(DATA, { search: "usd", config: { orderBy: { field: "relevance" } } });
    expect(relevance).not.toEqual(usd);
    expect(referenceSearch(DATA, { search: "%" }).length).toBeGreaterThan(0);
    expect(referenceSearch(DATA, { search: "_" }).length).toBeGreaterThan(0);
    expect(referenceChainTokens(DATA, 1, {}).length).toBeGreaterThan(5);
  });

  it("random multi-chain searches walked at limits 1, 4, 500 and at varying limits", async () => {
    await fc.assert(
      fc.asyncProperty(searchArb, varyingArb, async (request, varying) => {
        await expectWalks(
          "search",
          "/v1/tokens/search",
          request as unknown as Record<string, unknown>,
          referenceSearch(DATA, request),
          varying,
        );
      }),
      { numRuns: NUM_RUNS, seed: FC_SEED, endOnFailure: true },
    );
    expectNonTrivial("search");
  }, 240_000);

  it("random single-chain lists walked at limits 1, 4, 500 and at varying limits", async () => {
    await fc.assert(
      fc.asyncProperty(chainAndRequest(false), varyingArb, async ([chainId, request], varying) => {
        await expectWalks(
          "list",
          `/v1/tokens/${chainId}`,
          request as Record<string, unknown>,
          referenceChainTokens(DATA, chainId, request),
          varying,
        );
      }),
      { numRuns: NUM_RUNS, seed: FC_SEED + 1, endOnFailure: true },
    );
    expectNonTrivial("list");
  }, 240_000);

  it("random single-chain searches walked at limits 1, 4, 500 and at varying limits", async () => {
    await fc.assert(
      fc.asyncProperty(chainAndRequest(true), varyingArb, async ([chainId, request], varying) => {
        await expectWalks(
          "chain-search",
          `/v1/tokens/${chainId}/search`,
          request as Record<string, unknown>,
          referenceChainTokens(DATA, chainId, request),
          varying,
        );
      }),
      { numRuns: NUM_RUNS, seed: FC_SEED + 2, endOnFailure: true },
    );
    expectNonTrivial("chain-search");
  }, 240_000);
});
