/**
 * Baskets at the size limits (docs/baskets.md "Limits"), against the real server over HTTP: a
 * baskets file of 100 baskets and 10,000 addresses, the largest baskets at 1,000, over three
 * chains of a few thousand tokens. Nothing here measures time: the answers must be those of the
 * simple reference implementations over the same data (test/support/reference-token-baskets.ts,
 * test/support/reference-pool-search.ts), which read the files directly on every call.
 *
 *  L1  GET /v1/tokens/baskets (all, chainIds, basketIds, a chain-restricted key), /{basketId} and
 *      /{chainId}/{basketId}: byte for byte the reference; gzip answers decompress to the same bytes
 *  L2  pool searches over the big baskets (sides of many baskets, with and without chainIds, pairs,
 *      orders, filters, flags, a chain-restricted key) walked to the end: the reference's pools, in
 *      order; a first page byte for byte
 *  L3  an over-limit file (a basket, the file, the basket count, a text) is rejected whole, logged
 *      with the file and the path, counted; the last good baskets keep answering
 *  L4  a new baskets file, then a new snapshot: both are re-resolved (answers follow the new data)
 */
import { renameSync, writeFileSync } from "node:fs";
import { get as httpGet } from "node:http";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHAINS, NATIVE_ADDRESS, type ChainId } from "../../src/chains/chains.js";
import { MAX_BASKET_ADDRESSES, MAX_BASKETS, MAX_FILE_ADDRESSES } from "../../src/baskets/basket-file.js";
import type { SnapshotFile, SnapshotPool, SnapshotToken } from "../../src/api/snapshot-format.js";
import {
  addr,
  chainFile,
  KEYS,
  nativeToken,
  periodStats,
  poolToken,
  protocol,
  token,
  v2Pool,
  v3Pool,
  v4Pool,
  writeChainFile,
  wrappedNativeToken,
} from "../support/fixtures.js";
import {
  expectError,
  getPool,
  postPoolSearch,
  request,
  startWithBaskets,
  waitFor,
  walkPoolPages,
  type Gateway,
} from "../support/gateway-process.js";
import { prng } from "../support/prng.js";
import {
  dataText,
  detailsPoolText,
  effectiveFilters,
  expectedPoolText,
  referencePoolSearch,
  type BasketsJson,
  type SearchRequest,
} from "../support/reference-pool-search.js";
import { referenceBasket, referenceBasketList } from "../support/reference-token-baskets.js";

const CHAIN_IDS: ChainId[] = [1, 130, 8453];
const TOKENS: Record<number, number> = { 1: 2_400, 8453: 2_400, 130: 700 };
const POOLS: Record<number, number> = { 1: 4_000, 8453: 4_000, 130: 1_200 };
const TVLS = [0, 10, 10, 500, 500, 20_000, 1_000_000];
const PROTOCOLS = ["uni-v2", "uni-v3", "uni-v4"];

const tokenAddress = (chainId: number, i: number) => addr(`${chainId.toString(16)}00${i.toString(16)}`);

function chainData(chainId: ChainId, seed: number, tokenCount = TOKENS[chainId]!): SnapshotFile {
  const r = prng(seed);
  const tokens: SnapshotToken[] = [];
  // Chain 130 has no native record (its all-zero address resolves to nothing; its wrapped token still does).
  if (chainId !== 130) tokens.push(nativeToken(chainId, { trackedTotalValuePooledUsd: r.pick(TVLS) }));
  tokens.push(wrappedNativeToken(chainId, { trackedTotalValuePooledUsd: r.pick(TVLS) }));
  for (let i = 0; i < tokenCount; i++) {
    tokens.push(
      token(chainId, {
        address: tokenAddress(chainId, i),
        symbol: `T${i}`,
        trackedTotalValuePooledUsd: r.pick(TVLS),
        logoUrl: r.chance(0.2) ? undefined : `https://logos.test/${chainId}/${i}.png`,
      }),
    );
  }
  const addresses = tokens.map((t) => t.address);
  // Skewed: the first tokens are in many pools (long per-token lists).
  const pickToken = () => addresses[Math.min(addresses.length - 1, Math.floor(Math.exp(r.next() * Math.log(addresses.length + 1)) - 1))]!;
  const pools: SnapshotPool[] = [];
  for (let p = 0; p < POOLS[chainId]!; p++) {
    const n = r.pick([2, 2, 2, 3]);
    const stats = { stats24h: periodStats(1), stats7d: periodStats(2), stats30d: periodStats(3), stats90d: periodStats(4) };
    stats.stats7d.yield = r.pick(TVLS);
    const base = {
      address: addr(`${chainId.toString(16)}0bb${p.toString(16)}`),
      protocolId: r.pick(PROTOCOLS),
      tokens: Array.from({ length: n }, () => poolToken(pickToken(), 1, 1)),
      totalValueLockedUsd: r.pick(TVLS),
      trackedTotalValueLockedUsd: r.chance(0.3) ? r.pick(TVLS) : undefined,
      stats,
    };
    pools.push(r.pick([v2Pool, v3Pool, v4Pool] as const)(base as never));
  }
  return chainFile(chainId, { tokens, pools, protocols: PROTOCOLS.map((id) => protocol(id)) });
}

