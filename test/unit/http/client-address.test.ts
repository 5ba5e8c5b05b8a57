/**
 * TRUSTED_PROXIES as pure logic: IP text parsing, CIDR ranges compiled into a
 * matcher over 16 bytes (IPv4 as IPv4-mapped), and the walk of the forwarding
 * headers (X-Forwarded-For, Forwarded) from the right.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../../src/config/config.js";
import { clientFromHeaders } from "../../../src/http/client-address.js";
import { IpRanges, parseIp, toIpv6Bytes } from "../../../src/util/ip-address.js";

const hex = (bytes: Uint8Array | null) => (bytes === null ? null : Buffer.from(bytes).toString("hex"));
/** The 16-byte form of an address in text, as hex (the expected values are written independently of parseIp below). */
const v4 = (a: number, b: number, c: number, d: number) =>
  `00000000000000000000ffff${[a, b, c, d].map((x) => x.toString(16).padStart(2, "0")).join("")}`;

describe("parseIp", () => {
  it("IPv4 dotted quads, as IPv4-mapped IPv6", () => {
    expect(hex(parseIp("192.0.2.7"))).toBe(v4(192, 0, 2, 7));
    expect(hex(parseIp("0.0.0.0"))).toBe(v4(0, 0, 0, 0));
    expect(hex(parseIp("255.255.255.255"))).toBe(v4(255, 255, 255, 255));
  });

  it("IPv6 in every RFC 4291 text form, with an IPv4 tail, any case", () => {
    expect(hex(parseIp("2001:db8::1"))).toBe("20010db8000000000000000000000001");
    expect(hex(parseIp("2001:DB8:0:0:0:0:0:1"))).toBe("20010db8000000000000000000000001");
    expect(hex(parseIp("::"))).toBe("00000000000000000000000000000000");
    expect(hex(parseIp("::1"))).toBe("00000000000000000000000000000001");
    expect(hex(parseIp("fe80::"))).toBe("fe800000000000000000000000000000");
    expect(hex(parseIp("1:2:3:4:5:6:7:8"))).toBe("00010002000300040005000600070008");
    expect(hex(parseIp("1::8"))).toBe("00010000000000000000000000000008");
    expect(hex(parseIp("::ffff:10.1.2.3"))).toBe(v4(10, 1, 2, 3));
    expect(hex(parseIp("64:ff9b::192.0.2.33"))).toBe("0064ff9b0000000000000000c0000221");
    expect(hex(parseIp("1:2:3:4:5:6:1.2.3.4"))).toBe("00010002000300040005000601020304");
  });

  it("refuses anything that is not exactly one address", () => {
    for (const text of [
      "",
      "1",
      "1.2.3",
      "1.2.3.4.5",
      "256.0.0.1",
      "01.2.3.4", // a leading zero: octal or decimal? refused
      "1.2.3.4 ",
      " 1.2.3.4",
      "1.2.3.4:80",
      "1..2.3",
      "+1.2.3.4",
      "a.b.c.d",
      ":",
      ":::",
      "1:2",
      ":1::2",
      "1::2::3",
      "1:2:3:4:5:6:7:8:9",
      "1:2:3:4:5:6:7::8", // `::` standing for no group
      "12345::",
      "1::g",
      "1:",
      "fe80::1%eth0",
      "[::1]",
      "::1.2.3.4.5",
      "1:2:3:4:5:6:7:1.2.3.4",
      "unknown",
    ]) {
      expect(parseIp(text), text).toBeNull();
    }
  });

  it("a sub-range of the text", () => {
    expect(hex(parseIp("[2001:db8::2]:80", 1, 12))).toBe("20010db8000000000000000000000002");
  });

  it("toIpv6Bytes maps 4-byte IPv4 and keeps 16 bytes", () => {
    expect(hex(toIpv6Bytes(new Uint8Array([10, 0, 0, 1])))).toBe(v4(10, 0, 0, 1));
    const v6 = parseIp("2001:db8::1")!;
    expect(toIpv6Bytes(v6)).toBe(v6);
    expect(toIpv6Bytes(new Uint8Array(0))).toBeNull();
  });
});

