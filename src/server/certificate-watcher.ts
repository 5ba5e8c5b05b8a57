/**
 * Picks up a renewed HTTPS certificate (files replaced, e.g. by an ACME
 * client): watches the directories of the TLS files and rechecks them on a
 * timer too (symlink swaps and network file systems do not always raise
 * events). When the files change and pass the same checks as at start-up, the
 * serving threads are replaced one by one (each replacement loads the new
 * files and listens before the old thread drains), so no request is dropped.
 * Files that do not pass are logged and left unapplied; the current threads
 * keep serving the certificate they loaded.
 */
import { watch, type FSWatcher } from "node:fs";
import { dirname } from "node:path";
import type { Logger } from "../log/logger.js";
import { checkTlsFiles, type TlsSettings } from "../config/tls-files.js";

const NAMES = { certFile: "TLS_CERT_FILE", keyFile: "TLS_KEY_FILE", passphrase: "TLS_KEY_PASSPHRASE", caFile: "TLS_CA_FILE" };

export class CertificateWatcher {
  private watchers: FSWatcher[] = [];
  private timer: NodeJS.Timeout | null = null;
  private debounce: NodeJS.Timeout | null = null;
  private fingerprint: string;

  constructor(
    private readonly tls: TlsSettings,
    /** Replaces the serving threads (resolves once done). */
    private readonly reload: () => Promise<void>,
    private readonly log: Logger,
    /** Counts renewals that did not pass their checks. */
    private readonly rejected: () => void,
    private readonly intervalMs = 60_000,
  ) {
    this.fingerprint = checkTlsFiles(tls, NAMES).fingerprint;
  }

  start(): void {
    const dirs = new Set([this.tls.certFile, this.tls.keyFile, ...(this.tls.caFile === undefined ? [] : [this.tls.caFile])].map((f) => dirname(f)));
    for (const dir of dirs) {
      try {
        const watcher = watch(dir, () => this.soon());
        watcher.on("error", (error) => this.log.warn({ event: "tls-watch-error", err: error }, "watching the TLS files failed; the periodic check still runs"));
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
   * `force`: SIGHUP). Resolves true when the threads were replaced.
   */
  async check(force: boolean): Promise<boolean> {
    let checked;
    try {
      checked = checkTlsFiles(this.tls, NAMES);
    } catch (error) {
      this.rejected();
      this.log.error({ event: "tls-reload-rejected", error: (error as Error).message }, `TLS files not applied, the serving threads keep the certificate they loaded: ${(error as Error).message}`);
      return false;
    }
    if (!force && checked.fingerprint === this.fingerprint) return false;
    this.log.info({ event: "tls-reloading", subject: checked.subject, fingerprint: checked.fingerprint, notAfter: new Date(checked.notAfterMs).toISOString() }, "TLS files changed: replacing the serving threads");
    await this.reload();
    this.fingerprint = checked.fingerprint;
    this.log.info({ event: "tls-reloaded", fingerprint: checked.fingerprint }, "serving threads now use the new TLS files");
    return true;
  }
}
