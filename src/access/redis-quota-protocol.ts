/**
 * What the gateway keeps in Redis for QUOTA_STORE=redis, and how it asks: two
 * Lua scripts (one round trip per request, atomic in Redis), the names of the
 * counters, and what a reply means. Pure: no client, no clock of its own.
 *
 * Counters are fixed windows aligned to the Unix epoch on REDIS's clock (the
 * scripts read TIME), so every instance agrees on the window whatever its own
 * clock says:
 * - `<prefix>:q:<keyId>:<windowIndex>`: requests of a key in a window of its
 *   quota (INCR, expiring when the window ends);
 * - `<prefix>:a:<address>:<windowIndex>`: failed authentications of a client
 *   address in a window of FAILED_AUTH_LIMIT.
 * The scripts receive the counters' names without the window index (as KEYS)
 * and append it: they touch only names derived from their KEYS, which a single
 * Redis server (or a primary with replicas) runs as given; Redis Cluster, which
 * would need both counters in one hash slot, is not supported.
 */
import type { RateLimitDecision } from "./rate-limiter.js";

/** The window index of Redis's clock, and the milliseconds left in it. Needs Redis 5+ (effect replication of TIME). */
const WINDOW_OF = `
local function window(windowMs)
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  return string.format('%d', math.floor(now / windowMs)), windowMs - now % windowMs
end
`;

/**
 * A keyed request. KEYS[1]: the address's failed-authentication counter name
 * ("" for a key already confirmed valid: no address check), KEYS[2]: the key's
 * quota counter name. ARGV: failed-authentication limit,
 * its window (ms), the quota's window (ms). Returns {-1, ms left in the
 * address's window} when the address is over its failed-authentication budget
 * (nothing counted), else {the key's count in this window including this
 * request, ms left in the window}.
 */
export const ADMIT_SCRIPT = `${WINDOW_OF}
if KEYS[1] ~= '' then
  local addressWindow, addressLeft = window(tonumber(ARGV[2]))
  local failed = tonumber(redis.call('GET', KEYS[1] .. ':' .. addressWindow) or '0')
  if failed >= tonumber(ARGV[1]) then return {-1, addressLeft} end
end
local quotaWindow, quotaLeft = window(tonumber(ARGV[3]))
local counter = KEYS[2] .. ':' .. quotaWindow
local count = redis.call('INCR', counter)
if count == 1 then redis.call('PEXPIRE', counter, quotaLeft) end
return {count, quotaLeft}
`;

/**
 * A failed authentication. KEYS[1]: the address's failed-authentication
 * counter name; ARGV[1]: its window (ms). Returns {the address's failures in
 * this window including this one, ms left in the window}.
 */
export const FAILED_SCRIPT = `${WINDOW_OF}
local addressWindow, addressLeft = window(tonumber(ARGV[1]))
local counter = KEYS[1] .. ':' .. addressWindow
local count = redis.call('INCR', counter)
if count == 1 then redis.call('PEXPIRE', counter, addressLeft) end
return {count, addressLeft}
`;

/** A script's reply: a count (or -1: the address is blocked) and the milliseconds left in its window. */
export type ScriptReply = [count: number, msLeft: number];

/** The name (without window index) of a key's quota counter. */
export function quotaCounterName(prefix: string, keyId: string): string {
  return `${prefix}:q:${keyId}`;
}

/** The name (without window index) of an address's failed-authentication counter. */
export function failedAuthCounterName(prefix: string, address: string): string {
  return `${prefix}:a:${address}`;
}

/**
 * A client address as text: IPv4 (4 bytes, or IPv4-mapped IPv6) as dotted
 * decimal, any other IPv6 address as 32 lowercase hex digits. The same
 * address always gives the same text, whichever form the socket reported.
 */
export function addressText(address: Uint8Array): string {
  if (address.length === 4) return `${address[0]}.${address[1]}.${address[2]}.${address[3]}`;
  if (address.length === 16 && isIpv4Mapped(address)) return `${address[12]}.${address[13]}.${address[14]}.${address[15]}`;
  return Buffer.from(address.buffer, address.byteOffset, address.byteLength).toString("hex");
}

function isIpv4Mapped(a: Uint8Array): boolean {
  for (let i = 0; i < 10; i++) if (a[i] !== 0) return false;
  return a[10] === 0xff && a[11] === 0xff;
}

/** Whole seconds until a window that has `msLeft` milliseconds left resets (>= 1). */
export function secondsLeft(msLeft: number): number {
  return Math.max(1, Math.ceil(msLeft / 1000));
}

/** The decision for a key whose count in the window (this request included) is `count`. */
export function quotaDecision(count: number, msLeft: number, limit: number): RateLimitDecision {
  const resetSeconds = secondsLeft(msLeft);
  if (count > limit) return { allowed: false, limit, remaining: 0, resetSeconds };
  return { allowed: true, limit, remaining: limit - count, resetSeconds };
}

/** A script reply checked for shape (two finite integers), or an Error saying what came back. */
export function parseScriptReply(reply: unknown): ScriptReply {
  if (Array.isArray(reply) && reply.length === 2 && Number.isSafeInteger(reply[0]) && Number.isSafeInteger(reply[1]) && reply[1] >= 0) {
    return reply as ScriptReply;
  }
  throw new Error(`unexpected quota script reply: ${JSON.stringify(reply)?.slice(0, 200)}`);
}
