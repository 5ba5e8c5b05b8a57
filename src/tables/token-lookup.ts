/**
 * Token instances by address (api-extended.md §8-§9): the address hash table
 * of the token index, looked up with the 20 bytes of a `0x` + 40 hex address
 * in any letter case. Allocation-free apart from the parsed key.
 */
import { CHAINS, NATIVE_ADDRESS, SUPPORTED_CHAIN_IDS, type ChainId } from "../chains/chains.js";
import { ADDRESS_BYTES, instanceJson, type TokenIndexData } from "./token-index.js";
import { fnv1a } from "../util/fnv1a.js";

const HEX = "0123456789abcdef";

/** The 20 bytes of `0x` + 40 hex digits (any letter case), or null when the text is not such an address. */
export function parseAddress(text: string): Uint8Array | null {
  if (text.length !== 2 + 2 * ADDRESS_BYTES || text.charCodeAt(0) !== 0x30 || (text.charCodeAt(1) | 0x20) !== 0x78) return null;
  const out = new Uint8Array(ADDRESS_BYTES);
  for (let k = 0; k < ADDRESS_BYTES; k++) {
    const hi = nibble(text.charCodeAt(2 + 2 * k));
    const lo = nibble(text.charCodeAt(3 + 2 * k));
    if (hi < 0 || lo < 0) return null;
    out[k] = (hi << 4) | lo;
  }
  return out;
}

function nibble(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const lower = c | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x57;
  return -1;
}

/** Every instance with this address (at most one per chain), in no particular order. */
export function instancesWithAddress(ix: TokenIndexData, address: Uint8Array): number[] {
  const { addressSlots: slots, addressBytes, addressNext } = ix;
  const mask = slots.length - 1;
  let slot = hashAddressBytes(address, 0) & mask;
  for (;;) {
    const entry = slots[slot];
    if (entry === 0) return [];
    if (sameAddress(addressBytes, (entry - 1) * ADDRESS_BYTES, address, 0)) {
      const found: number[] = [];
      for (let e = entry; e !== 0; e = addressNext[e - 1]) found.push(e - 1);
      return found;
    }
    slot = (slot + 1) & mask;
  }
}

/** The instance of this address on this chain, or -1. */
export function instanceOnChain(ix: TokenIndexData, chainId: ChainId, address: Uint8Array): number {
  return instanceOnChainAt(ix, chainId, address, 0);
}

/** The instance on this chain of the address at bytes[at..at + 20], or -1 (allocation-free). */
export function instanceOnChainAt(ix: TokenIndexData, chainId: ChainId, bytes: Uint8Array, at: number): number {
  const { addressSlots: slots, addressBytes, addressNext } = ix;
  const mask = slots.length - 1;
  let slot = hashAddressBytes(bytes, at) & mask;
  for (;;) {
    const entry = slots[slot];
    if (entry === 0) return -1;
    if (sameAddress(addressBytes, (entry - 1) * ADDRESS_BYTES, bytes, at)) {
      for (let e = entry; e !== 0; e = addressNext[e - 1]) if (ix.chainId[e - 1] === chainId) return e - 1;
      return -1;
    }
    slot = (slot + 1) & mask;
  }
}

/** Lowercase `0x` + 40 hex address of instance i. */
export function instanceAddress(ix: TokenIndexData, i: number): string {
  let text = "0x";
  const base = i * ADDRESS_BYTES;
  for (let k = 0; k < ADDRESS_BYTES; k++) {
    const b = ix.addressBytes[base + k];
    text += HEX[b >> 4] + HEX[b & 15];
  }
  return text;
}

/** Compares the addresses of two instances (lowercase hex order). */
export function compareInstanceAddresses(ix: TokenIndexData, a: number, b: number): number {
  const bytes = ix.addressBytes;
  for (let k = 0; k < ADDRESS_BYTES; k++) {
    const d = bytes[a * ADDRESS_BYTES + k] - bytes[b * ADDRESS_BYTES + k];
    if (d !== 0) return d;
  }
  return 0;
}

/** Compares instance i's address with a lowercase address text. */
export function compareAddressWith(ix: TokenIndexData, i: number, address: string): number {
  const own = instanceAddress(ix, i);
  return own < address ? -1 : own > address ? 1 : 0;
}

const NATIVE = parseAddress(NATIVE_ADDRESS)!;
const WRAPPED = new Map<ChainId, Uint8Array>(SUPPORTED_CHAIN_IDS.map((id) => [id, parseAddress(CHAINS[id].wrappedNative)!]));

/**
 * The instance whose tracked price answers a price request: the token itself;
 * for the zero address without a native record, the chain's wrapped native token.
 */
export function priceInstance(ix: TokenIndexData, chainId: ChainId, address: Uint8Array): number {
  const own = instanceOnChain(ix, chainId, address);
  if (own >= 0 || !sameAddress(address, 0, NATIVE, 0)) return own;
  return instanceOnChain(ix, chainId, WRAPPED.get(chainId)!);
}

/** FNV-1a over 20 address bytes: the hash of the token index's address table (built by compile-token-lookups.ts). */
export function hashAddressBytes(bytes: Uint8Array, at: number): number {
  return fnv1a(bytes, at, at + ADDRESS_BYTES);
}

export function sameAddress(a: Uint8Array, aAt: number, b: Uint8Array, bAt: number): boolean {
  for (let k = 0; k < ADDRESS_BYTES; k++) if (a[aAt + k] !== b[bAt + k]) return false;
  return true;
}

/**
 * The SingleChainTokenInfo JSON of instance i (`data.token` of GET /v1/tokens/{chainId}/{tokenAddress}) in two
 * pieces: its metadata JSON without the closing brace, then `,"totalValuePooledUsd":<tvl>}`.
 */
export function tokenInfoChunks(ix: TokenIndexData, i: number): [Uint8Array, string] {
  const metadata = instanceJson(ix, "metadataJson", i);
  return [metadata.subarray(0, metadata.length - 1), `,"totalValuePooledUsd":${JSON.stringify(ix.tvl[i])}}`];
}
