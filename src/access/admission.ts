/**
 * Admission of a request (api-decisions.md §5): who may ask, and how much.
 *
 * - A request that needs no key (a public route, a path no route takes, a
 *   CORS preflight) counts against its client address's public budget.
 * - A keyed request: its key (authenticate.ts), the client address's
 *   failed-authentication budget, the key's quota, then the key's route
 *   allow-list. The fast path is a key this thread has hashed before and this
 *   process has confirmed (it passed every address check once): no hashing,
 *   and the client's address is not even read. A key not confirmed anywhere
 *   in this process is refused from an address over its failed-authentication
 *   budget; a confirmed one is served whatever its address
 *   (confirmed-keys.ts), so an attacker sharing a partner's NAT or proxy
 *   cannot lock it out.
 *
 * With the memory quota store every decision is taken at once; with a shared
 * one (Redis) a count may take a round trip, and `keyed` answers a pending
 * admission instead. The HTTP layer hands over the request's raw parts
 * (`Res`, `Req`) only so that the client-address reader it supplied can read
 * them when, and only when, an address is needed.
 */
import type { AccessGroup } from "../api/access-groups.js";
import type { AddressLimiter } from "./address-limiter.js";
import { authenticate, knownKey } from "./authenticate.js";
import type { ConfirmedKeys } from "./confirmed-keys.js";
import type { KeyEntry, KeyStore } from "./key-store.js";
import type { QuotaStore } from "./quota-store.js";
import { rateLimitExceeded, type RateLimitDecision } from "./rate-limiter.js";
import { assertRouteAllowed } from "./restrictions.js";

/** What admission reads in a serving thread (the keys in force are replaced as a whole when the keys file changes). */
export interface AccessContext {
  readonly keys: KeyStore;
  /** Key quotas and failed authentications per client address (memory or Redis). */
  readonly quotas: QuotaStore;
  /** Keys this process has confirmed valid (served whatever address presents them). */
  readonly confirmedKeys: ConfirmedKeys;
  /** Requests to public routes (and to no route) per client address. */
  readonly publicRequests: AddressLimiter;
}

/** What admission records on a keyed request. */
export interface AdmittedRequest {
  key: KeyEntry | null;
  /** The key's quota decision: the RateLimit-* headers of every response once counted. */
  quota: RateLimitDecision | null;
  /** The client went away (checked before a late decision is applied). */
  readonly aborted: boolean;
}

/** Reads a request's client address (4 or 16 bytes) from the parts the HTTP layer hands over. */
export type ClientAddressOf<Res, Req> = (res: Res, req: Req) => Uint8Array;

/** A keyed admission that a shared quota store decides later. */
export interface PendingAdmission {
  /**
   * True: the key was refused and the failed authentication is being counted; `settled` rejects with what to
   * answer. False: the key's quota is being counted; `settled` resolves to true once the key is admitted (false
   * when the client went away first) or rejects with the refusal (429, 403, 503).
   */
  readonly refused: boolean;
  readonly settled: Promise<boolean>;
}

export class Admission<Res, Req> {
  constructor(
    private readonly ctx: AccessContext,
    private readonly clientAddress: ClientAddressOf<Res, Req>,
  ) {}

  /** A request that needs no key: counted against its address's public budget (throws 429 past it). */
  public(res: Res, req: Req, nowMs: number): void {
    this.ctx.publicRequests.take(this.clientAddress(res, req), nowMs);
  }

  /**
   * A request to a keyed route of access group `group`, with its Authorization header. Returns null once
   * admitted (`request.key` and `request.quota` set), throws the refusal, or returns the pending admission.
   */
  keyed(request: AdmittedRequest, authorization: string, group: AccessGroup, res: Res, req: Req, nowMs: number): PendingAdmission | null {
    const { keys, quotas, confirmedKeys } = this.ctx;
    let key = knownKey(authorization, keys, nowMs);
    if (key !== null && !confirmedKeys.has(key)) key = null;
    // Confirmed already (the usual request): nothing to mark once counted.
    const confirmed = key !== null;
    let address: Uint8Array | null = null;
    if (key === null) {
      address = this.clientAddress(res, req);
      try {
        key = authenticate(authorization, keys, nowMs);
      } catch (error) {
        quotas.assertAddressUnder(address, nowMs);
        const counting = quotas.authenticationFailed(address, nowMs);
        if (counting === undefined) throw error;
        return {
          refused: true,
          settled: counting.then(() => {
            throw error;
          }),
        };
      }
      if (confirmedKeys.has(key)) address = null;
      else quotas.assertAddressUnder(address, nowMs);
    }
    request.key = key;
    const quota = quotas.consume(key, address, nowMs);
    if (quota instanceof Promise) {
      const admitted = key;
      return {
        refused: false,
        settled: quota.then((decided) => {
          if (request.aborted) return false;
          this.grant(request, admitted, group, decided, confirmed);
          return true;
        }),
      };
    }
    this.grant(request, key, group, quota, confirmed);
    return null;
  }

  /**
   * Records the key's quota decision (its RateLimit-* headers) and the key as
   * confirmed valid (it passed every address check; `confirmed`: it was found confirmed on arrival), then refuses a key over its
   * quota or outside its allowed routes.
   */
  private grant(request: AdmittedRequest, key: KeyEntry, group: AccessGroup, quota: RateLimitDecision, confirmed: boolean): void {
    request.quota = quota;
    if (!confirmed) this.ctx.confirmedKeys.mark(key);
    if (!quota.allowed) throw rateLimitExceeded(quota);
    assertRouteAllowed(key, group);
  }
}
