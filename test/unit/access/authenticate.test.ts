import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { authenticate, maskKey } from "../../../src/access/authenticate.js";
import { KeyStore, type KeyEntry } from "../../../src/access/key-store.js";
import { loadKeysFile, parseKeysFile, type ApiKeyRecord } from "../../../src/access/keys-file.js";
import { allowedChains, assertChainAllowed, assertRouteAllowed } from "../../../src/access/restrictions.js";
import { ApiError } from "../../../src/api/errors.js";

const SAMPLE_PATH = fileURLToPath(new URL("../../../config/keys.sample.json", import.meta.url));
const NOW = Date.UTC(2026, 5, 1, 12, 0, 0);

const KEYS = {
  active: "lgw_live_active_0000000000000001",
  disabled: "lgw_live_disabled_000000000000002",
  expired: "lgw_live_expired_0000000000000003",
  future: "lgw_live_future_00000000000000004",
  restricted: "lgw_live_restricted_0000000000005",
  short: "short-key",
};

const records: ApiKeyRecord[] = [
  { id: "active", name: "Active", sha256: KeyStore.hashKey(KEYS.active), status: "active" },
  { id: "disabled", name: "Disabled", sha256: KeyStore.hashKey(KEYS.disabled), status: "disabled" },
  { id: "expired", name: "Expired", sha256: KeyStore.hashKey(KEYS.expired), status: "active", expiresAt: "2026-06-01T12:00:00Z" },
  { id: "future", name: "Future", sha256: KeyStore.hashKey(KEYS.future), status: "active", expiresAt: "2026-06-01T14:00:00.001+02:00" },
  {
    id: "restricted",
    name: "Restricted",
    sha256: KeyStore.hashKey(KEYS.restricted),
    status: "active",
    rateLimit: { requests: 5, windowSeconds: 10 },
    routes: ["pools"],
    chainIds: [8453, 1],
  },
  { id: "short", name: "Short", sha256: KeyStore.hashKey(KEYS.short), status: "active" },
];
const store = new KeyStore(parseKeysFile(JSON.stringify({ keys: records }), "keys.json"));

