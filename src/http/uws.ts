/**
 * Loads the native uWebSockets.js binary directly. The package we install
 * (see package.json) silently falls back to a slow pure-Node implementation
 * when its binary cannot load; a gateway must fail loudly instead.
 */
import { createRequire } from "node:module";
import type * as UWS from "uWebSockets.js";

const require = createRequire(import.meta.url);

function loadNative(): typeof UWS {
  const binary = `uWebSockets.js/binaries/uws_${process.platform}_${process.arch}_${process.versions.modules}.node`;
  try {
    return require(binary) as typeof UWS;
  } catch (error) {
    throw new Error(
      `uWebSockets.js has no native binary for ${process.platform}-${process.arch} with Node ABI ${process.versions.modules} ` +
        `(Node ${process.versions.node}); use Node 20 on linux/darwin x64 or arm64. Cause: ${(error as Error).message}`,
    );
  }
}

export const uws = loadNative();
export type { HttpRequest, HttpResponse, us_listen_socket } from "uWebSockets.js";

/**
 * The app type, with `close()`: present in the native binary we load (it
 * closes the listen sockets and every open connection) though missing from
 * the package's typings. A serving thread must close everything before it
 * exits, or tearing down the thread aborts the process.
 */
export type TemplatedApp = UWS.TemplatedApp & { close(): void };
