import { describe, expect, it } from "vitest";
import { asksForWebSocket, handshakeRefusal, type HandshakeHeaders } from "../../../src/http/websocket-handshake.js";

const VALID: HandshakeHeaders = { upgrade: "websocket", connection: "Upgrade", key: "dGhlIHNhbXBsZSBub25jZQ==", version: "13" };

describe("asksForWebSocket", () => {
  it("only when Upgrade lists websocket (any letter case, among other protocols)", () => {
    for (const yes of ["websocket", "WebSocket", " websocket ", "h2c, websocket", "websocket,foo"])
      expect(asksForWebSocket(yes), yes).toBe(true);
    for (const no of ["", "h2c", "websockets", "websocket/13", "web socket", "TLS/1.2"]) expect(asksForWebSocket(no), no).toBe(false);
  });
});

describe("handshakeRefusal", () => {
  it("accepts a well-formed handshake (Connection lists upgrade among other options)", () => {
    expect(handshakeRefusal(VALID)).toBeNull();
    expect(handshakeRefusal({ ...VALID, connection: "keep-alive, UPGRADE" })).toBeNull();
    expect(handshakeRefusal({ ...VALID, key: " AAAAAAAAAAAAAAAAAAAAAA== ", version: " 13 " })).toBeNull();
  });

  it("400 INVALID_WEBSOCKET_HANDSHAKE naming the first field at fault, in RFC 6455 order", () => {
    const cases: Array<[Partial<HandshakeHeaders>, string, string | null]> = [
      [{ connection: "" }, "Connection", null],
      [{ connection: "keep-alive" }, "Connection", "keep-alive"],
      [{ connection: "close", key: "" }, "Connection", "close"],
      [{ key: "" }, "Sec-WebSocket-Key", null],
      [{ key: "!!!!!!!!!!!!!!!!!!!!!!==" }, "Sec-WebSocket-Key", "!!!!!!!!!!!!!!!!!!!!!!=="],
      [{ key: "dGhlIHNhbXBsZSBub25jZQ" }, "Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ"], // 16 bytes unpadded: 22 characters
      [{ key: "dGhlIHNhbXBsZSBub25jZSE=" }, "Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZSE="], // 17 bytes
      [{ key: "dGhlIHNhbXBsZSBub25jZQ==dGhl" }, "Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==dGhl"],
      [{ version: "" }, "Sec-WebSocket-Version", null],
      [{ version: "13, 8" }, "Sec-WebSocket-Version", "13, 8"],
      [{ version: "thirteen" }, "Sec-WebSocket-Version", "thirteen"],
    ];
    for (const [change, header, value] of cases) {
      const refusal = handshakeRefusal({ ...VALID, ...change });
      expect(refusal, JSON.stringify(change)).toMatchObject({
        code: "INVALID_WEBSOCKET_HANDSHAKE",
        status: 400,
        metadata: { header, value },
      });
      expect(refusal!.headers).toEqual({});
    }
    expect(handshakeRefusal({ ...VALID, key: "k".repeat(500) })!.metadata.value).toBe(`${"k".repeat(200)}…`);
  });

  it("426 UNSUPPORTED_WEBSOCKET_VERSION for another version, naming 13 (Sec-WebSocket-Version, Upgrade, Connection)", () => {
    for (const version of ["8", "99", "0", "012"]) {
      const refusal = handshakeRefusal({ ...VALID, version });
      expect(refusal).toMatchObject({
        code: "UNSUPPORTED_WEBSOCKET_VERSION",
        status: 426,
        title: "Upgrade Required",
        metadata: { version, supportedVersions: ["13"] },
      });
      expect(refusal!.headers).toEqual({ "sec-websocket-version": "13", upgrade: "websocket", connection: "upgrade" });
    }
  });
});
