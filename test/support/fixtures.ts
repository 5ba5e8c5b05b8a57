/**
 * Test data for the black-box suite: small builders for snapshot records, writers for
 * snapshot directories and API-key files, and the hand-made data sets the HTTP tests run on.
 *
 * Everything here is plain data packed with msgpackr's default `pack`, exactly as an
 * operator would push it (shared/spec/snapshot-format.md).
 */
import { createHash } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pack } from "msgpackr";
import { CHAINS, NATIVE_ADDRESS, type ChainId } from "../../src/chains/chains.js";
import type { AccessGroup } from "../../src/api/access-groups.js";
import type {
  AlgebraMetadata,
  ConcentratedMetadata,
  PeriodStats,
  PoolStats,
  SnapshotAlgebraPool,
  SnapshotFile,
  SnapshotPool,
  SnapshotPoolToken,
  SnapshotProtocol,
  SnapshotSlipstreamPool,
  SnapshotToken,
  SnapshotV2Pool,
  SnapshotV3Pool,
  SnapshotV4Pool,
  V2Metadata,
  V4Metadata,
} from "../../src/api/snapshot-format.js";

export { NATIVE_ADDRESS };

/** The logo URL template the gateway uses when a token record has no `logoUrl`. */
export function templateLogo(chainId: number, address: string): string {
  return `https://assets.smold.app/api/token/${chainId}/${address}/logo.svg`;
}

/** The logo URL the builders give a token unless told otherwise (distinct per chain and address). */
export function testLogo(chainId: number, address: string): string {
  return `https://logos.test/${chainId}/${address}.png`;
}

/** `0x` + the hex tag left-padded with zeros to 40 digits. */
export function addr(tag: string): string {
  if (!/^[0-9a-f]{1,40}$/.test(tag)) throw new Error(`bad address tag ${tag}`);
  return "0x" + tag.padStart(40, "0");
}

/** A 64-hex-digit V4 pool id. */
export function poolId(tag: string): string {
  if (!/^[0-9a-f]{1,64}$/.test(tag)) throw new Error(`bad pool id tag ${tag}`);
  return "0x" + tag.padStart(64, "0");
}

/** Drops keys whose value is `undefined` (recursively) so that they are absent from the packed map. */
export function stripUndefined<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => stripUndefined(v)) as T;
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (v !== undefined) out[k] = stripUndefined(v);
    }
    return out as T;
  }
  return value;
}

// ------------------------------------------------------------------ builders

export type TokenInput = Partial<SnapshotToken> & { address: string; symbol: string };

/**
 * A token record. Defaults: name = symbol, normalized fields = the raw ones, 18 decimals,
 * a distinct test logo, price 1, tracked TVL 50,000, 5,000 swaps, tracked volume 500,000
 * (all comfortably above the default thresholds). Untracked values differ from tracked
 * ones on purpose, so that a server reading the wrong field is caught. Pass a field as
 * `undefined` to leave it out of the record.
 */
export function token(chainId: number, t: TokenInput): SnapshotToken {
  const name = "name" in t && t.name !== undefined ? t.name : t.symbol;
  const tracked = t.trackedUsdPrice ?? 1;
  const tvl = t.trackedTotalValuePooledUsd ?? 50_000;
  const vol = t.trackedSwapVolumeUsd ?? 500_000;
  const base: Record<string, unknown> = {
    address: t.address,
    symbol: t.symbol,
    name,
    normalizedSymbol: t.symbol,
    normalizedName: name,
    decimals: 18,
    logoUrl: testLogo(chainId, t.address),
    usdPrice: tracked * 1.01 + 0.5,
    trackedUsdPrice: tracked,
    totalValuePooledUsd: tvl * 2 + 1_000_000,
    trackedTotalValuePooledUsd: tvl,
    swapsCount: 5_000,
    swapVolumeUsd: vol * 2 + 1_000_000,
    trackedSwapVolumeUsd: vol,
  };
  for (const [k, v] of Object.entries(t)) base[k] = v;
  return stripUndefined(base) as unknown as SnapshotToken;
}

/** The chain's native asset (all-zero address) with the chain table's symbol and name. */
export function nativeToken(chainId: ChainId, t: Partial<SnapshotToken> = {}): SnapshotToken {
  const c = CHAINS[chainId];
  return token(chainId, { address: NATIVE_ADDRESS, symbol: c.nativeSymbol, name: c.nativeName, decimals: 18, ...t });
}

/** The chain's wrapped native token. */
export function wrappedNativeToken(chainId: ChainId, t: Partial<SnapshotToken> = {}): SnapshotToken {
  const c = CHAINS[chainId];
  return token(chainId, { address: c.wrappedNative, symbol: "W" + c.nativeSymbol, name: "Wrapped " + c.nativeName, ...t });
}

export function protocol(id: string, p: Partial<SnapshotProtocol> = {}): SnapshotProtocol {
  return {
    id,
    name: p.name ?? `Protocol ${id}`,
    logoUrl: p.logoUrl ?? `https://logos.test/protocols/${id}.png`,
    url: p.url ?? `https://${id}.example`,
  };
}

export function periodStats(seed: number): PeriodStats {
  return {
    feesUsd: 1234.5 * seed,
    swapVolumeUsd: 987654.25 * seed,
    yield: 12.5 + seed,
    netInflowUsd: -4321.75 * seed,
    liquidityVolumeUsd: 55555.5 * seed,
  };
}

export function poolStats(seed = 1): PoolStats {
  return {
    stats24h: periodStats(seed),
    stats7d: periodStats(seed * 7),
    stats30d: periodStats(seed * 30),
    stats90d: periodStats(seed * 90),
  };
}

export function poolToken(address: string, amount: number, amountUsd: number): SnapshotPoolToken {
  return { address, amount, amountUsd };
}

interface PoolInput {
  address: string;
  protocolId: string;
  tokens: SnapshotPoolToken[];
  createdAtTimestamp?: number;
  feeTierPercentage?: number;
  isDynamicFee?: boolean;
  totalValueLockedUsd?: number;
  trackedTotalValueLockedUsd?: number;
  stats?: PoolStats;
}

function poolBase(p: PoolInput) {
  return {
    address: p.address,
    protocolId: p.protocolId,
    createdAtTimestamp: p.createdAtTimestamp ?? 1_700_000_000,
    feeTierPercentage: p.feeTierPercentage ?? 0.3,
    isDynamicFee: p.isDynamicFee ?? false,
    totalValueLockedUsd: p.totalValueLockedUsd ?? p.tokens.reduce((s, t) => s + t.amountUsd, 0),
    trackedTotalValueLockedUsd: p.trackedTotalValueLockedUsd,
    tokens: p.tokens,
    stats: p.stats ?? poolStats(1),
  };
}