describe("IpRanges", () => {
  const bytes = (text: string) => parseIp(text)!;
  const ipv4 = (a: number, b: number, c: number, d: number) => new Uint8Array([a, b, c, d]);

  it("IPv4 ranges match 4-byte peers and IPv4-mapped 16-byte peers alike", () => {
    const r = IpRanges.parse("10.0.0.0/8, 192.168.1.0/24");
    expect(r.count).toBe(2);
    expect(r.contains(ipv4(10, 255, 0, 1))).toBe(true);
    expect(r.contains(bytes("::ffff:10.255.0.1"))).toBe(true);
    expect(r.contains(ipv4(11, 0, 0, 1))).toBe(false);
    expect(r.contains(ipv4(192, 168, 1, 200))).toBe(true);
    expect(r.contains(ipv4(192, 168, 2, 1))).toBe(false);
    // The same 32 bits as an IPv6 address outside ::ffff:0:0/96 are not IPv4.
    expect(r.contains(bytes("::a00:1"))).toBe(false);
  });

  it("prefixes on every bit boundary: /0, /1, /31, /32, /127, /128, mid-byte", () => {
    expect(IpRanges.parse("0.0.0.0/0").contains(ipv4(203, 0, 113, 9))).toBe(true);
    expect(IpRanges.parse("0.0.0.0/0").contains(bytes("2001:db8::1"))).toBe(false); // IPv4 only
    expect(IpRanges.parse("::/0").contains(bytes("2001:db8::1"))).toBe(true);
    expect(IpRanges.parse("::/0").contains(ipv4(1, 2, 3, 4))).toBe(true); // every address, mapped ones too
    expect(IpRanges.parse("128.0.0.0/1").contains(ipv4(127, 255, 255, 255))).toBe(false);
    expect(IpRanges.parse("128.0.0.0/1").contains(ipv4(128, 0, 0, 0))).toBe(true);
    expect(IpRanges.parse("10.0.0.2/31").contains(ipv4(10, 0, 0, 3))).toBe(true);
    expect(IpRanges.parse("10.0.0.2/31").contains(ipv4(10, 0, 0, 4))).toBe(false);
    expect(IpRanges.parse("10.0.0.2/32").contains(ipv4(10, 0, 0, 3))).toBe(false);
    expect(IpRanges.parse("10.0.0.2").contains(ipv4(10, 0, 0, 2))).toBe(true);
    expect(IpRanges.parse("172.16.0.0/12").contains(ipv4(172, 31, 255, 255))).toBe(true);
    expect(IpRanges.parse("172.16.0.0/12").contains(ipv4(172, 32, 0, 0))).toBe(false);
    expect(IpRanges.parse("2001:db8::/127").contains(bytes("2001:db8::1"))).toBe(true);
    expect(IpRanges.parse("2001:db8::/127").contains(bytes("2001:db8::2"))).toBe(false);
    expect(IpRanges.parse("2001:db8::1/128").contains(bytes("2001:db8::1"))).toBe(true);
    expect(IpRanges.parse("2001:db8::").contains(bytes("2001:db8::1"))).toBe(false);
    expect(IpRanges.parse("2001:db8:8000::/33").contains(bytes("2001:db8:ffff::1"))).toBe(true);
    expect(IpRanges.parse("2001:db8:8000::/33").contains(bytes("2001:db8:7fff::1"))).toBe(false);
    expect(IpRanges.parse("::ffff:10.0.0.0/104").contains(ipv4(10, 9, 9, 9))).toBe(true);
  });

  it("separators: commas and whitespace; an empty list contains nothing", () => {
    expect(IpRanges.parse(" 10.0.0.1,\t::1  192.0.2.0/24 ,").ranges).toEqual(["10.0.0.1", "::1", "192.0.2.0/24"]);
    const none = IpRanges.parse(" , ");
    expect(none.count).toBe(0);
    expect(none.contains(ipv4(10, 0, 0, 1))).toBe(false);
  });

  it("addresses of other lengths are never contained", () => {
    expect(IpRanges.parse("::/0").contains(new Uint8Array(0))).toBe(false);
    expect(IpRanges.parse("::/0").contains(new Uint8Array(5))).toBe(false);
  });

  it("refuses bad entries with a message naming the entry", () => {
    expect(() => IpRanges.parse("10.0.0.0/8, nginx")).toThrow(/"nginx" is not an IPv4 or IPv6 address/);
    expect(() => IpRanges.parse("10.0.0.0/33")).toThrow(/"10.0.0.0\/33": the prefix length of an IPv4 range must be 0-32/);
    expect(() => IpRanges.parse("::/129")).toThrow(/must be 0-128/);
    expect(() => IpRanges.parse("10.0.0.0/08")).toThrow(/prefix length/);
    expect(() => IpRanges.parse("10.0.0.0/")).toThrow(/prefix length/);
    expect(() => IpRanges.parse("10.0.0.0/8/8")).toThrow(/prefix length/);
    expect(() => IpRanges.parse("10.0.0.1/8")).toThrow(
      /"10.0.0.1\/8" has address bits set past its \/8 prefix; write the range's first address \(10.0.0.0\/8\)/,
    );
    expect(() => IpRanges.parse("2001:db8::1/32")).toThrow(/\(2001:db8:0:0:0:0:0:0\/32\)/);
    expect(() => IpRanges.parse("fe80::1%eth0")).toThrow(/not an IPv4 or IPv6 address/);
    expect(() => IpRanges.parse("[::1]")).toThrow(/not an IPv4 or IPv6 address/);
    expect(() => IpRanges.parse("1.2.3.4:80")).toThrow(/not an IPv4 or IPv6 address/);
  });
});

