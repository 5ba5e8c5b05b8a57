/**
 * GET /ready's answer, encoded once per state rather than once per probe: a
 * load balancer or an orchestrator may poll it as often as it likes (probes
 * are never counted against the per-address budget, docs/operators.md), so a
 * flood of probes costs the HTTP parse and the one writer, no JSON. The state
 * is the served snapshot, the initial load having finished, and the quota
 * store's status; any change makes the next probe encode the new answer.
 */
import type { QuotaStoreStatus, ReadinessResponse } from "../api/wire.js";
import type { ServingSnapshot } from "../serving/serving-snapshot.js";
import { rawJson, type RawReply } from "./reply.js";

export class ReadinessAnswer {
  private snapshot: ServingSnapshot | null = null;
  private loaded = false;
  private quota: QuotaStoreStatus | null = null;
  private reply: RawReply | null = null;

  /** The answer for this state (the same object while the state holds). */
  of(snapshot: ServingSnapshot | null, loaded: boolean, quota: QuotaStoreStatus): RawReply {
    const last = this.quota;
    if (
      this.reply !== null &&
      snapshot === this.snapshot &&
      loaded === this.loaded &&
      last !== null &&
      quota.kind === last.kind &&
      quota.state === last.state &&
      quota.onFailure === last.onFailure
    )
      return this.reply;
    // Refusing every keyed request (QUOTA_FAILURE=closed without Redis) is not ready: a load balancer should send traffic elsewhere.
    const ready = loaded && !(quota.state === "unavailable" && quota.onFailure === "closed");
    const body = JSON.stringify({
      ready,
      version: snapshot?.versionHex ?? null,
      chains: snapshot ? [...snapshot.chainIds] : [],
      quotaStore: quota,
      position: snapshot?.changes.positionText ?? null,
    } satisfies ReadinessResponse);
    this.snapshot = snapshot;
    this.loaded = loaded;
    this.quota = quota;
    this.reply = rawJson(ready ? 200 : 503, Buffer.from(body));
    return this.reply;
  }
}
