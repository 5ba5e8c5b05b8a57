/**
 * The pieces of "access while open" (docs/stream.md): the access layer's re-check of a key a stream was
 * admitted with (src/access/reauthorize.ts), the masked form a stream keeps, and the close-code catalogue
 * (src/stream/close-codes.ts) against the table docs/stream.md shows.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { authenticate, maskedKeyOf, maskKey } from "../../../src/access/authenticate.js";
import { KeyStore, type KeyEntry } from "../../../src/access/key-store.js";
import { parseKeysFile, type ApiKeyRecord } from "../../../src/access/keys-file.js";
import { reauthorize } from "../../../src/access/reauthorize.js";
import { ApiError } from "../../../src/api/errors.js";
import { CLOSE_KEY_FORBIDDEN, CLOSE_KEY_UNAUTHORIZED, revocationCloseCode, STREAM_CLOSE_CODES } from "../../../src/stream/close-codes.js";

const NOW = Date.UTC(2026, 5, 1, 12, 0, 0);
const SECRET = "lgw_stream_holder_0123456789abcdef";
const MASKED = maskKey(SECRET);

function record(extra: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return { id: "holder", name: "Holder", sha256: KeyStore.hashKey(SECRET), status: "active", ...extra };
}

function storeOf(...records: ApiKeyRecord[]): KeyStore {
  return new KeyStore(parseKeysFile(JSON.stringify({ keys: records }), "keys.json"));
}

const admitted: KeyEntry = storeOf(record({ chainIds: [1, 8453] })).getById("holder")!;

/** What reauthorize answers against `store`, holding `chains`: the entry, or the refusal. */
function recheck(store: KeyStore, chains: number[] = [], at = NOW): KeyEntry | ApiError {
  try {
    return reauthorize(admitted, MASKED, store, at, "stream", () => chains);
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
}

/** What a request presenting the key gets from `store` (same refusal object, same fields). */
function requestRefusal(store: KeyStore, at = NOW): ApiError {
  try {
    authenticate(`Bearer ${SECRET}`, store, at);
  } catch (error) {
    return error as ApiError;
  }
  throw new Error("the request was admitted");
}

describe("reauthorize", () => {
  it("answers a removed key, or one whose secret changed, as a request would: 401 API_KEY_NOT_FOUND with the masked key", () => {
    for (const store of [storeOf(record({ id: "other", sha256: KeyStore.hashKey("lgw_another_key_0123456789") })), storeOf()]) {
      const answer = recheck(store) as ApiError;
      expect(answer).toBeInstanceOf(ApiError);
      expect(answer.status).toBe(401);
      expect(answer.code).toBe("API_KEY_NOT_FOUND");
      expect(answer.metadata).toEqual({ receivedKey: MASKED });
      expect(answer.metadata).toEqual(requestRefusal(store).metadata);
    }
  });

  it("refuses a disabled key, then an expired one, in admission's order", () => {
    const disabled = recheck(storeOf(record({ status: "disabled", expiresAt: "2020-01-01T00:00:00Z" }))) as ApiError;
    expect([disabled.status, disabled.code]).toEqual([403, "API_KEY_DISABLED"]);
    const expiring = storeOf(record({ expiresAt: "2026-06-01T12:00:01Z" }));
    expect(recheck(expiring, [], NOW)).toBe(expiring.getById("holder"));
    const expired = recheck(expiring, [], NOW + 1000) as ApiError;
    expect([expired.status, expired.code, expired.metadata]).toEqual([403, "API_KEY_EXPIRED", { expiredAt: "2026-06-01T12:00:01Z" }]);
    expect(expired.message).toBe(requestRefusal(expiring, NOW + 1000).message);
  });

  it("refuses a key without the `stream` route group, then a held chain the key no longer allows", () => {
    const noStream = recheck(storeOf(record({ routes: ["pools"], chainIds: [8453] })), [1]) as ApiError;
    expect([noStream.code, noStream.metadata]).toEqual(["API_KEY_FORBIDDEN", { route: "stream", allowedRoutes: ["pools"] }]);
    const narrowed = storeOf(record({ chainIds: [8453] }));
    const chain = recheck(narrowed, [1, 8453]) as ApiError;
    expect([chain.status, chain.code, chain.metadata]).toEqual([403, "API_KEY_FORBIDDEN", { chainId: 1, allowedChainIds: [8453] }]);
    expect(recheck(narrowed, [8453])).toBe(narrowed.getById("holder"));
  });

  it("finds the key by its digest whatever its id now, and does not ask for the held chains of an unrestricted key", () => {
    const renamed = storeOf(record({ id: "holder-renamed" }));
    let asked = false;
    const entry = reauthorize(admitted, MASKED, renamed, NOW, "stream", () => {
      asked = true;
      return [1];
    });
    expect(entry.id).toBe("holder-renamed");
    expect(asked).toBe(false);
  });
});

describe("what a stream keeps of its key", () => {
  it("is the masked form of the Authorization header's key, never the key", () => {
    expect(maskedKeyOf(`Bearer ${SECRET}`)).toBe(MASKED);
    expect(maskedKeyOf(` Bearer ${SECRET}\t`)).toBe(MASKED);
    expect(MASKED.includes(SECRET.slice(4, -3))).toBe(false);
    expect(maskedKeyOf("Bearer short")).toBe("***");
    expect(maskedKeyOf("")).toBe("***");
  });
});

describe("close codes", () => {
  it("map 401-class refusals to 4401 and 403-class ones to 4403", () => {
    expect(revocationCloseCode(401)).toBe(CLOSE_KEY_UNAUTHORIZED);
    expect(revocationCloseCode(403)).toBe(CLOSE_KEY_FORBIDDEN);
    expect([CLOSE_KEY_UNAUTHORIZED, CLOSE_KEY_FORBIDDEN]).toEqual([4401, 4403]);
  });

  it("docs/stream.md lists exactly the catalogue's codes, reasons and error-event flags, in its order", () => {
    const doc = readFileSync(fileURLToPath(new URL("../../../docs/stream.md", import.meta.url)), "utf8");
    const section = doc.slice(doc.indexOf("### Close codes"), doc.indexOf("### Access while open"));
    const rows = section
      .split("\n")
      .filter((line) => /^\| `\d{4}` \|/.test(line))
      .map((line) => line.split("|").map((cell) => cell.trim()));
    expect(rows.map((cells) => Number(cells[1].replaceAll("`", "")))).toEqual(STREAM_CLOSE_CODES.map((c) => c.code));
    expect(rows.map((cells) => cells[3])).toEqual(STREAM_CLOSE_CODES.map((c) => (c.errorEvent ? "yes" : "no")));
    expect(rows.map((cells) => cells[2])).toEqual(
      STREAM_CLOSE_CODES.map((c) =>
        c.reason === null ? "(no close frame)" : c.reason === "<error code>" ? "the error code" : `\`${c.reason}\``,
      ),
    );
  });
});
