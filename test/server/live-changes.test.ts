/**
 * Live data over REST on the real server with real files (live.md §12, §14, §15): pushes that change, add
 * and remove pools and tokens give exactly the change sets a simple reference computes from the states
 * read through the REST routes before and after; applying the change sets (drop the removed, re-read the
 * upserted) to the state read at a position gives the state read now, from any earlier position and
 * through pages of any size; a rollback puts the chain in `resync`; two instances that served the same
 * files, one having skipped a file, give the same positions and accept each other's; GET /v1/status,
 * /ready's position and `x-data-generated-at`; every refusal.
 */
import { createHash } from "node:crypto";
import { renameSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SnapshotFile, SnapshotPool, SnapshotToken } from "../../src/api/snapshot-format.js";
import type { ChainId } from "../../src/chains/chains.js";
import { writeAllowOlderMarker } from "../../src/snapshot/allow-older-marker.js";
import {
  addr,
  chainFile,
  KEYS,
  packSnapshot,
  poolStats,
  poolToken,
  protocol,
  tempDir,
  token,
  v2Pool,
  v3Pool,
  writeBasketsFile,
  writeChainFile,
  writeKeysFile,
} from "../support/fixtures.js";
import {
  expectError,
  expectSuccess,
  expectValidation,
  postJson,
  request,
  startGateway,
  waitFor,
  type Gateway,
} from "../support/gateway-process.js";
import { prng, type Prng } from "../support/prng.js";
import { referenceDiff, sortedState, type ChainState } from "../support/reference-changes.js";

const T0 = 1_760_000_000;

// ------------------------------------------------------------------ files

let serial = 0x100;
const fresh = () => addr((serial++).toString(16));

function newToken(rng: Prng, chainId: ChainId): SnapshotToken {
  const symbol = rng.pick(["AAA", "BBB", "CCC", "Dé"]);
  return token(chainId, { address: fresh(), symbol, trackedUsdPrice: rng.int(1, 9), trackedTotalValuePooledUsd: rng.int(1, 9) * 10_000 });
}

function newPool(rng: Prng, tokens: readonly SnapshotToken[]): SnapshotPool {
  const [a, b] = [rng.pick(tokens), rng.pick(tokens.filter((t) => t !== tokens[0]))];
  const t = a === b ? [tokens[0]!, b] : [a, b];
  const base = {
    address: fresh(),
    protocolId: "live-proto",
    tokens: [poolToken(t[0]!.address, rng.int(1, 9), rng.int(1, 9) * 100), poolToken(t[1]!.address, rng.int(1, 9), rng.int(1, 9) * 100)],
    stats: poolStats(rng.int(1, 4)),
  };
  return rng.chance(0.5) ? v2Pool(base) : v3Pool(base);
}

function firstFile(rng: Prng, chainId: ChainId, generatedAt: number): SnapshotFile {
  const tokens = Array.from({ length: 6 }, () => newToken(rng, chainId));
  const pools = Array.from({ length: 8 }, () => newPool(rng, tokens));
  return chainFile(chainId, { generatedAt, blockNumber: 100, protocols: [protocol("live-proto")], tokens, pools });
}

/** The next file: pools removed, added and changed; tokens renamed, repriced, added, and removed when no pool holds them. */
function evolve(rng: Prng, file: SnapshotFile, generatedAt: number): SnapshotFile {
  const tokens = file.tokens.map((t) => {
    if (!rng.chance(0.3)) return t;
    return rng.chance(0.5) ? { ...t, name: `${t.name}+` } : { ...t, trackedUsdPrice: t.trackedUsdPrice + 1 };
  });
  tokens.push(...Array.from({ length: rng.int(0, 2) }, () => newToken(rng, file.chainId as ChainId)));
  const pools = file.pools
    .filter(() => !rng.chance(0.2))
    .map((p) => (rng.chance(0.3) ? ({ ...p, stats: poolStats(rng.int(5, 50)) } as SnapshotPool) : p));
  pools.push(...Array.from({ length: rng.int(1, 3) }, () => newPool(rng, tokens)));
  const held = new Set(pools.flatMap((p) => p.tokens.map((t) => t.address)));
  const kept = tokens.filter((t) => held.has(t.address) || !rng.chance(0.4));
  return { ...file, generatedAt, blockNumber: (file.blockNumber ?? 0) + 10, tokens: kept, pools };
}

