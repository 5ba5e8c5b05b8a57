/**
 * Picks up a renewed HTTPS certificate (files replaced, e.g. by an ACME
 * client): watches the directories of the TLS files and rechecks them on a
 * timer too (symlink swaps and network file systems do not always raise
 * events). When the files change and pass the same checks as at start-up,
 * they are held open (tls-files.ts) and handed to the supervisor, which
 * replaces the serving threads one by one with threads that load them (each
 * listens before the old thread drains), so no request is dropped.
 *
 * Files that do not pass, or that the first replacement thread cannot load,
 * are logged and counted and restart nothing: the threads keep serving the
 * certificate they loaded, and a thread started later (SIGUSR2, a crash
 * replacement) loads the files in force, not what is on disk. Checks run one
 * at a time.
 */
import { watch, type FSWatcher } from "node:fs";
import { dirname } from "node:path";
import type { Logger } from "../log/logger.js";
import { holdTlsFiles, TLS_SETTING_NAMES, type HeldTlsFiles, type TlsSettings } from "../config/tls-files.js";

/** Puts held files in force (Supervisor.replaceTls). */
export type ApplyTls = (held: HeldTlsFiles) => Promise<{ readonly applied: true } | { readonly applied: false; readonly reason: string }>;

export class CertificateWatcher {
  private watchers: FSWatcher[] = [];
  private timer: NodeJS.Timeout | null = null;
  private debounce: NodeJS.Timeout | null = null;
  private fingerprint: string;
  private checking: Promise<boolean> = Promise.resolve(false);

  constructor(
    private readonly tls: TlsSettings,
    /** The files in force at start (their fingerprint is what a renewal changes). */
    initial: HeldTlsFiles,
    private readonly apply: ApplyTls,
    private readonly log: Logger,
    /** Counts renewals that were not applied. */
    private readonly rejected: () => void,
    private readonly intervalMs = 60_000,
  ) {
    this.fingerprint = initial.checked.fingerprint;
  }

  start(): void {
    const dirs = new Set(
      [this.tls.certFile, this.tls.keyFile, ...(this.tls.caFile === undefined ? [] : [this.tls.caFile])].map((f) => dirname(f)),
    );
    for (const dir of dirs) {
      try {
        const watcher = watch(dir, () => this.soon());
        watcher.on("error", (error) =>
          this.log.warn({ event: "tls-watch-error", err: error }, "watching the TLS files failed; the periodic check still runs"),
        );
        this.watchers.push(watcher);
      } catch (error) {
        this.log.warn({ event: "tls-watch-error", err: error }, "cannot watch the TLS files; the periodic check still runs");
      }
    }
    this.timer = setInterval(() => void this.check(false), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    for (const w of this.watchers) w.close();
    if (this.timer) clearInterval(this.timer);
    if (this.debounce) clearTimeout(this.debounce);
  }

  /** Debounced: a renewal writes several files. */
  private soon(): void {
    if (this.debounce) clearTimeout(this.debounce);
    this.debounce = setTimeout(() => void this.check(false), 1000);
  }

  /**
   * Rechecks the files; replaces the threads when they changed (or always, when
   * `force`: SIGHUP). Resolves true when the threads were replaced. Checks
   * queue behind one another.
   */
  check(force: boolean): Promise<boolean> {
    const next = this.checking.catch(() => false).then(() => this.checkNow(force));
    this.checking = next;
    return next;
  }

  private async checkNow(force: boolean): Promise<boolean> {
    let held: HeldTlsFiles;
    try {
      held = holdTlsFiles(this.tls, TLS_SETTING_NAMES);
    } catch (error) {
      this.rejected();
      this.log.error(
        { event: "tls-reload-rejected", error: (error as Error).message },
        `TLS files not applied, the serving threads keep the certificate they loaded: ${(error as Error).message}`,
      );
      return false;
    }
    const { checked } = held;
    if (!force && checked.fingerprint === this.fingerprint) {
      held.release();
      return false;
    }
    this.log.info(
      {
        event: "tls-reloading",
        subject: checked.subject,
        fingerprint: checked.fingerprint,
        notAfter: new Date(checked.notAfterMs).toISOString(),
      },
      "TLS files changed: replacing the serving threads",
    );
    let outcome;
    try {
      outcome = await this.apply(held);
    } catch (error) {
      // Some threads load the new files (now in force), the others kept theirs: SIGHUP or SIGUSR2 finishes the job.
      this.fingerprint = checked.fingerprint;
      this.log.error(
        { event: "tls-reload-incomplete", err: error, fingerprint: checked.fingerprint },
        `TLS files applied to part of the serving threads only: ${(error as Error).message}`,
      );
      return false;
    }
    if (!outcome.applied) {
      this.rejected();
      this.log.error(
        { event: "tls-reload-rejected", error: outcome.reason, fingerprint: checked.fingerprint },
        `TLS files not applied: a serving thread could not load them (${outcome.reason}); nothing was restarted, the threads keep the certificate they loaded`,
      );
      return false;
    }
    this.fingerprint = checked.fingerprint;
    this.log.info({ event: "tls-reloaded", fingerprint: checked.fingerprint }, "serving threads now use the new TLS files");
    return true;
  }
}