describe("clientFromHeaders: the walk from the right", () => {
  // Trusted: the proxies 10.0.0.0/8 and 2001:db8:ffff::/48.
  const trusted = IpRanges.parse("10.0.0.0/8, 2001:db8:ffff::/48");
  const peer = new Uint8Array([10, 0, 0, 1]);
  const client = (xff: string[], forwarded: string[] = []) => hex(clientFromHeaders(peer, xff, forwarded, trusted));
  const PEER = "0a000001"; // the fallback: the trusted hop before the headers, as given (4 bytes)

  it("no header: the peer", () => {
    expect(client([])).toBe(PEER);
    expect(client([" , ,"])).toBe(PEER); // only empty list elements
  });

  it("X-Forwarded-For: the rightmost untrusted entry, past trusted ones", () => {
    expect(client(["203.0.113.9"])).toBe(v4(203, 0, 113, 9));
    expect(client(["198.51.100.1, 203.0.113.9"])).toBe(v4(203, 0, 113, 9)); // the client's own entry on the left is never read
    expect(client(["198.51.100.1, 203.0.113.9, 10.0.0.7"])).toBe(v4(203, 0, 113, 9));
    expect(client(["198.51.100.1,203.0.113.9,\t10.0.0.7 , 10.1.1.1"])).toBe(v4(203, 0, 113, 9));
    expect(client(["2001:db8::5, 2001:db8:ffff::1"])).toBe("20010db8000000000000000000000005");
  });

  it("every entry trusted: the leftmost", () => {
    expect(client(["10.0.0.9, 10.0.0.8"])).toBe(v4(10, 0, 0, 9));
  });

  it("several X-Forwarded-For fields are one list in order: a proxy's own field after the client's is read first", () => {
    expect(client(["198.51.100.66", "203.0.113.9"])).toBe(v4(203, 0, 113, 9));
    expect(client(["198.51.100.66, 10.0.0.3", "10.0.0.2"])).toBe(v4(198, 51, 100, 66));
  });

  it("ports and brackets in X-Forwarded-For", () => {
    expect(client(["203.0.113.9:51234"])).toBe(v4(203, 0, 113, 9));
    expect(client(["[2001:db8::5]:443"])).toBe("20010db8000000000000000000000005");
    expect(client(["[2001:db8::5]"])).toBe("20010db8000000000000000000000005");
    expect(client(["::ffff:203.0.113.9"])).toBe(v4(203, 0, 113, 9));
  });

  it("an entry that is not an address ends the walk at the last trusted hop, never at an address the client wrote", () => {
    // The client wrote "198.51.100.1, garbage"; the trusted proxies appended 10.0.0.7.
    expect(client(["198.51.100.1, garbage, 10.0.0.7"])).toBe(v4(10, 0, 0, 7));
    expect(client(["198.51.100.1, unknown"])).toBe(PEER);
    expect(client(["unix:"])).toBe(PEER);
    for (const bad of [
      "203.0.113.9:99999",
      "203.0.113.9:",
      "203.0.113.9:x",
      "[2001:db8::5",
      "[2001:db8::5]x",
      "[203.0.113.9]",
      "2001:db8::5%eth0",
      "203.0.113.9 203.0.113.8",
      "1.2.3.4.5",
      "_hidden",
    ]) {
      expect(client([`198.51.100.1, ${bad}`]), bad).toBe(PEER);
    }
  });

  it("Forwarded: for= from the right, quoted IPv6 with a port, case-insensitive names, other parameters ignored", () => {
    expect(client([], ["for=203.0.113.9"])).toBe(v4(203, 0, 113, 9));
    expect(client([], ['for="[2001:db8::1]:1234"'])).toBe("20010db8000000000000000000000001");
    expect(client([], ['For="[2001:db8::1]"'])).toBe("20010db8000000000000000000000001");
    expect(client([], ['for="203.0.113.9:4711";proto=https;by=10.0.0.1'])).toBe(v4(203, 0, 113, 9));
    expect(client([], ["for=198.51.100.1, for=203.0.113.9;proto=http, for=10.0.0.5"])).toBe(v4(203, 0, 113, 9));
    expect(client([], ["for=198.51.100.1", "for=203.0.113.9", "for=10.0.0.5"])).toBe(v4(203, 0, 113, 9));
    expect(client([], ['for="203.0.113.9:_abc" ; proto=https'])).toBe(v4(203, 0, 113, 9));
    expect(client([], ['for="\\203.0.113.9"'])).toBe(v4(203, 0, 113, 9)); // a quoted-pair
    expect(client([], ["for=10.0.0.9, for=10.0.0.8"])).toBe(v4(10, 0, 0, 9));
  });

  it("Forwarded: unknown and obfuscated identifiers, elements without for=, for= twice, and bare IPv6 end at the last trusted hop", () => {
    expect(client([], ["for=198.51.100.1, for=unknown"])).toBe(PEER);
    expect(client([], ["for=198.51.100.1, for=_hidden, for=10.0.0.5"])).toBe(v4(10, 0, 0, 5));
    expect(client([], ["for=198.51.100.1, proto=https"])).toBe(PEER);
    expect(client([], ["for=198.51.100.1, for=203.0.113.9;for=203.0.113.8"])).toBe(PEER);
    expect(client([], ['for=198.51.100.1, for=""'])).toBe(PEER);
    expect(client([], ['for="2001:db8::1"'])).toBe(PEER); // RFC 7239: IPv6 in brackets
    expect(client([], ["for=198.51.100.1, for=[2001:db8::1]"])).toBe("20010db8000000000000000000000001"); // unquoted brackets: accepted
  });

  it("Forwarded without any for= counts as absent", () => {
    expect(client([], ["proto=https;host=example.com"])).toBe(PEER);
    expect(client(["203.0.113.9"], ["proto=https"])).toBe(v4(203, 0, 113, 9));
  });

  it("a Forwarded field that does not parse is one entry that is not an address; fields the proxies added after it are still read", () => {
    for (const bad of [
      'for="203.0.113.9',
      "for=203.0.113.9;",
      "for 203.0.113.9",
      "=x",
      "for=203.0.113.9 x",
      'for="a\u0001"',
      "for=",
      "for=a\\",
    ]) {
      if (bad === "for=203.0.113.9;") {
        // A trailing `;` is an empty pair: the element stands.
        expect(client([], [bad])).toBe(v4(203, 0, 113, 9));
        continue;
      }
      expect(client([], [bad]), bad).toBe(PEER);
      expect(client([], [bad, "for=10.0.0.7"]), bad).toBe(v4(10, 0, 0, 7));
      expect(client([], [bad, "for=203.0.113.50"]), bad).toBe(v4(203, 0, 113, 50));
    }
    // A client's unterminated quote swallows what a proxy appends to the same field: the whole field is out.
    expect(client([], ['for="198.51.100.1, for=203.0.113.9'])).toBe(PEER);
  });

  it("both headers: used when they agree; when they disagree, the hop before them", () => {
    expect(client(["203.0.113.9"], ["for=203.0.113.9"])).toBe(v4(203, 0, 113, 9));
    expect(client(["203.0.113.9"], ['for="[::ffff:203.0.113.9]"'])).toBe(v4(203, 0, 113, 9));
    expect(client(["203.0.113.9"], ["for=198.51.100.1"])).toBe(PEER);
    expect(client(["203.0.113.9"], ["for=unknown"])).toBe(PEER);
  });

  it("the hop may be an IPv6 PROXY source: the fallback is that hop", () => {
    const hop = parseIp("2001:db8:ffff::9")!;
    expect(hex(clientFromHeaders(hop, ["garbage"], [], trusted))).toBe("20010db8ffff00000000000000000009");
  });

  it("linear in the header size: a 64 KiB list of trusted entries is walked whole", () => {
    const entries = Array.from({ length: 5000 }, (_, i) => `10.0.${i >> 8}.${i & 255}`);
    expect(client([`203.0.113.9, ${entries.join(", ")}`])).toBe(v4(203, 0, 113, 9));
    const quoted = Array.from({ length: 3000 }, (_, i) => `for="10.1.${i >> 8}.${i & 255}:80"`).join(", ");
    expect(client([], [`for=203.0.113.9, ${quoted}`])).toBe(v4(203, 0, 113, 9));
  });
});

