import { createHash } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { Packr, pack } from "msgpackr";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeSnapshotBytes } from "../../../src/snapshot/decode-snapshot.js";
import {
  chainIdFromSnapshotFileName,
  openSnapshotBytes,
  parseSnapshotBytes,
  readSnapshotFile,
} from "../../../src/snapshot/read-snapshot-file.js";
import type { ChainId } from "../../../src/chains/chains.js";
import { SnapshotError, type SnapshotErrorReason } from "../../../src/snapshot/snapshot-error.js";
import { validateSnapshot } from "../../../src/snapshot/validate-snapshot.js";

const CHAIN = 8453;
const NATIVE = "0x0000000000000000000000000000000000000000";
const WETH = "0x4200000000000000000000000000000000000006";
const USDC = "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913";
const USDT0 = "0x102d758f688a4c1c5a80b116bd945d4455460282";
const ROUTER = "0x4752ba5dbc23f44d87826276bf6fd6b1c372ad24";
const NPM = "0x03a520b32c04bf3beef7beb72e919cf822ed34f1";
const V4_POOL_ID = `0x${"ab".repeat(32)}`;

function period(scale: number) {
  return { feesUsd: 10 * scale, swapVolumeUsd: 3000 * scale, yield: 12.5, netInflowUsd: -250.5 * scale, liquidityVolumeUsd: 900 * scale };
}

function stats() {
  return { stats24h: period(1), stats7d: period(7), stats30d: period(30), stats90d: period(90) };
}

function poolBase(address: string, protocolId: string, tokenA: string, tokenB: string) {
  return {
    address,
    protocolId,
    createdAtTimestamp: 1_700_000_000,
    feeTierPercentage: 0.3,
    isDynamicFee: false,
    totalValueLockedUsd: 1_234_567.89,
    trackedTotalValueLockedUsd: 1_200_000,
    tokens: [
      { address: tokenA, amount: 12.5, amountUsd: 40_000 },
      { address: tokenB, amount: 40_000, amountUsd: 40_000 },
    ],
    stats: stats(),
  };
}

function concentrated() {
  return {
    latestSqrtPriceX96: "79228162514264337593543950336",
    tickSpacing: 60,
    latestTick: "-5",
    positionManagerAddress: NPM,
  };
}

