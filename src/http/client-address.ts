/**
 * The client address of a request: the address the per-address limits
 * (failed authentication, requests without a key) count.
 *
 * Without TRUSTED_PROXIES it is the TCP peer, read as before (no other work).
 * With it, the address is found by walking the forwarding chain from the
 * gateway outwards, as long as each hop is trusted (docs/reverse-proxy.md,
 * "Client addresses behind a proxy"):
 * 1. the TCP peer; not trusted → it is the client;
 * 2. the source address of the PROXY protocol v2 frame, when the peer is
 *    trusted and sent one (uWS parses the frame; from an untrusted peer it is
 *    never read); not trusted → it is the client;
 * 3. the entries of `X-Forwarded-For` and of the `for=` parameters of
 *    `Forwarded` (RFC 7239), each read from the right (the entry the nearest
 *    proxy appended) to the left: the first address that is not trusted is the
 *    client. Every field of each header counts, in order (a proxy that adds a
 *    field of its own rather than appending to the client's is read right).
 * An entry that is not an address (`unknown`, an obfuscated identifier, an
 * element without `for=`, anything malformed) ends the walk at the last
 * trusted hop: the proxy that passed the entry on, never an address the
 * client wrote. When every entry is trusted the leftmost one is the client.
 * When both headers are present and their walks disagree, the last trusted
 * hop before them (the peer or PROXY source) is the client. Work is linear in
 * the header bytes, which MAX_HEADER_BYTES bounds.
 */
import { parseIp, toIpv6Bytes, type IpRanges } from "../util/ip-address.js";
import type { HttpRequest, HttpResponse } from "./uws.js";

/** Reads a request's client address: 4 or 16 bytes (IPv4 possibly IPv4-mapped). `req` must still be valid (synchronous part of the handler). */
export type ClientAddressReader = (res: HttpResponse, req: HttpRequest) => Uint8Array;

/** The reader for these trusted proxy ranges; with none (null or empty), the TCP peer, and nothing else is read. */
export function clientAddressReader(trusted: IpRanges | null): ClientAddressReader {
  if (trusted === null || trusted.count === 0) return (res) => new Uint8Array(res.getRemoteAddress());
  return (res, req) => {
    const peer = new Uint8Array(res.getRemoteAddress());
    if (!trusted.contains(peer)) return peer;
    let hop = peer;
    const proxied = res.getProxiedRemoteAddress();
    if (proxied.byteLength === 4 || proxied.byteLength === 16) {
      hop = new Uint8Array(proxied);
      if (!trusted.contains(hop)) return hop;
    }
    const xForwardedFor: string[] = [];
    const forwarded: string[] = [];
    req.forEach((name, value) => {
      if (name === "x-forwarded-for") xForwardedFor.push(value);
      else if (name === "forwarded") forwarded.push(value);
    });
    return clientFromHeaders(hop, xForwardedFor, forwarded, trusted);
  };
}

/** Marks an entry that is not an address (an element without `for=`, a field that does not parse). */
const NOT_AN_ADDRESS = "";

/**
 * The client address from the forwarding headers' fields (each header's
 * fields in the order received), given `hop`: the nearest hop, already known
 * to be trusted.
 */
export function clientFromHeaders(
  hop: Uint8Array,
  xForwardedFor: readonly string[],
  forwarded: readonly string[],
  trusted: IpRanges,
): Uint8Array {
  const xffEntries: string[] = [];
  for (const field of xForwardedFor) splitList(field, xffEntries);
  const forEntries: string[] = [];
  let anyFor = false;
  for (const field of forwarded) {
    const before = forEntries.length;
    const parsed = forwardedForValues(field, forEntries);
    if (parsed === "invalid") {
      forEntries.length = before;
      forEntries.push(NOT_AN_ADDRESS);
    } else if (parsed === "with-for") anyFor = true;
  }
  const fromXff = xffEntries.length > 0 ? walk(xffEntries, parseXffNode, hop, trusted) : null;
  const fromForwarded = anyFor ? walk(forEntries, parseForwardedNode, hop, trusted) : null;
  if (fromXff === null) return fromForwarded ?? hop;
  if (fromForwarded === null || sameAddress(fromXff, fromForwarded)) return fromXff;
  return hop;
}

/** From the right: the first untrusted address; at an entry that is not an address, the last trusted hop; all trusted: the leftmost. */
function walk(entries: readonly string[], parse: (entry: string) => Uint8Array | null, hop: Uint8Array, trusted: IpRanges): Uint8Array {
  let last = hop;
  for (let i = entries.length - 1; i >= 0; i--) {
    const address = parse(entries[i]);
    if (address === null) return last;
    if (!trusted.contains(address)) return address;
    last = address;
  }
  return last;
}

function sameAddress(a: Uint8Array, b: Uint8Array): boolean {
  const x = toIpv6Bytes(a);
  const y = toIpv6Bytes(b);
  if (x === null || y === null) return false;
  for (let i = 0; i < 16; i++) if (x[i] !== y[i]) return false;
  return true;
}

function isOws(c: number): boolean {
  return c === 0x20 || c === 0x09;
}

/** Appends the elements of a comma-separated list, trimmed; empty elements are ignored (RFC 9110 §5.6.1). */
function splitList(field: string, out: string[]): void {
  let start = 0;
  for (let i = 0; i <= field.length; i++) {
    if (i < field.length && field.charCodeAt(i) !== 0x2c) continue;
    let s = start;
    let e = i;
    while (s < e && isOws(field.charCodeAt(s))) s++;
    while (e > s && isOws(field.charCodeAt(e - 1))) e--;
    if (e > s) out.push(field.slice(s, e));
    start = i + 1;
  }
}

