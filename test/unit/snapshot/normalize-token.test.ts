import { describe, expect, it } from "vitest";
import type { SnapshotToken } from "../../../src/api/snapshot-format.js";
import {
  DEFAULT_TOKEN_LOGO_TEMPLATE,
  fillTokenDefaults,
  fillTokenDefaultsInPlace,
  normalizeText,
  tokenLogoUrl,
} from "../../../src/snapshot/normalize-token.js";

function token(overrides: Partial<SnapshotToken> = {}): SnapshotToken {
  return {
    address: "0x102d758f688a4c1c5a80b116bd945d4455460282",
    symbol: "USD₮0",
    name: "USD₮0",
    decimals: 6,
    usdPrice: 1,
    trackedUsdPrice: 1,
    trackedTotalValuePooledUsd: 1000,
    swapsCount: 10,
    trackedSwapVolumeUsd: 5000,
    ...overrides,
  };
}

describe("normalizeText", () => {
  it("transliterates to ASCII", () => {
    expect(normalizeText("USD₮0")).toBe("USDT0");
    expect(normalizeText("ＵＳＤＣ")).toBe("USDC");
    expect(normalizeText("Ünïcödé Token")).toBe("Unicode Token");
    expect(normalizeText("₮")).toBe("T");
  });

  it("returns ASCII input unchanged", () => {
    for (const s of ["", "WETH", "USDC.e", "Wrapped Ether", " spaced "]) expect(normalizeText(s)).toBe(s);
  });
});

describe("fillTokenDefaults", () => {
  it("derives absent normalized fields and logoUrl from the template", () => {
    const filled = fillTokenDefaults(token(), 9745, "https://logos.example/{chainId}/{address}/logo.png?c={chainId}");
    expect(filled.normalizedSymbol).toBe("USDT0");
    expect(filled.normalizedName).toBe("USDT0");
    expect(filled.logoUrl).toBe("https://logos.example/9745/0x102d758f688a4c1c5a80b116bd945d4455460282/logo.png?c=9745");
    expect(filled.symbol).toBe("USD₮0");
  });

  it("uses the default template when none is given", () => {
    expect(DEFAULT_TOKEN_LOGO_TEMPLATE).toBe("https://assets.smold.app/api/token/{chainId}/{address}/logo.svg");
    expect(fillTokenDefaults(token(), 1).logoUrl).toBe(
      "https://assets.smold.app/api/token/1/0x102d758f688a4c1c5a80b116bd945d4455460282/logo.svg",
    );
    expect(tokenLogoUrl(DEFAULT_TOKEN_LOGO_TEMPLATE, 8453, "0xabc")).toBe("https://assets.smold.app/api/token/8453/0xabc/logo.svg");
  });

  it("keeps values given in the snapshot as they are", () => {
    const given = token({ normalizedSymbol: "USDT", normalizedName: "Tether USD", logoUrl: "https://example.org/usdt.svg" });
    const filled = fillTokenDefaults(given, 1, "https://ignored/{address}");
    expect(filled.normalizedSymbol).toBe("USDT");
    expect(filled.normalizedName).toBe("Tether USD");
    expect(filled.logoUrl).toBe("https://example.org/usdt.svg");
    // An empty given value is a given value.
    expect(fillTokenDefaults(token({ normalizedName: "" }), 1).normalizedName).toBe("");
  });

  it("returns a copy and keeps unknown fields", () => {
    const original = { ...token(), coingeckoId: "usdt0" };
    const filled = fillTokenDefaults(original, 1);
    expect(filled).not.toBe(original);
    expect(original).not.toHaveProperty("logoUrl");
    expect(filled.coingeckoId).toBe("usdt0");
  });

  it("has an in-place variant with the same results", () => {
    const given = token({ normalizedName: "Tether USD" });
    const filled = fillTokenDefaultsInPlace(given, 8453);
    expect(filled).toBe(given);
    expect(filled).toEqual(fillTokenDefaults(token({ normalizedName: "Tether USD" }), 8453));
    expect(filled.normalizedSymbol).toBe("USDT0");
    expect(filled.normalizedName).toBe("Tether USD");
  });
});
