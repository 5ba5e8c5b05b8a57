/**
 * An instance pulling its files from its origin (fleet.md §18, §19): the orchestration. At start the local
 * copy is checked (restore: the last accepted manifest's files hashed again; a chain file that differs is
 * removed, so only verified data serves) before the loader's first scan; then the instance polls at once
 * and at the times poll-policy.ts gives (a Redis poke brings a poll forward). A poll reads the manifest
 * (generation-fetch.ts), judges it (generation-rule.ts), stages what changed, renames it into place and
 * hands it to the unchanged pipeline (apply-generation.ts), then saves the local copy (local-copy.ts).
 * Whatever fails, the data served now stays served; the status record says what happened.
 */
import type { Logger } from "../log/logger.js";
import { renameIntoPlace, partialName, type ApplyHooks, type StagedEntry } from "./apply-generation.js";
import { readManifest, stageGeneration, type FetchContext, type ManifestRead, type WantedEntry } from "./generation-fetch.js";
import { expiry, judgeGeneration } from "./generation-rule.js";
import { LocalFiles, livePathOf, readLocalCopy, writeLocalCopy, writeState, type LivePaths, type LocalState } from "./local-copy.js";
import { entryName, parseManifest, type KindLimits, type OriginManifest } from "./manifest.js";
import { verifyManifest, type TrustedKey } from "./manifest-signature.js";
import type { OriginReader } from "./origin-reader.js";
import type { OriginStatusRecord } from "./origin-status.js";
import { asPollFailure, refused, type PollFailure } from "./poll-failure.js";
import { PollPolicy, type PollOutcome, type PollTiming } from "./poll-policy.js";
import { removeStaleStaging } from "./staging.js";
import { unlink } from "node:fs/promises";
import { dirname } from "node:path";

export interface OriginPullerOptions {
  readonly reader: OriginReader;
  readonly paths: LivePaths;
  readonly limits: KindLimits;
  readonly timing: PollTiming;
  /** ORIGIN_MAX_SKEW_S, ms: the allowance on `expires`. */
  readonly maxSkewMs: number;
  readonly publicKeys: readonly TrustedKey[] | null;
  /** ORIGIN_READY: `cached` is ready on a restored local copy, `fresh` only after a successful poll. */
  readonly readiness: "cached" | "fresh";
  readonly now?: () => number;
  readonly random?: () => number;
}

export type PollResult = "changed" | "not_modified" | "error" | "refused";

export interface OriginPullerEvents {
  statusChanged(record: OriginStatusRecord): void;
  polled(result: PollResult): void;
  bytesReceived(bytes: number): void;
  /** The origin's side of readiness is met (once). */
  ready(): void;
}

/** The generation in force, as the local copy holds it. */
interface Accepted {
  readonly state: LocalState;
  readonly bytes: Buffer;
  readonly signature: Buffer | null;
  /** Null when only the state could be read (the generation still bounds rollbacks). */
  readonly manifest: OriginManifest | null;
}

const KEYS_NOT_PLACED = "API_KEYS_FILE is not set: the origin's keys file is not applied (the bundled sample is never overwritten)";

export class OriginPuller {
  private readonly files = new LocalFiles();
  private readonly policy: PollPolicy;
  private readonly now: () => number;
  private readonly abort = new AbortController();
  private accepted: Accepted | null = null;
  private record: OriginStatusRecord;
  private timer: NodeJS.Timeout | null = null;
  private dueAtMs = 0;
  private running: Promise<void> | null = null;
  private pokedWhileRunning = false;
  /** The next poll reads the manifest without If-None-Match (after a poke). */
  private unconditional = false;
  private stopped = false;
  private isReady = false;
  private loggedError: string | null = null;

  constructor(
    private readonly options: OriginPullerOptions,
    private readonly hooks: ApplyHooks,
    private readonly events: OriginPullerEvents,
    private readonly log: Logger,
  ) {
    this.now = options.now ?? Date.now;
    this.policy = new PollPolicy(options.timing, options.random);
    const { reader } = options;
    this.record = {
      ...{ kind: reader.kind, url: reader.display, generation: null, manifestSha256: null, etag: null, publishedAt: null },
      ...{ startedAtMs: this.now(), lastPollAtMs: null, lastSuccessAtMs: null, lastChangeAtMs: null, nextPollAtMs: null },
      ...{ consecutiveFailures: 0, lastError: null, refused: false, clockSkewMs: null, signature: null, partial: [] },
    };
  }

