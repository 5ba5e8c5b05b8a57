/**
 * Real pool addresses to request: `samplePoolAddresses(dir, chainId, n)`
 * decodes that chain's snapshot file in a child process (a large file takes
 * gigabytes of heap for a moment) and returns n addresses spread over it.
 */
import { fork } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Unpackr } from "msgpackr";
import { BenchChild } from "../shared/child.js";
import { parseArgs } from "node:util";

const THIS_FILE = fileURLToPath(import.meta.url);

export async function samplePoolAddresses(dir: string, chainId: number, count: number): Promise<string[]> {
  const file = join(dir, `chain-${chainId}.msgpack`);
  const process_ = fork(THIS_FILE, [file, String(count)], {
    execArgv: ["--max-old-space-size=8192"],
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  const child = new BenchChild("pool-address sampler", process_);
  try {
    const line = await child.waitForLine((l) => Array.isArray(l.addresses), 120_000);
    return line.addresses as string[];
  } finally {
    await child.stop();
  }
}

if (process.argv[1] === THIS_FILE && process.send) {
  const [file, countText] = parseArgs({ allowPositionals: true }).positionals;
  const snapshot = new Unpackr({ useRecords: false, mapsAsObjects: true }).unpack(readFileSync(file)) as {
    pools: Array<{ address: string }>;
  };
  const count = Math.min(Number(countText), snapshot.pools.length);
  const step = Math.max(1, Math.floor(snapshot.pools.length / count));
  const addresses = Array.from({ length: count }, (_, i) => snapshot.pools[(i * step + 7) % snapshot.pools.length].address);
  process.stdout.write(`${JSON.stringify({ addresses })}\n`, () => process.exit(0));
}
