/**
 * QUOTA_STORE=redis: per-key quotas and failed-authentication counts in Redis,
 * exact across every gateway instance and serving thread that share it. One
 * client per serving thread (auto-pipelined), one script per request
 * (redis-quota-protocol.ts), every wait bounded by REDIS_TIMEOUT_MS.
 *
 * What the thread already knows is not asked again: a key over its quota, or
 * an address over its failed-authentication budget, is refused locally until
 * its window turns (RefusalCache).
 *
 * When Redis cannot answer (not connected, an error, a timeout), the request
 * is not counted in Redis: with QUOTA_FAILURE=open it is counted on this
 * instance's own shared-memory counters (LocalQuotaStore, as QUOTA_STORE=memory
 * would), with `closed` it is answered 503 QUOTA_STORE_UNAVAILABLE. Either way
 * it is counted in gateway_quota_store_errors_total and reported in the log
 * (at most once per REPORT_EVERY_MS). After a failure, requests skip Redis for
 * RETRY_AFTER_FAILURE_MS, then one request probes it while the others stay
 * local; the client reconnects by itself, and a fresh connection is used at
 * once. Nothing the client does can throw out of here or crash the thread.
 */
import { Redis, type RedisOptions } from "ioredis";
import type { QuotaStoreStatus } from "../api/wire.js";
import type { Logger } from "../log/logger.js";
import { ThrottledReport } from "../log/throttled-report.js";
import { addressLimitExceeded, type AddressLimit } from "./address-limiter.js";
import type { KeyRateLimit } from "./keys-file.js";
import type { KeyEntry } from "./key-store.js";
import { quotaStoreUnavailable, type LocalQuotaStore, type QuotaStore } from "./quota-store.js";
import type { RateLimitDecision } from "./rate-limiter.js";
import {
  addressText,
  ADMIT_SCRIPT,
  failedAuthCounterName,
  FAILED_SCRIPT,
  parseScriptReply,
  quotaCounterName,
  quotaDecision,
  secondsLeft,
  type ScriptReply,
} from "./redis-quota-protocol.js";
import { RefusalCache } from "./refusal-cache.js";

export interface RedisQuotaOptions {
  readonly url: string;
  readonly keyPrefix: string;
  /** Longest a request waits for Redis (ms). */
  readonly timeoutMs: number;
  readonly failure: "open" | "closed";
  readonly failedAuthLimit: AddressLimit;
  /** Quota of keys without their own. */
  readonly defaultRateLimit: KeyRateLimit;
  /** Most keys a keys file holds (bounds the refused-keys cache). */
  readonly maxKeys: number;
}

/** How long requests skip Redis after it failed, before one probes it again. */
export const RETRY_AFTER_FAILURE_MS = 1000;
/** Most addresses a thread remembers as over their failed-authentication budget. */
const REFUSED_ADDRESSES_MAX = 65_536;
/** At most one log line per this many ms while Redis stays unavailable. */
const REPORT_EVERY_MS = 10_000;
const WHAT_FAILED = "failed authentication attempts";

interface QuotaScripts {
  lgwAdmit(
    addressCounter: string,
    quotaCounter: string,
    failedLimit: number,
    failedWindowMs: number,
    quotaWindowMs: number,
  ): Promise<unknown>;
  lgwFailed(addressCounter: string, failedWindowMs: number): Promise<unknown>;
}

/** The client options: bounded waits, no queueing or replay of commands while disconnected, reconnection forever. */
export function redisClientOptions(timeoutMs: number): RedisOptions {
  return {
    enableAutoPipelining: true,
    // A command is sent now or fails now: never queued while disconnected, never resent after a reconnect (it was answered locally).
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 0,
    commandTimeout: timeoutMs,
    connectTimeout: Math.max(1000, 4 * timeoutMs),
    retryStrategy: (attempt: number) => Math.min(100 * attempt, 2000),
    connectionName: "liquidity-gateway",
    scripts: {
      lgwAdmit: { lua: ADMIT_SCRIPT, numberOfKeys: 2 },
      lgwFailed: { lua: FAILED_SCRIPT, numberOfKeys: 1 },
    },
  };
}

