/**
 * Loads the native uWebSockets.js binary directly, so that a machine it cannot
 * load on fails with a message that says why. The build we install (see
 * package.json and docs/reverse-proxy.md) reads UWS_HTTP_MAX_HEADERS_SIZE once,
 * when the first thread of the process loads it: the gateway sets it before
 * starting its serving threads (src/http/header-limit.ts).
 */
import { createRequire } from "node:module";
import path from "node:path";
import type * as UWS from "uWebSockets.js";

const require = createRequire(import.meta.url);

function loadNative(): typeof UWS {
  const binary = `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`;
  try {
    // The package exports only its loader; the binaries sit beside it.
    return require(path.join(path.dirname(require.resolve("uWebSockets.js")), binary)) as typeof UWS;
  } catch (error) {
    throw new Error(
      `uWebSockets.js has no native binary for ${process.platform}-${process.arch} with Node ABI ${process.versions.modules} ` +
        `(Node ${process.versions.node}); use Node 20 on linux/darwin x64 or arm64 with glibc >= 2.27. Cause: ${(error as Error).message}`,
    );
  }
}

export const uws = loadNative();
export type { HttpRequest, HttpResponse, us_listen_socket } from "uWebSockets.js";

/**
 * The app type; `close()` closes the listen sockets and every open
 * connection. A serving thread must close everything before it exits, or
 * tearing down the thread aborts the process.
 */
export type TemplatedApp = UWS.TemplatedApp;