const sha256 = (file: SnapshotFile) => createHash("sha256").update(packSnapshot(file)).digest("hex");
const idOf = (file: SnapshotFile) => `${file.generatedAt}.${sha256(file).slice(0, 12)}`;

/** Atomic push: a temporary name, then a rename over chain-<id>.msgpack. */
function push(dir: string, file: SnapshotFile): void {
  const tmp = writeChainFile(dir, file, `.chain-${file.chainId}.msgpack.${process.pid}.tmp`);
  renameSync(tmp, path.join(dir, `chain-${file.chainId}.msgpack`));
}

// ------------------------------------------------------------------ state through the REST routes

/** Every pool and token address ever written, per chain. */
const universe = new Map<number, { pools: Set<string>; tokens: Set<string> }>();
function remember(file: SnapshotFile): void {
  let u = universe.get(file.chainId);
  if (u === undefined) universe.set(file.chainId, (u = { pools: new Set(), tokens: new Set() }));
  for (const p of file.pools) u.pools.add(p.address);
  for (const t of file.tokens) u.tokens.add(t.address);
}

async function readPool(base: string, chainId: number, address: string): Promise<string | undefined> {
  const res = await request(base, `/v1/pools/${chainId}/${address}`);
  if (res.status === 404) return undefined;
  return JSON.stringify(expectSuccess(res).pool);
}

async function readToken(base: string, chainId: number, address: string): Promise<string | undefined> {
  const res = await request(base, `/v1/tokens/${chainId}/${address}`);
  if (res.status === 404) return undefined;
  const price = expectSuccess(await request(base, `/v1/tokens/prices/${chainId}/${address}/usd`)).price;
  return JSON.stringify([expectSuccess(res).token, price]);
}

/** A chain's state as the REST routes answer it now: every known address's pool JSON, token JSON and price. */
async function readState(base: string, chainId: number): Promise<ChainState> {
  const u = universe.get(chainId)!;
  const pools = new Map<string, string>();
  const tokens = new Map<string, string>();
  await Promise.all([
    ...[...u.pools].map(async (a) => {
      const v = await readPool(base, chainId, a);
      if (v !== undefined) pools.set(a, v);
    }),
    ...[...u.tokens].map(async (a) => {
      const v = await readToken(base, chainId, a);
      if (v !== undefined) tokens.set(a, v);
    }),
  ]);
  return { pools, tokens };
}

interface Entry {
  chainId: number;
  id: string;
  previous: string | null;
  generatedAt: number;
  servedAt: string;
  kind: "pool" | "token";
  address: string;
  change: "upserted" | "removed";
}

/** Every page of GET /v1/changes from `since` (query extras appended), `limit` a page; checks the walk's invariants. */
async function walkChanges(
  base: string,
  since: string,
  limit: number,
  extra = "",
  key: string = KEYS.active,
): Promise<{ entries: Entry[]; resync: number[]; position: string; pages: number }> {
  const entries: Entry[] = [];
  let resync: number[] = [];
  let position: string | null = null;
  let cursor: string | null = null;
  let pages = 0;
  do {
    const query = `since=${since}&limit=${limit}${extra}${cursor === null ? "" : `&cursor=${cursor}`}`;
    const data = expectSuccess(await request(base, `/v1/changes?${query}`, { key }));
    expect(Object.keys(data)).toEqual(["changes", "resync", "position", "nextCursor"]);
    pages++;
    expect(data.changes.length).toBeLessThanOrEqual(limit);
    if (data.nextCursor !== null) expect(data.changes.length).toBe(limit);
    if (position === null) position = data.position;
    expect(data.position).toBe(position);
    if (pages === 1) resync = data.resync;
    for (const e of data.changes)
      expect(Object.keys(e)).toEqual(["chainId", "id", "previous", "generatedAt", "servedAt", "kind", "address", "change"]);
    entries.push(...data.changes);
    cursor = data.nextCursor;
  } while (cursor !== null);
  return { entries, resync, position: position!, pages };
}