export class RedisQuotaStore implements QuotaStore {
  private readonly client: Redis & QuotaScripts;
  private readonly keysOver: RefusalCache;
  private readonly addressesOver = new RefusalCache(REFUSED_ADDRESSES_MAX);
  private readonly report = new ThrottledReport(REPORT_EVERY_MS);
  private readonly failedWindowMs: number;
  /** 0 while Redis answers; after a failure, the moment (ms) from which one request may probe it. */
  private retryAt = 0;
  private probing = false;
  private unavailableSince: number | null = null;
  private closed = false;

  constructor(
    private readonly options: RedisQuotaOptions,
    /** This instance's counters: the fallback of QUOTA_FAILURE=open, and failures counted while Redis was unavailable. */
    private readonly local: LocalQuotaStore,
    private readonly log: Logger,
    /** Called for each request not counted in Redis. */
    private readonly uncounted: () => void,
  ) {
    this.keysOver = new RefusalCache(options.maxKeys);
    this.failedWindowMs = options.failedAuthLimit.windowSeconds * 1000;
    this.client = new Redis(options.url, redisClientOptions(options.timeoutMs)) as Redis & QuotaScripts;
    this.client.on("error", (error: Error) => this.unavailable(error.message, Date.now()));
    this.client.on("ready", () => {
      this.retryAt = 0;
      this.probing = false;
      if (this.unavailableSince !== null) {
        const uncounted = this.report.reset();
        this.log.info(
          { event: "quota-store-connected", unavailableMs: Date.now() - this.unavailableSince, notReported: uncounted },
          "quota store (Redis) reachable again: counting shared quotas",
        );
        this.unavailableSince = null;
      } else {
        this.log.debug({ event: "quota-store-connected" }, "quota store (Redis) connected");
      }
    });
  }

  assertAddressUnder(address: Uint8Array, nowMs: number): void {
    // Failures counted locally while Redis was unavailable still hold for their window.
    this.local.assertAddressUnder(address, nowMs);
  }

  authenticationFailed(address: Uint8Array, nowMs: number): Promise<void> | undefined {
    const addressName = addressText(address);
    const refusedMs = this.addressesOver.remainingMs(addressName, nowMs);
    if (refusedMs > 0) throw this.addressOver(refusedMs);
    if (!this.usable(nowMs)) return this.uncountedFailure(address, nowMs, null);
    const limit = this.options.failedAuthLimit.requests;
    return this.client.lgwFailed(failedAuthCounterName(this.options.keyPrefix, addressName), this.failedWindowMs).then(
      (reply) => {
        let count: ScriptReply;
        try {
          count = parseScriptReply(reply);
        } catch (error) {
          return this.uncountedFailure(address, Date.now(), error);
        }
        this.answered();
        const [failures, msLeft] = count;
        if (failures >= limit) this.addressesOver.refuse(addressName, nowMs + msLeft, Date.now());
        if (failures > limit) throw this.addressOver(msLeft);
        return undefined;
      },
      (error: unknown) => this.uncountedFailure(address, Date.now(), error),
    );
  }

