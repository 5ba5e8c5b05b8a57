/**
 * Snapshot files that change from one push to the next, for the live-data
 * tests against the real server: pushes are atomic (written aside, renamed
 * over chain-<id>.msgpack), and what a push changed is read back through the
 * REST routes (the reference the stream's events are checked against).
 */
import { renameSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import type { SnapshotFile } from "../../src/api/snapshot-format.js";
import type { ChainId } from "../../src/chains/chains.js";
import { addr, chainFile, KEYS, nativeToken, poolToken, protocol, token, v2Pool, writeChainFile } from "./fixtures.js";
import { request } from "./gateway-process.js";

export const LIVE_T0 = 1_760_000_000;

/** Pools and tokens of the live chain; B/Z exist in even versions, D/W in odd ones. */
export const LP = { a: addr("a1"), b: addr("a2"), c: addr("a3"), d: addr("a4") } as const;
export const LT = { x: addr("b1"), y: addr("b2"), z: addr("b3"), w: addr("b4") } as const;
export const LIVE_POOLS = [LP.a, LP.b, LP.c, LP.d];
export const LIVE_TOKENS = [LT.x, LT.y, LT.z, LT.w];

/**
 * Version k of a chain: pool A's amounts and token X's TVL change with every
 * version; B (on Y, Z) and token Z exist in even versions, D (on X, W) and
 * token W in odd ones; C and Y never change.
 */
export function liveChain(chainId: ChainId, k: number): SnapshotFile {
  const even = k % 2 === 0;
  const tokens = [
    nativeToken(chainId),
    token(chainId, { address: LT.x, symbol: "XTK", trackedTotalValuePooledUsd: 100_000 + k }),
    token(chainId, { address: LT.y, symbol: "YTK" }),
    even ? token(chainId, { address: LT.z, symbol: "ZTK" }) : token(chainId, { address: LT.w, symbol: "WTK" }),
  ];
  const pools = [
    v2Pool({ address: LP.a, protocolId: "live-proto", tokens: [poolToken(LT.x, 1 + k, 2 + k), poolToken(LT.y, 3, 4)] }),
    v2Pool({ address: LP.c, protocolId: "live-proto", tokens: [poolToken(nativeToken(chainId).address, 5, 6), poolToken(LT.y, 7, 8)] }),
    even
      ? v2Pool({ address: LP.b, protocolId: "live-proto", tokens: [poolToken(LT.y, 9, 10), poolToken(LT.z, 11, 12)] })
      : v2Pool({ address: LP.d, protocolId: "live-proto", tokens: [poolToken(LT.x, 13, 14), poolToken(LT.w, 15, 16)] }),
  ];
  return chainFile(chainId, {
    generatedAt: LIVE_T0 + 100 * k,
    blockNumber: 30_000_000 + k,
    protocols: [protocol("live-proto")],
    tokens,
    pools,
  });
}

/** Atomic push: written under a temporary name, then renamed over chain-<id>.msgpack. */
export function push(dir: string, file: SnapshotFile): void {
  const tmp = writeChainFile(dir, file, `.chain-${file.chainId}.msgpack.${process.pid}.tmp`);
  renameSync(tmp, path.join(dir, `chain-${file.chainId}.msgpack`));
}

/** What the REST routes answer for some pools and tokens of a chain: JSON text of `data.pool` / `data.token` (plus price), or null. */
export interface RestState {
  readonly pools: Map<string, string | null>;
  readonly tokens: Map<string, string | null>;
}

/** The `data.<field>` JSON text of an answer, cut from the raw body (byte for byte what the server sent). */
function dataField(text: string, field: string): string {
  const start = text.indexOf(`"data":{"${field}":`);
  if (start < 0) throw new Error(`no data.${field} in ${text.slice(0, 300)}`);
  return text.slice(start + `"data":{"${field}":`.length, text.length - 2);
}

export async function restState(baseUrl: string, chainId: number, pools: readonly string[], tokens: readonly string[]): Promise<RestState> {
  const state: RestState = { pools: new Map(), tokens: new Map() };
  for (const address of pools) {
    const res = await request(baseUrl, `/v1/pools/${chainId}/${address}`);
    if (res.status !== 200 && res.status !== 404) throw new Error(`pool ${address}: ${res.status} ${res.text}`);
    state.pools.set(address, res.status === 200 ? dataField(res.text, "pool") : null);
  }
  for (const address of tokens) {
    const res = await request(baseUrl, `/v1/tokens/${chainId}/${address}`);
    if (res.status !== 200 && res.status !== 404) throw new Error(`token ${address}: ${res.status} ${res.text}`);
    if (res.status === 404) {
      state.tokens.set(address, null);
      continue;
    }
    const price = await request(baseUrl, `/v1/tokens/prices/${chainId}/${address}/usd`);
    state.tokens.set(address, `${dataField(res.text, "token")}|${price.text.slice(price.text.indexOf('"data":'))}`);
  }
  return state;
}

/** The change lists two REST states imply (live.md §12: upserted = new or different, removed = gone; sorted). */
export function expectedChanges(before: RestState, after: RestState) {
  const diff = (a: Map<string, string | null>, b: Map<string, string | null>) => {
    const upserted: string[] = [];
    const removed: string[] = [];
    for (const [address, now] of b) {
      const was = a.get(address) ?? null;
      if (now !== null && now !== was) upserted.push(address);
      if (now === null && was !== null) removed.push(address);
    }
    return { upserted: upserted.sort(), removed: removed.sort() };
  };
  return { pools: diff(before.pools, after.pools), tokens: diff(before.tokens, after.tokens) };
}

/** GET /v1/status's position (the instance's current position). */
export async function statusPosition(baseUrl: string, key: string = KEYS.active): Promise<string> {
  const res = await request(baseUrl, "/v1/status", { key });
  if (res.status !== 200) throw new Error(`status: ${res.status} ${res.text}`);
  return res.body.data.position as string;
}

/** A GET on a new connection (no keep-alive): new connections spread over the serving threads. */
export function freshGet(url: string, key: string = KEYS.active): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false, headers: { authorization: `Bearer ${key}` } }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode!, text }));
      })
      .on("error", reject);
  });
}

export { dataField };
