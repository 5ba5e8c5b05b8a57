/**
 * A batch's token index started before its last file finished (docs/decisions/004-early-token-index.md):
 * started for the contents that file would make, used only when the batch published is exactly those
 * contents, dropped otherwise. A failed early build is no failure: the index is then built as usual.
 */
import { snapshotContentKey } from "../api/snapshot-version.js";
import type { EarlyTokens, TokenIndexResult } from "./build-tasks.js";

export class EarlyIndex {
  private started: { readonly contentKey: string; readonly index: Promise<TokenIndexResult | null> } | null = null;

  /** @param build builds a token index of these chains' token data */
  constructor(private readonly build: (inputs: readonly EarlyTokens[]) => Promise<TokenIndexResult>) {}

  /** Starts the index of these chains (replacing any started before). */
  start(inputs: readonly EarlyTokens[]): void {
    this.started = { contentKey: snapshotContentKey(inputs), index: this.build(inputs).catch(() => null) };
  }

  /** The index started for exactly these contents, or null (not started, other contents, or failed); forgets it. */
  async take(contentKey: string): Promise<TokenIndexResult | null> {
    const started = this.started;
    this.started = null;
    return started?.contentKey === contentKey ? await started.index : null;
  }

  /** Forgets what was started. */
  drop(): void {
    this.started = null;
  }
}