/** A fresh, valid snapshot of chain 8453 with one pool of each type. */
function validSnapshot() {
  return {
    format: "liquidity-snapshot",
    version: 1,
    chainId: CHAIN,
    generatedAt: 1_760_000_000,
    blockNumber: 36_000_000,
    protocols: [
      { id: "uniswap-v2", name: "Uniswap V2", logoUrl: "https://example.org/uni.svg", url: "https://uniswap.org" },
      { id: "uniswap-v3", name: "Uniswap V3", logoUrl: "https://example.org/uni.svg", url: "https://uniswap.org" },
      { id: "uniswap-v4", name: "Uniswap V4", logoUrl: "https://example.org/uni.svg", url: "https://uniswap.org" },
      { id: "quickswap-algebra", name: "QuickSwap", logoUrl: "https://example.org/q.svg", url: "https://quickswap.exchange" },
      { id: "aerodrome-slipstream", name: "Aerodrome Slipstream", logoUrl: "https://example.org/a.svg", url: "https://aerodrome.finance" },
    ],
    tokens: [
      {
        address: NATIVE,
        symbol: "ETH",
        name: "Ether",
        decimals: 18,
        usdPrice: 3200.5,
        trackedUsdPrice: 3200.5,
        totalValuePooledUsd: 5_000_000,
        trackedTotalValuePooledUsd: 4_900_000,
        swapsCount: 1000,
        swapVolumeUsd: 9_000_000,
        trackedSwapVolumeUsd: 8_900_000,
      },
      {
        address: WETH,
        symbol: "WETH",
        name: "Wrapped Ether",
        decimals: 18,
        logoUrl: "https://example.org/weth.png",
        usdPrice: 3200.5,
        trackedUsdPrice: 3200.5,
        trackedTotalValuePooledUsd: 10_000_000,
        swapsCount: 5000,
        trackedSwapVolumeUsd: 20_000_000,
      },
      {
        address: USDC,
        symbol: "USDC",
        name: "USD Coin",
        decimals: 6,
        normalizedSymbol: "USDC",
        normalizedName: "USD Coin",
        usdPrice: 1,
        trackedUsdPrice: 1,
        trackedTotalValuePooledUsd: 8_000_000,
        swapsCount: 4000,
        trackedSwapVolumeUsd: 15_000_000,
      },
      {
        address: USDT0,
        symbol: "USD₮0",
        name: "USD₮0",
        decimals: 6,
        usdPrice: 1.0001,
        trackedUsdPrice: 0,
        trackedTotalValuePooledUsd: 0,
        swapsCount: 0,
        trackedSwapVolumeUsd: 0,
      },
    ],
    pools: [
      {
        ...poolBase("0x88a43bbdf9d098eec7bceda4e2494615dfd9bb9c", "uniswap-v2", WETH, USDC),
        type: "V2",
        metadata: { positionManagerAddress: ROUTER },
      },
      { ...poolBase("0xd0b53d9277642d899df5c87a3966a349a798f224", "uniswap-v3", WETH, USDC), type: "V3", metadata: concentrated() },
      {
        ...poolBase("0xb2cc224c1c9fee385f8ad6a55b4d94e92359dc59", "aerodrome-slipstream", WETH, USDT0),
        type: "SLIPSTREAM",
        metadata: concentrated(),
      },
      {
        ...poolBase(V4_POOL_ID, "uniswap-v4", NATIVE, USDC),
        type: "V4",
        isDynamicFee: true,
        metadata: {
          ...concentrated(),
          poolManagerAddress: "0x498581ff718922c3f8e6a244956af099b2652b2b",
          permit2Address: "0x000000000022d473030f116ddee9f6b43ac78ba3",
          stateViewAddress: null,
          hook: null,
        },
      },
      {
        ...poolBase("0x1d0f6d5f2c3f0c1c25b1f6e5b8e0d2a1c3b4a5f6", "quickswap-algebra", USDC, USDT0),
        type: "ALGEBRA",
        metadata: {
          ...concentrated(),
          communityFeePercentage: 10,
          deployer: "0x6dd3fb9653b10e806650f107c3b5a0a6ff974f65",
          plugin: { address: "0x9f2c3a3e1f0d7f6b9f3f2f6e5d4c3b2a19081726", config: 195 },
          version: "1.2",
        },
      },
    ],
  };
}

type Snapshot = ReturnType<typeof validSnapshot>;
// Mutations below set fields to values (or remove fields) that the fixture's types do not allow.
type Loose = Record<string, any>;

/**
 * Packs the value like an operator would, then decodes and validates it as the
 * file of `fileChainId`. Every case also checks that a build reading the pools
 * one at a time (openSnapshotBytes, as the build worker does) ends the same:
 * the same snapshot, or the same error.
 */
function roundTrip(value: unknown, fileChainId = CHAIN) {
  const bytes = pack(value);
  expect(outcome(() => streamedParse(bytes, fileChainId))).toEqual(outcome(() => parseSnapshotBytes(bytes, fileChainId as ChainId)));
  return validateSnapshot(decodeSnapshotBytes(bytes), fileChainId);
}

function streamedParse(bytes: Uint8Array, fileChainId: number) {
  const { snapshot, pools } = openSnapshotBytes(bytes, fileChainId as ChainId);
  const list = [];
  for (let i = 0; i < pools.count; i++) list.push(pools.next());
  return { ...snapshot, pools: list };
}

function outcome(fn: () => unknown): unknown {
  try {
    return { value: fn() };
  } catch (error) {
    if (!(error instanceof SnapshotError)) throw error;
    return { reason: error.reason, path: error.path, message: error.message };
  }
}

function mutated(mutate: (s: Loose) => void): Snapshot {
  const s = validSnapshot();
  mutate(s as Loose);
  return s;
}

function rejection(fn: () => unknown): SnapshotError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(SnapshotError);
    return error as SnapshotError;
  }
  throw new Error("expected a SnapshotError, nothing was thrown");
}

/** Expects the snapshot to be rejected with `reason`, at `path`, with a message starting with that path. */
function expectRejected(value: unknown, reason: SnapshotErrorReason, path: string, messagePart?: string | RegExp, fileChainId = CHAIN) {
  const error = rejection(() => roundTrip(value, fileChainId));
  expect(error.reason).toBe(reason);
  expect(error.path).toBe(path);
  expect(error.message.startsWith(`${path}: `)).toBe(true);
  if (messagePart !== undefined) expect(error.message).toMatch(messagePart);
  return error;
}