/** Applies change entries of one chain to a state: drop the removed, re-read the upserted now. */
async function applyEntries(base: string, chainId: number, state: ChainState | null, entries: readonly Entry[]): Promise<ChainState> {
  const pools = new Map(state?.pools ?? []);
  const tokens = new Map(state?.tokens ?? []);
  for (const e of entries.filter((x) => x.chainId === chainId)) {
    const map = e.kind === "pool" ? pools : tokens;
    if (e.change === "removed") map.delete(e.address);
    else {
      const v = e.kind === "pool" ? await readPool(base, chainId, e.address) : await readToken(base, chainId, e.address);
      if (v === undefined) map.delete(e.address);
      else map.set(e.address, v);
    }
  }
  return { pools, tokens };
}

/** The entries of one change set, from the reference's lists. */
function referenceEntries(
  chainId: number,
  meta: Omit<Entry, "chainId" | "kind" | "address" | "change">,
  before: ChainState | null,
  after: ChainState,
): Entry[] {
  const lists = referenceDiff(before, after);
  const of = (kind: "pool" | "token", change: "upserted" | "removed", addresses: string[]) =>
    addresses.map((address) => ({ chainId, ...meta, kind, address, change }));
  return [
    ...of("pool", "upserted", lists.poolsUpserted),
    ...of("pool", "removed", lists.poolsRemoved),
    ...of("token", "upserted", lists.tokensUpserted),
    ...of("token", "removed", lists.tokensRemoved),
  ];
}

const status = async (base: string, key: string = KEYS.active) => expectSuccess(await request(base, "/v1/status", { key }));
const chainStatus = async (base: string, chainId: number) =>
  (await status(base)).chains.find((c: { chainId: number }) => c.chainId === chainId);

/** Pushes and waits until the chain serves it. */
async function pushAndWait(gw: Gateway, dir: string, file: SnapshotFile): Promise<void> {
  remember(file);
  push(dir, file);
  const id = idOf(file);
  await waitFor(`chain ${file.chainId} serving ${id}`, async () =>
    (await chainStatus(gw.baseUrl, file.chainId))?.id === id ? true : undefined,
  );
}

// ------------------------------------------------------------------ one gateway, many pushes

