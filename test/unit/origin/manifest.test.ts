/** The manifest's strict reading (fleet.md §17) and its signature: every refusal has its code. */
import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  contentKey,
  MANIFEST_MAX_BYTES,
  ManifestError,
  parseManifest,
  serializeManifest,
  type OriginManifest,
} from "../../../src/origin/manifest.js";
import { parsePublicKeys, privateKeyOf, SignatureError, signManifest, verifyManifest } from "../../../src/origin/manifest-signature.js";

const SHA = "a".repeat(64);
const SHA2 = "b".repeat(64);
const LIMITS = { chain: 1000, baskets: 100, keys: 100 };

function manifest(change: Partial<OriginManifest> = {}): OriginManifest {
  return {
    schema: 1,
    generation: 3,
    publishedAt: "2026-01-01T00:00:00.000Z",
    files: [
      { kind: "chain", chainId: 8453, key: contentKey("chain", SHA, 8453), sha256: SHA, size: 10 },
      { kind: "baskets", key: contentKey("baskets", SHA2), sha256: SHA2, size: 5 },
    ],
    ...change,
  };
}

const bytes = (value: unknown) => Buffer.from(JSON.stringify(value));

function refusal(value: unknown): ManifestError {
  try {
    parseManifest(Buffer.isBuffer(value) ? value : bytes(value), LIMITS);
  } catch (error) {
    if (error instanceof ManifestError) return error;
    throw error;
  }
  throw new Error("the manifest was taken");
}

describe("parseManifest", () => {
  it("takes a manifest and what serializeManifest writes of it, byte for byte the same value", () => {
    const m = manifest({ expires: "2026-02-01T00:00:00.000Z" });
    expect(parseManifest(bytes(m), LIMITS)).toEqual(m);
    const written = serializeManifest(m);
    expect(parseManifest(written, LIMITS)).toEqual(m);
    expect(serializeManifest(parseManifest(written, LIMITS)).equals(written)).toBe(true);
  });

  it("refuses what is not a manifest, naming the property", () => {
    expect(refusal(Buffer.from("{not json")).code).toBe("malformed-manifest");
    expect(refusal(Buffer.from([0xff, 0xfe])).code).toBe("malformed-manifest");
    expect(refusal({ ...manifest(), extra: 1 }).message).toContain("manifest.extra is not a property");
    expect(refusal({ ...manifest(), schema: 2 }).code).toBe("malformed-manifest");
    expect(refusal(manifest({ generation: 0 })).message).toContain("manifest.generation");
    expect(refusal(manifest({ generation: 1.5 })).code).toBe("malformed-manifest");
    expect(refusal(manifest({ publishedAt: "yesterday" })).message).toContain("publishedAt");
    const files = manifest().files;
    expect(refusal(manifest({ files: [{ ...files[0], sha256: "A".repeat(64) }] })).message).toContain("sha256");
    expect(refusal(manifest({ files: [{ ...files[0], size: -1 }] })).code).toBe("malformed-manifest");
    expect(refusal({ ...manifest(), files: [{ ...files[0], url: "x" }] }).message).toContain("url");
    expect(refusal({ ...manifest(), files: [{ ...files[1], kind: "other" }] }).code).toBe("malformed-manifest");
  });

  it("refuses a manifest over 1 MiB", () => {
    const padded = Buffer.concat([bytes(manifest()), Buffer.alloc(MANIFEST_MAX_BYTES, 0x20)]);
    expect(refusal(padded).code).toBe("manifest-too-large");
  });

  it("refuses unsupported and duplicate chains, and a second baskets or keys file", () => {
    const [chain, baskets] = manifest().files;
    expect(refusal(manifest({ files: [{ ...chain, chainId: 5 }] })).code).toBe("unsupported-chain");
    expect(refusal(manifest({ files: [chain, { ...chain }] })).code).toBe("duplicate-file");
    expect(refusal(manifest({ files: [baskets, { ...baskets }] })).message).toContain("baskets twice");
    const keys = { kind: "keys" as const, key: `keys/${SHA}.json`, sha256: SHA, size: 1 };
    expect(refusal(manifest({ files: [keys, { ...keys }] })).code).toBe("duplicate-file");
  });

  it("refuses keys that are absolute, climb, carry a scheme or another character, or are not content-addressed", () => {
    const chain = manifest().files[0];
    for (const key of [
      `/chains/${SHA}`,
      `../${SHA}`,
      `chains/../${SHA}`,
      `https://evil/${SHA}`,
      `s3:${SHA}`,
      `a//${SHA}`,
      `./${SHA}`,
      `a\\${SHA}`,
      `%2e%2e/${SHA}`,
      `a/${SHA}?x`,
    ]) {
      expect(refusal(manifest({ files: [{ ...chain, key }] })).code, key).toBe("bad-key");
    }
    expect(refusal(manifest({ files: [{ ...chain, key: "chains/8453/latest.msgpack" }] })).message).toContain(
      "does not end in its SHA-256",
    );
    expect(parseManifest(bytes(manifest({ files: [{ ...chain, key: `any/prefix-ok/${SHA}` }] })), LIMITS).files[0].key).toBe(
      `any/prefix-ok/${SHA}`,
    );
  });

  it("refuses a file over its kind's limit", () => {
    const [chain, baskets] = manifest().files;
    expect(refusal(manifest({ files: [{ ...chain, size: 1001 }] })).code).toBe("file-too-large");
    expect(refusal(manifest({ files: [{ ...baskets, size: 101 }] })).message).toContain("baskets");
  });
});