describe("validateSnapshot: a valid file", () => {
  it("passes after a pack/decode round trip, unchanged", () => {
    const original = validSnapshot();
    const result = roundTrip(original);
    expect(result).toEqual(original);
    expect(result.pools.map((p) => p.type)).toEqual(["V2", "V3", "SLIPSTREAM", "V4", "ALGEBRA"]);
  });

  it("accepts msgpackr's record encoding (new Packr()) and int64-encoded small integers", () => {
    const bytes = new Packr().pack(validSnapshot());
    expect(validateSnapshot(decodeSnapshotBytes(bytes), CHAIN)).toEqual(validSnapshot());
    // msgpackr packs bigints as int64/uint64 (as other languages may do for any integer): within 2^53 they decode as numbers.
    const s = mutated((x) => {
      x.generatedAt = BigInt(x.generatedAt);
      x.tokens[1].swapsCount = 5000n;
    });
    const result = roundTrip(s);
    expect(result.generatedAt).toBe(1_760_000_000);
    expect(result.tokens[1].swapsCount).toBe(5000);
  });

  it("accepts extra unknown fields at every level (forward compatibility)", () => {
    const s = mutated((x) => {
      x.futureTopLevel = { anything: [1, 2, 3] };
      x.protocols[0].category = "dex";
      x.tokens[0].coingeckoId = "ethereum";
      x.pools[0].fee = { tier: 3000 };
      x.pools[1].metadata.observationCardinality = 100;
      x.pools[2].stats.stats1y = { feesUsd: 1 };
      x.pools[3].tokens[0].reserveRaw = "123";
    });
    expect(() => roundTrip(s)).not.toThrow();
  });

  it("accepts a blockNumber-less file and optional token fields left out", () => {
    const s = mutated((x) => {
      delete x.blockNumber;
      delete x.tokens[0].totalValuePooledUsd;
      delete x.tokens[0].swapVolumeUsd;
      delete x.pools[0].trackedTotalValueLockedUsd;
    });
    expect(() => roundTrip(s)).not.toThrow();
  });

  it("reads an optional field that msgpackr encoded as undefined as absent", () => {
    const s = mutated((x) => {
      x.tokens[1].logoUrl = undefined;
      x.blockNumber = undefined;
    });
    expect(roundTrip(s).tokens[1].logoUrl).toBeUndefined();
  });

  it("accepts a V4 hook and stateView given, an ALGEBRA plugin null", () => {
    const s = mutated((x) => {
      x.pools[3].metadata.hook = { address: "0x0000000000000000000000000000000000000a40" };
      x.pools[3].metadata.stateViewAddress = "0xa3c0c9b65bad0b08107aa264b0f3db444b867a71";
      x.pools[4].metadata.plugin = null;
    });
    expect(() => roundTrip(s)).not.toThrow();
  });

  it("accepts a negative latestTick and a 0x+64-hex address for a non-V4 pool", () => {
    const s = mutated((x) => {
      x.pools[1].metadata.latestTick = "-887272";
      x.pools[0].address = `0x${"cd".repeat(32)}`;
    });
    expect(() => roundTrip(s)).not.toThrow();
  });

  it("accepts empty protocols, tokens and pools", () => {
    const s = mutated((x) => {
      x.protocols = [];
      x.tokens = [];
      x.pools = [];
    });
    expect(() => roundTrip(s)).not.toThrow();
  });

  it("renames a __proto__ key without touching any prototype", () => {
    const s = validSnapshot() as Loose;
    Object.defineProperty(s.tokens[0], "__proto__", { value: { polluted: true }, enumerable: true });
    const result = roundTrip(s) as Loose;
    expect(({} as Loose).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(result.tokens[0])).toBe(Object.prototype);
  });
});

