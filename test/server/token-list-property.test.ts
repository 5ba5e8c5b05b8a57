/**
 * Property test of POST /v1/tokens: over a seeded random multi-chain data set (shared
 * symbols, prices near the parity boundaries, names hitting every parity branch, many TVL
 * ties), random queries are walked page by page at several limits, following nextCursor
 * until null; the concatenation must equal the reference implementation's list exactly.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHAINS, NATIVE_ADDRESS, SUPPORTED_CHAIN_IDS, type ChainId } from "../../src/chains/chains.js";
import type { SnapshotFile, SnapshotToken } from "../../src/api/snapshot-format.js";
import { chainFile, token } from "../support/fixtures.js";
import { startWithFixtures, walkTokenPages, type Gateway } from "../support/gateway-process.js";
import { prng, type Prng } from "../support/prng.js";
import { referenceTokenList, type ReferenceRequest } from "../support/reference-token-list.js";

const DATA_SEED = Number(process.env.TOKEN_PROPERTY_DATA_SEED ?? 20_251_107);
const FC_SEED = Number(process.env.TOKEN_PROPERTY_FC_SEED ?? 7_312_025);
const NUM_RUNS = Number(process.env.TOKEN_PROPERTY_RUNS ?? 80);

interface SymbolSpec {
  symbol: string;
  name: string;
  price: number;
}

const SYMBOLS: SymbolSpec[] = [
  { symbol: "ETH", name: "Ether", price: 3000 },
  { symbol: "WETH", name: "Wrapped Ether", price: 3000 },
  { symbol: "USDC", name: "USD Coin", price: 1 },
  { symbol: "usdc", name: "usd coin", price: 1 },
  { symbol: "USDT", name: "Tether USD", price: 1 },
  { symbol: "USDT0", name: "USDT0", price: 1 },
  { symbol: "DAI", name: "Dai Stablecoin", price: 1 },
  { symbol: "WBTC", name: "Wrapped Bitcoin", price: 60000 },
  { symbol: "ARB", name: "Arbitrum", price: 1.25 },
  { symbol: "LINK", name: "Chainlink Token", price: 15 },
  { symbol: "UNI", name: "Uniswap", price: 8 },
  { symbol: "PEPE", name: "Pepe", price: 0.00001 },
  { symbol: "AAVE", name: "Aave Token", price: 100 },
  { symbol: "CRV", name: "Curve DAO Token", price: 0.5 },
  { symbol: "GHO", name: "Gho Token", price: 1 },
  { symbol: "MKR", name: "Maker", price: 1500 },
  { symbol: "ZRO", name: "LayerZero", price: 3 },
  { symbol: "MON", name: "Monad", price: 0.05 },
  { symbol: "HYPE", name: "Hyperliquid", price: 40 },
  { symbol: "XPL", name: "Plasma", price: 0.8 },
  { symbol: "AB", name: "Alpha Beta", price: 2 },
  { symbol: "X", name: "Xcoin", price: 0 },
  { symbol: "TIE", name: "Tie Breaker", price: 10 },
  { symbol: "Q1", name: "Quarter One", price: 7 },
];

const LETTER_WORDS: Record<string, string> = {
  a: "Apple",
  b: "Bravo",
  c: "Cobalt",
  d: "Delta",
  e: "Echo",
  f: "Fox",
  g: "Golf",
  h: "Hotel",
  i: "India",
  j: "Juliet",
  k: "Kilo",
  l: "Lima",
  m: "Mike",
  n: "November",
  o: "Oscar",
  p: "Papa",
  q: "Quebec",
  r: "Romeo",
  s: "Sierra",
  t: "Tango",
  u: "Uniform",
  v: "Victor",
  w: "Whiskey",
  x: "Xray",
  y: "Yankee",
  z: "Zulu",
  "0": "Zero",
  "1": "One",
};

/** Name variants aimed at each parity branch (and at failing them). No double spaces. */
function nameVariant(r: Prng, spec: SymbolSpec): string {
  const words = spec.name.split(" ");
  switch (r.int(0, 11)) {
    case 0:
    case 1:
    case 2:
      return spec.name; // equal
    case 3:
      return spec.name.toUpperCase() + "!"; // equal once cleaned
    case 4:
      return `${spec.symbol} Bridged`; // contains the symbol
    case 5:
      return `Super${spec.symbol.toLowerCase()}coin`; // contains the symbol as a substring
    case 6:
      return spec.symbol
        .toLowerCase()
        .split("")
        .map((c) => LETTER_WORDS[c] ?? "Word")
        .join(" "); // initials equal the symbol
    case 7:
      return [words[0], ...words.slice(1, 2), "Extra"].join(" "); // same first word, Jaccard >= 0.5
    case 8:
      return [words[0], "Foo", "Bar", "Baz"].join(" "); // same first word, low Jaccard
    case 9:
      return ["Bridged", ...words].join(" "); // different first word
    case 10:
      return r.pick(["Scam Token", "Totally Legit", "", "$$$", "Moon Rocket"]);
    default:
      return `${words[0]} ${words.length > 1 ? words[words.length - 1] : "Token"}`;
  }
}

