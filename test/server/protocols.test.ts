/**
 * GET /v1/protocols (api-decisions.md §5 and the decisions brief): every protocol with at
 * least one pool in the loaded snapshots, deduplicated by id (first occurrence in ascending
 * chainId order wins), ordered by id in code-unit order.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROTO, poolsFixture } from "../support/fixtures.js";
import { expectError, expectSuccess, getProtocols, request, startWithFixtures, type Gateway } from "../support/gateway-process.js";

let gw: Gateway;
let base: string;

beforeAll(async () => {
  gw = await startWithFixtures(poolsFixture());
  base = gw.baseUrl;
});

afterAll(async () => {
  await gw?.stop();
});

describe("GET /v1/protocols", () => {
  it("lists exactly the protocols with pools, deduplicated, ordered by id code units", async () => {
    const data = expectSuccess(await getProtocols(base), "/v1/protocols");
    expect(Object.keys(data)).toEqual(["protocols"]);
    expect(data.protocols).toEqual([
      PROTO.nine, // "9lives" (chain 1)
      PROTO.aero, // "aerodrome-slipstream" (8453)
      PROTO.hyper130, // "hyperswap": 130 < 143, so Unichain's record wins
      PROTO.uniV2, // chain 1
      PROTO.uniV3, // chain 1 wins over Base's record
      PROTO.uniV4, // chain 1
      PROTO.uni2, // "uniswap2" (143): '-' < '2' < '_'
      PROTO.uniX, // "uniswap_x" (130)
    ]);
  });

  it("a protocol listed without pools is left out", async () => {
    const data = expectSuccess(await getProtocols(base));
    expect(data.protocols.map((p: { id: string }) => p.id)).not.toContain("unused-protocol");
  });

  it("protocol objects have keys id, name, logoUrl, url in that order", async () => {
    for (const p of expectSuccess(await getProtocols(base)).protocols) expect(Object.keys(p)).toEqual(["id", "name", "logoUrl", "url"]);
  });

  it("needs a key", async () => {
    expectError(await getProtocols(base, { key: null }), 401, "API_KEY_MISSING", "/v1/protocols");
  });

  it("GET with a body-less request and an unused content-type is still fine", async () => {
    expectSuccess(await request(base, "/v1/protocols", { headers: { "Content-Type": "text/plain" } }));
  });
});
