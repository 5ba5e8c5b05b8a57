/**
 * The request path in-process: `createApp` on an ephemeral port over snapshots
 * compiled from fixtures, with the same context a serving thread builds (keys,
 * shared quotas, address limits, cursors). Fast (no spawned process); for the
 * end-to-end behaviour of the real server use gateway-process.ts.
 */
import { pino } from "pino";
import { AddressLimiter, type AddressLimit } from "../../src/access/address-limiter.js";
import { createAddressTable } from "../../src/access/address-table.js";
import { KeyStore } from "../../src/access/key-store.js";
import { loadKeysFile } from "../../src/access/keys-file.js";
import { createQuotaCounters, QuotaSlots, SharedRateLimiter } from "../../src/access/shared-rate-limiter.js";
import type { ChainId } from "../../src/chains/chains.js";
import { createApp } from "../../src/http/app.js";
import type { GatewayContext } from "../../src/http/gateway-context.js";
import type { Exchange } from "../../src/http/exchange.js";
import type { ResponseLifecycle, WriterLimits } from "../../src/http/response-writer.js";
import type { RouteSpec } from "../../src/http/route.js";
import { uws, type us_listen_socket } from "../../src/http/uws.js";
import { CursorCodec } from "../../src/query/cursor.js";
import { compileChain } from "../../src/snapshot/compile-chain.js";
import { compileTokenIndex } from "../../src/snapshot/compile-token-index.js";
import type { SnapshotFile } from "../../src/snapshot/format.js";
import { parseSnapshotBytes } from "../../src/snapshot/read-snapshot-file.js";
import { ServingSnapshot, snapshotVersion } from "../../src/snapshot/serving-snapshot.js";
import { SnapshotStore } from "../../src/snapshot/snapshot-store.js";
import { packSnapshot, standardKeys, writeKeysFile, type TestKey } from "./fixtures.js";

export interface InProcessOptions {
  readonly keys?: TestKey[];
  readonly failedAuthLimit?: AddressLimit;
  readonly publicRateLimit?: AddressLimit;
  readonly limits?: WriterLimits;
  readonly defaultRateLimit?: AddressLimit;
  /** A route table of the test's own (default: the gateway's). */
  readonly routes?: readonly RouteSpec[];
}

export interface InProcessApp {
  readonly baseUrl: string;
  readonly port: number;
  readonly ctx: GatewayContext;
  /** Requests whose response is complete or aborted, and those still open. */
  readonly counts: { started: number; settled: number; overloaded: number; statuses: number[] };
  close(): void;
}

/** Compiles snapshot files as the build workers do. */
export function compileSnapshot(files: readonly SnapshotFile[]): ServingSnapshot {
  const chains = files.map((file) =>
    compileChain(parseSnapshotBytes(packSnapshot(file), file.chainId as ChainId), { file: `chain-${file.chainId}.msgpack`, fileBytes: 1, fileMtimeMs: 0 }),
  );
  const index = compileTokenIndex(chains.map((c) => ({ chainId: c.info.chainId, tokens: c.tokens })));
  return new ServingSnapshot(snapshotVersion(chains), chains, index);
}

export async function startInProcess(files: readonly SnapshotFile[], options: InProcessOptions = {}): Promise<InProcessApp> {
  const keysFile = loadKeysFile(writeKeysFile(options.keys ?? standardKeys()));
  const counters = createQuotaCounters(64);
  const store = new SnapshotStore(new SharedArrayBuffer(8 * 8));
  if (files.length > 0) store.swap(compileSnapshot(files), 0);
  const log = pino({ level: "silent" });
  const ctx: GatewayContext = {
    store,
    keys: new KeyStore(keysFile),
    rateLimiter: new SharedRateLimiter(counters, new QuotaSlots(64, counters).assign(keysFile.keys.map((k) => k.id)), options.defaultRateLimit ?? { requests: 1000, windowSeconds: 60 }),
    failedAuth: new AddressLimiter(createAddressTable(1024), options.failedAuthLimit ?? { requests: 1_000_000, windowSeconds: 60 }, "failed authentication attempts"),
    publicRequests: new AddressLimiter(createAddressTable(1024), options.publicRateLimit ?? { requests: 1_000_000, windowSeconds: 60 }, "requests without an API key"),
    cursors: new CursorCodec(Buffer.from("in-process-test-secret")),
    log,
    ready: true,
    fetchMetrics: async () => ({ contentType: "text/plain; version=0.0.4; charset=utf-8", text: "# in-process\n" }),
  };
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
  const app = createApp(ctx, { started: () => counts.started++, lifecycle, limits: options.limits, routes: options.routes });
  const socket = await new Promise<us_listen_socket>((resolve, reject) => {
    app.listen("127.0.0.1", 0, (s) => (s ? resolve(s) : reject(new Error("in-process app could not listen"))));
  });
  const port = uws.us_socket_local_port(socket);
  return { baseUrl: `http://127.0.0.1:${port}`, port, ctx, counts, close: () => app.close() };
}
