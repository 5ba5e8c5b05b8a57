/**
 * The request path in-process: `createApp` on an ephemeral port over snapshots
 * compiled from fixtures, with the context a serving thread builds
 * (createGatewayContext: keys, shared quotas, address limits, cursors), its
 * snapshots applied as a serving thread applies the supervisor's messages
 * (ThreadUpdates: swap, baskets, stream publication), this harness answering
 * for the supervisor of one thread. Fast (no spawned process); for the
 * end-to-end behaviour of the real server use gateway-process.ts.
 */
import { pino } from "pino";
import type { AddressLimit } from "../../src/access/address-limiter.js";
import { createAddressTable } from "../../src/access/address-table.js";
import { createConfirmedKeys } from "../../src/access/confirmed-keys.js";
import type { LocalQuotaStore, QuotaStore } from "../../src/access/quota-store.js";
import type { BasketsFile } from "../../src/baskets/basket-file.js";
import { loadKeysFile } from "../../src/access/keys-file.js";
import { createQuotaCounters, QuotaSlots } from "../../src/access/shared-rate-limiter.js";
import { createApp } from "../../src/http/app.js";
import { createGatewayContext, type GatewayContext } from "../../src/http/gateway-context.js";
import type { Exchange } from "../../src/http/exchange.js";
import type { ResponseLifecycle, TransportOptions, WriterLimits } from "../../src/http/response-writer.js";
import type { RouteSpec } from "../../src/http/route.js";
import { uws, type us_listen_socket } from "../../src/http/uws.js";
import type { SnapshotFile } from "../../src/api/snapshot-format.js";
import { ThreadUpdates } from "../../src/server/thread-updates.js";
import { IpRanges } from "../../src/util/ip-address.js";
import type { HistoryInit } from "../../src/history/history-access.js";
import { compileSnapshot, InProcessChanges } from "./compiled-snapshots.js";
import { standardKeys, writeKeysFile, type TestKey } from "./fixtures.js";

export interface InProcessOptions {
  readonly keys?: TestKey[];
  readonly failedAuthLimit?: AddressLimit;
  readonly publicRateLimit?: AddressLimit;
  readonly limits?: WriterLimits;
  readonly defaultRateLimit?: AddressLimit;
  /** The quota store, built around the memory one (default: the memory store itself). */
  readonly quotaStore?: (local: LocalQuotaStore) => QuotaStore;
  /** A route table of the test's own (default: the gateway's). */
  readonly routes?: readonly RouteSpec[];
  readonly transport?: TransportOptions;
  /** The baskets in force (default: none). */
  readonly baskets?: BasketsFile;
  /** TRUSTED_PROXIES as the setting's text (default: none). */
  readonly trustedProxies?: string;
  /** Listen address (default 127.0.0.1; "::" listens dual-stack, IPv4 peers then appear IPv4-mapped). */
  readonly host?: string;
  /** The history store the routes read (default: none, HISTORY=off). */
  readonly history?: HistoryInit;
}

export interface InProcessApp {
  readonly baseUrl: string;
  readonly port: number;
  readonly ctx: GatewayContext;
  /** Requests whose response is complete or aborted, and those still open. */
  readonly counts: { started: number; settled: number; overloaded: number; statuses: number[] };
  /** What the supervisor's messages mean to the thread (keys, baskets, retirement: as a serving thread applies them). */
  readonly updates: ThreadUpdates;
  /** Serves another snapshot from now on (as a swap does), with the change sets against the files served before, and publishes it. */
  swap(files: readonly SnapshotFile[]): void;
  close(): void;
}

export async function startInProcess(files: readonly SnapshotFile[], options: InProcessOptions = {}): Promise<InProcessApp> {
  const keysFile = loadKeysFile(writeKeysFile(options.keys ?? standardKeys()));
  const quotaCounters = createQuotaCounters(64);
  const confirmedKeys = createConfirmedKeys(64);
  const ctx = createGatewayContext(
    {
      versionUse: new SharedArrayBuffer(8 * 8),
      keys: keysFile,
      keySlots: new QuotaSlots(64, quotaCounters, confirmedKeys).assign(keysFile.keys.map((k) => k.id)),
      baskets: options.baskets ?? { baskets: [] },
      defaultRateLimit: options.defaultRateLimit ?? { requests: 1000, windowSeconds: 60 },
      quotaCounters,
      confirmedKeys,
      failedAuthLimit: options.failedAuthLimit ?? { requests: 1_000_000, windowSeconds: 60 },
      failedAuthCounters: createAddressTable(1024),
      publicRateLimit: options.publicRateLimit ?? { requests: 1_000_000, windowSeconds: 60 },
      publicRequestCounters: createAddressTable(1024),
      cursorSecret: Buffer.from("in-process-test-secret"),
      history: options.history ?? null,
    },
    {
      log: pino({ level: "silent" }),
      quotaStore: options.quotaStore ?? ((local: LocalQuotaStore) => local),
      ready: true,
      fetchMetrics: async () => ({ contentType: "text/plain; version=0.0.4; charset=utf-8", text: "# in-process\n" }),
    },
  );
  const changes = new InProcessChanges();
  // The supervisor of one thread: each swap is published once the thread answers it swapped.
  const updates: ThreadUpdates = new ThreadUpdates(ctx, (answer) => {
    if (answer.type === "swapped") updates.apply({ type: "publish", publication: answer.publication });
  });
  if (files.length > 0) updates.apply(compileSnapshot(files, changes, 0));
  else updates.apply({ type: "publish", publication: 0 }); // the thread's published mark
  const counts = { started: 0, settled: 0, overloaded: 0, statuses: [] as number[] };
  const lifecycle: ResponseLifecycle = {
    finished(_x: Exchange, status: number) {
      counts.statuses.push(status);
    },
    settled() {
      counts.settled++;
    },
    overloaded() {
      counts.overloaded++;
    },
    closeConnections: false,
  };
  const app = createApp(ctx, {
    started: () => counts.started++,
    lifecycle,
    limits: options.limits,
    routes: options.routes,
    transport: options.transport,
    ...(options.trustedProxies === undefined ? {} : { trustedProxies: IpRanges.parse(options.trustedProxies) }),
  });
  const socket = await new Promise<us_listen_socket>((resolve, reject) => {
    app.listen(options.host ?? "127.0.0.1", 0, (s) => (s ? resolve(s) : reject(new Error("in-process app could not listen"))));
  });
  const port = uws.us_socket_local_port(socket);
  let slot = 1;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    ctx,
    counts,
    updates,
    swap: (next) => updates.apply(compileSnapshot(next, changes, slot++ % 8)),
    close: () => {
      app.close();
      ctx.history?.close();
      void ctx.quotas.close(); // a quota store's close does not reject
    },
  };
}
