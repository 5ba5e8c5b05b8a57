/**
 * Messages between the supervisor (main thread) and the serving threads.
 * Snapshot data travels as SharedArrayBuffer-backed columns: posting a
 * snapshot shares its memory with every thread, it never copies it.
 */
import type { KeysFile } from "../access/keys-file.js";
import type { TokenIndexData } from "../query/token-index.js";
import type { CompiledChain } from "../snapshot/compiled-chain.js";

/** What a serving thread needs to start (its `workerData`). */
export interface ServingThreadInit {
  readonly host: string;
  readonly port: number;
  readonly logLevel: string;
  readonly cursorSecret: Uint8Array;
  readonly keys: KeysFile;
  /** Rate-limit slot of each key id (stable across reloads). */
  readonly keySlots: Readonly<Record<string, number>>;
  readonly defaultRateLimit: { readonly requests: number; readonly windowSeconds: number };
  /** Shared quota counters, one per key slot (see shared-rate-limiter.ts). */
  readonly quotaCounters: SharedArrayBuffer;
  readonly failedAuthLimit: { readonly requests: number; readonly windowSeconds: number };
  /** Shared failed-authentication counters by client address (see address-table.ts). */
  readonly failedAuthCounters: SharedArrayBuffer;
  /** Requests without a key allowed per client address (public routes, unknown paths). */
  readonly publicRateLimit: { readonly requests: number; readonly windowSeconds: number };
  readonly publicRequestCounters: SharedArrayBuffer;
  /** Most response bytes a serving thread holds for connections that do not read. */
  readonly maxHeldResponseBytes: number;
  /** Last cursor use (epoch ms) of each retained snapshot, by retention slot. */
  readonly versionUse: SharedArrayBuffer;
  /** Shared request counters, latency histograms and thread events (see request-metrics.ts). */
  readonly requestMetrics: SharedArrayBuffer;
}

export interface SnapshotMessage {
  readonly type: "snapshot";
  readonly version: number;
  /** Retention slot of this version in `versionUse`. */
  readonly slot: number;
  readonly chains: readonly CompiledChain[];
  readonly tokenIndex: TokenIndexData;
}

export type SupervisorMessage =
  | SnapshotMessage
  | { readonly type: "retire"; readonly version: number }
  | { readonly type: "keys"; readonly keys: KeysFile; readonly keySlots: Readonly<Record<string, number>> }
  | { readonly type: "ready" }
  | { readonly type: "metrics-text"; readonly requestId: number; readonly text: string }
  | { readonly type: "drain" };

export type ServingThreadMessage =
  | { readonly type: "listening"; readonly port: number }
  | { readonly type: "listen-failed"; readonly reason: string }
  | { readonly type: "metrics-request"; readonly requestId: number }
  | { readonly type: "drained" };