  get status(): OriginStatusRecord {
    return this.record;
  }

  /**
   * Before the loader's first scan: removes staging files a crash left, reads the local copy and hashes its
   * files again (a chain file that differs is removed). True when a verified local copy serves.
   */
  async restore(): Promise<boolean> {
    const { paths } = this.options;
    for (const dir of new Set([
      paths.snapshotDir,
      dirname(paths.basketsFile),
      ...(paths.keysFile === null ? [] : [dirname(paths.keysFile)]),
    ]))
      await removeStaleStaging(dir);
    let copy;
    try {
      copy = await readLocalCopy(paths.snapshotDir);
    } catch (error) {
      this.log.warn(
        { event: "origin-local-copy-unreadable", error: (error as Error).message },
        `the local copy of the origin is unreadable: ${(error as Error).message}`,
      );
      return false;
    }
    if (copy === null) return false;
    let manifest: OriginManifest | null = null;
    try {
      manifest = parseManifest(copy.manifest, this.options.limits);
      if (this.options.publicKeys !== null) verifyManifest(copy.manifest, copy.signature, this.options.publicKeys);
    } catch (error) {
      this.log.warn(
        { event: "origin-local-copy-refused", error: (error as Error).message },
        `the local copy's manifest is not taken: ${(error as Error).message}`,
      );
      manifest = null;
    }
    this.accepted = {
      state: { ...copy.state, etag: manifest === null ? null : copy.state.etag },
      bytes: copy.manifest,
      signature: copy.signature,
      manifest,
    };
    if (manifest === null) return false;
    for (const entry of manifest.files) {
      const path = livePathOf(entry, paths);
      if (path === null || (await this.files.verify(path, entry.sha256))) continue;
      if (entry.kind === "chain") await unlink(path).catch(() => {});
      this.log.warn(
        { event: "origin-local-file-differs", file: partialName(entry, path), generation: manifest.generation },
        `${partialName(entry, path)} does not hold what generation ${manifest.generation} names${entry.kind === "chain" ? "; removed, it is fetched again" : "; it is fetched again"}`,
      );
    }
    this.update({
      generation: manifest.generation,
      manifestSha256: copy.state.manifestSha256,
      etag: this.accepted.state.etag,
      publishedAt: manifest.publishedAt,
    });
    this.log.info(
      { event: "origin-local-copy", generation: manifest.generation },
      `serving the local copy of generation ${manifest.generation} until the origin answers`,
    );
    this.events.statusChanged(this.record);
    if (this.options.readiness === "cached") this.markReady();
    return true;
  }

  /** Polls at once, then on schedule. */
  start(): void {
    this.schedule(0);
  }

  /**
   * A poke (Redis): a generation was published; poll soon unless this one is served already. That poll reads the
   * manifest in full: an ETag made of a time in seconds and a size may not have changed.
   */
  poke(generation: number | null): void {
    if (this.stopped || (generation !== null && this.accepted !== null && generation <= this.accepted.state.generation)) return;
    this.unconditional = true;
    if (this.running !== null) {
      this.pokedWhileRunning = true;
      return;
    }
    const wait = this.policy.poked(this.now(), this.dueAtMs);
    if (wait !== null) this.schedule(wait);
  }

