/**
 * IP addresses as 16 bytes (IPv4 as IPv4-mapped IPv6, ::ffff:a.b.c.d, the
 * form the address tables use), strict text parsing, and CIDR ranges compiled
 * once into a matcher over those 16 bytes.
 *
 * Text forms accepted: dotted-quad IPv4 (four decimal parts 0-255, no leading
 * zeros: `010.0.0.1` is refused rather than guessed octal or decimal) and
 * RFC 4291 IPv6 (hex groups, one `::`, an IPv4 tail); no zone (`%eth0`), no
 * brackets, no port.
 */

/** The 16-byte form of an address as a socket reports it (4 or 16 bytes); null for any other length. */
export function toIpv6Bytes(address: Uint8Array): Uint8Array | null {
  if (address.length === 16) return address;
  if (address.length !== 4) return null;
  const out = new Uint8Array(16);
  out[10] = 0xff;
  out[11] = 0xff;
  out.set(address, 12);
  return out;
}

/** The address in `text[start, end)`, as 16 bytes; null when it is not exactly one IPv4 or IPv6 address. */
export function parseIp(text: string, start = 0, end = text.length): Uint8Array | null {
  if (end - start < 2 || end - start > 45) return null;
  for (let i = start; i < end; i++) {
    if (text.charCodeAt(i) === 0x3a /* : */) return parseIpv6(text, start, end);
  }
  const out = new Uint8Array(16);
  out[10] = 0xff;
  out[11] = 0xff;
  return parseIpv4Into(text, start, end, out, 12) ? out : null;
}

/** Writes the dotted-quad IPv4 address in `text[start, end)` at `out[at..at+4)`; false when it is not one. */
function parseIpv4Into(text: string, start: number, end: number, out: Uint8Array, at: number): boolean {
  let part = 0;
  let value = 0;
  let digits = 0;
  for (let i = start; i <= end; i++) {
    const c = i === end ? 0x2e : text.charCodeAt(i);
    if (c === 0x2e /* . */) {
      if (digits === 0 || part > 3) return false;
      out[at + part++] = value;
      value = 0;
      digits = 0;
    } else if (c >= 0x30 && c <= 0x39) {
      if (digits > 0 && value === 0) return false; // a leading zero
      value = value * 10 + (c - 0x30);
      if (++digits > 3 || value > 255) return false;
    } else return false;
  }
  return part === 4;
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  return -1;
}

function parseIpv6(text: string, start: number, end: number): Uint8Array | null {
  const out = new Uint8Array(16);
  let at = 0; // bytes written
  let gap = -1; // where `::` stands, in bytes written before it
  let i = start;
  if (text.charCodeAt(i) === 0x3a) {
    if (text.charCodeAt(i + 1) !== 0x3a) return null; // a lone leading colon
    gap = 0;
    i += 2;
    if (i === end) return out; // "::"
  }
  while (i < end) {
    if (at === 16) return null;
    // One group: up to four hex digits, or the dotted IPv4 tail.
    const groupStart = i;
    let value = 0;
    let digits = 0;
    while (i < end) {
      const h = hexValue(text.charCodeAt(i));
      if (h < 0) break;
      value = (value << 4) | h;
      i++;
      digits++;
    }
    if (i < end && text.charCodeAt(i) === 0x2e) {
      // The IPv4 tail: the rest of the text, in the last four bytes.
      if (at > 12 || !parseIpv4Into(text, groupStart, end, out, at)) return null;
      at += 4;
      i = end;
      break;
    }
    if (digits === 0 || digits > 4) return null;
    out[at++] = value >> 8;
    out[at++] = value & 0xff;
    if (i === end) break;
    if (text.charCodeAt(i) !== 0x3a) return null; // any other character (a zone's %, a bracket, …)
    i++;
    if (i < end && text.charCodeAt(i) === 0x3a) {
      if (gap >= 0) return null; // a second `::`
      gap = at;
      i++;
    } else if (i === end) return null; // a trailing single colon
  }
  if (gap < 0) return at === 16 ? out : null;
  if (at === 16) return null; // `::` must stand for at least one group
  // Move what followed the `::` to the end; zeros fill the gap.
  const tail = at - gap;
  out.copyWithin(16 - tail, gap, at);
  out.fill(0, gap, 16 - tail);
  return out;
}

/** A list of CIDR ranges (IPv4 and IPv6), compiled into masked words of the 16-byte form. */
export class IpRanges {
  /** Per range: four address words, then four mask words. */
  private readonly words: Int32Array;
  readonly count: number;

