/** What the request pipeline and the handlers share in a serving thread: snapshots, keys, limiters, cursors, logger. */
import type { AddressLimiter } from "../access/address-limiter.js";
import type { KeyStore } from "../access/key-store.js";
import type { RateLimiter } from "../access/rate-limiter.js";
import type { Logger } from "../log/logger.js";
import type { CursorCodec } from "../query/cursor.js";
import type { SnapshotStore } from "../snapshot/snapshot-store.js";

export interface GatewayContext {
  readonly store: SnapshotStore;
  /** The keys in force (replaced as a whole when the keys file changes). */
  keys: KeyStore;
  readonly rateLimiter: RateLimiter;
  /** Failed authentications per client address. */
  readonly failedAuth: AddressLimiter;
  /** Requests to public routes (and to no route) per client address. */
  readonly publicRequests: AddressLimiter;
  readonly cursors: CursorCodec;
  readonly log: Logger;
  /** True once the initial snapshot load has finished. */
  ready: boolean;
  /** The Prometheus exposition text of the whole gateway (rendered by the supervisor). */
  readonly fetchMetrics: () => Promise<{ contentType: string; text: string }>;
}
