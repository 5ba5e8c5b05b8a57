/**
 * What waits for the fan-out under way (src/stream/owed-answers.ts) and the
 * publication that decides when it is under way (src/stream/publication.ts),
 * wired as the hub wires them, with the event loop's turns in the test's hand:
 * publications go out in swap order, in slices, confirmed ones only; a stream
 * that opens meanwhile starts between publications, at the position they
 * reached; a topic change and the answers after it wait, in order; what a
 * closed connection was owed goes.
 */
import { describe, expect, it } from "vitest";
import { OwedAnswers } from "../../../src/stream/owed-answers.js";
import { EMPTY_POSITION, Publication } from "../../../src/stream/publication.js";
import type { StreamConnection } from "../../../src/stream/stream-connection.js";
import type { SwappedSnapshot } from "../../../src/stream/swapped-snapshot.js";
import { openConnection } from "../../support/stream-connections.js";
import { liveSeries } from "../../support/stream-series.js";

const SERIES = liveSeries(3);

/** A publication and the answers owed, as StreamHub wires them; every step costs 1, a slice 2; turns run when the test says. */
function rig() {
  const log: string[] = [];
  const turns: Array<() => void> = [];
  const owed = new OwedAnswers();
  const publication: Publication = new Publication({
    steps: function* (entry: SwappedSnapshot) {
      for (let i = 0; i < 3; i++) {
        log.push(`step ${entry.snapshot.changes.publication}.${i}`);
        yield 1;
      }
    },
    hooks: {
      between: () =>
        owed.settle(
          (conn) => log.push(`start ${tag(conn)} at ${publication.position}`),
          (conn) => {
            const answers = conn.owed ?? [];
            conn.owed = null;
            for (const answer of answers) answer();
          },
        ),
      delay: (seconds) => log.push(`delay ${seconds}`),
      failed: (error) => log.push(`failed ${String(error)}`),
    },
    nextTurn: (run) => turns.push(run),
    sliceCost: 2,
    now: () => 1000,
  });
  const nextTurn = () => turns.shift()!();
  const drain = () => {
    while (turns.length > 0) nextTurn();
  };
  return { log, owed, publication, nextTurn, drain, turns };
}

const tags = new WeakMap<StreamConnection, string>();
function tag(conn: StreamConnection): string {
  return tags.get(conn) ?? "?";
}
function connection(name: string, phase: StreamConnection["phase"]): StreamConnection {
  const { conn } = openConnection([]);
  conn.phase = phase;
  tags.set(conn, name);
  return conn;
}

describe("publication", () => {
  it("publishes confirmed swaps only, in swap order, in slices; its position moves once a publication is out", () => {
    const { log, publication, nextTurn, drain, turns } = rig();
    expect(publication.waits).toBe(true); // no published mark yet
    publication.swapped(SERIES[1]);
    publication.swapped(SERIES[0]); // a swap answered late is still published first
    publication.swapped(SERIES[2]);
    publication.confirm(SERIES[1].changes.publication);
    expect(log).toEqual(["step 1.0", "step 1.1"]);
    expect(publication.busy).toBe(true);
    expect(publication.position).toBe(EMPTY_POSITION);
    nextTurn();
    expect(publication.position).toBe(SERIES[0].changes.positionText);
    drain();
    expect(publication.position).toBe(SERIES[1].changes.positionText);
    expect(log.filter((line) => line.startsWith("step")).map((line) => line.split(".")[0])).toEqual([
      ...Array<string>(3).fill("step 1"),
      ...Array<string>(3).fill("step 2"),
    ]);
    expect(turns).toEqual([]);
    expect(publication.busy).toBe(false);
    publication.confirm(SERIES[2].changes.publication);
    drain();
    expect(publication.position).toBe(SERIES[2].changes.positionText);
    expect(publication.latest?.snapshot).toBe(SERIES[2]);
  });

  it("finish: the fan-out under way goes out whole, at once", () => {
    const { log, publication } = rig();
    publication.swapped(SERIES[0]);
    publication.confirm(SERIES[0].changes.publication);
    publication.finish();
    expect(log.filter((line) => line.startsWith("step"))).toHaveLength(3);
    expect(publication.position).toBe(SERIES[0].changes.positionText);
  });

  it("a fan-out that throws: reported, the rest of it dropped, the next publication goes on", () => {
    const log: string[] = [];
    const publication = new Publication({
      steps: function* (entry) {
        if (entry.snapshot === SERIES[0]) throw new Error("broken");
        yield 1;
      },
      hooks: { between: () => {}, delay: () => {}, failed: (error) => log.push(String(error)) },
      nextTurn: () => {},
    });
    publication.swapped(SERIES[0]);
    publication.swapped(SERIES[1]);
    publication.confirm(SERIES[1].changes.publication);
    expect(log).toEqual(["Error: broken"]);
    expect(publication.position).toBe(SERIES[1].changes.positionText);
  });
});

