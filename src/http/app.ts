/**
 * The uWS application of a serving thread: an HTTP or HTTPS listener whose
 * catch-all handler is the request pipeline (request-pipeline.ts: every
 * request through one pipeline and one writer), and, on the stream route's
 * path, the WebSocket behaviour of GET /v1/stream (stream-socket.ts). The
 * thread's stream hub publishes through this app's pub/sub.
 */
import type { GatewayContext } from "./gateway-context.js";
import { RequestPipeline, type PipelineOptions } from "./request-pipeline.js";
import type { RouteSpec } from "./route.js";
import { ROUTES } from "./route-table.js";
import { streamSocketBehavior } from "./stream-socket.js";
import { uws, type TemplatedApp } from "./uws.js";

export interface AppOptions extends PipelineOptions {
  /** Serve HTTPS with these files (uWS SSLApp); plain HTTP when absent. */
  readonly tls?: TlsFiles;
  /** The route table (tests may pass their own). */
  readonly routes?: readonly RouteSpec[];
}

/** The files of an HTTPS listener (validated beforehand: src/config/tls-files.ts). */
export interface TlsFiles {
  readonly certFile: string;
  readonly keyFile: string;
  readonly passphrase?: string;
  /** CA bundle uWS loads to request client certificates (mutual TLS). */
  readonly caFile?: string;
}

export function createApp(ctx: GatewayContext, options: AppOptions = {}): TemplatedApp {
  const pipeline = new RequestPipeline(ctx, options.routes ?? ROUTES, options);
  const app = listener(options.tls);
  app.any("/*", pipeline.handle);
  const streamIndex = pipeline.streamIndex;
  // uWS takes a GET here only when it has a 24-character Sec-WebSocket-Key; the behaviour yields those that do not ask
  // for a WebSocket to the handler above (SSE or 406), as uWS does with the others.
  if (streamIndex >= 0) app.ws(pipeline.routes[streamIndex].path, streamSocketBehavior(pipeline, ctx.stream, ctx.log, streamIndex));
  ctx.stream.attach(app);
  return app;
}

function listener(tls: TlsFiles | undefined): TemplatedApp {
  return (tls === undefined
    ? uws.App()
    : uws.SSLApp({
        cert_file_name: tls.certFile,
        key_file_name: tls.keyFile,
        ...(tls.passphrase === undefined ? {} : { passphrase: tls.passphrase }),
        ...(tls.caFile === undefined ? {} : { ca_file_name: tls.caFile }),
      })) as unknown as TemplatedApp;
}