const PRICE_MULTIPLIERS = [1, 1, 1, 1, 1.05, 0.95, 1.2, 0.8, 1.2001, 0.7999, 1.1999, 0.8001, 1.5, 0.5, 2, 0];
const TVLS = [0, 5_000, 9_999, 10_000, 10_001, 20_000, 50_000, 50_000, 100_000, 100_000, 250_000, 250_000, 1_000_000];
const SWAPS = [0, 999, 1000, 1001, 5000, 5000, 5000];
const VOLUMES = [0, 99_999, 100_000, 100_001, 1_000_000, 1_000_000, 1_000_000];

function randomAddress(r: Prng): string {
  let s = "0x";
  for (let i = 0; i < 40; i++) s += "0123456789abcdef"[r.int(0, 15)];
  return s;
}

function generateDataSet(seed: number): SnapshotFile[] {
  const r = prng(seed);
  const sharedAddresses = Array.from({ length: 8 }, () => randomAddress(r));
  const files: SnapshotFile[] = [];
  for (const chainId of SUPPORTED_CHAIN_IDS) {
    const chain = CHAINS[chainId as ChainId];
    const tokens: SnapshotToken[] = [];
    const used = new Set<string>();
    const add = (t: SnapshotToken) => {
      if (used.has(t.address)) return;
      used.add(t.address);
      tokens.push(t);
    };
    const numbers = () => ({
      trackedTotalValuePooledUsd: r.chance(0.15) ? r.int(0, 2_000) * 1_000 : r.pick(TVLS),
      swapsCount: r.chance(0.1) ? r.int(0, 100_000) : r.pick(SWAPS),
      trackedSwapVolumeUsd: r.chance(0.1) ? r.int(0, 5_000_000) : r.pick(VOLUMES),
    });
    // the native asset and the wrapped native token
    const nativeSpec = SYMBOLS.find((s) => s.symbol === chain.nativeSymbol);
    const nativePrice = nativeSpec?.price ?? 1;
    add(
      token(chainId, {
        address: NATIVE_ADDRESS,
        symbol: chain.nativeSymbol,
        name: chain.nativeName,
        trackedUsdPrice: nativePrice,
        ...numbers(),
      }),
    );
    add(
      token(chainId, {
        address: chain.wrappedNative,
        symbol: r.chance(0.5) ? chain.nativeSymbol : "W" + chain.nativeSymbol,
        name: "Wrapped " + chain.nativeName,
        trackedUsdPrice: nativePrice * r.pick(PRICE_MULTIPLIERS.slice(0, 8)),
        ...numbers(),
      }),
    );
    const count = r.int(35, 60);
    for (let i = 0; i < count; i++) {
      const spec = r.pick(SYMBOLS);
      const address = r.chance(0.1) ? r.pick(sharedAddresses) : randomAddress(r);
      const normalizedName = nameVariant(r, spec);
      const rawName = r.chance(0.2) ? normalizedName + " ✓" : normalizedName;
      const rawSymbol = r.chance(0.1) ? spec.symbol + "\u200b" : spec.symbol;
      add(
        token(chainId, {
          address,
          symbol: rawSymbol,
          name: rawName,
          normalizedSymbol: spec.symbol,
          normalizedName,
          decimals: r.pick([6, 8, 18]),
          logoUrl: r.chance(0.2) ? undefined : `https://logos.test/p/${chainId}/${address}.png`,
          trackedUsdPrice: spec.price * r.pick(PRICE_MULTIPLIERS),
          ...numbers(),
        }),
      );
    }
    files.push(chainFile(chainId as ChainId, { tokens }));
  }
  return files;
}

