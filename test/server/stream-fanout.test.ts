/**
 * A fan-out spread over several turns of each serving thread's event loop
 * (StreamHub publishes a swap's events in slices of FANOUT_SLICE_COST), against
 * the real server with two threads: two pushes in quick succession, each
 * changing every one of 1,200 pools, to 60 WebSockets holding 200 pool topics
 * each (several slices per thread and push), while more streams open and held
 * ones change their topics (a few every 2 ms). Every stream must get, after each `subscribed`
 * answer, exactly one `changes` event and one `pool` event per held pool for
 * every later publication, publication after publication (all of push 1's
 * before any of push 2's), with its answers at the position it was brought to:
 * nothing missed, nothing twice, nothing out of order.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FANOUT_EVENT_OVERHEAD, FANOUT_SLICE_COST } from "../../src/stream/fan-out.js";
import {
  addr,
  chainFile,
  nativeToken,
  poolToken,
  protocol,
  standardKeys,
  tempDir,
  token,
  v2Pool,
  writeChainFile,
  writeKeysFile,
} from "../support/fixtures.js";
import { request, startGateway, waitFor, type Gateway } from "../support/gateway-process.js";
import { push } from "../support/live-fixture.js";
import { openWs, type WsClient } from "../support/stream-clients.js";

const CHAIN = 8453;
const POOLS = Array.from({ length: 1200 }, (_, i) => addr((0x10000 + i).toString(16)));
const X = addr("b1");
const Y = addr("b2");
const STEADY = 60;
const HELD = 200;

function version(k: number) {
  return chainFile(CHAIN, {
    generatedAt: 1_760_000_000 + 100 * k,
    blockNumber: 30_000_000 + k,
    protocols: [protocol("fan-proto")],
    tokens: [nativeToken(CHAIN), token(CHAIN, { address: X, symbol: "XTK" }), token(CHAIN, { address: Y, symbol: "YTK" })],
    pools: POOLS.map((address, i) =>
      v2Pool({ address, protocolId: "fan-proto", tokens: [poolToken(X, 1 + k + i, 2 + k), poolToken(Y, 3, 4)] }),
    ),
  });
}

/** The pools socket `j` starts with (windows overlapping their neighbours'). */
function poolsOf(j: number, count = HELD): string[] {
  return Array.from({ length: count }, (_, i) => POOLS[(j * 37 + i) % POOLS.length]);
}

const topicOf = (address: string) => `pool:${CHAIN}:${address}`;

let gw: Gateway;
let dir: string;
let base: string;
const clients: WsClient[] = [];

beforeAll(async () => {
  dir = tempDir("lgw-stream-fanout-");
  writeChainFile(dir, version(0));
  gw = await startGateway({
    snapshotDir: dir,
    keysFile: writeKeysFile(standardKeys()),
    // Hundreds of one key's streams change their topics at once: the message rates are raised out of the way (their own test: stream-edge.test.ts).
    env: {
      GATEWAY_THREADS: "2",
      STREAM_MAX_CONNECTIONS_PER_KEY: "500",
      STREAM_MAX_MESSAGES_PER_SECOND: "1000",
      STREAM_MAX_KEY_MESSAGES_PER_SECOND: "100000",
    },
  });
  base = `http://127.0.0.1:${gw.port}`;
}, 60_000);

afterAll(async () => {
  for (const client of clients) client.ws.terminate();
  await gw?.stop();
});

async function status(): Promise<{ position: string; generatedAt: number }> {
  const res = await request(base, "/v1/status");
  return { position: res.body.data.position, generatedAt: res.body.data.chains.find((c: any) => c.chainId === CHAIN).generatedAt };
}

/**
 * Walks a stream's events against the publication order: returns null when they are complete up to `final`,
 * a reason when they break the contract (or are not complete yet).
 */
function check(events: readonly any[], order: readonly string[], final: string): string | null {
  let position: string | null = null;
  let held = new Set<string>();
  let group: { position: string; missing: Set<string> } | null = null;
  for (const [n, e] of events.entries()) {
    const at = `event ${n} (${e.type} at ${e.position})`;
    if (e.type === "subscribed") {
      if (group !== null && group.missing.size > 0) return `${at}: answer before ${group.missing.size} pool events of ${group.position}`;
      if (position !== null && e.position !== position) return `${at}: answered at ${e.position}, events came up to ${position}`;
      if (!order.includes(e.position)) return `${at}: unknown position`;
      position = e.position;
      held = new Set((e.topics as string[]).filter((t) => t.startsWith("pool:")));
      group = null;
    } else if (e.type === "changes") {
      if (position === null) return `${at}: before subscribed`;
      if (group !== null && group.missing.size > 0) return `${at}: ${group.missing.size} pool events of ${group.position} missing`;
      if (order.indexOf(e.position) !== order.indexOf(position) + 1) return `${at}: expected the publication after ${position}`;
      position = e.position;
      group = { position: e.position, missing: new Set(held) };
    } else if (e.type === "pool") {
      if (group === null || e.position !== group.position) return `${at}: outside its publication's events`;
      if (!group.missing.delete(topicOf(e.address))) return `${at}: ${e.address} not held, or twice`;
    } else return `${at}: unexpected`;
  }
  if (position !== final) return `incomplete: at ${position}, expected ${final}`;
  if (group !== null && group.missing.size > 0) return `incomplete: ${group.missing.size} pool events of ${group.position} missing`;
  return null;
}

