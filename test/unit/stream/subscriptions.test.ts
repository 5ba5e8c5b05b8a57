/**
 * Subscriptions (src/stream/subscriptions.ts): the one topic diff behind a
 * connection's start, its subscribe and unsubscribe messages, a re-scope of
 * its key's chains and its close, checked against its socket's calls (a
 * recording outlet) and, over any run of those, against a reference count of
 * every connection's uWS topics.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SUPPORTED_CHAIN_IDS_ASCENDING } from "../../../src/chains/chains.js";
import { chainMask } from "../../../src/query/token-query.js";
import { Subscriptions } from "../../../src/stream/subscriptions.js";
import { uwsTopics } from "../../../src/stream/topics.js";
import { LP, LT } from "../../support/live-fixture.js";
import { openConnection } from "../../support/stream-connections.js";
import { seriesTopics, topic } from "../../support/stream-series.js";

const A = topic(`pool:8453:${LP.a}`);
const X = topic(`token:1:${LT.x}`);
const C1 = topic("changes:1");
const ALL = topic("changes");

describe("subscriptions", () => {
  it("holds what is added, then lets go of what is dropped; a kept topic is not touched", () => {
    const subs = new Subscriptions();
    const { conn, outlet } = openConnection([C1, A]);
    subs.hold(conn, conn.topics);
    expect(outlet.calls).toEqual(["+changes:1", `+${A.text}`]);
    outlet.calls.length = 0;
    subs.hold(conn, [A, X]);
    expect(outlet.calls).toEqual([`+${X.text}`, "-changes:1"]);
    expect(conn.held.map((t) => t.text)).toEqual([A.text, X.text]);
    expect(subs.registry.get("changes:1")).toBeUndefined();
    expect(subs.registry.get(A.text)?.count).toBe(1);
  });

  it("one topic object per topic, whoever holds it", () => {
    const subs = new Subscriptions();
    const one = openConnection([topic(A.text)]);
    const two = openConnection([topic(A.text)]);
    subs.hold(one.conn, one.conn.topics);
    subs.hold(two.conn, two.conn.topics);
    expect(two.conn.held[0]).toBe(one.conn.held[0]);
    expect(subs.registry.get(A.text)?.count).toBe(2);
  });

  it("re-scope: `changes` follows the key's chains; the connection's own topics stay", () => {
    const subs = new Subscriptions();
    const { conn, outlet } = openConnection([ALL, A]);
    subs.hold(conn, conn.topics);
    expect(outlet.held()).toEqual(new Set([...SUPPORTED_CHAIN_IDS_ASCENDING.map((c) => `changes:${c}`), A.text]));
    const before = outlet.calls.length;
    subs.rescope(conn, chainMask([1, 8453]));
    expect(outlet.calls.slice(before).every((call) => call.startsWith("-changes:"))).toBe(true);
    expect(outlet.held()).toEqual(new Set(["changes:1", "changes:8453", A.text]));
    expect(subs.registry.get("changes:130")).toBeUndefined();
    expect(conn.held.map((t) => t.text)).toEqual(["changes", A.text]);
  });

  it("drop: the registry lets go of everything; the socket is left alone (uWS drops a closed socket's topics)", () => {
    const subs = new Subscriptions();
    const { conn, outlet } = openConnection([ALL, A]);
    subs.hold(conn, conn.topics);
    outlet.calls.length = 0;
    subs.drop(conn);
    expect(outlet.calls).toEqual([]);
    for (const t of [...uwsTopics([ALL], conn.readable), A]) expect(subs.registry.get(t.text)).toBeUndefined();
  });

  it("any run of holds, re-scopes and closes: the registry counts, and each socket holds, exactly the open connections' uWS topics", () => {
    const choices = [ALL, ...seriesTopics()];
    const masks = [chainMask(SUPPORTED_CHAIN_IDS_ASCENDING), chainMask([1]), chainMask([1, 8453]), chainMask([8453, 130])];
    const op = fc.oneof(
      fc.record({ kind: fc.constant("hold" as const), conn: fc.nat(3), topics: fc.subarray(choices) }),
      fc.record({ kind: fc.constant("rescope" as const), conn: fc.nat(3), mask: fc.constantFrom(...masks) }),
      fc.record({ kind: fc.constant("drop" as const), conn: fc.nat(3) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 30 }), (ops) => {
        const subs = new Subscriptions();
        const conns = Array.from({ length: 4 }, (_, i) => openConnection([], undefined, i % 2));
        const open = new Set(conns.map((_, i) => i));
        for (const o of ops) {
          if (!open.has(o.conn)) continue;
          const { conn } = conns[o.conn];
          if (o.kind === "hold") subs.hold(conn, o.topics);
          else if (o.kind === "rescope") subs.rescope(conn, o.mask);
          else {
            subs.drop(conn);
            open.delete(o.conn);
          }
        }
        const reference = new Map<string, number>();
        for (const i of open) {
          const { conn, outlet } = conns[i];
          const mine = uwsTopics(conn.held, conn.readable).map((t) => t.text);
          expect(outlet.held()).toEqual(new Set(mine));
          for (const text of mine) reference.set(text, (reference.get(text) ?? 0) + 1);
        }
        const all = new Set([...uwsTopics([ALL], masks[0]).map((t) => t.text), ...choices.map((t) => t.text)]);
        for (const text of all) expect(subs.registry.get(text)?.count ?? 0, text).toBe(reference.get(text) ?? 0);
        expect(subs.registry.size).toBe(reference.size);
      }),
      { numRuns: 300 },
    );
  });
});