let files = CHAIN_IDS.map((chainId, k) => chainData(chainId, 31 + k));

/** Mostly held tokens of every chain, some unknown, the all-zero address and the wrapped token, letter case mixed. */
function bigBasket(r: ReturnType<typeof prng>, id: string, size: number): BasketsJson["baskets"][number] {
  const perChain: Record<string, Set<string>> = {};
  const chains = ["1", "8453", "130", "999"];
  let count = 0;
  const add = (chain: string, address: string) => {
    const set = (perChain[chain] ??= new Set());
    if (set.has(address) || count === size) return;
    set.add(address);
    count++;
  };
  add("1", NATIVE_ADDRESS);
  add("130", NATIVE_ADDRESS);
  add("130", CHAINS[130].wrappedNative);
  while (count < size) {
    const chain = r.pick([...chains, "1", "8453"]);
    if (chain === "999") add(chain, addr(`999${r.int(0, 50_000).toString(16)}`));
    else if (r.chance(0.1)) add(chain, addr(`dead${r.int(0, 50_000).toString(16)}`));
    else add(chain, tokenAddress(Number(chain), Math.floor(Math.exp(r.next() * Math.log(TOKENS[Number(chain)]! + 1)) - 1)));
  }
  const addresses: Record<string, string[]> = {};
  for (const [chain, set] of Object.entries(perChain))
    addresses[chain] = [...set].map((a) => (r.chance(0.2) ? "0x" + a.slice(2).toUpperCase() : a));
  return {
    id,
    name: `Big basket ${id}`,
    description: `A basket of ${size} addresses.`,
    logoUrl: `https://logos.test/b/${id}.png`,
    addresses,
  };
}

/** 100 baskets, 10,000 addresses: nine of 1,000, one of 910 and 90 of one address. */
function basketsAtLimit(seed: number): BasketsJson {
  const r = prng(seed);
  const baskets: BasketsJson["baskets"] = [];
  for (let b = 0; b < 10; b++)
    baskets.push(
      bigBasket(r, `big-${b}`, b < 9 ? MAX_BASKET_ADDRESSES : MAX_FILE_ADDRESSES - 9 * MAX_BASKET_ADDRESSES - (MAX_BASKETS - 10)),
    );
  for (let b = 10; b < MAX_BASKETS; b++)
    baskets.push({
      id: `small-${b}`,
      name: `Small ${b}`,
      description: "One address.",
      logoUrl: "https://logos.test/b/small.png",
      addresses: { [r.pick(["1", "8453", "130"])]: [tokenAddress(1, b)] },
    });
  return { baskets };
}

let baskets = basketsAtLimit(5);
let gw: Gateway & { snapshotDir: string };
let base: string;

beforeAll(async () => {
  expect(baskets.baskets.length).toBe(MAX_BASKETS);
  expect(baskets.baskets.reduce((n, b) => n + Object.values(b.addresses).flat().length, 0)).toBe(MAX_FILE_ADDRESSES);
  expect(Math.max(...baskets.baskets.map((b) => Object.values(b.addresses).flat().length))).toBe(MAX_BASKET_ADDRESSES);
  gw = await startWithBaskets(files, baskets);
  base = gw.baseUrl;
}, 120_000);

