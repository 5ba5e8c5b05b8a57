/**
 * The fleet in Redis (fleet.md §18, §20), on the Redis the quota store uses (REDIS_URL, REDIS_KEY_PREFIX):
 *
 * - every instance writes `{instanceId, generation, position, appliedAt, lastError, reportedAt}` under
 *   `<prefix>:fleet:<instanceId>` after each poll, expiring after 3 poll intervals (an instance that
 *   stops writing drops out); GET /v1/status/fleet lists the live ones (fleetData: skew, who is behind);
 * - `publish` sends `PUBLISH <prefix>:origin <generation>` (a poke) and every instance polls within 0-2 s.
 *
 * Redis being away costs the view and the pokes, never serving: every error is logged (at most once per
 * minute) and swallowed; polls go on on their own schedule.
 */
import { Redis, type RedisOptions } from "ioredis";
import typia from "typia";
import type { FleetData, FleetInstance, OriginError } from "../api/wire.js";
import type { Logger } from "../log/logger.js";
import { ThrottledReport } from "../log/throttled-report.js";

/** What GET /v1/status/fleet is answered from: the fleet, or why there is none to show. */
export type FleetAnswer =
  | { readonly kind: "data"; readonly data: FleetData }
  | { readonly kind: "unavailable"; readonly reason: "no-origin" | "no-redis" | "redis-unreachable" };

/** What an instance writes about itself. */
export interface FleetEntry {
  instanceId: string;
  generation: number | null;
  position: string | null;
  appliedAt: string | null;
  lastError: OriginError | null;
  reportedAt: string;
}

const validateEntry = typia.createValidateEquals<FleetEntry>();

export interface FleetViewOptions {
  readonly url: string;
  readonly keyPrefix: string;
  readonly instanceId: string;
  /** How long an entry lives without being written again (3 poll intervals), ms. */
  readonly ttlMs: number;
  /** Longest wait for Redis, ms. */
  readonly timeoutMs: number;
}

/** Most entries listed (a fleet larger than this is cut). */
const MAX_INSTANCES = 1000;
const REPORT_EVERY_MS = 60_000;

export const fleetKeyPrefix = (keyPrefix: string) => `${keyPrefix}:fleet:`;
export const pokeChannel = (keyPrefix: string) => `${keyPrefix}:origin`;

export function redisOptions(timeoutMs: number, name: string): RedisOptions {
  return {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: timeoutMs,
    connectTimeout: Math.max(1000, 4 * timeoutMs),
    retryStrategy: (attempt: number) => Math.min(100 * attempt, 2000),
    connectionName: name,
  };
}

export class FleetView {
  private readonly client: Redis;
  private subscriber: Redis | null = null;
  private readonly report = new ThrottledReport(REPORT_EVERY_MS);

  constructor(
    private readonly options: FleetViewOptions,
    private readonly log: Logger,
  ) {
    this.client = new Redis(options.url, redisOptions(options.timeoutMs, "liquidity-gateway-fleet"));
    this.client.on("error", (error: Error) => this.failed("connection", error));
  }

  /** Writes this instance's entry (errors logged, never thrown). */
  async write(entry: Omit<FleetEntry, "instanceId">): Promise<void> {
    const value: FleetEntry = { instanceId: this.options.instanceId, ...entry };
    try {
      await this.client.set(
        `${fleetKeyPrefix(this.options.keyPrefix)}${this.options.instanceId}`,
        JSON.stringify(value),
        "PX",
        this.options.ttlMs,
      );
    } catch (error) {
      this.failed("write", error as Error);
    }
  }

  /** Every live instance's entry (malformed ones skipped). Throws when Redis cannot answer. */
  async list(): Promise<FleetEntry[]> {
    const prefix = fleetKeyPrefix(this.options.keyPrefix);
    const keys: string[] = [];
    let cursor = "0";
    do {
      const [next, found] = await this.client.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 200);
      cursor = next;
      keys.push(...found);
    } while (cursor !== "0" && keys.length < MAX_INSTANCES);
    if (keys.length === 0) return [];
    const values = await this.client.mget(keys.slice(0, MAX_INSTANCES));
    const entries: FleetEntry[] = [];
    for (const text of values) {
      if (text === null) continue;
      try {
        const checked = validateEntry(JSON.parse(text));
        if (checked.success) entries.push(checked.data);
      } catch {
        // another program's key under our prefix: not an instance
      }
    }
    return entries;
  }

  /** Calls `poked` with each generation published (null when the message is not a number). */
  listenForPokes(poked: (generation: number | null) => void): void {
    const subscriber = new Redis(this.options.url, {
      ...redisOptions(this.options.timeoutMs, "liquidity-gateway-poke"),
      enableOfflineQueue: true,
    });
    this.subscriber = subscriber;
    subscriber.on("error", (error: Error) => this.failed("subscription", error));
    subscriber.on("message", (_channel: string, message: string) => poked(/^\d{1,15}$/.test(message) ? Number(message) : null));
    subscriber.subscribe(pokeChannel(this.options.keyPrefix)).catch((error: Error) => this.failed("subscribe", error));
  }

  async close(): Promise<void> {
    this.client.disconnect();
    this.subscriber?.disconnect();
  }

  private failed(what: string, error: Error): void {
    const skipped = this.report.occurred(Date.now());
    if (skipped === null) return;
    this.log.warn(
      { event: "fleet-redis-error", what, error: error.message, notReported: skipped },
      `fleet view (Redis) ${what} failed: ${error.message}; serving and polling go on`,
    );
  }
}

/** The fleet as GET /v1/status/fleet answers it: instances by id, how far each is behind the newest generation. */
export function fleetData(entries: readonly FleetEntry[]): FleetData {
  const sorted = [...entries].sort((a, b) => (a.instanceId < b.instanceId ? -1 : a.instanceId > b.instanceId ? 1 : 0));
  const generations = sorted.flatMap((e) => (e.generation === null ? [] : [e.generation]));
  const newest = generations.length === 0 ? null : Math.max(...generations);
  const oldest = generations.length === 0 ? null : Math.min(...generations);
  const instances: FleetInstance[] = sorted.map((e) => ({
    instanceId: e.instanceId,
    generation: e.generation,
    behind: newest === null ? 0 : newest - (e.generation ?? 0),
    position: e.position,
    appliedAt: e.appliedAt,
    lastError: e.lastError,
    reportedAt: e.reportedAt,
  }));
  const positions = new Set(sorted.map((e) => e.position));
  return {
    newestGeneration: newest,
    generationSkew: newest === null || oldest === null ? 0 : newest - oldest,
    samePosition: positions.size <= 1,
    instances,
  };
}

/** Sends a poke (publish): every instance listening polls within 0-2 s. Resolves with the number of listeners. */
export async function sendPoke(url: string, keyPrefix: string, generation: number, timeoutMs: number): Promise<number> {
  const client = new Redis(url, { ...redisOptions(timeoutMs, "liquidity-gateway-publish"), enableOfflineQueue: true, lazyConnect: true });
  client.on("error", () => {});
  try {
    await client.connect();
    return await client.publish(pokeChannel(keyPrefix), String(generation));
  } finally {
    client.disconnect();
  }
}