export function concentratedMetadata(m: Partial<ConcentratedMetadata> = {}): ConcentratedMetadata {
  return {
    latestSqrtPriceX96: m.latestSqrtPriceX96 ?? "1461446703485210103287273052203988822378723970341",
    tickSpacing: m.tickSpacing ?? 60,
    latestTick: m.latestTick ?? "-887272",
    positionManagerAddress: m.positionManagerAddress ?? "0xc36442b4a4522e871399cd717abdd847ab11fe88",
  };
}

export function v2Pool(p: PoolInput & { metadata?: V2Metadata }): SnapshotV2Pool {
  return stripUndefined({
    ...poolBase(p),
    type: "V2" as const,
    metadata: p.metadata ?? { positionManagerAddress: "0x7a250d5630b4cf539739df2c5dacb4c659f2488d" },
  });
}

export function v3Pool(p: PoolInput & { metadata?: ConcentratedMetadata }): SnapshotV3Pool {
  return stripUndefined({ ...poolBase(p), type: "V3" as const, metadata: p.metadata ?? concentratedMetadata() });
}

export function slipstreamPool(p: PoolInput & { metadata?: ConcentratedMetadata }): SnapshotSlipstreamPool {
  return stripUndefined({
    ...poolBase(p),
    type: "SLIPSTREAM" as const,
    metadata:
      p.metadata ?? concentratedMetadata({ tickSpacing: 100, positionManagerAddress: "0x827922686190790b37229fd06084350e74485b72" }),
  });
}

export function v4Pool(p: PoolInput & { metadata?: Partial<V4Metadata> }): SnapshotV4Pool {
  const m = p.metadata ?? {};
  const metadata: V4Metadata = {
    ...concentratedMetadata({ ...m, positionManagerAddress: m.positionManagerAddress ?? "0xbd216513d74c8cf14cf4747e6aaa6420ff64ee9e" }),
    poolManagerAddress: m.poolManagerAddress ?? "0x000000000004444c5dc75cb358380d2e3de08a90",
    permit2Address: m.permit2Address ?? "0x000000000022d473030f116ddee9f6b43ac78ba3",
    stateViewAddress: m.stateViewAddress === undefined ? "0x7ffe42c4a5deea5b0fec41c94c136cf115597227" : m.stateViewAddress,
    hook: m.hook === undefined ? null : m.hook,
  };
  return stripUndefined({ ...poolBase(p), type: "V4" as const, metadata });
}

export function algebraPool(p: PoolInput & { metadata?: Partial<AlgebraMetadata> }): SnapshotAlgebraPool {
  const m = p.metadata ?? {};
  const metadata: AlgebraMetadata = {
    ...concentratedMetadata({ ...m, positionManagerAddress: m.positionManagerAddress ?? "0x8ef88e4c7cfbbac1c163f7eddd4b578792201de6" }),
    communityFeePercentage: m.communityFeePercentage ?? 10,
    deployer: m.deployer ?? "0x0d4a4ee2b1e0ffb2a7f8c5f49a5a4c1b2c3d4e5f",
    plugin: m.plugin === undefined ? { address: "0x1f1a2b3c4d5e6f708192a3b4c5d6e7f801234567", config: 195 } : m.plugin,
    version: m.version ?? "1.2.1",
  };
  return stripUndefined({ ...poolBase(p), type: "ALGEBRA" as const, metadata });
}

export function chainFile(
  chainId: ChainId,
  c: { tokens: SnapshotToken[]; pools?: SnapshotPool[]; protocols?: SnapshotProtocol[]; generatedAt?: number; blockNumber?: number },
): SnapshotFile {
  return stripUndefined({
    format: "liquidity-snapshot" as const,
    version: 1 as const,
    chainId,
    generatedAt: c.generatedAt ?? 1_750_000_000,
    blockNumber: c.blockNumber ?? 21_000_000,
    protocols: c.protocols ?? [],
    tokens: c.tokens,
    pools: c.pools ?? [],
  });
}

/**
 * A small valid chain file: protocol "p", the native token and one token (`addr("1001")`, `symbol`), and a v2 pool
 * of the two at each of `poolAddresses` (one, `addr("abc1")`, unless given).
 */
export function oneTokenChain(
  chainId: ChainId,
  generatedAt: number,
  symbol: string,
  poolAddresses: readonly string[] = [addr("abc1")],
): SnapshotFile {
  return chainFile(chainId, {
    generatedAt,
    protocols: [protocol("p")],
    tokens: [nativeToken(chainId), token(chainId, { address: addr("1001"), symbol })],
    pools: poolAddresses.map((address) =>
      v2Pool({ address, protocolId: "p", tokens: [poolToken(NATIVE_ADDRESS, 1, 2), poolToken(addr("1001"), 3, 4)] }),
    ),
  });
}

// ------------------------------------------------------------------ writers

export function tempDir(prefix = "lgw-test-"): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function packSnapshot(file: unknown): Buffer {
  return pack(stripUndefined(file));
}

/** Writes `chain-<chainId>.msgpack` (or `name`) into `dir`. */
export function writeChainFile(dir: string, file: unknown, name?: string): string {
  const chainId = (file as { chainId: number }).chainId;
  const target = path.join(dir, name ?? `chain-${chainId}.msgpack`);
  writeFileSync(target, packSnapshot(file));
  return target;
}

export function writeRawFile(dir: string, name: string, bytes: Buffer | string): string {
  const target = path.join(dir, name);
  writeFileSync(target, bytes);
  return target;
}

/** A fresh temp snapshot directory holding these chain files. */
export function writeSnapshotDir(files: SnapshotFile[]): string {
  const dir = tempDir("lgw-snap-");
  for (const f of files) writeChainFile(dir, f);
  return dir;
}

/** Writes `baskets.json` (docs/baskets.md) into `dir`, where the gateway looks for it by default. */
export function writeBasketsFile(dir: string, baskets: unknown): string {
  const target = path.join(dir, "baskets.json");
  writeFileSync(target, JSON.stringify(baskets, null, 2));
  return target;
}

// ------------------------------------------------------------------ API keys