afterAll(async () => {
  await gw?.stop();
});

const ALL_CHAINS = [1, 8453, 130, 999, 143, 9745, 534352].sort((a, b) => a - b);
const get = (urlPath: string, opts: { key?: string; headers?: Record<string, string> } = {}) => request(base, urlPath, opts);

async function expectListText(urlPath: string, expected: unknown, key?: string): Promise<void> {
  const res = await get(urlPath, { key });
  expect(res.status, `${urlPath}: ${res.text.slice(0, 300)}`).toBe(200);
  const text = dataText(res.text);
  const want = JSON.stringify(expected);
  // Compared as text (a few MiB): on a difference, show where.
  if (text !== want) {
    let at = 0;
    while (at < text.length && text[at] === want[at]) at++;
    expect(text.slice(Math.max(0, at - 200), at + 200), `${urlPath}: first difference at ${at}`).toBe(
      want.slice(Math.max(0, at - 200), at + 200),
    );
  }
  expect(text.length).toBe(want.length);
}

async function expectBasketAnswers(): Promise<void> {
  await expectListText("/v1/tokens/baskets", { baskets: referenceBasketList(files, baskets, ALL_CHAINS) });
  await expectListText("/v1/tokens/baskets?chainIds=130,1", { baskets: referenceBasketList(files, baskets, [1, 130]) });
  await expectListText("/v1/tokens/baskets?basketIds=big-3,small-40,big-0", {
    baskets: referenceBasketList(files, baskets, ALL_CHAINS, ["big-3", "small-40", "big-0"]),
  });
  await expectListText("/v1/tokens/baskets", { baskets: referenceBasketList(files, baskets, [1]) }, KEYS.chain1Only);
  for (const id of ["big-0", "big-9", "small-11", "small-12", "small-13"]) {
    await expectListText(`/v1/tokens/baskets/${id}`, { basket: referenceBasket(files, baskets, id, ALL_CHAINS) });
    for (const chainId of [8453, 130]) {
      const one = referenceBasket(files, baskets, id, [chainId]);
      if (one !== null) {
        await expectListText(`/v1/tokens/baskets/${id}?chainIds=${chainId}`, { basket: one });
        await expectListText(`/v1/tokens/baskets/${chainId}/${id}`, { basket: one });
      } else {
        expectError(await get(`/v1/tokens/baskets/${id}?chainIds=${chainId}`), 404, "TOKEN_BASKET_NOT_FOUND");
        expectError(await get(`/v1/tokens/baskets/${chainId}/${id}`), 404, "TOKEN_BASKET_NOT_FOUND");
      }
    }
  }
}