describe("a fan-out in slices", () => {
  it("two quick pushes reach every stream in order, also streams opening and changing topics meanwhile", async () => {
    const p0 = (await status()).position;
    for (let j = 0; j < STEADY; j += 20) {
      const batch = await Promise.all(Array.from({ length: 20 }, () => openWs(base, `topics=changes:${CHAIN}`)));
      clients.push(...batch);
    }
    for (const [j, client] of clients.entries()) {
      expect((await client.next()).event).toMatchObject({ type: "subscribed", position: p0 });
      client.send({ op: "subscribe", topics: poolsOf(j).map(topicOf) });
      expect((await client.next()).event).toMatchObject({ type: "subscribed", position: p0 });
    }

    // Streams opening, and steady ones taking 50 more pools, while both pushes go out.
    let opening = true;
    const late: Promise<void>[] = [];
    const opener = (async () => {
      for (let n = 0; opening; n++) {
        const j = STEADY + n;
        late.push(
          openWs(base, `topics=changes:${CHAIN}`).then((client) => {
            clients.push(client);
            client.send({ op: "subscribe", topics: poolsOf(j).map(topicOf) });
          }),
        );
        await new Promise((r) => setTimeout(r, 15));
      }
    })();
    // Steady streams switch between their 200 pools and 50 more, a few every 2 ms.
    const switcher = (async () => {
      for (let n = 0; opening; n++) {
        for (let k = 0; k < 3; k++) {
          const j = (n * 3 + k) % STEADY;
          clients[j].send(
            n % 2 === 0
              ? { op: "subscribe", topics: poolsOf(j, HELD + 50).map(topicOf) }
              : {
                  op: "unsubscribe",
                  topics: poolsOf(j, HELD + 50)
                    .slice(HELD)
                    .map(topicOf),
                },
          );
        }
        await new Promise((r) => setTimeout(r, 2));
      }
    })();

    const v1 = version(1);
    push(dir, v1);
    await waitFor("push 1 to be served", async () => ((await status()).generatedAt === v1.generatedAt ? true : undefined));
    const v2 = version(2);
    push(dir, v2);
    await waitFor("push 2 to be served", async () => ((await status()).generatedAt === v2.generatedAt ? true : undefined));
    await new Promise((r) => setTimeout(r, 200));
    opening = false;
    await opener;
    await switcher;
    await Promise.all(late);
    const final = (await status()).position;

    // The publication order: p0, then each push's position (by its changes event's generatedAt).
    const generatedAtOf = new Map<string, number>();
    for (const client of clients)
      for (const { event } of client.events) if (event.type === "changes") generatedAtOf.set(event.position, event.generatedAt);
    const order = [p0, ...[...generatedAtOf].sort((a, b) => a[1] - b[1]).map(([position]) => position)];
    expect(order.at(-1)).toBe(final);

    const verdicts = await waitFor(
      "every stream to hold all its events",
      () => {
        const found = clients.map((c) =>
          check(
            c.events.map((e) => e.event),
            order,
            final,
          ),
        );
        return found.every((v) => v === null) ? found : undefined;
      },
      60_000,
    ).catch(() =>
      clients.map((c) =>
        check(
          c.events.map((e) => e.event),
          order,
          final,
        ),
      ),
    );
    expect(verdicts.filter((v) => v !== null)).toEqual([]);
    await new Promise((r) => setTimeout(r, 300));
    expect(
      clients
        .map((c) =>
          check(
            c.events.map((e) => e.event),
            order,
            final,
          ),
        )
        .filter((v) => v !== null),
    ).toEqual([]);

    // The steady streams' fan-out alone spans several slices on each thread, for each push.
    const costOfPush = clients
      .slice(0, STEADY)
      .flatMap((c) => c.events)
      .filter((e) => e.event.type === "pool" && e.event.position === final)
      .reduce((sum, e) => sum + Buffer.byteLength(e.text) + FANOUT_EVENT_OVERHEAD, 0);
    expect(costOfPush).toBeGreaterThan(2 * 3 * FANOUT_SLICE_COST);
    expect(clients.length).toBeGreaterThan(STEADY + 5);
  }, 180_000);
});