describe("TRUSTED_PROXIES in the configuration", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "lgw-trusted-"));
  const load = (env: Record<string, string>, argv: string[] = []) => loadConfig(argv, { SNAPSHOT_DIR: dir, ...env });

  it("empty by default; a list of ranges as given; the flag wins", () => {
    expect(load({}).trustedProxies).toEqual([]);
    expect(load({ TRUSTED_PROXIES: "" }).trustedProxies).toEqual([]);
    expect(load({ TRUSTED_PROXIES: "10.0.0.0/8, 2001:db8::/32 127.0.0.1" }).trustedProxies).toEqual([
      "10.0.0.0/8",
      "2001:db8::/32",
      "127.0.0.1",
    ]);
    expect(load({ TRUSTED_PROXIES: "10.0.0.0/8" }, ["--trusted-proxies=192.0.2.0/24"]).trustedProxies).toEqual(["192.0.2.0/24"]);
  });

  it("a bad entry stops start-up with a message naming the setting and the entry", () => {
    expect(() => load({ TRUSTED_PROXIES: "10.0.0.0/8,10.0.0.256" })).toThrow(ConfigError);
    expect(() => load({ TRUSTED_PROXIES: "10.0.0.0/8,10.0.0.256" })).toThrow(
      /^TRUSTED_PROXIES: "10.0.0.256" is not an IPv4 or IPv6 address/,
    );
    expect(() => load({}, ["--trusted-proxies", "10.0.0.0/40"])).toThrow(
      /^--trusted-proxies: "10.0.0.0\/40": the prefix length of an IPv4 range must be 0-32/,
    );
  });
});
