/**
 * Decoding that cannot race (issue 10, item 1). msgpackr-extract keeps one
 * process-global token table that every thread loading the addon clears and
 * refills; a native decode running meanwhile in another thread garbles strings.
 *
 * Several threads decode the bundled snapshots/chain-1.msgpack while other
 * threads keep starting and loading msgpackr (which loads the addon), and two
 * threads re-run the addon's initialisation in a loop (the same reset, many
 * times a second, so that the race shows within seconds instead of one decode
 * in a hundred). Every result is packed again and compared byte for byte with a
 * single-threaded decode.
 *
 * The gateway's decoder (the built dist/src/snapshot/decode-snapshot.js) must
 * never differ. The same harness with msgpackr's native decoder must differ,
 * which shows the harness reproduces the race on this machine (if that case
 * ever stops failing, msgpackr-extract has fixed it: see decode-snapshot.ts).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { beforeAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../support/gateway-process.js";

const FILE = path.join(PROJECT_ROOT, "snapshots/chain-1.msgpack");
const DECODE_MODULE = pathToFileURL(path.join(PROJECT_ROOT, "dist/src/snapshot/decode-snapshot.js")).href;
const projectRequire = createRequire(path.join(PROJECT_ROOT, "package.json"));
/** The addon binary msgpackr loads on this machine (the one whose table the threads share). */
const ADDON: string = projectRequire("node-gyp-build-optional-packages").path(path.dirname(projectRequire.resolve("msgpackr-extract")));

const DECODERS = 2;
/** Decodes per decoder thread with the gateway's decoder (the native decoder differs in ~1 of 15 here). */
const DECODES_EACH = 40;
/** Upper bound for the native control, which stops at its first difference. */
const CONTROL_DECODES_EACH = 150;

interface DecodeReport {
  readonly decodes: number;
  readonly differing: number;
  readonly native: boolean;
  readonly firstDifference: string | null;
}

/** A decoder thread: decodes `decodes` times, packs each result and compares it with `reference`. */
const DECODER = `
const { parentPort, workerData } = require("node:worker_threads");
const { createRequire } = require("node:module");
const { readFileSync } = require("node:fs");
(async () => {
  const projectRequire = createRequire(workerData.packageJson);
  const { Packr, isNativeAccelerationEnabled } = projectRequire("msgpackr");
  const packr = new Packr({ useRecords: false });
  let decode, native = false;
  if (workerData.decoder === "gateway") {
    decode = (await import(workerData.decodeModule)).decodeSnapshotBytes;
  } else {
    const { Unpackr } = projectRequire("msgpackr");
    const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true, int64AsType: "auto" });
    decode = (bytes) => unpackr.unpack(bytes);
    native = isNativeAccelerationEnabled;
  }
  const bytes = readFileSync(workerData.file);
  const reference = Buffer.from(workerData.reference);
  let decodes = 0, differing = 0, firstDifference = null;
  for (let i = 0; i < workerData.decodes; i++) {
    let same;
    try {
      same = packr.pack(decode(bytes)).equals(reference);
      if (!same) firstDifference ??= "decoded value differs";
    } catch (error) {
      same = false;
      firstDifference ??= String(error && error.message);
    }
    decodes++;
    if (!same) {
      differing++;
      if (workerData.stopAtFirst) break;
    }
  }
  parentPort.postMessage({ decodes, differing, native, firstDifference });
})();`;

/** A thread that starts, loads msgpackr (and so the addon) and ends. */
const LOADER = `
const { parentPort, workerData } = require("node:worker_threads");
require("node:module").createRequire(workerData.packageJson)("msgpackr");
parentPort.postMessage("loaded");`;

/** A thread that re-runs the addon's initialisation (which resets the shared table) until terminated. */
const RESETTER = `
const { workerData } = require("node:worker_threads");
for (;;) process.dlopen({ exports: {} }, workerData.addon);`;

let reference: Buffer;

beforeAll(async () => {
  const { decodeSnapshotBytes } = (await import(DECODE_MODULE)) as { decodeSnapshotBytes: (b: Uint8Array) => unknown };
  const { Packr } = projectRequire("msgpackr") as typeof import("msgpackr");
  reference = new Packr({ useRecords: false }).pack(decodeSnapshotBytes(readFileSync(FILE)));
});

/** Runs the decoders while loader threads keep starting and resetter threads reset the table. */
async function race(
  decoder: "gateway" | "native",
  decodes: number,
  stopAtFirst: boolean,
): Promise<{ reports: DecodeReport[]; loads: number }> {
  const packageJson = path.join(PROJECT_ROOT, "package.json");
  let running = true;
  let loads = 0;
  const loaderLoop = async () => {
    while (running) {
      await new Promise<void>((resolve, reject) => {
        const w = new Worker(LOADER, { eval: true, workerData: { packageJson } });
        w.once("message", () => loads++);
        w.once("error", reject);
        w.once("exit", () => resolve());
      });
    }
  };
  const resetters = [0, 1].map(() => new Worker(RESETTER, { eval: true, workerData: { addon: ADDON } }));
  const loaders = loaderLoop();
  try {
    const reports = await Promise.all(
      Array.from(
        { length: DECODERS },
        () =>
          new Promise<DecodeReport>((resolve, reject) => {
            const w = new Worker(DECODER, {
              eval: true,
              workerData: { packageJson, decoder, decodeModule: DECODE_MODULE, file: FILE, reference, decodes, stopAtFirst },
            });
            w.once("message", resolve);
            w.once("error", reject);
          }),
      ),
    );
    return { reports, loads };
  } finally {
    running = false;
    await loaders;
    await Promise.all(resetters.map((w) => w.terminate()));
  }
}

describe("snapshot decoding in several threads while others load msgpackr", () => {
  it("the gateway's decoder gives exactly the single-threaded result every time", { timeout: 120_000 }, async () => {
    const { reports, loads } = await race("gateway", DECODES_EACH, false);
    expect(loads).toBeGreaterThan(0);
    for (const r of reports) {
      expect(r.decodes).toBe(DECODES_EACH);
      expect(r.differing, `first difference: ${r.firstDifference}`).toBe(0);
    }
  });

  it("the same harness catches msgpackr's native decoder garbling a decode (the race is real here)", { timeout: 120_000 }, async () => {
    const { reports } = await race("native", CONTROL_DECODES_EACH, true);
    for (const r of reports) expect(r.native).toBe(true);
    const differing = reports.reduce((n, r) => n + r.differing, 0);
    const decodes = reports.reduce((n, r) => n + r.decodes, 0);
    expect(differing, `${decodes} native decodes, none differed`).toBeGreaterThan(0);
  });
});
