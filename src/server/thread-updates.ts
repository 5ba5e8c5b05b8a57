/**
 * What the supervisor's messages about data mean to a serving thread's
 * context: a snapshot swapped in (its baskets resolved, the streams told, the
 * `swapped` answer, the deferred work warmed between requests), a publication
 * published to the streams (decision 006), a version retired or its pool
 * tables released, the keys and the baskets replaced, readiness, the origin's status. The thread's
 * port switch (serving-thread.ts) and the in-process test harness
 * (test/support/in-process-app.ts) both apply messages through it, so an
 * in-process test runs the real swap → publish path.
 */
import { KeyStore } from "../access/key-store.js";
import type { KeysFile } from "../access/keys-file.js";
import type { BasketsFile } from "../baskets/basket-file.js";
import { BasketCatalogue } from "../baskets/basket-catalogue.js";
import type { GatewayContext } from "../http/gateway-context.js";
import { ServingSnapshot } from "../serving/serving-snapshot.js";
import { collectGarbageSoon } from "../util/collect-garbage.js";
import type { ServingThreadMessage, SnapshotMessage, SupervisorMessage } from "./messages.js";

/** The messages about data (the others: metrics and fleet answers and drain, are the thread's own). */
export type DataMessage = Exclude<SupervisorMessage, { readonly type: "metrics-text" | "metrics-failed" | "fleet-answer" | "drain" }>;

export class ThreadUpdates {
  constructor(
    private readonly ctx: GatewayContext,
    /** Answers the supervisor (`swapped`). */
    private readonly answer: (message: ServingThreadMessage) => void,
    /** Runs the next step of deferred work between requests (default setImmediate). */
    private readonly nextTurn: (run: () => void) => void = setImmediate,
  ) {}

  apply(message: DataMessage): void {
    switch (message.type) {
      case "snapshot":
        this.snapshot(message);
        break;
      case "publish":
        this.ctx.stream.publish(message.publication);
        break;
      case "retire":
        this.ctx.store.retire(message.version);
        collectGarbageSoon(); // the version's shared memory is freed once every thread lets go of it
        break;
      case "release-pools":
        this.ctx.store.releasePools(message.version);
        collectGarbageSoon();
        break;
      case "keys":
        this.keys(message.keys, message.keySlots, Date.now());
        break;
      case "baskets":
        this.baskets(message.baskets);
        break;
      case "ready":
        this.ctx.ready = true;
        break;
      case "origin":
        this.ctx.origin = message.status; // what GET /v1/status reports of the origin (fleet.md §20)
        break;
    }
  }

  /** Serves the snapshot from now on; its change sets wait for the supervisor's `publish`. */
  snapshot(message: SnapshotMessage): void {
    const { ctx } = this;
    const snapshot = new ServingSnapshot(message.version, message.chainIds, message.chains, message.tokenIndex, message.changes);
    ctx.store.swap(snapshot, message.slot);
    snapshot.baskets(ctx.baskets).warm(); // resolve and encode the baskets on the new snapshot now, not in a request
    ctx.stream.swapped(snapshot);
    this.answer({ type: "swapped", publication: message.changes?.publication ?? 0 });
    this.warmBetweenRequests(snapshot);
  }

  /** The keys file changed: keys, quota slots, confirmed keys, and the open streams its keys may no longer hold are closed. */
  keys(keys: KeysFile, keySlots: Readonly<Record<string, number>>, now: number): void {
    const { ctx } = this;
    ctx.keys = new KeyStore(keys);
    ctx.quotas.keysChanged(keySlots);
    ctx.confirmedKeys.setSlots(keySlots);
    ctx.stream.keysChanged(ctx.keys, keySlots, now);
  }

  /** The baskets file changed: resolved and encoded once per file and snapshot, before a request needs it. */
  baskets(file: BasketsFile): void {
    this.ctx.baskets = new BasketCatalogue(file);
    this.ctx.store.current?.baskets(this.ctx.baskets).warm();
  }

  /** The work a snapshot defers from its swap (ServingSnapshot.warm), a step per event-loop turn while it is current. */
  private warmBetweenRequests(snapshot: ServingSnapshot): void {
    const step = () => {
      if (this.ctx.store.current === snapshot && snapshot.warm()) this.nextTurn(step);
    };
    this.nextTurn(step);
  }
}