describe("change sets over GET /v1/changes (one gateway, pushes)", () => {
  let gw: Gateway;
  let dir: string;
  const rng = prng(2101);
  let files: SnapshotFile[] = [];
  const positions: string[] = [];
  const states: ChainState[] = [];
  const OTHER = firstFile(prng(7), 8453, T0);

  beforeAll(async () => {
    dir = tempDir("lgw-live-");
    files = [firstFile(rng, 1, T0)];
    for (const f of [files[0]!, OTHER]) {
      remember(f);
      writeChainFile(dir, f);
    }
    writeBasketsFile(dir, {
      baskets: [
        {
          id: "live-basket",
          name: "Live",
          description: "A basket.",
          logoUrl: "https://logos.test/b.png",
          addresses: { "1": [files[0]!.tokens[0]!.address] },
        },
      ],
    });
    gw = await startGateway({ snapshotDir: dir, keysFile: writeKeysFile() });
  });

  afterAll(async () => {
    await gw?.stop();
  });

  it("the first load: every address upserted, previous null; status and /ready name the position", async () => {
    const base = gw.baseUrl;
    const s = await status(base);
    expect(s.chains.map((c: { chainId: number }) => c.chainId)).toEqual([1, 8453]);
    const c1 = s.chains[0];
    expect(Object.keys(c1)).toEqual(["chainId", "generatedAt", "blockNumber", "servedAt", "ageSeconds", "id", "pools", "tokens"]);
    expect(c1).toMatchObject({ chainId: 1, generatedAt: T0, blockNumber: 100, id: idOf(files[0]!), pools: 8, tokens: 6 });
    expect(Math.abs(Date.parse(c1.servedAt) - Date.now())).toBeLessThan(120_000);
    expect(Number.isInteger(c1.ageSeconds)).toBe(true);
    expect(Math.abs(c1.ageSeconds - (Date.now() / 1000 - T0))).toBeLessThan(60);
    const ready = await request(base, "/ready", { key: null });
    expect(ready.body.position).toBe(s.position);
    positions.push(s.position);
    states.push(await readState(base, 1));

    // From a position naming no chain: each chain's first load.
    const all = await walkChanges(base, "AQ", 10_000);
    expect(all.resync).toEqual([]);
    expect(all.position).toBe(s.position);
    const meta1 = { id: idOf(files[0]!), previous: null, generatedAt: T0, servedAt: c1.servedAt };
    const meta2 = { id: idOf(OTHER), previous: null, generatedAt: T0, servedAt: s.chains[1].servedAt };
    expect(all.entries).toEqual([
      ...referenceEntries(1, meta1, null, states[0]!),
      ...referenceEntries(8453, meta2, null, await readState(base, 8453)),
    ]);
    // Nothing after the current position.
    const none = await walkChanges(base, s.position, 10);
    expect(none).toEqual({ entries: [], resync: [], position: s.position, pages: 1 });
  });

  it("each push: exactly the reference's change set, and applying it to the state read before gives the state read after", async () => {
    const base = gw.baseUrl;
    for (let k = 1; k <= 6; k++) {
      const next = evolve(rng, files[k - 1]!, T0 + k * 60);
      files.push(next);
      await pushAndWait(gw, dir, next);
      const after = await readState(base, 1);
      const c1 = await chainStatus(base, 1);
      const walked = await walkChanges(base, positions[k - 1]!, 10_000);
      const expected = referenceEntries(
        1,
        { id: idOf(next), previous: idOf(files[k - 1]!), generatedAt: next.generatedAt, servedAt: c1.servedAt },
        states[k - 1]!,
        after,
      );
      expect(walked.entries).toEqual(expected);
      expect(expected.length).toBeGreaterThan(0);
      expect(sortedState(await applyEntries(base, 1, states[k - 1]!, walked.entries))).toEqual(sortedState(after));
      expect(walked.position).toBe((await status(base)).position);
      positions.push(walked.position);
      states.push(after);
    }
    // Every kind of change happened.
    const kinds = new Set<string>();
    for (let k = 1; k < states.length; k++) {
      const d = referenceDiff(states[k - 1]!, states[k]!);
      for (const [name, list] of Object.entries(d)) if (list.length > 0) kinds.add(name);
    }
    expect([...kinds].sort()).toEqual(["poolsRemoved", "poolsUpserted", "tokensRemoved", "tokensUpserted"]);
  });

  it("from any earlier position, through pages of any size: the sets in order, and applying them gives the state now", async () => {
    const base = gw.baseUrl;
    const now = states[states.length - 1]!;
    const current = (await status(base)).position;
    const pageRng = prng(5);
    for (let j = 0; j < positions.length; j++) {
      const whole = await walkChanges(base, positions[j]!, 10_000);
      const limit = pageRng.int(1, 9);
      const paged = await walkChanges(base, positions[j]!, limit);
      expect(paged.entries).toEqual(whole.entries);
      expect(paged.pages).toBe(Math.max(1, Math.ceil(whole.entries.length / limit)));
      expect(paged.position).toBe(current);
      // Sets in order: ids follow each other.
      const ids = [...new Set(whole.entries.map((e) => e.id))];
      expect(ids).toEqual(
        files
          .slice(j + 1)
          .map(idOf)
          .filter((id) => whole.entries.some((e) => e.id === id)),
      );
      expect(sortedState(await applyEntries(base, 1, states[j]!, whole.entries))).toEqual(sortedState(now));
    }
  });

  it("a cursor is bound to its since and chainIds; chainIds narrows the walk and keeps other chains' entries", async () => {
    const base = gw.baseUrl;
    const first = expectSuccess(await request(base, `/v1/changes?since=${positions[0]}&limit=1`));
    expect(first.nextCursor).not.toBeNull();
    expectError(
      await request(base, `/v1/changes?since=${positions[1]}&limit=1&cursor=${first.nextCursor}`),
      400,
      "INVALID_PAGINATION_CURSOR",
    );
    expectError(
      await request(base, `/v1/changes?since=${positions[0]}&chainIds=1&cursor=${first.nextCursor}`),
      400,
      "INVALID_PAGINATION_CURSOR",
    );
    expectError(await request(base, `/v1/changes?since=${positions[0]}&cursor=${first.nextCursor}x`), 400, "INVALID_PAGINATION_CURSOR");
    // Another limit is fine.
    expectSuccess(await request(base, `/v1/changes?since=${positions[0]}&limit=5&cursor=${first.nextCursor}`));

    const only8453 = await walkChanges(base, "AQ", 100, "&chainIds=8453");
    expect(only8453.entries.every((e) => e.chainId === 8453)).toBe(true);
    const status8453 = (await status(base)).chains.find((c: { chainId: number }) => c.chainId === 8453);
    // The position names only the chains walked (since named none).
    expect(only8453.position).toBe(encodePositionText([[8453, idOf(OTHER)]]));
    const fromEarly = await walkChanges(base, positions[0]!, 100, "&chainIds=8453");
    expect(fromEarly.entries).toEqual([]);
    // Chain 1 keeps its entry of `since`: reading chain 1 from it gives everything since the first position.
    const chain1 = await walkChanges(base, fromEarly.position, 10_000, "&chainIds=1");
    expect(chain1.entries).toEqual((await walkChanges(base, positions[0]!, 10_000)).entries);
    expect(status8453.id).toBe(idOf(OTHER));
  });

  it("a rollback (allow-older) puts a position this gateway does not know in resync; known positions still resume exactly", async () => {
    const base = gw.baseUrl;
    // A position of a file this gateway never served, between its files: a superset while there is no rollback.
    const unknown = `${T0 + 90}.abcdefabcdef`;
    const made = encodePositionText([[1, unknown]]);
    const before = await walkChanges(base, made, 10_000, "&chainIds=1");
    expect(before.resync).toEqual([]);
    expect(new Set(before.entries.map((e) => e.generatedAt)).size).toBeGreaterThan(0);
    expect(before.entries.every((e) => e.generatedAt > T0 + 90)).toBe(true);

    const older = evolve(rng, files[2]!, T0 + 150);
    files.push(older);
    writeAllowOlderMarker(dir, 1);
    await pushAndWait(gw, dir, older);
    const after = await walkChanges(base, made, 10_000, "&chainIds=1");
    expect(after.resync).toEqual([1]);
    expect(after.entries).toEqual([]);
    expect(after.position).toBe(encodePositionText([[1, idOf(older)]]));
    // The last position before the rollback resumes exactly (one set: the rollback's).
    const exact = await walkChanges(base, positions[positions.length - 1]!, 10_000);
    expect(exact.resync).toEqual([]);
    expect(new Set(exact.entries.map((e) => e.id))).toEqual(new Set([idOf(older)]));
    expect(sortedState(await applyEntries(base, 1, states[states.length - 1]!, exact.entries))).toEqual(
      sortedState(await readState(base, 1)),
    );
  });

  it("x-data-generated-at on every answer about one chain, and not on the others", async () => {
    const base = gw.baseUrl;
    const file = files[files.length - 1]!;
    const g = String(file.generatedAt);
    const t = file.tokens[0]!.address;
    const p = file.pools[0]!.address;
    const one = [
      await request(base, `/v1/pools/1/${p}`),
      await request(base, `/v1/tokens/1/${t}`),
      await request(base, `/v1/tokens/prices/1/${t}/usd`),
      await postJson(base, "/v1/tokens/1", {}),
      await postJson(base, "/v1/tokens/1/search", { search: "a" }),
      await request(base, "/v1/tokens/baskets/1/live-basket"),
    ];
    for (const res of one) {
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get("x-data-generated-at")).toBe(g);
    }
    const etag = one[0]!.headers.get("etag")!;
    const notModified = await request(base, `/v1/pools/1/${p}`, { headers: { "if-none-match": etag } });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get("x-data-generated-at")).toBe(g);
    expect((await request(base, `/v1/pools/8453/${OTHER.pools[0]!.address}`)).headers.get("x-data-generated-at")).toBe(String(T0));
    const others = [
      await postJson(base, "/v1/tokens", {}),
      await request(base, "/v1/protocols"),
      await request(base, `/v1/tokens/${t}`),
      await request(base, "/v1/status"),
      await request(base, `/v1/pools/1/${addr("dead")}`),
    ];
    for (const res of others) expect(res.headers.get("x-data-generated-at"), res.text.slice(0, 200)).toBeNull();
  });

  it("refusals: position, query, keys and chains", async () => {
    const base = gw.baseUrl;
    const current = (await status(base)).position;
    for (const bad of [
      "nope",
      "AQ==",
      "AA",
      "",
      current.slice(0, -1),
      `${current}A`,
      encodeRaw([[5, 1, "0123456789ab"]]),
      encodeRaw([
        [8453, 1, "0123456789ab"],
        [1, 1, "0123456789ab"],
      ]),
    ]) {
      const res = await request(base, `/v1/changes?since=${encodeURIComponent(bad)}`);
      const error = expectError(res, 400, "INVALID_POSITION");
      expect(error.metadata).toEqual({ position: bad });
    }
    expectValidation(await request(base, "/v1/changes"), "since", ["isString", "isDefined", "type"]);
    expectValidation(await request(base, `/v1/changes?since=${current}&from=1`), "from", "whitelist");
    expectValidation(await request(base, `/v1/changes?since=${current}&limit=0`), "limit", ["min", "minimum", "Minimum"]);
    expectValidation(await request(base, `/v1/changes?since=${current}&limit=10001`), "limit", ["max", "maximum", "Maximum"]);
    expectValidation(await request(base, `/v1/changes?since=${current}&limit=1.5`), "limit", ["isInt", "type"]);
    expectValidation(await request(base, `/v1/changes?since=${current}&since=${current}`), "since", ["isString", "type"]);
    expectError(await request(base, `/v1/changes?since=${current}&chainIds=5`), 400, "UNSUPPORTED_CHAIN_ID");
    expectError(await request(base, `/v1/changes?since=${current}&chainIds=999`), 503, "CHAIN_DATA_UNAVAILABLE");
    expectValidation(await request(base, "/v1/status?verbose=1"), "verbose", "whitelist");

    for (const path of [`/v1/changes?since=${current}`, "/v1/status"]) {
      expectError(await request(base, path, { key: null }), 401, "API_KEY_MISSING");
      expectError(await request(base, path, { key: "lgw_nope_0123456789abcdef0123" }), 401, "API_KEY_NOT_FOUND");
      expectError(await request(base, path, { key: KEYS.disabled }), 403, "API_KEY_DISABLED");
      const forbidden = expectError(await request(base, path, { key: KEYS.poolsOnly }), 403, "API_KEY_FORBIDDEN");
      expect(forbidden.metadata).toEqual({ route: "stream", allowedRoutes: ["pools"] });
    }
    // A key restricted to chain 1: chain 8453 named → 403; by default only chain 1 is walked and listed.
    const chainForbidden = expectError(
      await request(base, `/v1/changes?since=AQ&chainIds=8453`, { key: KEYS.chain1Only }),
      403,
      "API_KEY_FORBIDDEN",
    );
    expect(chainForbidden.metadata).toEqual({ chainId: 8453, allowedChainIds: [1] });
    const restricted = await walkChanges(base, "AQ", 10_000, "", KEYS.chain1Only);
    expect(new Set(restricted.entries.map((e) => e.chainId))).toEqual(new Set([1]));
    const s = await status(base, KEYS.chain1Only);
    expect(s.chains.map((c: { chainId: number }) => c.chainId)).toEqual([1]);
    expect(restricted.position).toBe(s.position);
    // A position naming chains the key may not read is fine.
    expect((await walkChanges(base, current, 10, "", KEYS.chain1Only)).entries).toEqual([]);
  });
});