describe("validateSnapshot: top level", () => {
  it("rejects a wrong format string", () => {
    expectRejected(
      mutated((x) => (x.format = "liquidity-snapshots")),
      "structure",
      "format",
      /expected "liquidity-snapshot", got "liquidity-snapshots"/,
    );
  });

  it("rejects version 2", () => {
    expectRejected(
      mutated((x) => (x.version = 2)),
      "structure",
      "version",
      /expected 1, got 2/,
    );
  });

  it("rejects a chainId that differs from the file name's", () => {
    expectRejected(
      mutated((x) => (x.chainId = 1)),
      "chain-mismatch",
      "chainId",
      /chainId: 1 does not match the file name chain-8453\.msgpack/,
    );
  });

  it("rejects an unsupported chainId", () => {
    expectRejected(
      mutated((x) => (x.chainId = 5)),
      "unsupported-chain",
      "chainId",
      /5 is not a supported chain \(supported: 1, 130, 143, 999, 8453, 9745, 534352\)/,
      5,
    );
    expectRejected(
      mutated((x) => (x.chainId = 5)),
      "unsupported-chain",
      "chainId",
    );
  });

  it("rejects a non-integer generatedAt", () => {
    expectRejected(
      mutated((x) => (x.generatedAt = 1_760_000_000.5)),
      "structure",
      "generatedAt",
      /got 1760000000\.5/,
    );
  });

  it("rejects a missing tokens array and a tokens map", () => {
    expectRejected(
      mutated((x) => delete x.tokens),
      "structure",
      "tokens",
      /tokens: missing, expected an array/,
    );
    expectRejected(
      mutated((x) => (x.tokens = {})),
      "structure",
      "tokens",
      /expected an array, got a map/,
    );
  });

  it("rejects a top-level array or string (not a map)", () => {
    const error = rejection(() => roundTrip([validSnapshot()]));
    expect(error.reason).toBe("structure");
    expect(error.path).toBe("");
    expect(error.message).toBe("(top level): expected a map, got an array of 1 item");
    expect(rejection(() => roundTrip("liquidity-snapshot")).message).toBe('(top level): expected a map, got "liquidity-snapshot"');
  });

  it("rejects a missing format with a 'missing' message", () => {
    expectRejected(
      mutated((x) => delete x.format),
      "structure",
      "format",
      /format: missing, expected "liquidity-snapshot"/,
    );
  });
});