const DATA = generateDataSet(DATA_SEED);

let gw: Gateway;
let base: string;

beforeAll(async () => {
  gw = await startWithFixtures(DATA);
  base = gw.baseUrl;
});

afterAll(async () => {
  await gw?.stop();
});

const queryArb: fc.Arbitrary<ReferenceRequest> = fc.record(
  {
    config: fc.record(
      {
        matchAllSymbols: fc.boolean(),
        orderBy: fc.record(
          { field: fc.constant("tvl" as const), direction: fc.constantFrom("asc" as const, "desc" as const) },
          { requiredKeys: [] },
        ),
      },
      { requiredKeys: [] },
    ),
    filters: fc.record(
      {
        chainIds: fc.shuffledSubarray([...SUPPORTED_CHAIN_IDS] as number[]),
        minimumTotalValuePooledUsd: fc.constantFrom(0, 5_000, 9_999, 10_000, 50_000, 100_000, 250_000, 12_345.5),
        minimumSwapsCount: fc.constantFrom(0, 999, 1000, 1001, 5000),
        minimumSwapVolumeUsd: fc.constantFrom(0, 99_999, 100_000, 100_000.5, 1_000_000),
        ignoreWrappedNative: fc.boolean(),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: [] },
);

describe("token list property: paged answers equal the reference", () => {
  it("the generated data set is rich enough", () => {
    const all = referenceTokenList(DATA, { filters: { minimumTotalValuePooledUsd: 0, minimumSwapsCount: 0, minimumSwapVolumeUsd: 0 } });
    expect(all.length).toBeGreaterThan(15);
    expect(all.some((e) => e.chainIds.length >= 4)).toBe(true);
    const matchAll = referenceTokenList(DATA, { config: { matchAllSymbols: true } });
    const canonical = referenceTokenList(DATA);
    expect(matchAll).not.toEqual(canonical);
    expect(DATA.reduce((n, f) => n + f.tokens.length, 0)).toBeGreaterThan(250);
  });

  it("the default query, whole list, equals the reference", async () => {
    const { tokens } = await walkTokenPages(base, {}, 500);
    expect(tokens).toEqual(referenceTokenList(DATA));
  });

  it("random queries walked at limits 1, 3, 10, 500 and at varying limits", async () => {
    await fc.assert(
      fc.asyncProperty(queryArb, fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 8 }), async (query, varying) => {
        const expected = referenceTokenList(DATA, query);
        const q = query as { config?: Record<string, unknown>; filters?: Record<string, unknown> };
        for (const limit of [1, 3, 10, 500]) {
          const { tokens, pages } = await walkTokenPages(base, q, limit);
          expect(tokens, `limit ${limit}, query ${JSON.stringify(query)}`).toEqual(expected);
          for (const p of pages.slice(0, -1)) expect(p.tokens.length).toBe(limit);
          expect(pages.length).toBe(Math.max(1, Math.ceil(expected.length / limit)));
        }
        const { tokens } = await walkTokenPages(base, q, (i) => varying[i % varying.length]!);
        expect(tokens, `varying limits ${varying}, query ${JSON.stringify(query)}`).toEqual(expected);
      }),
      { numRuns: NUM_RUNS, seed: FC_SEED, endOnFailure: true },
    );
  }, 180_000);
});
