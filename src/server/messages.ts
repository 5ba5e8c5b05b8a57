/**
 * Messages between the supervisor (main thread) and the serving threads.
 * Snapshot data travels as SharedArrayBuffer-backed columns: posting a
 * snapshot shares its memory with every thread, it never copies it.
 */
import type { HistoryInit } from "../history/history-access.js";
import type { KeysFile } from "../access/keys-file.js";
import type { BasketsFile } from "../baskets/basket-file.js";
import type { QuotaStoreConfig } from "../config/config.js";
import type { TokenIndexData } from "../tables/token-index.js";
import type { ChainId } from "../chains/chains.js";
import type { CompiledChain } from "../tables/compiled-chain.js";
import type { ChangeHistoryMessage } from "../tables/change-sets.js";
import type { StreamLimits } from "../stream/stream-limits.js";
import type { FleetAnswer } from "../origin/fleet-view.js";
import type { OriginStatusRecord } from "../origin/origin-status.js";

/** How long a serving thread waits for the supervisor's answer to a metrics request before it answers 500. */
export const METRICS_REPLY_TIMEOUT_MS = 5000;

/** How long a serving thread waits for the supervisor's fleet view (it reads Redis) before it answers 503. */
export const FLEET_REPLY_TIMEOUT_MS = 5000;

/** How long the supervisor waits for every thread to swap a snapshot in before it has its change sets published anyway. */
export const SWAP_ACK_TIMEOUT_MS = 2000;

/** What a serving thread needs to start (its `workerData`). */
export interface ServingThreadInit {
  readonly host: string;
  readonly port: number;
  readonly logLevel: string;
  readonly cursorSecret: Uint8Array;
  readonly keys: KeysFile;
  /** Rate-limit slot of each key id (stable across reloads). */
  readonly keySlots: Readonly<Record<string, number>>;
  /** The token baskets in force (a validated file). */
  readonly baskets: BasketsFile;
  readonly defaultRateLimit: { readonly requests: number; readonly windowSeconds: number };
  /** Shared quota counters, one per key slot (see shared-rate-limiter.ts). */
  readonly quotaCounters: SharedArrayBuffer;
  /** Keys confirmed valid, by quota slot (see confirmed-keys.ts). */
  readonly confirmedKeys: SharedArrayBuffer;
  /** Most keys a keys file holds. */
  readonly maxApiKeys: number;
  /** Where quotas are counted: these counters (memory) or Redis, one client per serving thread. */
  readonly quotaStore: QuotaStoreConfig;
  readonly failedAuthLimit: { readonly requests: number; readonly windowSeconds: number };
  /** Shared failed-authentication counters by client address (see address-table.ts). */
  readonly failedAuthCounters: SharedArrayBuffer;
  /** Requests without a key allowed per client address (public routes, unknown paths). */
  readonly publicRateLimit: { readonly requests: number; readonly windowSeconds: number };
  readonly publicRequestCounters: SharedArrayBuffer;
  /** Most response bytes a serving thread holds for connections that do not read. */
  readonly maxHeldResponseBytes: number;
  /** HTTPS files (read by uWS when the thread starts: a replaced thread picks up renewed files); null: HTTP. */
  readonly tls: { readonly certFile: string; readonly keyFile: string; readonly passphrase?: string; readonly caFile?: string } | null;
  /** Bodies of at least this many bytes are compressed when accepted (Infinity: never). */
  readonly compressionMinBytes: number;
  readonly compressionCacheBytes: number;
  /** CORS_ORIGINS ("" = off). */
  readonly corsOrigins: string;
  /** TRUSTED_PROXIES, validated (empty: the client address is the TCP peer). */
  readonly trustedProxies: readonly string[];
  /** Last cursor activity (epoch ms) of each retained snapshot, by retention slot and cursor kind (version-retention.ts). */
  readonly versionUse: SharedArrayBuffer;
  /** Shared request counters, latency histograms and thread events (see request-metrics.ts). */
  readonly requestMetrics: SharedArrayBuffer;
  /** Open streams per key quota slot, shared by the instance's threads (src/stream/key-streams.ts). */
  readonly streamCounters: SharedArrayBuffer;
  /** STREAM_* limits. */
  readonly streamLimits: StreamLimits;
  /** The history store and its shared status; null: HISTORY=off. */
  readonly history: HistoryInit | null;
}

export interface SnapshotMessage {
  readonly type: "snapshot";
  readonly version: number;
  /** Retention slot of this version in `versionUse`. */
  readonly slot: number;
  /** The chains the version holds, ascending. */
  readonly chainIds: readonly ChainId[];
  /** Every chain's pool tables; null for an earlier version kept only for token-list cursors. */
  readonly chains: readonly CompiledChain[] | null;
  readonly tokenIndex: TokenIndexData;
  /**
   * Every retained change set (live.md §12) as of this publication, the sets this version introduced
   * included (their `publication` is this message's); their lists are shared columns, never copied.
   */
  readonly changes: ChangeHistoryMessage;
}

export type SupervisorMessage =
  | SnapshotMessage
  | { readonly type: "retire"; readonly version: number }
  | { readonly type: "release-pools"; readonly version: number }
  | { readonly type: "keys"; readonly keys: KeysFile; readonly keySlots: Readonly<Record<string, number>> }
  | { readonly type: "baskets"; readonly baskets: BasketsFile }
  | { readonly type: "ready" }
  | { readonly type: "metrics-text"; readonly requestId: number; readonly text: string }
  /** The metrics could not be rendered: the thread answers its request at once (500 UNKNOWN_ERROR). */
  | { readonly type: "metrics-failed"; readonly requestId: number }
  | { readonly type: "drain" }
  /** The origin's state changed (GET /v1/status `origin`). */
  | { readonly type: "origin"; readonly status: OriginStatusRecord }
  | { readonly type: "fleet-answer"; readonly requestId: number; readonly answer: FleetAnswer }
  /**
   * Every serving thread serves the snapshot of this publication (each answered `swapped`, or exited, or the
   * wait timed out): publish the change sets of every snapshot up to it to this thread's streams. A thread's
   * first one is its published mark (streams that opened before it wait for it).
   */
  | { readonly type: "publish"; readonly publication: number };

export type ServingThreadMessage =
  | { readonly type: "listening"; readonly port: number }
  | { readonly type: "listen-failed"; readonly reason: string }
  | { readonly type: "metrics-request"; readonly requestId: number }
  /** GET /v1/status/fleet: the supervisor reads the fleet view. */
  | { readonly type: "fleet-request"; readonly requestId: number }
  | { readonly type: "drained" }
  /** The thread serves the snapshot of this publication (it answers every snapshot message). */
  | { readonly type: "swapped"; readonly publication: number };
