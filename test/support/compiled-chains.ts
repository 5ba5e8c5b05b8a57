/**
 * Snapshot files compiled in this thread as a build worker compiles them (packed, parsed, compiled), for tests that
 * need the tables a serving snapshot is made of without a loader.
 */
import { createHash } from "node:crypto";
import type { SnapshotFile } from "../../src/api/snapshot-format.js";
import type { ChainId } from "../../src/chains/chains.js";
import { compileChain, type CompileChainSource } from "../../src/snapshot/compile-chain.js";
import { DEFAULT_TOKEN_LOGO_TEMPLATE } from "../../src/snapshot/normalize-token.js";
import { parseSnapshotBytes } from "../../src/snapshot/read-snapshot-file.js";
import type { CompiledChain } from "../../src/tables/compiled-chain.js";
import { packSnapshot } from "./fixtures.js";

/** The source of a file no test reads from disk: no name, no bytes, a zero digest, the default logo template. */
export const NO_SOURCE: CompileChainSource = {
  file: "x",
  fileBytes: 0,
  sha256: "0".repeat(64),
  fileMtimeMs: 0,
  logoTemplate: DEFAULT_TOKEN_LOGO_TEMPLATE,
};

/** `file` compiled under `source` (default NO_SOURCE). */
export function compileFile(file: SnapshotFile, source: CompileChainSource = NO_SOURCE): CompiledChain {
  return compileChain(parseSnapshotBytes(packSnapshot(file), file.chainId as ChainId), source);
}

/** `file` compiled as if read from chain-<chainId>.msgpack: its source names that file, its byte length and SHA-256. */
export function compileFileAsRead(file: SnapshotFile): CompiledChain {
  const bytes = packSnapshot(file);
  const source = {
    file: `chain-${file.chainId}.msgpack`,
    fileBytes: bytes.length,
    sha256: createHash("sha256").update(bytes).digest("hex"),
    fileMtimeMs: 0,
    logoTemplate: DEFAULT_TOKEN_LOGO_TEMPLATE,
  };
  return compileChain(parseSnapshotBytes(bytes, file.chainId as ChainId), source);
}
