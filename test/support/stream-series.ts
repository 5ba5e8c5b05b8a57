/**
 * A series of real snapshots of the live chains (live-fixture.ts) for the
 * stream's unit tests: compiled, diffed and stamped as a gateway does
 * (compiled-snapshots.ts), so their change sets, positions and record JSON
 * are the ones a serving thread publishes. Also what the tests read back: an
 * event's fields from its JSON or its SSE frame.
 */
import type { ChainId } from "../../src/chains/chains.js";
import type { ServingSnapshot } from "../../src/serving/serving-snapshot.js";
import { swappedSnapshot, type SwappedSnapshot } from "../../src/stream/swapped-snapshot.js";
import { isTopic, parseTopic, type Topic } from "../../src/stream/topics.js";
import { compileSnapshot, InProcessChanges, servingSnapshotOf } from "./compiled-snapshots.js";
import { LIVE_POOLS, LIVE_TOKENS, liveChain } from "./live-fixture.js";

export const SERIES_CHAINS: readonly ChainId[] = [1, 8453];

/** Versions 0..n-1 of the live chains on SERIES_CHAINS, each swapped in after the one before. */
export function liveSeries(n: number, chains: readonly ChainId[] = SERIES_CHAINS): ServingSnapshot[] {
  const changes = new InProcessChanges();
  return Array.from({ length: n }, (_, k) =>
    servingSnapshotOf(
      compileSnapshot(
        chains.map((chainId) => liveChain(chainId, k)),
        changes,
        k % 8,
      ),
    ),
  );
}

/** `snapshot` as a thread's streams hold it, swapped in at `at` (epoch ms). */
export function swapped(snapshot: ServingSnapshot, at = 0): SwappedSnapshot {
  return swappedSnapshot(snapshot, at);
}

export function topic(text: string): Topic {
  const parsed = parseTopic(text);
  if (!isTopic(parsed)) throw new Error(`not a topic: ${text}`);
  return parsed;
}

/** Every uWS topic an event of the series may go to: `changes:<c>`, and each live pool and token of each chain. */
export function seriesTopics(chains: readonly ChainId[] = SERIES_CHAINS): Topic[] {
  return chains.flatMap((c) => [
    topic(`changes:${c}`),
    ...LIVE_POOLS.map((a) => topic(`pool:${c}:${a}`)),
    ...LIVE_TOKENS.map((a) => topic(`token:${c}:${a}`)),
  ]);
}

/** What the tests compare of an event: its type, chain, position, address (records) and whether it removed it. */
export interface EventFacts {
  readonly type: string;
  readonly chainId: number;
  readonly position: string;
  readonly address: string | null;
  readonly removed: boolean | null;
}

export function factsOf(json: string): EventFacts {
  const event = JSON.parse(json) as { type: string; chainId: number; position: string; address?: string; removed?: boolean };
  return {
    type: event.type,
    chainId: event.chainId,
    position: event.position,
    address: event.address ?? null,
    removed: event.removed ?? null,
  };
}

/** The JSON of one SSE frame (`event:`, `id:`, `data:` lines), checking its `id` is the event's position. */
export function sseJson(frame: string): string {
  const lines = frame.split("\n");
  const data = lines.find((line) => line.startsWith("data: "));
  if (data === undefined || !frame.endsWith("\n\n")) throw new Error(`not an SSE event: ${frame}`);
  const json = data.slice("data: ".length);
  const id = lines.find((line) => line.startsWith("id: "));
  if (id !== undefined && id.slice(4) !== (JSON.parse(json) as { position: string }).position)
    throw new Error(`id is not the position: ${frame}`);
  return json;
}