  /** Stops polling; an exchange in progress is aborted (shutdown never waits for an origin). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.abort.abort();
    await this.running;
    this.options.reader.close();
  }

  private schedule(waitMs: number): void {
    if (this.stopped) return;
    if (this.timer !== null) clearTimeout(this.timer);
    this.dueAtMs = this.now() + waitMs;
    this.update({ nextPollAtMs: this.dueAtMs });
    this.events.statusChanged(this.record);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.poll().finally(() => (this.running = null));
    }, waitMs);
    this.timer.unref();
  }

  private async poll(): Promise<void> {
    const started = this.now();
    this.pokedWhileRunning = false;
    let outcome: PollOutcome;
    let result: PollResult;
    try {
      result = await this.pollOnce();
      outcome = { kind: result === "changed" ? "changed" : "not-modified" };
      this.update({ lastSuccessAtMs: this.now(), lastError: null, refused: false });
      if (this.loggedError !== null)
        this.log.info({ event: "origin-recovered", generation: this.record.generation }, "the origin answers again");
      this.loggedError = null;
      this.markReady();
    } catch (error) {
      if (this.stopped) return;
      const failure = asPollFailure(error);
      outcome = failure.outcome;
      result = outcome.kind === "refused" ? "refused" : "error";
      this.failed(failure);
    }
    if (this.stopped) return;
    let wait = this.policy.next(outcome, this.now());
    if (this.pokedWhileRunning) wait = this.policy.poked(this.now(), this.now() + wait) ?? wait;
    this.update({ lastPollAtMs: started, consecutiveFailures: this.policy.consecutiveFailures });
    this.events.polled(result);
    this.schedule(wait);
  }

  private failed(failure: PollFailure): void {
    this.update({
      lastError: { code: failure.code, message: failure.message, atMs: this.now() },
      refused: failure.outcome.kind === "refused",
    });
    const said = `${failure.code}: ${failure.message}`;
    if (said === this.loggedError) return;
    this.loggedError = said;
    const ready = this.isReady ? "serving the last good data" : "not ready: no verified local copy of the origin yet";
    this.log.warn(
      {
        event: failure.outcome.kind === "refused" ? "origin-refused" : "origin-error",
        code: failure.code,
        error: failure.message,
        origin: this.record.url,
      },
      `origin ${this.record.url}: ${failure.message}; ${ready}`,
    );
  }

  private context(): FetchContext {
    return {
      reader: this.options.reader,
      signal: this.abort.signal,
      limits: this.options.limits,
      publicKeys: this.options.publicKeys,
      now: this.now,
      answered: (headers) => {
        const date = Date.parse(String(headers.date ?? ""));
        if (!Number.isNaN(date)) this.update({ clockSkewMs: date - this.now() });
      },
      counted: (bytes) => this.events.bytesReceived(bytes),
    };
  }

  private async pollOnce(): Promise<"changed" | "not_modified"> {
    const state = this.accepted?.state;
    const conditional = state?.etag && !this.unconditional ? { etag: state.etag, lastModified: state.lastModified } : null;
    this.unconditional = false;
    const context = this.context();
    const read = await readManifest(context, conditional);
    try {
      return await this.take(read, context);
    } catch (error) {
      // A failed or refused generation: the next poll reads the manifest in full.
      if (read.kind === "manifest" && this.accepted !== null && this.accepted.state.etag !== null && !this.stopped) {
        this.accepted = { ...this.accepted, state: { ...this.accepted.state, etag: null, lastModified: null } };
        this.update({ etag: null });
        await writeState(this.options.paths.snapshotDir, this.accepted.state).catch(() => {});
      }
      throw error;
    }
  }

  private async take(read: ManifestRead, context: FetchContext): Promise<"changed" | "not_modified"> {
    if (read.kind === "not-modified") {
      this.assertNotExpired();
      return "not_modified";
    }
    const last =
      this.accepted === null ? null : { generation: this.accepted.state.generation, manifestSha256: this.accepted.state.manifestSha256 };
    const verdict = judgeGeneration(read.manifest, read.sha256, last, this.now(), this.options.maxSkewMs);
    if (verdict.kind === "refused") throw refused(verdict.code, verdict.message);
    if (verdict.kind === "same" && this.accepted !== null) {
      this.assertNotExpired();
      if (read.etag !== this.accepted.state.etag) {
        this.accepted = { ...this.accepted, state: { ...this.accepted.state, etag: read.etag, lastModified: read.lastModified } };
        await writeState(this.options.paths.snapshotDir, this.accepted.state);
        this.update({ etag: read.etag });
      }
      return "not_modified";
    }
    await this.apply(read, context);
    return "changed";
  }

  private assertNotExpired(): void {
    const manifest = this.accepted?.manifest;
    const expired = manifest == null ? null : expiry(manifest, this.now(), this.options.maxSkewMs);
    if (expired !== null) throw refused("expired", expired);
  }

  /** Fetches, verifies and applies a new generation. */
  private async apply(read: ManifestRead & { kind: "manifest" }, context: FetchContext): Promise<void> {
    const { manifest } = read;
    const wanted: WantedEntry[] = [];
    const partial: { file: string; reason: string }[] = [];
    for (const entry of manifest.files) {
      const livePath = livePathOf(entry, this.options.paths);
      if (livePath === null) partial.push({ file: partialName(entry, null), reason: KEYS_NOT_PLACED });
      else if (!(await this.files.holds(livePath, entry.sha256))) wanted.push({ entry, livePath });
    }
    const staged = await stageGeneration(context, wanted);
    if (this.stopped) throw refused("stopped", "stopped");
    await renameIntoPlace(staged);
    for (const { entry, staged: file } of staged) await this.files.record(file.livePath, entry.sha256);
    partial.push(...(await this.verdicts(manifest, staged)));
    const state: LocalState = {
      schema: 1,
      generation: manifest.generation,
      manifestSha256: read.sha256,
      etag: read.etag,
      lastModified: read.lastModified,
      acceptedAt: new Date(this.now()).toISOString(),
    };
    this.accepted = { state, bytes: read.bytes, signature: read.signature, manifest };
    await writeLocalCopy(this.options.paths.snapshotDir, { state, manifest: read.bytes, signature: read.signature });
    const changed = staged.map((s) => entryName(s.entry));
    this.log.info(
      {
        event: "origin-generation-applied",
        generation: manifest.generation,
        fetched: changed,
        partial,
        signedBy: read.signedBy?.keyId ?? null,
      },
      `generation ${manifest.generation} applied (${changed.length} files fetched${partial.length > 0 ? `, ${partial.length} not taken` : ""})`,
    );
    this.update({
      generation: manifest.generation,
      manifestSha256: read.sha256,
      etag: read.etag,
      publishedAt: manifest.publishedAt,
      lastChangeAtMs: this.now(),
      signature: read.signedBy,
      partial,
    });
  }