function refusal(header: string | undefined, at = NOW): ApiError {
  try {
    authenticate(header, store, at);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error("expected authenticate to throw");
}

/** Everything a client would see of the error. */
function visible(error: ApiError): string {
  return JSON.stringify({ message: error.message, details: error.details, metadata: error.metadata, headers: error.headers });
}

describe("KeyStore", () => {
  it("hashKey is lowercase hex SHA-256 of the UTF-8 key", () => {
    expect(KeyStore.hashKey("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(KeyStore.hashKey("é")).toBe(createHash("sha256").update(Buffer.from("é", "utf8")).digest("hex"));
  });

  it("lookup finds the record by key, whatever its status, and nothing for other keys", () => {
    expect(store.lookup(KEYS.active)?.id).toBe("active");
    expect(store.lookup(KEYS.disabled)?.id).toBe("disabled");
    expect(store.lookup("lgw_live_unknown")).toBeUndefined();
    expect(store.lookup("")).toBeUndefined();
    expect(store.lookup(records[0]!.sha256)).toBeUndefined(); // the hash itself is not a key
    expect(store.size).toBe(records.length);
  });

  it("precomputes expiry and restrictions", () => {
    const entry = store.getById("restricted")!;
    expect(entry.expiresAtMs).toBe(Number.POSITIVE_INFINITY);
    expect(entry.routes).toEqual(new Set(["pools"]));
    expect(entry.allowedChainIds).toEqual([1, 8453]);
    expect(entry.rateLimit).toEqual({ requests: 5, windowSeconds: 10 });
    expect(store.getById("future")!.expiresAtMs).toBe(Date.UTC(2026, 5, 1, 12, 0, 0, 1));
    expect(store.getById("active")!.routes).toBeNull();
    expect(store.getById("active")!.chainIds).toBeNull();
  });

  it("is immutable and independent of the file object it was built from", () => {
    const file = parseKeysFile(JSON.stringify({ keys: [records[0]] }), "keys.json");
    const own = new KeyStore(file);
    file.keys[0]!.status = "disabled";
    expect(own.lookup(KEYS.active)?.status).toBe("active");
    expect(Object.isFrozen(own.lookup(KEYS.active))).toBe(true);
    expect(Object.isFrozen(own.find(KEYS.active))).toBe(true);
  });

  it("rejects duplicate ids or digests even outside parseKeysFile", () => {
    expect(() => new KeyStore({ keys: [records[0]!, { ...records[1]!, id: "active" }] })).toThrow(/duplicate key id/);
    expect(() => new KeyStore({ keys: [records[0]!, { ...records[1]!, sha256: records[0]!.sha256 }] })).toThrow(/sha256/);
  });
});

describe("authenticate", () => {
  it("accepts a valid active key", () => {
    const entry = authenticate(`Bearer ${KEYS.active}`, store, NOW);
    expect(entry.id).toBe("active");
    expect(entry.record.status).toBe("active");
  });

  it("accepts a key whose expiry is still ahead", () => {
    expect(authenticate(`Bearer ${KEYS.future}`, store, NOW).id).toBe("future");
  });

  it("ignores leading and trailing whitespace around the field value (RFC 9110 OWS)", () => {
    expect(authenticate(` Bearer ${KEYS.active}\t`, store, NOW).id).toBe("active");
  });

  it.each([[""], [undefined], ["   "]])("missing: %j → API_KEY_MISSING", (header) => {
    const error = refusal(header);
    expect(error.code).toBe("API_KEY_MISSING");
    expect(error.status).toBe(401);
    expect(error.title).toBe("Authentication Failed");
    expect(error.metadata).toEqual({ example: "Bearer <api-key>" });
    expect(error.message).toMatch(/Authorization header/);
  });

  const malformed: [string, string, RegExp][] = [
    ["Basic scheme", "Basic dXNlcjpwYXNz", /unsupported authentication scheme; expected "Bearer <api-key>"/],
    ["Bearer alone", "Bearer", /no key after "Bearer"/],
    ["Bearer and a space", "Bearer ", /no key after "Bearer"/],
    ["two spaces", `Bearer  ${KEYS.active}`, /exactly one space/],
    ["tab separator", `Bearer\t${KEYS.active}`, /exactly one space/],
    ["no separator", `Bearer${KEYS.active}`, /exactly one space/],
    ["lowercase scheme", `bearer ${KEYS.active}`, /case-sensitive: write "Bearer"/],
    ["uppercase scheme", `BEARER ${KEYS.active}`, /case-sensitive/],
    ["key without scheme", KEYS.active, /missing the "Bearer " prefix/],
    ["whitespace inside the key", `Bearer ${KEYS.active} extra`, /contains whitespace/],
    ["control character in the key", `Bearer abc\u0000def`, /control characters/],
  ];

  it.each(malformed)("malformed: %s → API_KEY_INVALID", (_name, header, reason) => {
    const error = refusal(header);
    expect(error.code).toBe("API_KEY_INVALID");
    expect(error.status).toBe(401);
    expect(error.metadata).toEqual({ reason: expect.stringMatching(reason) });
    expect(error.message).toBe('Send the Authorization header as "Bearer <api-key>": the word Bearer, one space, then your key.');
    expect(error.details).toContain(error.metadata.reason as string);
    expect(visible(error)).not.toContain(KEYS.active);
    expect(visible(error)).not.toContain("dXNlcjpwYXNz");
  });

  it("unknown long key → API_KEY_NOT_FOUND with first 4 + ... + last 3", () => {
    const key = "lgw_live_not_issued_0000000000xyz";
    const error = refusal(`Bearer ${key}`);
    expect(error.code).toBe("API_KEY_NOT_FOUND");
    expect(error.status).toBe(401);
    expect(error.metadata).toEqual({ receivedKey: "lgw_...xyz" });
    expect(visible(error)).not.toContain(key);
  });

  it("unknown short key → API_KEY_NOT_FOUND with ***", () => {
    expect(refusal("Bearer abcdefghij").metadata).toEqual({ receivedKey: "***" });
    expect(refusal("Bearer x").metadata).toEqual({ receivedKey: "***" });
  });

  it("masks at the 10/11 character boundary", () => {
    expect(maskKey("0123456789")).toBe("***");
    expect(maskKey("0123456789a")).toBe("0123...89a");
  });

  it("a short key that exists authenticates", () => {
    expect(authenticate(`Bearer ${KEYS.short}`, store, NOW).id).toBe("short");
  });

  it("disabled → API_KEY_DISABLED (403)", () => {
    const error = refusal(`Bearer ${KEYS.disabled}`);
    expect(error.code).toBe("API_KEY_DISABLED");
    expect(error.status).toBe(403);
    expect(error.metadata).toEqual({});
    expect(error.message).toMatch(/disabled/);
    expect(visible(error)).not.toContain(KEYS.disabled);
  });

  it("expired (expiresAt == now) → API_KEY_EXPIRED with expiredAt as stored", () => {
    const error = refusal(`Bearer ${KEYS.expired}`, NOW);
    expect(error.code).toBe("API_KEY_EXPIRED");
    expect(error.status).toBe(403);
    expect(error.metadata).toEqual({ expiredAt: "2026-06-01T12:00:00Z" });
    expect(error.message).toContain("2026-06-01T12:00:00Z");
    expect(visible(error)).not.toContain(KEYS.expired);
  });

  it("the same key one millisecond before expiry authenticates", () => {
    expect(authenticate(`Bearer ${KEYS.expired}`, store, NOW - 1).id).toBe("expired");
  });

  it("an expiry with an offset is compared as an instant", () => {
    // 2026-06-01T14:00:00.001+02:00 = 12:00:00.001Z
    expect(refusal(`Bearer ${KEYS.future}`, NOW + 1).code).toBe("API_KEY_EXPIRED");
    expect(refusal(`Bearer ${KEYS.future}`, NOW + 1).metadata).toEqual({ expiredAt: "2026-06-01T14:00:00.001+02:00" });
  });

  it("every refusal has a one-sentence message and a details hint", () => {
    const headers = ["", "Basic x", `Bearer ${"z".repeat(20)}`, `Bearer ${KEYS.disabled}`, `Bearer ${KEYS.expired}`];
    for (const header of headers) {
      const error = refusal(header);
      expect(error.message).toMatch(/^[A-Z].*\.$/);
      expect(error.message.split(/\.\s/)).toHaveLength(1);
      expect(error.details.length).toBeGreaterThan(10);
    }
  });
});

describe("restrictions", () => {
  const restricted = store.getById("restricted")!;
  const open = store.getById("active")!;

  it("an unrestricted key may use every route and chain", () => {
    for (const route of ["tokens", "pools", "protocols"] as const) expect(() => assertRouteAllowed(open, route)).not.toThrow();
    expect(() => assertChainAllowed(open, 534352)).not.toThrow();
    expect(allowedChains(open)).toBeNull();
  });

  it("allows the listed route and chains", () => {
    expect(() => assertRouteAllowed(restricted, "pools")).not.toThrow();
    expect(() => assertChainAllowed(restricted, 1)).not.toThrow();
    expect(() => assertChainAllowed(restricted, 8453)).not.toThrow();
    expect(allowedChains(restricted)).toEqual([1, 8453]);
  });

  it("an unlisted route → API_KEY_FORBIDDEN naming the route", () => {
    let error: unknown;
    try {
      assertRouteAllowed(restricted, "tokens");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ApiError);
    const apiError = error as ApiError;
    expect(apiError.code).toBe("API_KEY_FORBIDDEN");
    expect(apiError.status).toBe(403);
    expect(apiError.title).toBe("Forbidden");
    expect(apiError.metadata).toEqual({ route: "tokens", allowedRoutes: ["pools"] });
    expect(apiError.message).toContain("tokens");
  });

  it("an unlisted chain → API_KEY_FORBIDDEN naming the chain and the allowed ones", () => {
    let error: unknown;
    try {
      assertChainAllowed(restricted, 130);
    } catch (e) {
      error = e;
    }
    const apiError = error as ApiError;
    expect(apiError.code).toBe("API_KEY_FORBIDDEN");
    expect(apiError.metadata).toEqual({ chainId: 130, allowedChainIds: [1, 8453] });
    expect(apiError.message).toContain("chain 130");
  });
});

describe("the bundled sample file", () => {
  it("authenticates the documented sandbox key", () => {
    const sample = new KeyStore(loadKeysFile(SAMPLE_PATH));
    const entry: KeyEntry = authenticate("Bearer lgw_sandbox_0123456789abcdef", sample, Date.now());
    expect(entry.id).toBe("sandbox");
    expect(entry.expiresAtMs).toBe(Number.POSITIVE_INFINITY);
    expect(allowedChains(entry)).toBeNull();
    expect(entry.routes).toBeNull();
    expect(entry.rateLimit).toBeNull();
  });

  it("stores only the hash", () => {
    const sample = loadKeysFile(SAMPLE_PATH);
    expect(JSON.stringify(sample)).not.toContain("lgw_sandbox_0123456789abcdef");
  });
});
