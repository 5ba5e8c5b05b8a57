/**
 * Assembles a running gateway from its configuration: keys, snapshot store
 * and loader, the uWS app; and takes it down again on stop.
 */
import { resolve } from "node:path";
import { KeyStore } from "./access/key-store.js";
import { loadKeysFile } from "./access/keys-file.js";
import { KeysReloader } from "./access/keys-reloader.js";
import { FixedWindowRateLimiter } from "./access/rate-limiter.js";
import { PROJECT_ROOT, type GatewayConfig } from "./config/config.js";
import type { GatewayContext } from "./http/gateway-context.js";
import { createApp } from "./http/app.js";
import { uws, type us_listen_socket } from "./http/uws.js";
import type { Logger } from "./log/logger.js";
import { CursorCodec } from "./query/cursor.js";
import { SnapshotLoader } from "./snapshot/snapshot-loader.js";
import { SnapshotStore } from "./snapshot/snapshot-store.js";

export const WORKER_FILE = resolve(PROJECT_ROOT, "dist/workers/snapshot-worker.js");

export interface RunningGateway {
  readonly port: number;
  stop(): Promise<void>;
}

export async function startGateway(config: GatewayConfig, log: Logger): Promise<RunningGateway> {
  if (config.usingSampleKeys) {
    log.warn({ event: "sample-keys", file: config.apiKeysFile }, "API_KEYS_FILE is not set: using the bundled sample keys file (sandbox key). Do not run this in production.");
  }
  if (config.cursorSecretGenerated) {
    log.info({ event: "cursor-secret-generated" }, "CURSOR_SECRET is not set: cursors are signed with a random secret and will not survive a restart");
  }
  const keys = new KeyStore(loadKeysFile(config.apiKeysFile));
  const store = new SnapshotStore({ retainMs: config.cursorRetentionSeconds * 1000, maxVersions: config.snapshotMaxVersions });
  const ctx: GatewayContext = {
    store,
    keys,
    rateLimiter: new FixedWindowRateLimiter(config.defaultRateLimit),
    cursors: new CursorCodec(config.cursorSecret),
    log,
    ready: false,
  };
  const keysReloader = new KeysReloader(config.apiKeysFile, (next) => (ctx.keys = next), log);
  const loader = new SnapshotLoader(
    { snapshotDir: config.snapshotDir, rebuildCron: config.rebuildCron, logoTemplate: config.tokenLogoTemplate, watchDebounceMs: config.watchDebounceMs, workerFile: WORKER_FILE },
    store,
    log,
  );

  const app = createApp(ctx);
  const listenSocket = await new Promise<us_listen_socket>((resolvePromise, reject) => {
    app.listen(config.host, config.port, (socket) => (socket ? resolvePromise(socket) : reject(new Error(`cannot listen on ${config.host}:${config.port} (address in use or not available)`))));
  });
  const port = uws.us_socket_local_port(listenSocket);
  log.info({ event: "listening", host: config.host, port, keys: keys.size }, `listening on ${config.host}:${port}`);

  keysReloader.start();
  await loader.start();
  ctx.ready = true;

  return {
    port,
    async stop() {
      uws.us_listen_socket_close(listenSocket);
      keysReloader.stop();
      await loader.stop();
    },
  };
}