describe("owed answers", () => {
  it("a stream opening during a fan-out starts between publications, at the position reached; a closed one never", () => {
    const { log, owed, publication, nextTurn } = rig();
    publication.swapped(SERIES[0]);
    publication.swapped(SERIES[1]);
    publication.confirm(SERIES[1].changes.publication);
    const early = connection("early", "waiting");
    const closed = connection("closed", "waiting");
    owed.startLater(early);
    owed.startLater(closed);
    closed.phase = "closed";
    nextTurn(); // publication 1 ends, then 2 begins
    expect(log).toContain(`start early at ${SERIES[0].changes.positionText}`);
    expect(log.indexOf(`start early at ${SERIES[0].changes.positionText}`)).toBeLessThan(log.indexOf("step 2.0"));
    expect(log.some((line) => line.startsWith("start closed"))).toBe(false);
  });

  it("an open connection's answers wait while a fan-out is under way, and the ones after stay behind them, in order", () => {
    const { log, owed, publication, nextTurn, drain } = rig();
    const conn = connection("c", "open");
    const say = (what: string) => () => log.push(`${what} at ${publication.position}`);
    expect(owed.owe(conn, say("idle"), publication.busy)).toBe(false); // nothing under way: answered at once by the caller
    publication.swapped(SERIES[0]);
    publication.confirm(SERIES[0].changes.publication);
    expect(owed.owe(conn, say("subscribed"), publication.busy)).toBe(true);
    nextTurn(); // the fan-out ends: the answer is paid at the new position
    expect(log.at(-1)).toBe(`subscribed at ${SERIES[0].changes.positionText}`);
    publication.swapped(SERIES[1]);
    publication.confirm(SERIES[1].changes.publication);
    expect(owed.owe(conn, say("first"), publication.busy)).toBe(true);
    drain();
    // Owed before the publication ends, an answer is owed after it too until paid: the next one queues behind it.
    expect(log.slice(-1)).toEqual([`first at ${SERIES[1].changes.positionText}`]);
    expect(owed.owe(conn, say("second"), publication.busy)).toBe(false);
  });

  it("answers queue behind an unpaid one even when nothing is under way; forget drops them", () => {
    const owed = new OwedAnswers();
    const conn = connection("c", "open");
    const paid: string[] = [];
    expect(owed.owe(conn, () => paid.push("a"), true)).toBe(true);
    expect(owed.owe(conn, () => paid.push("b"), false)).toBe(true); // behind "a"
    owed.settle(
      () => {},
      (c) => c.owed?.forEach((answer) => answer()),
    );
    expect(paid).toEqual(["a", "b"]);
    const other = connection("o", "open");
    owed.owe(other, () => paid.push("never"), true);
    owed.forget(other);
    owed.settle(
      () => {},
      (c) => c.owed?.forEach((answer) => answer()),
    );
    expect(paid).toEqual(["a", "b"]);
    expect(other.owed).toBeNull();
  });

  it("a stream not yet started owes its answers until it starts, fan-out or not", () => {
    const owed = new OwedAnswers();
    const conn = connection("w", "waiting");
    expect(owed.owe(conn, () => {}, false)).toBe(true);
    expect(conn.owed).toHaveLength(1);
  });
});
