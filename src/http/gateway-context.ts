/** What the route handlers share: the snapshot store, keys, cursor codec, logger. */
import type { KeyStore } from "../access/key-store.js";
import type { FailedAuthLimiter } from "../access/failed-auth-limiter.js";
import type { RateLimiter } from "../access/rate-limiter.js";
import type { Logger } from "../log/logger.js";
import type { CursorCodec } from "../query/cursor.js";
import type { SnapshotStore } from "../snapshot/snapshot-store.js";

export interface GatewayContext {
  readonly store: SnapshotStore;
  /** The keys in force (replaced as a whole when the keys file changes). */
  keys: KeyStore;
  readonly rateLimiter: RateLimiter;
  readonly failedAuth: FailedAuthLimiter;
  readonly cursors: CursorCodec;
  readonly log: Logger;
  /** True once the initial snapshot load has finished. */
  ready: boolean;
  /** The Prometheus exposition text of the whole gateway (rendered by the supervisor). */
  readonly fetchMetrics: () => Promise<{ contentType: string; text: string }>;
}