describe("validateSnapshot: tokens", () => {
  it("rejects an uppercase token address", () => {
    expectRejected(
      mutated((x) => (x.tokens[2].address = USDC.toUpperCase().replace("0X", "0x"))),
      "structure",
      "tokens[2].address",
      /\^0x\[0-9a-f\]\{40\}\$/,
    );
  });

  it("rejects a token address of the wrong length", () => {
    expectRejected(
      mutated((x) => (x.tokens[1].address = WETH.slice(0, -1))),
      "structure",
      "tokens[1].address",
    );
  });

  it("rejects decimals 256", () => {
    expectRejected(
      mutated((x) => (x.tokens[0].decimals = 256)),
      "structure",
      "tokens[0].decimals",
      /Maximum<255>.*got 256/,
    );
  });

  it("rejects a negative price", () => {
    expectRejected(
      mutated((x) => (x.tokens[3].usdPrice = -0.5)),
      "structure",
      "tokens[3].usdPrice",
      /Minimum<0>.*got -0\.5/,
    );
  });

  it("rejects NaN", () => {
    // A plain number (typia alone accepts NaN there) ...
    expectRejected(
      mutated((x) => (x.pools[1].stats.stats7d.yield = NaN)),
      "structure",
      "pools[1].stats.stats7d.yield",
      /expected a finite number, got NaN/,
    );
    // ... and a >= 0 number.
    expectRejected(
      mutated((x) => (x.tokens[1].trackedUsdPrice = NaN)),
      "structure",
      "tokens[1].trackedUsdPrice",
      /got NaN/,
    );
  });

  it("rejects Infinity and -Infinity", () => {
    expectRejected(
      mutated((x) => (x.tokens[2].trackedTotalValuePooledUsd = Infinity)),
      "structure",
      "tokens[2].trackedTotalValuePooledUsd",
      /expected a finite number, got Infinity/,
    );
    expectRejected(
      mutated((x) => (x.pools[0].stats.stats24h.netInflowUsd = -Infinity)),
      "structure",
      "pools[0].stats.stats24h.netInflowUsd",
      /got -Infinity/,
    );
    expectRejected(
      mutated((x) => (x.pools[4].metadata.communityFeePercentage = Infinity)),
      "structure",
      "pools[4].metadata.communityFeePercentage",
    );
  });

  it("rejects a 64-bit integer beyond 2^53 (decoded as bigint) without crashing", () => {
    expectRejected(
      mutated((x) => (x.tokens[0].swapsCount = 2n ** 60n)),
      "structure",
      "tokens[0].swapsCount",
      /got integer 1152921504606846976 \(beyond ±2\^53/,
    );
    expectRejected(
      mutated((x) => (x.blockNumber = 2n ** 64n - 1n)),
      "structure",
      "blockNumber",
    );
  });

  it("rejects swapsCount 1.5", () => {
    expectRejected(
      mutated((x) => (x.tokens[1].swapsCount = 1.5)),
      "structure",
      "tokens[1].swapsCount",
      /uint64.*got 1\.5/,
    );
  });

  it("rejects a missing symbol and a null optional field", () => {
    expectRejected(
      mutated((x) => delete x.tokens[1].symbol),
      "structure",
      "tokens[1].symbol",
      /missing, expected string/,
    );
    expectRejected(
      mutated((x) => (x.tokens[1].logoUrl = null)),
      "structure",
      "tokens[1].logoUrl",
      /got null/,
    );
  });

  it("rejects a duplicate token address, naming the first occurrence", () => {
    const s = mutated((x) => x.tokens.push({ ...x.tokens[1], symbol: "WETH2" }));
    expectRejected(s, "duplicate", "tokens[4].address", /^tokens\[4\]\.address: duplicate of tokens\[1\]/);
  });

  it("truncates long values in messages", () => {
    const error = expectRejected(
      mutated((x) => (x.tokens[0].address = `0x${"z".repeat(5000)}`)),
      "structure",
      "tokens[0].address",
    );
    expect(error.message.length).toBeLessThan(300);
  });
});

describe("validateSnapshot: protocols", () => {
  it("rejects a duplicate protocol id", () => {
    const s = mutated((x) => x.protocols.push({ ...x.protocols[1], name: "again" }));
    expectRejected(s, "duplicate", "protocols[5].id", /duplicate of protocols\[1\] \("uniswap-v3"\)/);
  });

  it("rejects a protocol id that is not a lowercase slug", () => {
    expectRejected(
      mutated((x) => (x.protocols[0].id = "Uniswap V2")),
      "structure",
      "protocols[0].id",
    );
  });
});

describe("validateSnapshot: pools", () => {
  it("rejects a duplicate pool address", () => {
    const s = mutated((x) => (x.pools[2].address = x.pools[0].address));
    expectRejected(s, "duplicate", "pools[2].address", /duplicate of pools\[0\]/);
  });

  it("rejects an unknown protocolId", () => {
    expectRejected(
      mutated((x) => (x.pools[1].protocolId = "sushiswap")),
      "reference",
      "pools[1].protocolId",
      /not in protocols \("sushiswap"\)/,
    );
  });

  it("rejects a pool token that is not in tokens", () => {
    const missing = "0x1111111111111111111111111111111111111111";
    const error = expectRejected(
      mutated((x) => (x.pools[2].tokens[1].address = missing)),
      "reference",
      "pools[2].tokens[1].address",
    );
    expect(error.message).toBe(`pools[2].tokens[1].address: not in tokens ("${missing}")`);
  });

  it("rejects a pool with 1 token", () => {
    expectRejected(
      mutated((x) => x.pools[0].tokens.pop()),
      "structure",
      "pools[0].tokens",
      /MinItems<2>.*got an array of 1 item/,
    );
  });

  it("rejects an unknown pool type", () => {
    const error = expectRejected(
      mutated((x) => (x.pools[1].type = "V5")),
      "structure",
      "pools[1].type",
    );
    expect(error.message).toBe('pools[1].type: expected "V2" | "V3" | "V4" | "ALGEBRA" | "SLIPSTREAM", got "V5"');
    expectRejected(
      mutated((x) => delete x.pools[1].type),
      "structure",
      "pools[1].type",
      /missing/,
    );
  });

  it("rejects a non-map pool", () => {
    expectRejected(
      mutated((x) => (x.pools[1] = 42)),
      "structure",
      "pools[1]",
      /got 42/,
    );
    expectRejected(
      mutated((x) => (x.tokens[1] = "WETH")),
      "structure",
      "tokens[1]",
      /expected a map \(SnapshotToken\), got "WETH"/,
    );
  });

  it("rejects a V3 pool without tickSpacing", () => {
    expectRejected(
      mutated((x) => delete x.pools[1].metadata.tickSpacing),
      "structure",
      "pools[1].metadata.tickSpacing",
      /missing, expected number & Type<"int32">/,
    );
  });

  it("rejects V4 metadata without hook (it must be present, may be null)", () => {
    expectRejected(
      mutated((x) => delete x.pools[3].metadata.hook),
      "structure",
      "pools[3].metadata.hook",
      /missing, expected map \| null/,
    );
    expectRejected(
      mutated((x) => delete x.pools[3].metadata.stateViewAddress),
      "structure",
      "pools[3].metadata.stateViewAddress",
      /missing/,
    );
  });

  it("rejects a V2 pool whose metadata lacks the router", () => {
    expectRejected(
      mutated((x) => (x.pools[0].metadata = {})),
      "structure",
      "pools[0].metadata.positionManagerAddress",
      /missing/,
    );
    expectRejected(
      mutated((x) => delete x.pools[0].metadata),
      "structure",
      "pools[0].metadata",
      /missing, expected a map \(V2Metadata\)/,
    );
  });

  it("rejects a latestSqrtPriceX96 that is not digits", () => {
    expectRejected(
      mutated((x) => (x.pools[1].metadata.latestSqrtPriceX96 = "7.9e28")),
      "structure",
      "pools[1].metadata.latestSqrtPriceX96",
      /got "7\.9e28"/,
    );
    expectRejected(
      mutated((x) => (x.pools[2].metadata.latestSqrtPriceX96 = "-1")),
      "structure",
      "pools[2].metadata.latestSqrtPriceX96",
    );
    expectRejected(
      mutated((x) => (x.pools[2].metadata.latestSqrtPriceX96 = 79228162514264337593543950336)),
      "structure",
      "pools[2].metadata.latestSqrtPriceX96",
    );
  });

  it('accepts latestTick "-5" but rejects "5.0"', () => {
    expect(() => roundTrip(mutated((x) => (x.pools[3].metadata.latestTick = "-5")))).not.toThrow();
    expectRejected(
      mutated((x) => (x.pools[3].metadata.latestTick = "5.0")),
      "structure",
      "pools[3].metadata.latestTick",
      /got "5\.0"/,
    );
  });

  it("rejects a pool address of neither 40 nor 64 hex digits", () => {
    expectRejected(
      mutated((x) => (x.pools[0].address = `0x${"ab".repeat(25)}`)),
      "structure",
      "pools[0].address",
    );
  });

  it("rejects a pool token amount below 0 and a string USD value", () => {
    expectRejected(
      mutated((x) => (x.pools[4].tokens[0].amount = -1)),
      "structure",
      "pools[4].tokens[0].amount",
    );
    expectRejected(
      mutated((x) => (x.pools[4].totalValueLockedUsd = "1000")),
      "structure",
      "pools[4].totalValueLockedUsd",
      /got "1000"/,
    );
  });
});

describe("decodeSnapshotBytes", () => {
  const bytes = pack(validSnapshot());

  it("rejects a half-written file (first half of a valid buffer)", () => {
    const error = rejection(() => decodeSnapshotBytes(bytes.subarray(0, Math.floor(bytes.length / 2))));
    expect(error.reason).toBe("decode");
    expect(error.message).toMatch(/^truncated MessagePack data/);
  });

  it("rejects every truncation of a valid buffer with reason decode", () => {
    const accepted: number[] = [];
    for (let length = 0; length < bytes.length; length++) {
      try {
        decodeSnapshotBytes(bytes.subarray(0, length));
        accepted.push(length);
      } catch (error) {
        if (!(error instanceof SnapshotError) || error.reason !== "decode") accepted.push(length);
      }
    }
    expect(accepted).toEqual([]);
  });

  it("rejects trailing bytes after the first value", () => {
    const error = rejection(() => decodeSnapshotBytes(Buffer.concat([bytes, Buffer.from([0x00])])));
    expect(error.reason).toBe("decode");
    expect(error.message).toMatch(/unexpected bytes after the MessagePack value/);
    expect(rejection(() => decodeSnapshotBytes(Buffer.concat([bytes, bytes]))).reason).toBe("decode");
  });

  it("rejects garbage bytes", () => {
    for (const garbage of [
      Buffer.from('{"format":"liquidity-snapshot"}'),
      Buffer.from([0xc1, 0xc1, 0xc1]),
      Buffer.from([0xd4, 0x05, 0x01]), // unknown extension
      Buffer.from([0xdd, 0xff, 0xff, 0xff, 0xff]), // array32 of 4 billion items, no items
      Buffer.alloc(200_000, 0x91), // 200,000 nested arrays
    ]) {
      expect(rejection(() => decodeSnapshotBytes(garbage)).reason).toBe("decode");
    }
  });

  it("rejects an empty file", () => {
    expect(rejection(() => decodeSnapshotBytes(new Uint8Array(0))).reason).toBe("decode");
  });

  it("never throws anything but a SnapshotError for random bytes or corrupted files", () => {
    const check = (input: Uint8Array) => {
      try {
        validateSnapshot(decodeSnapshotBytes(input), CHAIN);
      } catch (error) {
        if (!(error instanceof SnapshotError)) throw error;
      }
    };
    fc.assert(fc.property(fc.uint8Array({ maxLength: 64 }), (input) => check(input)));
    fc.assert(
      fc.property(fc.nat(bytes.length - 1), fc.integer({ min: 0, max: 255 }), (at, value) => {
        const copy = Uint8Array.from(bytes);
        copy[at] = value;
        check(copy);
      }),
      { numRuns: 300 },
    );
  });
});

describe("readSnapshotFile", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "snapshot-test-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("reads, validates and fills token defaults", async () => {
    const bytes = pack(validSnapshot());
    const path = join(dir, "chain-8453.msgpack");
    await writeFile(path, bytes);
    const loaded = await readSnapshotFile(path, "https://logos.example/{chainId}/{address}.png");
    expect(loaded.chainId).toBe(8453);
    expect(loaded.bytes).toBe(bytes.length);
    expect(loaded.sha256).toBe(createHash("sha256").update(bytes).digest("hex"));
    const [native, weth, usdc, usdt0] = loaded.snapshot.tokens;
    expect(native.logoUrl).toBe(`https://logos.example/8453/${NATIVE}.png`);
    expect(weth.logoUrl).toBe("https://example.org/weth.png");
    expect(usdc.normalizedName).toBe("USD Coin");
    expect(usdt0.normalizedSymbol).toBe("USDT0");
    expect(usdt0.normalizedName).toBe("USDT0");
    expect(usdt0.symbol).toBe("USD₮0");
  });

  it("rejects a file name that is not chain-<id>.msgpack", async () => {
    for (const name of ["chain-8453.msgpack.tmp", ".chain-8453.msgpack", "chain-01.msgpack", "base.msgpack", "chain-.msgpack"]) {
      const error = await readSnapshotFile(join(dir, name)).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(SnapshotError);
      expect((error as SnapshotError).reason).toBe("file-name");
    }
    expect(chainIdFromSnapshotFileName("/any/dir/chain-534352.msgpack")).toBe(534352);
    expect(rejection(() => chainIdFromSnapshotFileName("chain-5.msgpack")).reason).toBe("unsupported-chain");
  });

  it("rejects a missing file with reason io", async () => {
    const path = join(dir, "chain-1.msgpack");
    const error = (await readSnapshotFile(path).catch((e: unknown) => e)) as SnapshotError;
    expect(error).toBeInstanceOf(SnapshotError);
    expect(error.reason).toBe("io");
    expect(error.file).toBe(path);
    expect(error.message).toMatch(/chain-1\.msgpack: cannot read the file \(ENOENT\)/);
  });

  it("rejects a half-written file with reason decode and names the file", async () => {
    const bytes = pack(validSnapshot());
    const path = join(dir, "chain-8453.msgpack");
    await writeFile(path, bytes.subarray(0, bytes.length - 10));
    const error = (await readSnapshotFile(path).catch((e: unknown) => e)) as SnapshotError;
    expect(error.reason).toBe("decode");
    expect(error.file).toBe(path);
  });

  it("rejects the file of another chain", async () => {
    const path = join(dir, "chain-1.msgpack");
    await writeFile(path, pack(validSnapshot()));
    const error = (await readSnapshotFile(path).catch((e: unknown) => e)) as SnapshotError;
    expect(error.reason).toBe("chain-mismatch");
    expect(error.message).toBe("chainId: 8453 does not match the file name chain-1.msgpack");
  });
});
