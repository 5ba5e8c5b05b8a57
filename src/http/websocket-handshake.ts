/**
 * The WebSocket handshake of GET /v1/stream, read before anything else
 * (RFC 6455 §4.2.1-4.2.2, RFC 9110 §7.8, live.md §13).
 *
 * uWS hands every GET of the stream path that carries a 24-character
 * `Sec-WebSocket-Key` to the `ws` behaviour, whatever its other headers, and
 * would switch each one to a WebSocket; one with any other key (or none) it
 * hands to the route table. So both paths ask here:
 *
 * - `asksForWebSocket`: only a request whose `Upgrade` lists `websocket` asks
 *   to switch. Any other request (no `Upgrade`, `Upgrade: h2c`, …) is an
 *   ordinary GET: the gateway never switches to a protocol the client did not
 *   list (RFC 9110 §7.8), and answers it like any GET of the route
 *   (server-sent events, or 406).
 * - `handshakeRefusal`: a request that asks is refused when its handshake is
 *   malformed (400 INVALID_WEBSOCKET_HANDSHAKE: no `upgrade` in `Connection`,
 *   a `Sec-WebSocket-Key` that is not base64 of 16 bytes, no
 *   `Sec-WebSocket-Version`), or names another version (426
 *   UNSUPPORTED_WEBSOCKET_VERSION, with `Sec-WebSocket-Version: 13` and
 *   `Upgrade: websocket`, RFC 6455 §4.4). Checked before admission: a
 *   handshake that cannot succeed costs no quota.
 */
import { ApiError } from "../api/errors.js";
import type { HttpRequest } from "./uws.js";

/** The handshake's request headers ("" when absent). */
export interface HandshakeHeaders {
  readonly upgrade: string;
  readonly connection: string;
  readonly key: string;
  readonly version: string;
}

/** The one WebSocket version the gateway speaks (RFC 6455). */
export const WEBSOCKET_VERSION = "13";

/** base64 of 16 bytes: 22 characters of the base64 alphabet and `==` (RFC 6455 §4.1, §11.3.1). */
const KEY_PATTERN = /^[A-Za-z0-9+/]{22}==$/;
/** A version is a number (RFC 6455 §11.3.5: 1*DIGIT, 0-255). */
const VERSION_PATTERN = /^[0-9]{1,3}$/;
/** Characters of a header value echoed in the refusal. */
const ECHO_CHARS = 200;

const RFC_6455 = "RFC 6455 §4.2.1";

/** Whether a comma-separated header value lists `token` (ASCII case-insensitive; RFC 9110 §5.6.1 lists). */
function lists(value: string, token: string): boolean {
  if (value.length < token.length) return false;
  for (const element of value.split(",")) if (element.trim().toLowerCase() === token) return true;
  return false;
}

/** Whether the request asks to switch to a WebSocket: its `Upgrade` header lists `websocket`. */
export function asksForWebSocket(upgrade: string): boolean {
  return lists(upgrade, "websocket");
}

function echo(value: string): string | null {
  return value === "" ? null : value.length <= ECHO_CHARS ? value : `${value.slice(0, ECHO_CHARS)}…`;
}

function malformed(header: string, value: string, message: string): ApiError {
  return new ApiError(
    "INVALID_WEBSOCKET_HANDSHAKE",
    message,
    `${RFC_6455}: a WebSocket handshake is a GET with Upgrade: websocket, Connection: Upgrade, a Sec-WebSocket-Key of 16 random bytes in base64 and Sec-WebSocket-Version: ${WEBSOCKET_VERSION}.`,
    { header, value: echo(value) },
  );
}

/**
 * The refusal of a request that asks for a WebSocket (`asksForWebSocket`), or null when its handshake may be
 * switched. Checked in the order RFC 6455 §4.2.1 lists the fields.
 */
export function handshakeRefusal(h: HandshakeHeaders): ApiError | null {
  if (!lists(h.connection, "upgrade"))
    return malformed(
      "Connection",
      h.connection,
      "A WebSocket handshake must send Connection: Upgrade; send it with Upgrade: websocket, or drop Upgrade for server-sent events.",
    );
  const key = h.key.trim();
  if (!KEY_PATTERN.test(key))
    return malformed(
      "Sec-WebSocket-Key",
      h.key,
      key === ""
        ? "A WebSocket handshake must send Sec-WebSocket-Key: 16 random bytes in base64 (24 characters)."
        : "Sec-WebSocket-Key must be 16 random bytes in base64 (24 characters ending in ==).",
    );
  const version = h.version.trim();
  if (version === WEBSOCKET_VERSION) return null;
  if (!VERSION_PATTERN.test(version))
    return malformed(
      "Sec-WebSocket-Version",
      h.version,
      version === ""
        ? `A WebSocket handshake must send Sec-WebSocket-Version: ${WEBSOCKET_VERSION}.`
        : `Sec-WebSocket-Version must be a version number; this gateway speaks ${WEBSOCKET_VERSION}.`,
    );
  return new ApiError(
    "UNSUPPORTED_WEBSOCKET_VERSION",
    `This gateway speaks WebSocket version ${WEBSOCKET_VERSION} only; retry the handshake with Sec-WebSocket-Version: ${WEBSOCKET_VERSION}.`,
    `RFC 6455 §4.4: the request named version ${version}; the Sec-WebSocket-Version header of this answer lists the versions the gateway speaks.`,
    { version, supportedVersions: [WEBSOCKET_VERSION] },
    // RFC 9110 §15.5.22: a 426 names the protocol to upgrade to (Upgrade), which is a connection option (Connection).
    { "sec-websocket-version": WEBSOCKET_VERSION, upgrade: "websocket", connection: "upgrade" },
  );
}

/** The WebSocket handshake's request headers. */
export function handshakeOf(req: HttpRequest): HandshakeHeaders {
  return {
    upgrade: req.getHeader("upgrade"),
    connection: req.getHeader("connection"),
    key: req.getHeader("sec-websocket-key"),
    version: req.getHeader("sec-websocket-version"),
  };
}

/** Throws the refusal of a request that asks for a WebSocket with a handshake that cannot be switched (400, 426). */
export function refuseHandshake(handshake: HandshakeHeaders): void {
  if (!asksForWebSocket(handshake.upgrade)) return;
  const refusal = handshakeRefusal(handshake);
  if (refusal !== null) throw refusal;
}