/** `1.2.3.4`, `1.2.3.4:port`, `2001:db8::1`, `[2001:db8::1]`, `[2001:db8::1]:port`; null for anything else. */
function parseXffNode(entry: string): Uint8Array | null {
  if (entry.charCodeAt(0) === 0x5b /* [ */) return parseBracketed(entry, false);
  const colon = entry.indexOf(":");
  if (colon >= 0 && entry.indexOf(":", colon + 1) < 0) {
    // One colon: IPv4 with a port (no IPv6 address has a single colon).
    return isPort(entry, colon + 1, false) ? ipv4Only(entry, 0, colon) : null;
  }
  return parseIp(entry);
}

/**
 * An RFC 7239 node (the unquoted value of `for=`): `1.2.3.4`, `1.2.3.4:port`,
 * `"[2001:db8::1]"`, `"[2001:db8::1]:port"`; a port may be obfuscated
 * (`_abc`). `unknown`, obfuscated identifiers and anything else: null.
 */
function parseForwardedNode(value: string): Uint8Array | null {
  if (value.charCodeAt(0) === 0x5b) return parseBracketed(value, true);
  const colon = value.indexOf(":");
  if (colon < 0) return ipv4Only(value, 0, value.length);
  return isPort(value, colon + 1, true) ? ipv4Only(value, 0, colon) : null;
}

/** `[IPv6]` or `[IPv6]:port`. */
function parseBracketed(text: string, obfuscatedPort: boolean): Uint8Array | null {
  const close = text.indexOf("]");
  if (close < 0) return null;
  if (close + 1 < text.length && (text.charCodeAt(close + 1) !== 0x3a || !isPort(text, close + 2, obfuscatedPort))) return null;
  if (text.indexOf(":", 1) > close || text.indexOf(":", 1) < 0) return null; // IPv6 only inside brackets
  return parseIp(text, 1, close);
}

function ipv4Only(text: string, start: number, end: number): Uint8Array | null {
  for (let i = start; i < end; i++) if (text.charCodeAt(i) === 0x3a) return null;
  return parseIp(text, start, end);
}

/** `text[start..]` is a port: 1-5 digits up to 65535, or (RFC 7239) an obfuscated port `_` 1*(ALPHA / DIGIT / "." / "_" / "-"). */
function isPort(text: string, start: number, obfuscated: boolean): boolean {
  const n = text.length - start;
  if (n < 1) return false;
  if (obfuscated && text.charCodeAt(start) === 0x5f) {
    if (n < 2) return false;
    for (let i = start + 1; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (!(isAlnum(c) || c === 0x2e || c === 0x5f || c === 0x2d)) return false;
    }
    return true;
  }
  if (n > 5) return false;
  let value = 0;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
    value = value * 10 + (c - 0x30);
  }
  return value <= 65535;
}

function isAlnum(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

/** tchar (RFC 9110 §5.6.2). */
function isTchar(c: number): boolean {
  return isAlnum(c) || (c < 0x80 && "!#$%&'*+-.^_`|~".includes(String.fromCharCode(c)));
}

/**
 * Appends one entry per element of a `Forwarded` field: the (unquoted) value
 * of its `for` parameter, or NOT_AN_ADDRESS for an element without one or
 * with `for` twice. Empty elements are ignored. Returns "invalid" when the
 * field does not parse (the caller then counts the whole field as one entry
 * that is not an address), "with-for" when some element has `for=`.
 * Whitespace is tolerated around `,` and `;`, not around `=`.
 */
function forwardedForValues(field: string, out: string[]): "invalid" | "without-for" | "with-for" {
  const n = field.length;
  let i = 0;
  let anyFor = false;
  while (i <= n) {
    let forValue: string | null = null;
    let forCount = 0;
    let pairs = 0;
    for (;;) {
      while (i < n && isOws(field.charCodeAt(i))) i++;
      if (i >= n || field.charCodeAt(i) === 0x2c /* , */) break;
      if (field.charCodeAt(i) === 0x3b /* ; */) {
        i++;
        continue;
      }
      const nameStart = i;
      while (i < n && isTchar(field.charCodeAt(i))) i++;
      if (i === nameStart || i >= n || field.charCodeAt(i) !== 0x3d /* = */) return "invalid";
      const isFor = i - nameStart === 3 && field.slice(nameStart, i).toLowerCase() === "for";
      i++;
      let value: string;
      if (i < n && field.charCodeAt(i) === 0x22 /* " */) {
        i++;
        let text = "";
        let closed = false;
        while (i < n) {
          const c = field.charCodeAt(i);
          if (c === 0x22) {
            closed = true;
            i++;
            break;
          }
          if (c === 0x5c /* \ */) {
            if (i + 1 >= n) return "invalid";
            i++;
          } else if (c < 0x20 ? c !== 0x09 : c === 0x7f) return "invalid";
          text += field[i];
          i++;
        }
        if (!closed) return "invalid";
        value = text;
      } else {
        const valueStart = i;
        for (; i < n; i++) {
          const c = field.charCodeAt(i);
          if (c <= 0x20 || c === 0x7f || c === 0x22 || c === 0x2c || c === 0x3b) break;
        }
        if (i === valueStart) return "invalid";
        value = field.slice(valueStart, i);
      }
      pairs++;
      if (isFor) {
        forCount++;
        forValue = value;
      }
      while (i < n && isOws(field.charCodeAt(i))) i++;
      if (i < n && field.charCodeAt(i) !== 0x3b && field.charCodeAt(i) !== 0x2c) return "invalid";
    }
    if (pairs > 0) {
      if (forCount > 0) anyFor = true;
      out.push(forCount === 1 && forValue !== "" ? forValue! : NOT_AN_ADDRESS);
    }
    i++; // past the comma (or the end)
  }
  return anyFor ? "with-for" : "without-for";
}
