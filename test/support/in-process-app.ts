/**
 * The request path in-process: `createApp` on an ephemeral port over snapshots
 * compiled from fixtures, with the context a serving thread builds
 * (createGatewayContext: keys, shared quotas, address limits, cursors). Fast
 * (no spawned process); for the end-to-end behaviour of the real server use
 * gateway-process.ts.
 */
import { pino } from "pino";
import type { AddressLimit } from "../../src/access/address-limiter.js";
import { createAddressTable } from "../../src/access/address-table.js";
import { createConfirmedKeys } from "../../src/access/confirmed-keys.js";
import type { LocalQuotaStore, QuotaStore } from "../../src/access/quota-store.js";
import type { BasketsFile } from "../../src/baskets/basket-file.js";
import { loadKeysFile } from "../../src/access/keys-file.js";
import { createQuotaCounters, QuotaSlots } from "../../src/access/shared-rate-limiter.js";
import type { ChainId } from "../../src/chains/chains.js";
import { createApp } from "../../src/http/app.js";
import { createGatewayContext, type GatewayContext } from "../../src/http/gateway-context.js";
import type { Exchange } from "../../src/http/exchange.js";
import type { ResponseLifecycle, TransportOptions, WriterLimits } from "../../src/http/response-writer.js";
import type { RouteSpec } from "../../src/http/route.js";
import { uws, type us_listen_socket } from "../../src/http/uws.js";
import { compileTokenIndex } from "../../src/snapshot/compile-token-index.js";
import type { SnapshotFile } from "../../src/api/snapshot-format.js";
import { IpRanges } from "../../src/util/ip-address.js";
import type { HistoryInit } from "../../src/history/history-access.js";
import { ServingSnapshot } from "../../src/serving/serving-snapshot.js";
import { ChangeHistoryKeeper } from "../../src/serving/change-history.js";
import { diffChain } from "../../src/snapshot/diff-chain.js";
import { ChangeSetDrafts } from "../../src/snapshot/change-set-drafts.js";
import type { ChangeHistoryMessage, ChangeSetDraft } from "../../src/tables/change-sets.js";
import type { CompiledChain } from "../../src/tables/compiled-chain.js";
import { snapshotVersion } from "../../src/api/snapshot-version.js";
import { standardKeys, writeKeysFile, type TestKey } from "./fixtures.js";
import { compileFileAsRead } from "./compiled-chains.js";

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
  /** Serves another snapshot from now on (as a swap does), with the change sets against the files served before. */
  swap(files: readonly SnapshotFile[]): void;
  close(): void;
}

/**
 * The change sets of an in-process app's snapshots, as the loader and the supervisor make them: each chain
 * diffed against its previous compile, stamped and retained.
 */
export class InProcessChanges {
  private readonly keeper = new ChangeHistoryKeeper();
  private readonly last = new Map<ChainId, CompiledChain>();
  private readonly drafts = new ChangeSetDrafts();

  /** The history message of a snapshot serving `chains` (every chain whose file changed gets a set). */
  publish(chains: readonly CompiledChain[], version: number, nowMs = Date.now()): ChangeHistoryMessage {
    const drafts: ChangeSetDraft[] = [];
    for (const chain of chains) {
      const { info } = chain;
      const previous = this.last.get(info.chainId);
      if (previous?.info.sha256 === info.sha256) continue;
      drafts.push(this.drafts.draft(info, previous?.info ?? null, diffChain(previous ?? null, chain)));
      this.last.set(info.chainId, chain);
    }
    return this.keeper.publish(drafts, version, nowMs);
  }
}

/** Compiles snapshot files as the build workers do (with their change sets when `changes` is given). */
export function compileSnapshot(files: readonly SnapshotFile[], changes?: InProcessChanges): ServingSnapshot {
  const chains = files.map((file) => compileFileAsRead(file));
  const index = compileTokenIndex(chains.map((c) => ({ chainId: c.info.chainId, tokens: c.tokens })));
  const version = snapshotVersion(chains.map((c) => c.info));
  return ServingSnapshot.of(version, chains, index, changes?.publish(chains, version) ?? null);
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
  const store = ctx.store;
  const changes = new InProcessChanges();
  if (files.length > 0) store.swap(compileSnapshot(files, changes), 0);
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
    swap: (next) => store.swap(compileSnapshot(next, changes), slot++ % 8),
    close: () => {
      app.close();
      ctx.history?.close();
      void ctx.quotas.close(); // a quota store's close does not reject
    },
  };
}
