import { describe, expect, test, vi } from "vitest";
import { CannedIndex, type CannedTarget } from "../../../../bench/targets/canned.js";
import { dataTail, envelopePrefix, IsoClock } from "../../../../bench/targets/floor.js";
import { successPrefix } from "../../../../src/http/envelope.js";

describe("the floor's envelope", () => {
  test("is the gateway's success prefix, byte for byte", () => {
    const traceId = "0b6f3d52-8a1e-4c55-9a43-7a2b1c3d4e5f";
    const timestamp = new Date(1_700_000_000_123).toISOString();
    const gateway = successPrefix({ path: "/v1/pools/8453/0xAbC", traceId }, timestamp);
    expect(envelopePrefix(200, timestamp, "/v1/pools/8453/0xAbC", traceId)).toBe(gateway);
  });

  test("the data tail is everything after the envelope's data key; other bodies are answered verbatim", () => {
    const body = Buffer.from('{"statusCode":200,"timestamp":"t","path":"/p","traceId":"x","data":{"a":[1,{"data":2}]}}');
    expect(dataTail(body)?.toString()).toBe('{"a":[1,{"data":2}]}}');
    expect(dataTail(Buffer.from('{"openapi":"3.1.0"}'))).toBeNull();
  });

  test("the ISO clock formats at most once per millisecond", () => {
    const now = vi.spyOn(Date, "now").mockReturnValue(1_700_000_000_123);
    const format = vi.spyOn(Date.prototype, "toISOString");
    try {
      const clock = new IsoClock();
      expect(clock.now()).toBe("2023-11-14T22:13:20.123Z");
      expect(clock.now()).toBe("2023-11-14T22:13:20.123Z");
      expect(format).toHaveBeenCalledTimes(1);
      now.mockReturnValue(1_700_000_000_124);
      expect(clock.now()).toBe("2023-11-14T22:13:20.124Z");
      expect(format).toHaveBeenCalledTimes(2);
    } finally {
      now.mockRestore();
      format.mockRestore();
    }
  });
});

describe("CannedIndex", () => {
  const response = (n: number) => ({ status: 200, headers: [], body: Buffer.from(String(n)) });
  const targets: CannedTarget[] = [
    { name: "pool", method: "get", path: "/v1/pools/1/0xa", requestBody: "", response: response(1) },
    { name: "default", method: "post", path: "/v1/tokens", requestBody: "{}", response: response(2) },
    { name: "limit", method: "post", path: "/v1/tokens", requestBody: '{"config":{"limit":500}}', response: response(3) },
  ];
  const index = new CannedIndex(targets);

  test("a route with one target needs no body; a shared route is told apart by the body bytes", () => {
    expect(index.needsBody("get", "/v1/pools/1/0xa")).toBe(false);
    expect(index.find("get", "/v1/pools/1/0xa", null)?.name).toBe("pool");
    expect(index.needsBody("post", "/v1/tokens")).toBe(true);
    expect(index.find("post", "/v1/tokens", Buffer.from("{}"))?.name).toBe("default");
    expect(index.find("post", "/v1/tokens", new Uint8Array(Buffer.from('{"config":{"limit":500}}')))?.name).toBe("limit");
  });

  test("anything else is not found", () => {
    expect(index.find("post", "/v1/tokens", Buffer.from("{ }"))).toBeUndefined();
    expect(index.find("post", "/v1/tokens", null)).toBeUndefined();
    expect(index.find("get", "/v1/pools/1/0xb", null)).toBeUndefined();
  });
});
