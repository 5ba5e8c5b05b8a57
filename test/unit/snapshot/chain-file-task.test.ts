/**
 * The chain task's answer for a file still being written (src/snapshot/chain-file-task.ts): a file created in
 * place can be read before its writer is done (a rename event scans at once: scan-triggers.ts). What it read is
 * truncated, but what is wrong is that it changed while read: an `io` rejection, read again on its next change,
 * never reported as a broken file. A truncated file that did not change is what it looks like (`decode`).
 */
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ChainTask } from "../../../src/snapshot/build-tasks.js";
import { admissionBounds } from "../../../src/snapshot/chain-admission.js";
import { buildChainFile } from "../../../src/snapshot/chain-file-task.js";
import { DEFAULT_TOKEN_LOGO_TEMPLATE } from "../../../src/snapshot/normalize-token.js";
import { ThreadNiceness } from "../../../src/snapshot/thread-niceness.js";
import { PROJECT_ROOT } from "../../support/gateway-process.js";
import { tempDir } from "../../support/fixtures.js";

const BUNDLED = readFileSync(path.join(PROJECT_ROOT, "snapshots/chain-1.msgpack"));

/** The chain task on the first `written` bytes of the bundled file; `afterHash` runs once the file is hashed. */
function buildHalfWritten(written: number, afterHash: (file: string) => void) {
  const file = path.join(tempDir("lgw-chain-task-"), "chain-1.msgpack");
  writeFileSync(file, BUNDLED.subarray(0, written));
  // The known hashes are asked right after the hash pass: the writer's next write lands there.
  const knownSha256: string[] = [];
  knownSha256.includes = () => {
    afterHash(file);
    return false;
  };
  const task: ChainTask = {
    kind: "chain",
    nice: new Int32Array(new SharedArrayBuffer(4)),
    path: file,
    logoTemplate: DEFAULT_TOKEN_LOGO_TEMPLATE,
    knownSha256,
    maxBytes: 1 << 30,
    bounds: admissionBounds(Date.now(), 300, null, false),
    previous: null,
    helper: null,
    early: null,
  };
  return buildChainFile(task, new ThreadNiceness(() => undefined));
}

describe("a chain file read while it is written", () => {
  const half = BUNDLED.length >> 1;

  it("is rejected `io` (read again on its next change), not as the truncated file it was when read", async () => {
    const result = await buildHalfWritten(half, (file) => appendFileSync(file, BUNDLED.subarray(half)));
    expect(result.status).toBe("rejected");
    if (result.status !== "rejected") return;
    expect(result.reason).toBe("io");
    expect(result.message).toMatch(/^chain-1\.msgpack: the file was written while it was read/);
  });

  it("a truncated file nobody writes is rejected as truncated", async () => {
    const result = await buildHalfWritten(half, () => undefined);
    expect(result.status).toBe("rejected");
    if (result.status !== "rejected") return;
    expect(result.reason).toBe("decode");
  });
});
