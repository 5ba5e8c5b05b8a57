/**
 * What the request pipeline and the handlers share in a serving thread:
 * snapshots, keys, baskets, limiters, cursors, logger. One factory builds it,
 * for the serving threads (src/server/serving-thread.ts) and for the
 * in-process tests alike.
 */
import type { AccessContext } from "../access/admission.js";
import { AddressLimiter } from "../access/address-limiter.js";
import { ConfirmedKeys } from "../access/confirmed-keys.js";
import { KeyStore } from "../access/key-store.js";
import type { KeysFile } from "../access/keys-file.js";
import { LocalQuotaStore, type QuotaStore } from "../access/quota-store.js";
import { SharedRateLimiter } from "../access/shared-rate-limiter.js";
import { BasketCatalogue } from "../baskets/basket-catalogue.js";
import type { BasketsFile } from "../baskets/basket-file.js";
import type { Logger } from "../log/logger.js";
import { CursorCodec } from "../query/cursor.js";
import type { Paging } from "../serving/list-page.js";
import { SnapshotStore } from "../serving/snapshot-store.js";
import { createStreamCounters } from "../stream/key-streams.js";
import { StreamHub, type StreamMetrics } from "../stream/stream-hub.js";
import { DEFAULT_STREAM_LIMITS, type StreamLimits } from "../stream/stream-limits.js";
import { HistoryAccess, type HistoryInit } from "../history/history-access.js";
import type { FleetAnswer } from "../origin/fleet-view.js";
import type { OriginStatusRecord } from "../origin/origin-status.js";
import { errorObject } from "./envelope.js";
import { ReadinessAnswer } from "./readiness-answer.js";

export interface GatewayContext extends AccessContext, Paging {
  readonly store: SnapshotStore;
  /** The keys in force (replaced as a whole when the keys file changes). */
  keys: KeyStore;
  /** The token baskets in force (replaced as a whole when the baskets file changes). */
  baskets: BasketCatalogue;
  /** Key quotas and failed authentications per client address (memory or Redis). */
  readonly quotas: QuotaStore;
  /** Keys this process has confirmed valid (served whatever address presents them). */
  readonly confirmedKeys: ConfirmedKeys;
  /** Requests to public routes (and to no route) per client address. */
  readonly publicRequests: AddressLimiter;
  readonly cursors: CursorCodec;
  readonly log: Logger;
  /** True once the initial snapshot load has finished. */
  ready: boolean;
  /** The Prometheus exposition text of the whole gateway (rendered by the supervisor). */
  readonly fetchMetrics: () => Promise<{ contentType: string; text: string }>;
  /** This thread's streams (GET /v1/stream). */
  readonly stream: StreamHub;
  /** GET /ready's answer, encoded once per state. */
  readonly readiness: ReadinessAnswer;
  /** History (shared/spec/history.md); null: HISTORY=off. */
  readonly history: HistoryAccess | null;
  /** Where this instance pulls its files from and how it goes (posted by the supervisor); null without an origin. */
  origin: OriginStatusRecord | null;
  /** The fleet in Redis (GET /v1/status/fleet, asked of the supervisor). */
  readonly fetchFleet: () => Promise<FleetAnswer>;
}

interface Limit {
  readonly requests: number;
  readonly windowSeconds: number;
}

/** What a context is made of: the data and the shared counters a serving thread starts with (its ServingThreadInit has them all). */
export interface GatewayContextInit {
  /** Last cursor activity of each retained snapshot version (version-retention.ts). */
  readonly versionUse: SharedArrayBuffer;
  readonly keys: KeysFile;
  /** Quota slot of each key id. */
  readonly keySlots: Readonly<Record<string, number>>;
  readonly baskets: BasketsFile;
  readonly defaultRateLimit: Limit;
  /** Shared quota counters and confirmed keys, one per key slot. */
  readonly quotaCounters: SharedArrayBuffer;
  readonly confirmedKeys: SharedArrayBuffer;
  readonly failedAuthLimit: Limit;
  readonly failedAuthCounters: SharedArrayBuffer;
  readonly publicRateLimit: Limit;
  readonly publicRequestCounters: SharedArrayBuffer;
  readonly cursorSecret: Uint8Array;
  /** Open streams per key quota slot, shared by the instance's threads (key-streams.ts); default: this context's own. */
  readonly streamCounters?: SharedArrayBuffer;
  /** STREAM_* limits; default: the documented defaults. */
  readonly streamLimits?: StreamLimits;
  /** The history store and its status; null or absent: HISTORY=off. */
  readonly history?: HistoryInit | null;
}

/** What the thread (or the test) plugs in. */
export interface GatewayContextHooks {
  readonly log: Logger;
  readonly fetchMetrics: GatewayContext["fetchMetrics"];
  /** The quota store, built around the memory one (a shared store falls back to it); default: the memory store itself. */
  readonly quotaStore?: (local: LocalQuotaStore) => QuotaStore;
  /** A request whose client address found no free slot in an address table (it was not limited). */
  readonly addressTableFull?: () => void;
  /** Whether the initial snapshot load has finished already (default false). */
  readonly ready?: boolean;
  /** Where the streams' figures go (default: nowhere). */
  readonly streamMetrics?: StreamMetrics;
  /** The fleet view (default: unavailable, no origin). */
  readonly fetchFleet?: GatewayContext["fetchFleet"];
  /** A history bucket answer looked up in the thread's kept answers: a hit or a miss (default: not counted). */
  readonly historyAnswer?: (hit: boolean) => void;
}

const NO_FLEET: FleetAnswer = { kind: "unavailable", reason: "no-origin" };

const NO_STREAM_METRICS: StreamMetrics = { streamOpened() {}, streamEvents() {}, streamDelay() {}, streamSlowConsumer() {} };

export function createGatewayContext(init: GatewayContextInit, hooks: GatewayContextHooks): GatewayContext {
  const full = hooks.addressTableFull ?? (() => {});
  const local = new LocalQuotaStore(
    new SharedRateLimiter(init.quotaCounters, init.keySlots, init.defaultRateLimit),
    new AddressLimiter(init.failedAuthCounters, init.failedAuthLimit, "failed authentication attempts", full),
  );
  const keys = new KeyStore(init.keys);
  return {
    store: new SnapshotStore(init.versionUse),
    keys,
    baskets: new BasketCatalogue(init.baskets),
    quotas: hooks.quotaStore === undefined ? local : hooks.quotaStore(local),
    confirmedKeys: new ConfirmedKeys(init.confirmedKeys, init.keySlots),
    publicRequests: new AddressLimiter(init.publicRequestCounters, init.publicRateLimit, "requests without an API key", full),
    cursors: new CursorCodec(init.cursorSecret),
    log: hooks.log,
    ready: hooks.ready ?? false,
    fetchMetrics: hooks.fetchMetrics,
    origin: null,
    fetchFleet: hooks.fetchFleet ?? (() => Promise.resolve(NO_FLEET)),
    stream: new StreamHub({
      limits: init.streamLimits ?? DEFAULT_STREAM_LIMITS,
      streamCounters: init.streamCounters ?? createStreamCounters(Math.max(1, ...Object.values(init.keySlots).map((slot) => slot + 1))),
      keySlots: init.keySlots,
      keys,
      errorObjectOf: errorObject,
      metrics: hooks.streamMetrics ?? NO_STREAM_METRICS,
      log: hooks.log,
    }),
    readiness: new ReadinessAnswer(),
    history: init.history == null ? null : new HistoryAccess(init.history, hooks.historyAnswer),
  };
}