describe("manifest signatures", () => {
  const pair = () => generateKeyPairSync("ed25519");
  const raw = (key: ReturnType<typeof pair>["publicKey"]) => key.export({ format: "der", type: "spki" }).subarray(12).toString("base64");
  const bytesOf = serializeManifest(manifest());

  it("verifies a signature by either of two keys (raw base64 or PEM), and says which", () => {
    const a = pair();
    const b = pair();
    const keys = parsePublicKeys(`old=${raw(a.publicKey)}, new=${b.publicKey.export({ format: "pem", type: "spki" }).toString()}`);
    expect(keys.map((k) => k.keyId)).toEqual(["old", "new"]);
    expect(verifyManifest(bytesOf, signManifest(bytesOf, a.privateKey, "old"), keys)).toEqual({ keyId: "old" });
    expect(verifyManifest(bytesOf, signManifest(bytesOf, b.privateKey, "new"), keys)).toEqual({ keyId: "new" });
  });

  it("refuses unsigned, unknown-key, wrongly signed, altered and malformed", () => {
    const a = pair();
    const keys = parsePublicKeys(`k1=${raw(a.publicKey)}`);
    const code = (sig: Buffer | null, body = bytesOf) => {
      try {
        verifyManifest(body, sig, keys);
      } catch (error) {
        return (error as SignatureError).code;
      }
      return "verified";
    };
    expect(code(null)).toBe("unsigned");
    expect(code(signManifest(bytesOf, a.privateKey, "k2"))).toBe("bad-signature");
    expect(code(signManifest(bytesOf, pair().privateKey, "k1"))).toBe("bad-signature");
    expect(code(signManifest(bytesOf, a.privateKey, "k1"), Buffer.concat([bytesOf, Buffer.from(" ")]))).toBe("bad-signature");
    expect(code(Buffer.from("{}"))).toBe("bad-signature");
    expect(code(Buffer.from("nope"))).toBe("bad-signature");
    expect(code(Buffer.from(JSON.stringify({ keyId: "k1", signature: "AAAA", more: 1 })))).toBe("bad-signature");
    expect(code(signManifest(bytesOf, a.privateKey, "k1"))).toBe("verified");
  });

  it("reads a signing key as PEM or as a raw seed, and refuses other keys and bad lists", () => {
    const a = pair();
    const pem = a.privateKey.export({ format: "pem", type: "pkcs8" }).toString();
    const seed = a.privateKey.export({ format: "der", type: "pkcs8" }).subarray(16).toString("base64");
    const keys = parsePublicKeys(`k=${raw(a.publicKey)}`);
    expect(verifyManifest(bytesOf, signManifest(bytesOf, privateKeyOf(seed), "k"), keys).keyId).toBe("k");
    expect(verifyManifest(bytesOf, signManifest(bytesOf, privateKeyOf(pem), "k"), keys).keyId).toBe("k");
    const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 });
    expect(() => parsePublicKeys(`r=${rsa.publicKey.export({ format: "pem", type: "spki" })}`)).toThrow(/not an Ed25519 public key/);
    expect(() => parsePublicKeys("k=AAAA")).toThrow(/not an Ed25519/);
    expect(() => parsePublicKeys(raw(a.publicKey))).toThrow(/keyId=<public key>/);
    // A bare key whose base64 has only id characters before its "=" padding is still no keyId=<public key>.
    expect(() => parsePublicKeys(Buffer.alloc(32, 1).toString("base64"))).toThrow(/keyId=<public key>/);
    expect(() => parsePublicKeys(`k=${raw(a.publicKey)},k=${raw(a.publicKey)}`)).toThrow(/twice/);
    expect(() => parsePublicKeys(" , ")).toThrow(/no key/);
    expect(() => privateKeyOf("AAAA")).toThrow(/seed/);
  });
});