  consume(entry: KeyEntry, address: Uint8Array | null, nowMs: number): RateLimitDecision | Promise<RateLimitDecision> {
    const addressName = address === null ? null : addressText(address);
    if (addressName !== null) {
      const refusedMs = this.addressesOver.remainingMs(addressName, nowMs);
      if (refusedMs > 0) throw this.addressOver(refusedMs);
    }
    const { requests, windowSeconds } = entry.rateLimit ?? this.options.defaultRateLimit;
    const overMs = this.keysOver.remainingMs(entry.id, nowMs);
    if (overMs > 0) return { allowed: false, limit: requests, remaining: 0, resetSeconds: secondsLeft(overMs) };
    if (!this.usable(nowMs)) return this.uncountedRequest(entry, address, nowMs, null);
    const { failedAuthLimit, keyPrefix } = this.options;
    return this.client
      .lgwAdmit(
        addressName === null ? "" : failedAuthCounterName(keyPrefix, addressName),
        quotaCounterName(keyPrefix, entry.id),
        failedAuthLimit.requests,
        this.failedWindowMs,
        windowSeconds * 1000,
      )
      .then(
        (reply) => {
          let counted: ScriptReply;
          try {
            counted = parseScriptReply(reply);
          } catch (error) {
            return this.uncountedRequest(entry, address, Date.now(), error);
          }
          this.answered();
          const [count, msLeft] = counted;
          // Deadlines from the time the request was sent: never later than the window's end on Redis's clock.
          if (count < 0) {
            if (addressName !== null) this.addressesOver.refuse(addressName, nowMs + msLeft, Date.now());
            throw this.addressOver(msLeft);
          }
          if (count >= requests) this.keysOver.refuse(entry.id, nowMs + msLeft, Date.now());
          return quotaDecision(count, msLeft, requests);
        },
        (error: unknown) => this.uncountedRequest(entry, address, Date.now(), error),
      );
  }

  keysChanged(slots: Readonly<Record<string, number>>): void {
    this.local.keysChanged(slots);
    this.keysOver.clear(); // a key's limit may have changed
  }

  status(nowMs: number): QuotaStoreStatus {
    const connected = this.client.status === "ready" && (this.retryAt === 0 || nowMs >= this.retryAt);
    return { kind: "redis", state: connected ? "connected" : "unavailable", onFailure: this.options.failure };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.client.disconnect(false);
  }

  /** Whether this request asks Redis: connected, not backing off, and (after a failure) no other probe in flight. */
  private usable(nowMs: number): boolean {
    if (this.client.status !== "ready") return false;
    if (this.retryAt === 0) return true;
    if (nowMs < this.retryAt || this.probing) return false;
    this.probing = true;
    return true;
  }

  /** Redis answered: back to counting there. */
  private answered(): void {
    this.retryAt = 0;
    this.probing = false;
  }

  /** A request Redis did not count: local counters (open) or 503 (closed). */
  private uncountedRequest(entry: KeyEntry, address: Uint8Array | null, nowMs: number, error: unknown): RateLimitDecision {
    this.failed(error, nowMs);
    if (this.options.failure === "closed") throw quotaStoreUnavailable();
    return this.local.consume(entry, address, nowMs);
  }

  /** A failed authentication Redis did not count. */
  private uncountedFailure(address: Uint8Array, nowMs: number, error: unknown): undefined {
    this.failed(error, nowMs);
    if (this.options.failure === "closed") throw quotaStoreUnavailable();
    return this.local.authenticationFailed(address, nowMs);
  }

  private failed(error: unknown, nowMs: number): void {
    this.uncounted();
    if (error !== null) {
      this.probing = false;
      this.retryAt = nowMs + RETRY_AFTER_FAILURE_MS;
    }
    const reason = error === null ? `not connected (${this.client.status})` : error instanceof Error ? error.message : String(error);
    this.unavailable(reason, nowMs);
  }

  /** Logs that Redis is unavailable, at most once per REPORT_EVERY_MS. */
  private unavailable(reason: string, nowMs: number): void {
    if (this.closed) return;
    this.unavailableSince ??= nowMs;
    const notReported = this.report.occurred(nowMs);
    if (notReported === null) return;
    this.log.warn(
      {
        event: "quota-store-unavailable",
        reason,
        failure: this.options.failure,
        since: new Date(this.unavailableSince).toISOString(),
        notReported,
      },
      this.options.failure === "open"
        ? "quota store (Redis) unavailable: counting quotas on this instance only until it is back"
        : "quota store (Redis) unavailable: answering keyed requests 503 until it is back",
    );
  }

  private addressOver(msLeft: number) {
    return addressLimitExceeded(this.options.failedAuthLimit, WHAT_FAILED, secondsLeft(msLeft));
  }
}