  private constructor(
    /** The ranges as given (trimmed). */
    readonly ranges: readonly string[],
    words: Int32Array,
  ) {
    this.words = words;
    this.count = ranges.length;
  }

  /**
   * Parses a list of ranges separated by commas and/or whitespace, each
   * `address/prefix` or a bare address (one host). Throws a RangeError naming
   * the first bad entry: not an address, a prefix out of range, or bits set
   * past the prefix (`10.0.0.1/8`: most likely a typo of `10.0.0.0/8`).
   */
  static parse(text: string): IpRanges {
    const entries = text.split(/[\s,]+/).filter((e) => e !== "");
    const words = new Int32Array(entries.length * 8);
    entries.forEach((entry, n) => {
      const slash = entry.indexOf("/");
      const addressText = slash < 0 ? entry : entry.slice(0, slash);
      const address = parseIp(addressText);
      if (address === null)
        throw new RangeError(`"${entry}" is not an IPv4 or IPv6 address or CIDR range (e.g. 10.0.0.0/8, 2001:db8::/32)`);
      const ipv4 = !addressText.includes(":");
      const maxPrefix = ipv4 ? 32 : 128;
      let prefix = maxPrefix;
      if (slash >= 0) {
        const prefixText = entry.slice(slash + 1);
        if (!/^(0|[1-9][0-9]{0,2})$/.test(prefixText) || Number(prefixText) > maxPrefix) {
          throw new RangeError(`"${entry}": the prefix length of an ${ipv4 ? "IPv4" : "IPv6"} range must be 0-${maxPrefix}`);
        }
        prefix = Number(prefixText);
      }
      const bits = ipv4 ? 96 + prefix : prefix; // in the 16-byte form
      const base = n * 8;
      for (let w = 0; w < 4; w++) {
        const maskBits = Math.min(32, Math.max(0, bits - w * 32));
        const mask = maskBits === 0 ? 0 : (0xffffffff << (32 - maskBits)) | 0;
        const word = wordAt(address, w);
        if ((word & ~mask) !== 0) {
          throw new RangeError(
            `"${entry}" has address bits set past its /${prefix} prefix; write the range's first address (${suggestNetwork(address, prefix, ipv4)})`,
          );
        }
        words[base + w] = word;
        words[base + 4 + w] = mask;
      }
    });
    return new IpRanges(entries, words);
  }

  /** Whether the address (4 bytes, or 16 bytes with IPv4 as IPv4-mapped) is in one of the ranges. */
  contains(address: Uint8Array): boolean {
    const n = address.length;
    let k0: number, k1: number, k2: number, k3: number;
    if (n === 16) {
      k0 = wordAt(address, 0);
      k1 = wordAt(address, 1);
      k2 = wordAt(address, 2);
      k3 = wordAt(address, 3);
    } else if (n === 4) {
      k0 = 0;
      k1 = 0;
      k2 = 0xffff;
      k3 = (address[0] << 24) | (address[1] << 16) | (address[2] << 8) | address[3];
    } else return false;
    const words = this.words;
    for (let base = 0; base < words.length; base += 8) {
      if (
        (k0 & words[base + 4]) === words[base] &&
        (k1 & words[base + 5]) === words[base + 1] &&
        (k2 & words[base + 6]) === words[base + 2] &&
        (k3 & words[base + 7]) === words[base + 3]
      ) {
        return true;
      }
    }
    return false;
  }
}

function wordAt(bytes: Uint8Array, w: number): number {
  const i = w * 4;
  return (bytes[i] << 24) | (bytes[i + 1] << 16) | (bytes[i + 2] << 8) | bytes[i + 3];
}

/** The first address of the range, as text, for the error message of a range with host bits set. */
function suggestNetwork(address: Uint8Array, prefix: number, ipv4: boolean): string {
  const bits = ipv4 ? 96 + prefix : prefix;
  const network = address.slice();
  for (let bit = bits; bit < 128; bit++) network[bit >> 3] &= ~(0x80 >> (bit & 7));
  if (ipv4) return `${network[12]}.${network[13]}.${network[14]}.${network[15]}/${prefix}`;
  const groups: string[] = [];
  for (let g = 0; g < 8; g++) groups.push(((network[g * 2] << 8) | network[g * 2 + 1]).toString(16));
  return `${groups.join(":")}/${prefix}`;
}
