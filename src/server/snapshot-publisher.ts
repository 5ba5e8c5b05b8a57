/**
 * The supervisor's side of publishing a snapshot (docs/architecture.md, "A
 * swap to a subscriber"; decision 006): a version the loader built becomes the
 * served one in the retention policy, its change sets are stamped and kept,
 * and the whole goes to every serving thread, which swap it in; the
 * supervisor then tells them to publish its events once all have
 * (supervisor.ts). Earlier versions are released once the policy lets them go
 * (checked every RETENTION_CHECK_MS until `stop`).
 */
import { versionHex } from "../api/snapshot-version.js";
import type { Logger } from "../log/logger.js";
import type { GatewayMetrics } from "../metrics/gateway-metrics.js";
import type { ChangeHistoryKeeper } from "../serving/change-history.js";
import type { RetentionChanges, VersionRetention } from "../serving/version-retention.js";
import type { ChangeSetDraft } from "../tables/change-sets.js";
import type { CompiledChain } from "../tables/compiled-chain.js";
import type { TokenIndexData } from "../tables/token-index.js";
import { servedPosition } from "../serving/served-changes.js";
import type { Supervisor } from "./supervisor.js";

/** How often earlier versions are checked against the retention policy (version-retention.ts). */
export const RETENTION_CHECK_MS = 1000;

export interface SnapshotPublisherParts {
  readonly retention: VersionRetention;
  readonly changeHistory: ChangeHistoryKeeper;
  readonly supervisor: Supervisor;
  readonly metrics: GatewayMetrics;
  readonly log: Logger;
}

export class SnapshotPublisher {
  private pruning: NodeJS.Timeout | null = null;
  /** The position served now (the fleet view reports it); null until a snapshot is served. */
  private served: string | null = null;

  constructor(private readonly parts: SnapshotPublisherParts) {}

  /**
   * The loader built `version`: it is served from now on, its change sets stamped with the supervisor's clock;
   * `whenServed` is called once every serving thread swapped it in (what may wait for that, e.g. history).
   */
  built(
    version: number,
    chains: readonly CompiledChain[],
    tokenIndex: TokenIndexData,
    changeSets: readonly ChangeSetDraft[],
    whenServed?: () => void,
  ): void {
    const { retention, changeHistory, supervisor, log } = this.parts;
    const { slot, ...changes } = retention.promote(version);
    const chainIds = chains.map((c) => c.info.chainId).sort((a, b) => a - b);
    // servedAt: the supervisor's clock as it publishes the version (every thread gets the same history).
    const history = changeHistory.publish(changeSets, version, Date.now());
    supervisor.publishSnapshot({ type: "snapshot", version, slot, chainIds, chains, tokenIndex, changes: history }, changes, whenServed);
    this.served = servedPosition(history);
    this.versionsChanged();
    log.info(
      {
        event: "snapshot-swapped",
        version: versionHex(version),
        publication: history.publication,
        retired: changes.retired.map(versionHex),
        poolsReleased: changes.poolsReleased.map(versionHex),
      },
      `serving snapshot ${versionHex(version)}`,
    );
  }

  /** The position served now (the change feed's position of the last published snapshot), or null before the first. */
  get position(): string | null {
    return this.served;
  }

  /** Checks earlier versions against the retention policy every RETENTION_CHECK_MS until `stop`. */
  start(): void {
    this.pruning ??= setInterval(() => this.prune(), RETENTION_CHECK_MS);
  }

  stop(): void {
    if (this.pruning !== null) clearInterval(this.pruning);
    this.pruning = null;
  }

  /** Releases the versions the policy lets go of, here and in every thread. */
  prune(): void {
    const { retention, supervisor, log } = this.parts;
    const changes: RetentionChanges = retention.prune();
    if (changes.retired.length + changes.poolsReleased.length === 0) return;
    supervisor.applyRetention(changes);
    this.versionsChanged();
    log.info(
      {
        event: "snapshot-versions-released",
        retired: changes.retired.map(versionHex),
        poolsReleased: changes.poolsReleased.map(versionHex),
      },
      "earlier snapshot versions released (no cursor needs them, or only their token lists)",
    );
  }

  private versionsChanged(): void {
    const { retention, metrics } = this.parts;
    metrics.versionsChanged(retention.current === null ? null : versionHex(retention.current), retention.versions().map(versionHex));
  }
}