export function sha256(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

export interface TestKey {
  id: string;
  key: string;
  name?: string;
  status?: "active" | "disabled";
  expiresAt?: string;
  rateLimit?: { requests: number; windowSeconds: number };
  routes?: AccessGroup[];
  chainIds?: number[];
}

/** Plenty of quota: the suite sends thousands of requests per key. */
export const BIG_RATE_LIMIT = { requests: 1_000_000, windowSeconds: 60 };

export const KEYS = {
  active: "lgw_test_active_0123456789abcdef",
  activeFuture: "lgw_test_future_expiry_abcdef012345",
  disabled: "lgw_test_disabled_0123456789abcdef",
  expired: "lgw_test_expired_0123456789abcdef",
  rateLimited: "lgw_test_ratelimited_0123456789ab",
  poolsOnly: "lgw_test_poolsonly_0123456789abcd",
  chain1Only: "lgw_test_chain1only_0123456789abc",
  chains1And999: "lgw_test_chains1and999_0123456789",
} as const;

export const EXPIRED_AT = "2020-01-01T00:00:00Z";

export function standardKeys(): TestKey[] {
  return [
    { id: "test-active", key: KEYS.active, status: "active", rateLimit: BIG_RATE_LIMIT },
    { id: "test-future", key: KEYS.activeFuture, status: "active", expiresAt: "2099-01-01T00:00:00Z", rateLimit: BIG_RATE_LIMIT },
    { id: "test-disabled", key: KEYS.disabled, status: "disabled", rateLimit: BIG_RATE_LIMIT },
    { id: "test-expired", key: KEYS.expired, status: "active", expiresAt: EXPIRED_AT, rateLimit: BIG_RATE_LIMIT },
    { id: "test-ratelimited", key: KEYS.rateLimited, status: "active", rateLimit: { requests: 3, windowSeconds: 60 } },
    { id: "test-pools-only", key: KEYS.poolsOnly, status: "active", routes: ["pools"], rateLimit: BIG_RATE_LIMIT },
    { id: "test-chain1-only", key: KEYS.chain1Only, status: "active", chainIds: [1], rateLimit: BIG_RATE_LIMIT },
    { id: "test-chains-1-999", key: KEYS.chains1And999, status: "active", chainIds: [1, 999], rateLimit: BIG_RATE_LIMIT },
  ];
}

/** Writes a keys file (keys-file.md) into `dir` (a fresh temp dir when omitted); returns its path. */
export function writeKeysFile(keys: TestKey[] = standardKeys(), dir: string = tempDir("lgw-keys-")): string {
  const json = {
    keys: keys.map((k) =>
      stripUndefined({
        id: k.id,
        name: k.name ?? `Test key ${k.id}`,
        sha256: sha256(k.key),
        status: k.status ?? "active",
        expiresAt: k.expiresAt,
        rateLimit: k.rateLimit,
        routes: k.routes,
        chainIds: k.chainIds,
      }),
    ),
  };
  const file = path.join(dir, "api-keys.json");
  writeFileSync(file, JSON.stringify(json, null, 2));
  return file;
}

// ------------------------------------------------------------------ token-list data set (hand-made)

/**
 * Addresses of the hand-made token-list data set (api-decisions.md §3). Each scenario has
 * its own normalizedSymbol, so every rule shows up as one entry (or its absence).
 */
export const TL = {
  // ETH / WETH (chains 1, 8453, 130, 999)
  ethBridged1: addr("e1"),
  ethScam8453: addr("e2"),
  wethBridged999: addr("e9"),
  ethLower999: addr("e8"),
  // TIE: anchor tie broken by lower chainId, then lower address
  tie1a: addr("7fe"),
  tie1b: addr("7ff"),
  tie8453: addr("701"),
  // PRC: price parity
  prc1: addr("501"),
  prc8453: addr("502"),
  prc8453b: addr("503"),
  prc130fail: addr("504"),
  prc130: addr("505"),
  prc999: addr("506"),
  // ZP: anchor price 0; ZQ: member price 0 against a priced anchor
  zp1: addr("a01"),
  zp8453: addr("a02"),
  zq1: addr("a11"),
  zq130: addr("a12"),
  // name parity branches: anchor on chain 1, candidate on 8453 (and 130 for CNT)
  eql1: addr("b01"),
  eql8453: addr("b02"),
  cnt1: addr("b11"),
  cnt8453: addr("b12"),
  cnt130: addr("b13"),
  cnu1: addr("b21"),
  cnu8453: addr("b22"),
  abc1: addr("b31"),
  abc8453: addr("b32"),
  xyz1: addr("b41"),
  xyz8453: addr("b42"),
  jac1: addr("b51"),
  jac8453: addr("b52"),
  jab1: addr("b61"),
  jab8453: addr("b62"),
  jaw1: addr("b71"),
  jaw8453: addr("b72"),
  fail1: addr("b81"),
  fail8453: addr("b82"),
  // misc
  nologo1: addr("c01"),
  usdt0Unicode1: addr("d01"),
  usdt0Base: addr("d02"),
  split1: addr("d11"),
  split8453: addr("d12"),
  splits1: addr("d13"),
  splits8453: addr("d14"),
  mixd1: addr("d21"),
  mixd8453: addr("d22"),
  // thresholds (chain 143)
  tvlEq: addr("f01"),
  tvlUp: addr("f02"),
  swpEq: addr("f03"),
  swpUp: addr("f04"),
  volEq: addr("f05"),
  volUp: addr("f06"),
  zero: addr("f07"),
  // ordering (chains 9745, 534352)
  top: addr("901"),
  mid9745: addr("902"),
  ta: addr("903"),
  tb9745: addr("904"),
  tb534352: addr("905"),
  tALower: addr("906"),
  low: addr("907"),
  mid534352: addr("908"),
} as const;

const W = (id: ChainId) => CHAINS[id].wrappedNative;

export function tokenListFixture(): SnapshotFile[] {
  const c1: SnapshotToken[] = [
    nativeToken(1, { trackedUsdPrice: 3000, trackedTotalValuePooledUsd: 4_000_000 }),
    wrappedNativeToken(1, {
      symbol: "WETH",
      normalizedSymbol: "WETH",
      name: "Wrapped Ether",
      normalizedName: "Wrapped Ether",
      trackedUsdPrice: 3000,
      trackedTotalValuePooledUsd: 5_000_000,
    }),
    token(1, { address: TL.ethBridged1, symbol: "ETH", name: "Ether", trackedUsdPrice: 3000, trackedTotalValuePooledUsd: 200_000 }),
    token(1, { address: TL.tie1b, symbol: "TIE", name: "Tie Token", trackedTotalValuePooledUsd: 300_000 }),
    token(1, { address: TL.tie1a, symbol: "TIE", name: "Tie Token", trackedTotalValuePooledUsd: 300_000 }),
    token(1, { address: TL.prc1, symbol: "PRC", name: "Price Token", trackedUsdPrice: 1000, trackedTotalValuePooledUsd: 900_000 }),
    token(1, { address: TL.zp1, symbol: "ZP", name: "Zero Price", trackedUsdPrice: 0, trackedTotalValuePooledUsd: 400_000 }),
    token(1, { address: TL.zq1, symbol: "ZQ", name: "Zq Token", trackedUsdPrice: 10, trackedTotalValuePooledUsd: 400_000 }),
    token(1, { address: TL.eql1, symbol: "EQL", name: "***", trackedTotalValuePooledUsd: 200_000 }),
    token(1, { address: TL.cnt1, symbol: "CNT", name: "Gamma", trackedTotalValuePooledUsd: 200_000 }),
    token(1, { address: TL.cnu1, symbol: "CNU", name: "Cnu Dollar", trackedTotalValuePooledUsd: 200_000 }),
    token(1, { address: TL.abc1, symbol: "ABC", name: "Zeta", trackedTotalValuePooledUsd: 200_000 }),
    token(1, { address: TL.xyz1, symbol: "XYZ", name: "Xeno Yield Zone", trackedTotalValuePooledUsd: 200_000 }),
    token(1, { address: TL.jac1, symbol: "JAC", name: "Delta Red Blue", trackedTotalValuePooledUsd: 200_000 }),
    token(1, { address: TL.jab1, symbol: "JAB", name: "Delta Red Blue", trackedTotalValuePooledUsd: 200_000 }),
    token(1, { address: TL.jaw1, symbol: "JAW", name: "Delta Red Blue", trackedTotalValuePooledUsd: 200_000 }),
    token(1, { address: TL.fail1, symbol: "FAIL", name: "Foo Bar", trackedTotalValuePooledUsd: 200_000 }),
    token(1, { address: TL.nologo1, symbol: "NOLOGO", name: "No Logo", logoUrl: undefined }),
    // no normalizedSymbol / normalizedName: the gateway derives USDT0 / USDT0
    token(1, {
      address: TL.usdt0Unicode1,
      symbol: "USD₮0",
      name: "USD₮0",
      normalizedSymbol: undefined,
      normalizedName: undefined,
      decimals: 6,
      trackedTotalValuePooledUsd: 600_000,
    }),
    token(1, { address: TL.split1, symbol: "SPLIT", trackedTotalValuePooledUsd: 6_000 }),
    token(1, { address: TL.splits1, symbol: "SPLITS", swapsCount: 600 }),
    token(1, { address: TL.mixd1, symbol: "MIXD", trackedTotalValuePooledUsd: 50_000 }),
  ];
  const c8453: SnapshotToken[] = [
    nativeToken(8453, { trackedUsdPrice: 3000, trackedTotalValuePooledUsd: 1_000_000 }),
    wrappedNativeToken(8453, {
      symbol: "WETH",
      normalizedSymbol: "WETH",
      name: "Wrapped Ether",
      normalizedName: "Wrapped Ether",
      trackedUsdPrice: 3000,
      trackedTotalValuePooledUsd: 3_000_000,
    }),
    token(8453, { address: TL.ethScam8453, symbol: "ETH", name: "Ether", trackedUsdPrice: 1, trackedTotalValuePooledUsd: 150_000 }),
    token(8453, { address: TL.tie8453, symbol: "TIE", name: "Tie Token", trackedTotalValuePooledUsd: 300_000 }),
    token(8453, { address: TL.prc8453, symbol: "PRC", name: "Price Token", trackedUsdPrice: 1200, trackedTotalValuePooledUsd: 800_000 }),
    token(8453, { address: TL.prc8453b, symbol: "PRC", name: "Price Token", trackedUsdPrice: 1000, trackedTotalValuePooledUsd: 60_000 }),
    token(8453, { address: TL.zp8453, symbol: "ZP", name: "Zero Price", trackedUsdPrice: 5000, trackedTotalValuePooledUsd: 300_000 }),
    token(8453, { address: TL.eql8453, symbol: "EQL", name: "!!!", trackedTotalValuePooledUsd: 100_000 }),
    token(8453, { address: TL.cnt8453, symbol: "CNT", name: "My CNT wrapper", trackedTotalValuePooledUsd: 100_000 }),
    token(8453, { address: TL.cnu8453, symbol: "CNU", name: "Zeta Prime", trackedTotalValuePooledUsd: 100_000 }),
    token(8453, { address: TL.abc8453, symbol: "ABC", name: "Alpha Beta Coin", trackedTotalValuePooledUsd: 100_000 }),
    token(8453, { address: TL.xyz8453, symbol: "XYZ", name: "Omega", trackedTotalValuePooledUsd: 100_000 }),
    token(8453, { address: TL.jac8453, symbol: "JAC", name: "Delta Red Green", trackedTotalValuePooledUsd: 100_000 }),
    token(8453, { address: TL.jab8453, symbol: "JAB", name: "Delta Red Green Pink", trackedTotalValuePooledUsd: 100_000 }),
    token(8453, { address: TL.jaw8453, symbol: "JAW", name: "Red Delta Blue", trackedTotalValuePooledUsd: 100_000 }),
    token(8453, { address: TL.fail8453, symbol: "FAIL", name: "Qux", trackedTotalValuePooledUsd: 100_000 }),
    token(8453, { address: TL.usdt0Base, symbol: "USDT0", name: "USDT0", decimals: 6, trackedTotalValuePooledUsd: 800_000 }),
    token(8453, { address: TL.split8453, symbol: "SPLIT", trackedTotalValuePooledUsd: 6_000 }),
    token(8453, { address: TL.splits8453, symbol: "SPLITS", swapsCount: 600 }),
    token(8453, { address: TL.mixd8453, symbol: "MIXD", trackedTotalValuePooledUsd: 9_000 }),
  ];
  const c130: SnapshotToken[] = [
    nativeToken(130, { trackedUsdPrice: 3000, trackedTotalValuePooledUsd: 500_000 }),
    wrappedNativeToken(130, {
      symbol: "WETH",
      normalizedSymbol: "WETH",
      name: "Wrapped Ether",
      normalizedName: "Wrapped Ether",
      trackedUsdPrice: 3000,
      trackedTotalValuePooledUsd: 2_500_000,
    }),
    token(130, {
      address: TL.prc130fail,
      symbol: "PRC",
      name: "Price Token",
      trackedUsdPrice: 1200.1,
      trackedTotalValuePooledUsd: 850_000,
    }),
    token(130, { address: TL.prc130, symbol: "PRC", name: "Price Token", trackedUsdPrice: 1100, trackedTotalValuePooledUsd: 50_000 }),
    token(130, { address: TL.zq130, symbol: "ZQ", name: "Zq Token", trackedUsdPrice: 0, trackedTotalValuePooledUsd: 200_000 }),
    token(130, { address: TL.cnt130, symbol: "CNT", name: "supercntcoin", trackedTotalValuePooledUsd: 90_000 }),
  ];
  const c999: SnapshotToken[] = [
    nativeToken(999, { trackedUsdPrice: 40, trackedTotalValuePooledUsd: 3_500_000 }),
    wrappedNativeToken(999, { trackedUsdPrice: 40, trackedTotalValuePooledUsd: 3_000_000 }),
    token(999, {
      address: TL.wethBridged999,
      symbol: "WETH",
      name: "Wrapped Ether",
      trackedUsdPrice: 3000,
      trackedTotalValuePooledUsd: 2_000_000,
    }),
    token(999, { address: TL.ethLower999, symbol: "eth", name: "eth", trackedUsdPrice: 1, trackedTotalValuePooledUsd: 700_000 }),
    token(999, { address: TL.prc999, symbol: "PRC", name: "Price Token", trackedUsdPrice: 800, trackedTotalValuePooledUsd: 100_000 }),
  ];
  const c143: SnapshotToken[] = [
    nativeToken(143, { trackedTotalValuePooledUsd: 60_000 }),
    wrappedNativeToken(143, { trackedTotalValuePooledUsd: 70_000 }),
    token(143, { address: TL.tvlEq, symbol: "TVLEQ", trackedTotalValuePooledUsd: 10_000 }),
    token(143, { address: TL.tvlUp, symbol: "TVLUP", trackedTotalValuePooledUsd: 10_000.01 }),
    token(143, { address: TL.swpEq, symbol: "SWPEQ", trackedTotalValuePooledUsd: 45_000, swapsCount: 1000 }),
    token(143, { address: TL.swpUp, symbol: "SWPUP", trackedTotalValuePooledUsd: 40_000, swapsCount: 1001 }),
    token(143, { address: TL.volEq, symbol: "VOLEQ", trackedTotalValuePooledUsd: 35_000, trackedSwapVolumeUsd: 100_000 }),
    token(143, { address: TL.volUp, symbol: "VOLUP", trackedTotalValuePooledUsd: 30_000, trackedSwapVolumeUsd: 100_000.01 }),
    token(143, { address: TL.zero, symbol: "ZERO", trackedTotalValuePooledUsd: 0 }),
  ];
  const c9745: SnapshotToken[] = [
    token(9745, { address: TL.top, symbol: "TOP", trackedTotalValuePooledUsd: 900_000 }),
    token(9745, { address: TL.mid9745, symbol: "MID", trackedTotalValuePooledUsd: 500_000 }),
    token(9745, { address: TL.ta, symbol: "TA", trackedTotalValuePooledUsd: 250_000 }),
    token(9745, { address: TL.tb9745, symbol: "TB", trackedTotalValuePooledUsd: 150_000 }),
    nativeToken(9745, { trackedTotalValuePooledUsd: 30_000 }),
    wrappedNativeToken(9745, { trackedTotalValuePooledUsd: 40_000 }),
  ];
  const c534352: SnapshotToken[] = [
    token(534352, { address: TL.tb534352, symbol: "TB", trackedTotalValuePooledUsd: 100_000 }),
    token(534352, { address: TL.tALower, symbol: "tA", trackedTotalValuePooledUsd: 250_000 }),
    token(534352, { address: TL.low, symbol: "LOW", trackedTotalValuePooledUsd: 20_000 }),
    token(534352, { address: TL.mid534352, symbol: "MID", trackedTotalValuePooledUsd: 15_000 }),
  ];
  return [
    chainFile(1, { tokens: c1 }),
    chainFile(8453, { tokens: c8453 }),
    chainFile(130, { tokens: c130 }),
    chainFile(999, { tokens: c999 }),
    chainFile(143, { tokens: c143 }),
    chainFile(9745, { tokens: c9745 }),
    chainFile(534352, { tokens: c534352 }),
  ];
}

// ---- hand-written expectations for tokenListFixture() (computed by hand from §3, not by code)

interface Entry {
  addresses: { chainId: number; address: string }[];
  symbol: string;
  name: string;
  logoUrl: string;
  chainIds: number[];
}
const Z = NATIVE_ADDRESS;
const a = (chainId: number, address: string) => ({ chainId, address });

/** Entries of the default query (all chains, all defaults), by symbol. */
export const TL_EXPECTED: Record<string, Entry> = {
  ETH: { addresses: [a(1, Z), a(8453, Z), a(130, Z)], symbol: "ETH", name: "Ether", logoUrl: testLogo(1, Z), chainIds: [1, 8453, 130] },
  HYPE: { addresses: [a(999, Z)], symbol: "HYPE", name: "Hyperliquid", logoUrl: testLogo(999, Z), chainIds: [999] },
  WETH: {
    addresses: [a(999, TL.wethBridged999)],
    symbol: "WETH",
    name: "Wrapped Ether",
    logoUrl: testLogo(999, TL.wethBridged999),
    chainIds: [999],
  },
  PRC: {
    addresses: [a(1, TL.prc1), a(8453, TL.prc8453), a(999, TL.prc999), a(130, TL.prc130)],
    symbol: "PRC",
    name: "Price Token",
    logoUrl: testLogo(1, TL.prc1),
    chainIds: [1, 8453, 999, 130],
  },
  USDT0: {
    addresses: [a(8453, TL.usdt0Base), a(1, TL.usdt0Unicode1)],
    symbol: "USDT0",
    name: "USDT0",
    logoUrl: testLogo(8453, TL.usdt0Base),
    chainIds: [8453, 1],
  },
  TOP: { addresses: [a(9745, TL.top)], symbol: "TOP", name: "TOP", logoUrl: testLogo(9745, TL.top), chainIds: [9745] },
  ZP: {
    addresses: [a(1, TL.zp1), a(8453, TL.zp8453)],
    symbol: "ZP",
    name: "Zero Price",
    logoUrl: testLogo(1, TL.zp1),
    chainIds: [1, 8453],
  },
  eth: { addresses: [a(999, TL.ethLower999)], symbol: "eth", name: "eth", logoUrl: testLogo(999, TL.ethLower999), chainIds: [999] },
  TIE: {
    addresses: [a(1, TL.tie1a), a(8453, TL.tie8453)],
    symbol: "TIE",
    name: "Tie Token",
    logoUrl: testLogo(1, TL.tie1a),
    chainIds: [1, 8453],
  },
  MID: {
    addresses: [a(9745, TL.mid9745), a(534352, TL.mid534352)],
    symbol: "MID",
    name: "MID",
    logoUrl: testLogo(9745, TL.mid9745),
    chainIds: [9745, 534352],
  },
  ZQ: { addresses: [a(1, TL.zq1)], symbol: "ZQ", name: "Zq Token", logoUrl: testLogo(1, TL.zq1), chainIds: [1] },
  CNT: {
    addresses: [a(1, TL.cnt1), a(8453, TL.cnt8453), a(130, TL.cnt130)],
    symbol: "CNT",
    name: "Gamma",
    logoUrl: testLogo(1, TL.cnt1),
    chainIds: [1, 8453, 130],
  },
  ABC: { addresses: [a(1, TL.abc1), a(8453, TL.abc8453)], symbol: "ABC", name: "Zeta", logoUrl: testLogo(1, TL.abc1), chainIds: [1, 8453] },
  CNU: {
    addresses: [a(1, TL.cnu1), a(8453, TL.cnu8453)],
    symbol: "CNU",
    name: "Cnu Dollar",
    logoUrl: testLogo(1, TL.cnu1),
    chainIds: [1, 8453],
  },
  EQL: { addresses: [a(1, TL.eql1), a(8453, TL.eql8453)], symbol: "EQL", name: "***", logoUrl: testLogo(1, TL.eql1), chainIds: [1, 8453] },
  JAC: {
    addresses: [a(1, TL.jac1), a(8453, TL.jac8453)],
    symbol: "JAC",
    name: "Delta Red Blue",
    logoUrl: testLogo(1, TL.jac1),
    chainIds: [1, 8453],
  },
  XYZ: {
    addresses: [a(1, TL.xyz1), a(8453, TL.xyz8453)],
    symbol: "XYZ",
    name: "Xeno Yield Zone",
    logoUrl: testLogo(1, TL.xyz1),
    chainIds: [1, 8453],
  },
  TA: { addresses: [a(9745, TL.ta)], symbol: "TA", name: "TA", logoUrl: testLogo(9745, TL.ta), chainIds: [9745] },
  TB: {
    addresses: [a(9745, TL.tb9745), a(534352, TL.tb534352)],
    symbol: "TB",
    name: "TB",
    logoUrl: testLogo(9745, TL.tb9745),
    chainIds: [9745, 534352],
  },
  tA: { addresses: [a(534352, TL.tALower)], symbol: "tA", name: "tA", logoUrl: testLogo(534352, TL.tALower), chainIds: [534352] },
  FAIL: { addresses: [a(1, TL.fail1)], symbol: "FAIL", name: "Foo Bar", logoUrl: testLogo(1, TL.fail1), chainIds: [1] },
  JAB: { addresses: [a(1, TL.jab1)], symbol: "JAB", name: "Delta Red Blue", logoUrl: testLogo(1, TL.jab1), chainIds: [1] },
  JAW: { addresses: [a(1, TL.jaw1)], symbol: "JAW", name: "Delta Red Blue", logoUrl: testLogo(1, TL.jaw1), chainIds: [1] },
  MON: { addresses: [a(143, Z)], symbol: "MON", name: "Monad", logoUrl: testLogo(143, Z), chainIds: [143] },
  MIXD: { addresses: [a(1, TL.mixd1)], symbol: "MIXD", name: "MIXD", logoUrl: testLogo(1, TL.mixd1), chainIds: [1] },
  NOLOGO: { addresses: [a(1, TL.nologo1)], symbol: "NOLOGO", name: "No Logo", logoUrl: templateLogo(1, TL.nologo1), chainIds: [1] },
  SWPUP: { addresses: [a(143, TL.swpUp)], symbol: "SWPUP", name: "SWPUP", logoUrl: testLogo(143, TL.swpUp), chainIds: [143] },
  VOLUP: { addresses: [a(143, TL.volUp)], symbol: "VOLUP", name: "VOLUP", logoUrl: testLogo(143, TL.volUp), chainIds: [143] },
  XPL: { addresses: [a(9745, Z)], symbol: "XPL", name: "Plasma", logoUrl: testLogo(9745, Z), chainIds: [9745] },
  LOW: { addresses: [a(534352, TL.low)], symbol: "LOW", name: "LOW", logoUrl: testLogo(534352, TL.low), chainIds: [534352] },
  TVLUP: { addresses: [a(143, TL.tvlUp)], symbol: "TVLUP", name: "TVLUP", logoUrl: testLogo(143, TL.tvlUp), chainIds: [143] },
};

/**
 * Symbols of the default query in order (group TVL desc, ties by normalizedSymbol code units):
 * ETH 5.5M, HYPE 3.5M, WETH 2M, PRC 1.85M, USDT0 1.4M, TOP 900k, ZP = eth 700k ("ZP" < "eth"),
 * TIE 600k, MID 515k, ZQ 400k, CNT 390k, ABC = CNU = EQL = JAC = XYZ 300k, TA = TB = tA 250k,
 * FAIL = JAB = JAW 200k, MON 60k, MIXD = NOLOGO 50k, SWPUP 40k, VOLUP = XPL 30k, LOW 20k,
 * TVLUP 10,000.01.
 */
export const TL_DEFAULT_ORDER = [
  "ETH",
  "HYPE",
  "WETH",
  "PRC",
  "USDT0",
  "TOP",
  "ZP",
  "eth",
  "TIE",
  "MID",
  "ZQ",
  "CNT",
  "ABC",
  "CNU",
  "EQL",
  "JAC",
  "XYZ",
  "TA",
  "TB",
  "tA",
  "FAIL",
  "JAB",
  "JAW",
  "MON",
  "MIXD",
  "NOLOGO",
  "SWPUP",
  "VOLUP",
  "XPL",
  "LOW",
  "TVLUP",
];

/** The default query, ascending: the same groups; equal-TVL runs keep ascending normalizedSymbol. */
export const TL_DEFAULT_ORDER_ASC = [
  "TVLUP",
  "LOW",
  "VOLUP",
  "XPL",
  "SWPUP",
  "MIXD",
  "NOLOGO",
  "MON",
  "FAIL",
  "JAB",
  "JAW",
  "TA",
  "TB",
  "tA",
  "ABC",
  "CNU",
  "EQL",
  "JAC",
  "XYZ",
  "CNT",
  "ZQ",
  "MID",
  "TIE",
  "ZP",
  "eth",
  "TOP",
  "USDT0",
  "PRC",
  "WETH",
  "HYPE",
  "ETH",
];

/** matchAllSymbols: true changes these entries (default filters). */
export const TL_EXPECTED_MATCH_ALL: Record<string, Entry> = {
  ETH: { ...TL_EXPECTED.ETH, addresses: [a(1, Z), a(8453, Z), a(130, Z), a(1, TL.ethBridged1)] },
  TIE: { ...TL_EXPECTED.TIE, addresses: [a(1, TL.tie1a), a(1, TL.tie1b), a(8453, TL.tie8453)] },
  PRC: {
    ...TL_EXPECTED.PRC,
    addresses: [a(1, TL.prc1), a(8453, TL.prc8453), a(999, TL.prc999), a(8453, TL.prc8453b), a(130, TL.prc130)],
  },
};

/** ignoreWrappedNative: false adds the wrapped natives (WETH 12.5M, WHYPE 3M, WMON 70k, WXPL 40k). */
export const TL_EXPECTED_WITH_WRAPPED: Record<string, Entry> = {
  WETH: {
    addresses: [a(1, W(1)), a(8453, W(8453)), a(130, W(130)), a(999, TL.wethBridged999)],
    symbol: "WETH",
    name: "Wrapped Ether",
    logoUrl: testLogo(1, W(1)),
    chainIds: [1, 8453, 130, 999],
  },
  WHYPE: { addresses: [a(999, W(999))], symbol: "WHYPE", name: "Wrapped Hyperliquid", logoUrl: testLogo(999, W(999)), chainIds: [999] },
  WMON: { addresses: [a(143, W(143))], symbol: "WMON", name: "Wrapped Monad", logoUrl: testLogo(143, W(143)), chainIds: [143] },
  WXPL: { addresses: [a(9745, W(9745))], symbol: "WXPL", name: "Wrapped Plasma", logoUrl: testLogo(9745, W(9745)), chainIds: [9745] },
};

/** chainIds [9745, 534352], defaults. */
export const TL_ORDERING_DESC = ["TOP", "MID", "TA", "TB", "tA", "XPL", "LOW"];
export const TL_ORDERING_ASC = ["LOW", "XPL", "TA", "TB", "tA", "MID", "TOP"];
export const TL_ORDERING_DESC_WITH_WRAPPED = ["TOP", "MID", "TA", "TB", "tA", "WXPL", "XPL", "LOW"];

/** chainIds [143]: defaults, and every threshold at 0 with wrapped natives. */
export const TL_THRESHOLDS_DEFAULT = ["MON", "SWPUP", "VOLUP", "TVLUP"];
export const TL_THRESHOLDS_ZERO = ["WMON", "MON", "SWPEQ", "SWPUP", "VOLEQ", "VOLUP", "TVLUP", "TVLEQ"];

// ------------------------------------------------------------------ pools / protocols data set

export const P = {
  usdc1: "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48",
  usdt01: addr("d01"),
  usdcBase: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913",
  v2: "0xb4e16d0168e52d35cacd2c6185b44281ec28c9dc",
  v3: "0x88e6a0c2ddd26feeb64f039a2c41296fcb3f5640",
  v3Usdt0: "0x4e68ccd3e89f51c3074ca5072bbac773960dfa36",
  v4Native: "0x21c67e77068de97969ba93d4aab21826d33ca12bb9f565d8496e8fda8a82ca27",
  v4Hooked: "0xdce6394339af00981949f5f3baf27e3610c76326a700af57e4b3e3ae4977f78d",
  algebra: "0x1d42064fc4beb5f8aaf85f4617ae8b3b5b8bd801",
  algebraNoPlugin: "0x9a772018fbd77fcd2d25657e5c547baff3fd7d16",
  slipstream: "0xb2cc224c1c9fee385f8ad6a55b4d94e92359dc59",
  v3Base: "0xd0b53d9277642d899df5c87a3966a349a798f224",
  v4Unichain: "0x3258f413c7a88cda2fa8709a589d221a80f6574f63df5a5b6774485d8acc39d9",
  v2Monad: "0x659bd0bc4167ba25c62e05656f78043e7ed4a9da",
  v2MonadX: "0x6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f",
} as const;

export const PROTO = {
  uniV2: protocol("uniswap-v2", { name: "Uniswap V2", url: "https://app.uniswap.org" }),
  uniV3: protocol("uniswap-v3", { name: "Uniswap V3", url: "https://app.uniswap.org" }),
  uniV3Base: protocol("uniswap-v3", {
    name: "Uniswap V3 on Base",
    logoUrl: "https://logos.test/protocols/uniswap-v3-base.png",
    url: "https://base.uniswap.org",
  }),
  uniV4: protocol("uniswap-v4", { name: "Uniswap V4", url: "https://app.uniswap.org" }),
  nine: protocol("9lives", { name: "Nine Lives (Algebra)" }),
  aero: protocol("aerodrome-slipstream", { name: "Aerodrome Slipstream" }),
  unused: protocol("unused-protocol", { name: "Listed but no pools" }),
  hyper130: protocol("hyperswap", { name: "HyperSwap (Unichain)" }),
  hyper143: protocol("hyperswap", {
    name: "HyperSwap (Monad)",
    logoUrl: "https://logos.test/protocols/hyperswap-monad.png",
    url: "https://monad.hyperswap.example",
  }),
  uni2: protocol("uniswap2", { name: "Uniswap2 fork" }),
  uniX: protocol("uniswap_x", { name: "UniswapX fork" }),
} as const;

/** Chains 1, 8453, 130 and 143 loaded; 999, 9745 and 534352 have no file. */
export function poolsFixture(): SnapshotFile[] {
  const c1Tokens = [
    nativeToken(1, { trackedUsdPrice: 3000 }),
    wrappedNativeToken(1, {
      symbol: "WETH",
      normalizedSymbol: "WETH",
      name: "Wrapped Ether",
      normalizedName: "Wrapped Ether",
      trackedUsdPrice: 3000,
    }),
    token(1, { address: P.usdc1, symbol: "USDC", name: "USD Coin", decimals: 6 }),
    token(1, {
      address: P.usdt01,
      symbol: "USD₮0",
      name: "USD₮0",
      normalizedSymbol: "USDT0",
      normalizedName: "USDT0",
      decimals: 6,
      logoUrl: undefined,
    }),
  ];
  const c1Pools: SnapshotPool[] = [
    v2Pool({
      address: P.v2,
      protocolId: "uniswap-v2",
      createdAtTimestamp: 1_588_710_145,
      feeTierPercentage: 0.3,
      tokens: [poolToken(P.usdc1, 12_345_678.123456, 12_345_678.12), poolToken(CHAINS[1].wrappedNative, 4_115.226337, 12_345_679.01)],
      totalValueLockedUsd: 24_691_357.13,
      trackedTotalValueLockedUsd: 24_000_000,
      stats: poolStats(2),
    }),
    v3Pool({
      address: P.v3,
      protocolId: "uniswap-v3",
      createdAtTimestamp: 1_620_250_931,
      feeTierPercentage: 0.05,
      tokens: [poolToken(P.usdc1, 45_000_000.5, 45_000_000.5), poolToken(CHAINS[1].wrappedNative, 15_000.25, 45_000_750)],
      totalValueLockedUsd: 90_000_750.5,
      stats: poolStats(3),
      metadata: {
        latestSqrtPriceX96: "1446624275124537034926584017993285",
        tickSpacing: 10,
        latestTick: "195406",
        positionManagerAddress: "0xc36442b4a4522e871399cd717abdd847ab11fe88",
      },
    }),
    v3Pool({
      address: P.v3Usdt0,
      protocolId: "uniswap-v3",
      feeTierPercentage: 0.01,
      tokens: [poolToken(P.usdt01, 1000, 1000), poolToken(P.usdc1, 2000, 2000)],
      totalValueLockedUsd: 3000,
    }),
    v4Pool({
      address: P.v4Native,
      protocolId: "uniswap-v4",
      feeTierPercentage: 0.05,
      isDynamicFee: false,
      createdAtTimestamp: 1_737_000_000,
      tokens: [poolToken(NATIVE_ADDRESS, 1_000.5, 3_001_500), poolToken(P.usdc1, 3_000_000, 3_000_000)],
      totalValueLockedUsd: 6_001_500,
      stats: poolStats(4),
      metadata: { hook: null, latestTick: "-200000", tickSpacing: 10 },
    }),
    v4Pool({
      address: P.v4Hooked,
      protocolId: "uniswap-v4",
      feeTierPercentage: 0,
      isDynamicFee: true,
      tokens: [poolToken(NATIVE_ADDRESS, 10, 30_000), poolToken(P.usdt01, 30_000, 30_000), poolToken(P.usdc1, 5, 5)],
      totalValueLockedUsd: 60_005,
      metadata: { hook: { address: "0x0010d0d5db05933fa0d9f7038d365e1541a41888" }, stateViewAddress: null },
    }),
    algebraPool({
      address: P.algebra,
      protocolId: "9lives",
      feeTierPercentage: 0.25,
      isDynamicFee: true,
      tokens: [poolToken(P.usdc1, 500, 500), poolToken(CHAINS[1].wrappedNative, 0.1, 300)],
      totalValueLockedUsd: 800,
    }),
    algebraPool({
      address: P.algebraNoPlugin,
      protocolId: "9lives",
      tokens: [poolToken(CHAINS[1].wrappedNative, 0, 0), poolToken(P.usdc1, 0, 0)],
      totalValueLockedUsd: 0,
      metadata: { plugin: null, version: "1.0" },
    }),
  ];
  const c8453Tokens = [
    nativeToken(8453, { trackedUsdPrice: 3000, logoUrl: undefined }),
    wrappedNativeToken(8453, {
      symbol: "WETH",
      normalizedSymbol: "WETH",
      name: "Wrapped Ether",
      normalizedName: "Wrapped Ether",
      trackedUsdPrice: 3000,
    }),
    token(8453, { address: P.usdcBase, symbol: "USDC", name: "USD Coin", decimals: 6 }),
  ];
  const c8453Pools: SnapshotPool[] = [
    slipstreamPool({
      address: P.slipstream,
      protocolId: "aerodrome-slipstream",
      feeTierPercentage: 0.04,
      isDynamicFee: true,
      tokens: [poolToken(CHAINS[8453].wrappedNative, 1234.5, 3_703_500), poolToken(P.usdcBase, 3_700_000, 3_700_000)],
      totalValueLockedUsd: 7_403_500,
      stats: poolStats(5),
    }),
    v3Pool({
      address: P.v3Base,
      protocolId: "uniswap-v3",
      tokens: [poolToken(NATIVE_ADDRESS, 1, 3000), poolToken(P.usdcBase, 3000, 3000)],
      totalValueLockedUsd: 6000,
    }),
  ];
  const c130Tokens = [
    nativeToken(130, { trackedUsdPrice: 3000 }),
    token(130, { address: addr("13001"), symbol: "USDC", name: "USD Coin", decimals: 6 }),
  ];
  const c130Pools: SnapshotPool[] = [
    v4Pool({
      address: P.v4Unichain,
      protocolId: "hyperswap",
      tokens: [poolToken(NATIVE_ADDRESS, 1, 3000), poolToken(addr("13001"), 3000, 3000)],
    }),
    v2Pool({
      address: addr("13002"),
      protocolId: "uniswap_x",
      tokens: [poolToken(NATIVE_ADDRESS, 1, 3000), poolToken(addr("13001"), 3000, 3000)],
    }),
  ];
  const c143Tokens = [nativeToken(143), token(143, { address: addr("14301"), symbol: "USDC", name: "USD Coin", decimals: 6 })];
  const c143Pools: SnapshotPool[] = [
    v2Pool({ address: P.v2Monad, protocolId: "hyperswap", tokens: [poolToken(NATIVE_ADDRESS, 100, 5), poolToken(addr("14301"), 5, 5)] }),
    v2Pool({ address: P.v2MonadX, protocolId: "uniswap2", tokens: [poolToken(NATIVE_ADDRESS, 100, 5), poolToken(addr("14301"), 5, 5)] }),
  ];
  return [
    chainFile(1, { tokens: c1Tokens, pools: c1Pools, protocols: [PROTO.uniV2, PROTO.uniV3, PROTO.uniV4, PROTO.nine, PROTO.unused] }),
    chainFile(8453, { tokens: c8453Tokens, pools: c8453Pools, protocols: [PROTO.uniV3Base, PROTO.aero] }),
    chainFile(130, { tokens: c130Tokens, pools: c130Pools, protocols: [PROTO.hyper130, PROTO.uniX] }),
    chainFile(143, { tokens: c143Tokens, pools: c143Pools, protocols: [PROTO.uni2, PROTO.hyper143] }),
  ];
}

/** A small data set for the envelope / input / auth tests: chains 1 and 8453 of the token-list set plus pools. */
export function basicFixture(): SnapshotFile[] {
  const pools = poolsFixture();
  const tl = tokenListFixture();
  // token-list data on chains 143, 9745 and 534352; pools data on 1, 8453, 130.
  return [
    pools[0]!,
    pools[1]!,
    pools[2]!,
    tl.find((f) => f.chainId === 143)!,
    tl.find((f) => f.chainId === 9745)!,
    tl.find((f) => f.chainId === 534352)!,
  ];
}