// ------------------------------------------------------------------ helpers for hand-made positions

/** A position's text from [chainId, generatedAt, 12 hex] entries, in the order given (no checks: for refusals). */
function encodeRaw(entries: [number, number, string][]): string {
  const out = Buffer.alloc(1 + 16 * entries.length);
  out[0] = 1;
  entries.forEach(([chainId, g, hex], k) => {
    out.writeUInt32BE(chainId, 1 + 16 * k);
    out.writeUIntBE(g, 5 + 16 * k, 6);
    out.write(hex, 11 + 16 * k, "hex");
  });
  return out.toString("base64url");
}

/** A valid position's text from [chainId, change-set id] entries. */
function encodePositionText(entries: [number, string][]): string {
  const sorted = [...entries].sort((a, b) => a[0] - b[0]);
  return encodeRaw(sorted.map(([c, id]) => [c, Number(id.split(".")[0]), id.split(".")[1]!]));
}

// ------------------------------------------------------------------ before any chain has loaded

describe("before any chain has loaded", () => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway({ snapshotDir: tempDir("lgw-live-empty-"), keysFile: writeKeysFile() });
  });
  afterAll(async () => {
    await gw?.stop();
  });

  it("GET /v1/changes and /v1/status answer 503, /ready's position is null", async () => {
    const base = gw.baseUrl;
    expect(expectError(await request(base, "/v1/changes?since=AQ"), 503, "CHAIN_DATA_UNAVAILABLE").metadata).toEqual({ chainId: null });
    expect(expectError(await request(base, "/v1/status"), 503, "CHAIN_DATA_UNAVAILABLE").metadata).toEqual({ chainId: null });
    expectError(await request(base, "/v1/changes?since=garbage"), 400, "INVALID_POSITION");
    const ready = await waitFor("ready", async () => {
      const res = await request(base, "/ready", { key: null });
      return res.body?.ready === true ? res : undefined;
    });
    expect(ready.body.position).toBeNull();
  });
});

