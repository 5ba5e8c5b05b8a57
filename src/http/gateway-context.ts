/** What the request pipeline and the handlers share in a serving thread: snapshots, keys, limiters, cursors, logger. */
import type { AddressLimiter } from "../access/address-limiter.js";
import type { ConfirmedKeys } from "../access/confirmed-keys.js";
import type { KeyStore } from "../access/key-store.js";
import type { QuotaStore } from "../access/quota-store.js";
import type { BasketCatalogue } from "../baskets/basket-catalogue.js";
import type { Logger } from "../log/logger.js";
import type { CursorCodec } from "../query/cursor.js";
import type { SnapshotStore } from "../serving/snapshot-store.js";

export interface GatewayContext {
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
}
