/**
 * Real token addresses to put in request bodies: `tokenAddresses(dir, symbol)`
 * decodes every chain file of a snapshot directory in a child process (a large
 * file takes gigabytes of heap for a moment) and returns, per chain, the
 * address of the highest-TVL token with that symbol (case-insensitive).
 */
import { fork } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Unpackr } from "msgpackr";
import { BenchChild } from "../shared/child.js";
import { parseArgs } from "node:util";

const THIS_FILE = fileURLToPath(import.meta.url);

export interface ChainAddress {
  readonly chainId: number;
  readonly address: string;
}

export async function tokenAddresses(dir: string, symbol: string): Promise<ChainAddress[]> {
  const process_ = fork(THIS_FILE, [dir, symbol], { execArgv: ["--max-old-space-size=8192"], stdio: ["ignore", "pipe", "pipe", "ipc"] });
  const child = new BenchChild("token-address finder", process_);
  try {
    const line = await child.waitForLine((l) => Array.isArray(l.tokens), 300_000);
    return line.tokens as ChainAddress[];
  } finally {
    await child.stop();
  }
}

if (process.argv[1] === THIS_FILE && process.send) {
  const [dir, symbol] = parseArgs({ allowPositionals: true }).positionals;
  const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true });
  const tokens: ChainAddress[] = [];
  for (const name of readdirSync(dir)
    .filter((n) => /^chain-\d+\.msgpack$/.test(n))
    .sort()) {
    const file = unpackr.unpack(readFileSync(join(dir, name))) as {
      chainId: number;
      tokens: Array<{ address: string; symbol: string; trackedTotalValuePooledUsd: number }>;
    };
    let best: { address: string; tvl: number } | null = null;
    for (const t of file.tokens) {
      if (t.symbol.toLowerCase() !== symbol.toLowerCase()) continue;
      if (best === null || t.trackedTotalValuePooledUsd > best.tvl) best = { address: t.address, tvl: t.trackedTotalValuePooledUsd };
    }
    if (best !== null) tokens.push({ chainId: file.chainId, address: best.address });
  }
  process.stdout.write(`${JSON.stringify({ tokens })}\n`, () => process.exit(0));
}