// ------------------------------------------------------------------ two instances

describe("two instances serving the same files, one skipping a file", () => {
  let a: Gateway;
  let b: Gateway;
  let dirA: string;
  let dirB: string;
  const rng = prng(4242);
  const base8453 = firstFile(prng(8), 8453, T0);
  // f1 → f2 → f3: pools and tokens added and changed; only pools present in f1 are removed, and what is
  // added stays (a pool's usual life: the world in which positions move between instances exactly).
  const f1 = firstFile(rng, 1, T0);
  const f2: SnapshotFile = (() => {
    const tokens = [...f1.tokens.map((t, i) => (i === 0 ? { ...t, name: "Renamed" } : t)), newToken(rng, 1)];
    const pools = [
      ...f1.pools.slice(1).map((p, i) => (i === 0 ? ({ ...p, stats: poolStats(77) } as SnapshotPool) : p)),
      newPool(rng, tokens),
    ];
    return { ...f1, generatedAt: T0 + 60, tokens, pools };
  })();
  const f3: SnapshotFile = (() => {
    const tokens = f2.tokens.map((t, i) => (i === 2 ? { ...t, trackedUsdPrice: 42 } : t));
    const pools = [...f2.pools.slice(0, -2).concat(f2.pools.slice(-1)), newPool(rng, tokens)];
    return { ...f2, generatedAt: T0 + 120, tokens, pools };
  })();

  beforeAll(async () => {
    dirA = tempDir("lgw-live-a-");
    dirB = tempDir("lgw-live-b-");
    for (const f of [f1, base8453]) {
      remember(f);
      writeChainFile(dirA, f);
      writeChainFile(dirB, f);
    }
    remember(f2);
    remember(f3);
    [a, b] = await Promise.all([
      startGateway({ snapshotDir: dirA, keysFile: writeKeysFile() }),
      startGateway({ snapshotDir: dirB, keysFile: writeKeysFile() }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it("give the same positions for the same files, and accept each other's", async () => {
    const p1A = (await status(a.baseUrl)).position;
    const p1B = (await status(b.baseUrl)).position;
    expect(p1A).toBe(p1B);
    const s1 = await readState(a.baseUrl, 1);

    await pushAndWait(a, dirA, f2);
    const p2A = (await status(a.baseUrl)).position;
    const s2 = await readState(a.baseUrl, 1);
    await pushAndWait(a, dirA, f3);
    await pushAndWait(b, dirB, f3); // b never saw f2
    const p3A = (await status(a.baseUrl)).position;
    expect((await status(b.baseUrl)).position).toBe(p3A);
    const s3 = await readState(a.baseUrl, 1);
    expect(sortedState(await readState(b.baseUrl, 1))).toEqual(sortedState(s3));

    // a's position at f2, a file b skipped: b answers every set after f2's generatedAt (f1 → f3), and
    // applying it to the state at f2 gives the state now.
    const onB = await walkChanges(b.baseUrl, p2A, 3);
    expect(onB.resync).toEqual([]);
    expect(onB.position).toBe(p3A);
    expect(new Set(onB.entries.map((e) => e.id))).toEqual(new Set([idOf(f3)]));
    expect(onB.entries.every((e) => e.previous === idOf(f1))).toBe(true);
    expect(sortedState(await applyEntries(b.baseUrl, 1, s2, onB.entries))).toEqual(sortedState(s3));

    // b's first position on a: both sets.
    const onA = await walkChanges(a.baseUrl, p1B, 4);
    expect([...new Set(onA.entries.map((e) => e.id))]).toEqual([idOf(f2), idOf(f3)]);
    expect(sortedState(await applyEntries(a.baseUrl, 1, s1, onA.entries))).toEqual(sortedState(s3));
    expect(onA.position).toBe(p3A);

    // A position ahead of nothing, and the same position on both: nothing to do.
    expect((await walkChanges(a.baseUrl, p3A, 10)).entries).toEqual([]);
    expect((await walkChanges(b.baseUrl, p3A, 10)).entries).toEqual([]);
  });
});