  /** What the pipeline made of the generation's files: every chain file (the loader's outcome), and the keys and baskets files it replaced. */
  private async verdicts(manifest: OriginManifest, staged: readonly StagedEntry[]): Promise<{ file: string; reason: string }[]> {
    const chainNames = manifest.files.flatMap((e) => (e.kind === "chain" ? [partialName(e, livePathOf(e, this.options.paths))] : []));
    const out: { file: string; reason: string }[] = [];
    const chains = chainNames.length === 0 ? new Map() : await this.hooks.chainFilesChanged(chainNames);
    for (const name of chainNames) {
      const verdict = chains.get(name);
      if (verdict !== undefined && !verdict.accepted) out.push({ file: name, reason: verdict.reason });
    }
    const previous = new Map(this.record.partial.map((p) => [p.file, p.reason]));
    for (const kind of ["keys", "baskets"] as const) {
      // Keys without API_KEYS_FILE are never staged (apply reports them).
      if (!manifest.files.some((e) => e.kind === kind) || (kind === "keys" && this.options.paths.keysFile === null)) continue;
      if (staged.some((s) => s.entry.kind === kind)) {
        const verdict = kind === "keys" ? this.hooks.keysChanged() : this.hooks.basketsChanged();
        if (!verdict.accepted) out.push({ file: kind, reason: verdict.reason });
      } else if (previous.has(kind)) out.push({ file: kind, reason: previous.get(kind)! });
    }
    return out;
  }

  private markReady(): void {
    if (this.isReady) return;
    this.isReady = true;
    this.events.ready();
  }

  /** Changes the record; it is published when the next poll is scheduled (after every poll) and after restore. */
  private update(change: Partial<OriginStatusRecord>): void {
    this.record = { ...this.record, ...change };
  }
}