describe("baskets answers at the limit (L1)", () => {
  it("every route answers the reference, byte for byte", async () => {
    const list = referenceBasketList(files, baskets, ALL_CHAINS);
    expect(list.length).toBe(MAX_BASKETS);
    expect(list.reduce((n, b) => n + b.tokens.length, 0)).toBeGreaterThan(5_000); // most addresses are held
    await expectBasketAnswers();
  });

  it("gzip answers (compressed once, then kept) decompress to the same bytes", async () => {
    const identity = (await get("/v1/tokens/baskets")).text;
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${base}/v1/tokens/baskets`, {
        headers: { Authorization: `Bearer ${KEYS.active}`, "Accept-Encoding": "gzip" },
      });
      expect(res.headers.get("content-encoding")).toBe("gzip");
      // fetch decompresses; the raw bytes are read below.
      const text = await res.text();
      expect(dataText(text)).toBe(dataText(identity));
    }
    const raw = await new Promise<Buffer>((resolve, reject) => {
      const url = new URL(`${base}/v1/tokens/baskets/big-2`);
      httpGet(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          headers: { Authorization: `Bearer ${KEYS.active}`, "Accept-Encoding": "gzip" },
        },
        (res) => {
          expect(res.headers["content-encoding"]).toBe("gzip");
          const parts: Buffer[] = [];
          res.on("data", (c: Buffer) => parts.push(c));
          res.on("end", () => resolve(Buffer.concat(parts)));
          res.on("error", reject);
        },
      ).on("error", reject);
    });
    expect(dataText(gunzipSync(raw).toString())).toBe(JSON.stringify({ basket: referenceBasket(files, baskets, "big-2", ALL_CHAINS) }));
  });
});

// ------------------------------------------------------------------ pool search

const DETAILS = new Map<string, string>();
async function details(chainId: number, address: string): Promise<string> {
  const key = `${chainId}/${address}`;
  if (!DETAILS.has(key)) {
    const res = await getPool(base, chainId, address);
    expect(res.status).toBe(200);
    DETAILS.set(key, detailsPoolText(res.text));
  }
  return DETAILS.get(key)!;
}

const identity = (p: { chainId: number; address: string }) => `${p.chainId}/${p.address}`;

async function expectSearch(request: SearchRequest, keyChains: number[] | null = null, key?: string): Promise<number> {
  const expected = referencePoolSearch(files, baskets, request, keyChains);
  const { pools } = await walkPoolPages(base, request as never, 500, key === undefined ? {} : { key });
  expect(pools.map(identity), JSON.stringify(request).slice(0, 300)).toEqual(expected.map(identity));
  // The first page of ten, byte for byte (native rewrite included).
  const first = await postPoolSearch(base, { ...request, config: { ...request.config, limit: 10 } }, key === undefined ? {} : { key });
  expect(first.status).toBe(200);
  const texts: string[] = [];
  for (const p of expected.slice(0, 10))
    texts.push(
      expectedPoolText(
        files.find((f) => f.chainId === p.chainId)!,
        await details(p.chainId, p.address),
        p.native,
      ),
    );
  const prefix = `{"pools":[${texts.join(",")}],"filters":${JSON.stringify(effectiveFilters(request))},"nextCursor":`;
  expect(dataText(first.text).slice(0, prefix.length)).toBe(prefix);
  return expected.length;
}

const big = (n: number, chainIds?: number[]) => ({ basketId: `big-${n}`, ...(chainIds === undefined ? {} : { chainIds }) });
const ALL_BIG = Array.from({ length: 10 }, (_, n) => big(n));

const SEARCHES: { name: string; request: SearchRequest; key?: string; keyChains?: number[] }[] = [
  { name: "ten baskets of 1,000 as side A", request: { basketsA: ALL_BIG } },
  {
    name: "ten baskets, yield 7d ascending, minimum TVL",
    request: {
      basketsA: ALL_BIG,
      filters: { minimumTotalValueLockedUsd: 500 },
      config: { orderBy: { field: "yield", timeframe: "7d", direction: "asc" } },
    },
  },
  {
    name: "baskets on chosen chains against baskets",
    request: { basketsA: [big(0, [1]), big(1, [130, 8453]), big(2)], basketsB: [big(3), big(4, [1])] },
  },
  {
    name: "tokens and baskets against ten baskets, wrapped never native, no wrapped for native",
    request: {
      tokensA: [
        { chainId: 1, address: tokenAddress(1, 0) },
        { chainId: 8453, address: NATIVE_ADDRESS },
      ],
      basketsA: [big(5)],
      basketsB: ALL_BIG,
      config: { useWrappedForNative: false, parseWrappedToNative: "NEVER" },
    },
  },
  {
    name: "always native, protocol filters",
    request: {
      basketsA: [big(6), big(7)],
      filters: { protocols: ["uni-v2", "uni-v3"], blockedPoolTypes: ["V3"] },
      config: { parseWrappedToNative: "ALWAYS" },
    },
  },
  {
    name: "a chain-restricted key: baskets without chains cover its chains",
    request: { basketsA: [big(8), big(9)], basketsB: [big(0)] },
    key: KEYS.chain1Only,
    keyChains: [1],
  },
];

describe("pool search over baskets at the limit (L2)", () => {
  it.each(SEARCHES)(
    "$name",
    async ({ request, key, keyChains }) => {
      const found = await expectSearch(request, keyChains ?? null, key);
      expect(found).toBeGreaterThan(10);
    },
    60_000,
  );
});

// ------------------------------------------------------------------ the file

function pushBaskets(json: unknown): void {
  const tmp = path.join(gw.snapshotDir, `.baskets.json.${process.pid}.tmp`);
  writeFileSync(tmp, JSON.stringify(json));
  renameSync(tmp, path.join(gw.snapshotDir, "baskets.json"));
}

async function rejections(): Promise<number> {
  const text = (await request(base, "/metrics", { key: null })).text;
  const m = /^gateway_baskets_file_rejections_total (\d+)/m.exec(text);
  return m === null ? -1 : Number(m[1]);
}

describe("over-limit files are rejected whole, the last good baskets stay (L3)", () => {
  it("a basket, the file, the basket count and a text over the limit: each rejected, logged with the path", async () => {
    const over: [string, BasketsJson, RegExp][] = [
      [
        "a basket of 1,001",
        { baskets: baskets.baskets.map((b, i) => (i === 4 ? { ...b, addresses: { ...b.addresses, "143": [addr("143")] } } : b)) },
        /baskets\.json: baskets\[4\]\.addresses: 1,001 addresses, more than the 1,000 a basket may list/,
      ],
      [
        "10,001 in the file",
        {
          baskets: baskets.baskets.map((b, i) =>
            i === 99 ? { ...b, addresses: { "1": [tokenAddress(1, 99), tokenAddress(1, 100)] } } : b,
          ),
        },
        /baskets\.json: baskets\[99\]\.addresses: the baskets up to this one list 10,001 addresses/,
      ],
      [
        "101 baskets",
        { baskets: [...baskets.baskets, { ...baskets.baskets[99]!, id: "zz-extra", addresses: {} }] },
        /baskets\.json: baskets: 101 baskets, more than the 100/,
      ],
      [
        "a long name",
        { baskets: baskets.baskets.map((b, i) => (i === 0 ? { ...b, name: "n".repeat(257) } : b)) },
        /baskets\.json: baskets\[0\]\.name: 257 characters, more than the 256 allowed/,
      ],
    ];
    for (const [what, json, message] of over) {
      const before = await rejections();
      const logged = gw.logs().filter((l) => l.event === "baskets-file-rejected").length;
      pushBaskets(json);
      await waitFor(`the file with ${what} to be rejected`, async () => ((await rejections()) === before + 1 ? true : undefined));
      const line = gw.logs().filter((l) => l.event === "baskets-file-rejected")[logged];
      expect(String(line?.error), what).toMatch(message);
      expect(String(line?.error)).toContain(path.join(gw.snapshotDir, "baskets.json"));
    }
    // The last good file is still the one in force, resolved as before.
    await expectBasketAnswers();
    await expectSearch({ basketsA: ALL_BIG.slice(0, 4), basketsB: [big(9)] });
  }, 120_000);
});

describe("a new file and a new snapshot are each resolved anew (L4)", () => {
  it("a new baskets file at the limit: answers and searches follow it", async () => {
    baskets = basketsAtLimit(77);
    pushBaskets(baskets);
    const want = JSON.stringify({ baskets: referenceBasketList(files, baskets, ALL_CHAINS) });
    await waitFor("the new baskets", async () => (dataText((await get("/v1/tokens/baskets")).text) === want ? true : undefined));
    await expectBasketAnswers();
    await expectSearch({ basketsA: ALL_BIG });
    await expectSearch({ basketsA: [big(2, [8453])], basketsB: [big(3), big(7)] });
  }, 120_000);

  it("a new snapshot of a chain (tokens gone, tokens added): answers and searches follow it", async () => {
    const versionBefore = (await get("/v1/tokens/baskets")).headers.get("x-snapshot-version");
    // Chain 130 with fewer tokens (basket addresses no longer held) and new pools.
    const next = chainData(130, 901, 300);
    files = files.map((f) => (f.chainId === 130 ? next : f));
    const tmp = writeChainFile(gw.snapshotDir, next, `.chain-130.msgpack.${process.pid}.tmp`);
    renameSync(tmp, path.join(gw.snapshotDir, "chain-130.msgpack"));
    await waitFor("the new snapshot", async () => {
      const version = (await get("/v1/tokens/baskets/130/big-1")).headers.get("x-snapshot-version");
      return version !== versionBefore ? true : undefined;
    });
    DETAILS.clear();
    await expectBasketAnswers();
    await expectSearch({ basketsA: ALL_BIG });
    await expectSearch({ basketsA: [big(1, [130])], basketsB: [big(2), big(5)] });
  }, 120_000);
});
