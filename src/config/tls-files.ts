/**
 * The HTTPS settings (TLS_CERT_FILE, TLS_KEY_FILE, TLS_KEY_PASSPHRASE, TLS_CA_FILE)
 * checked the way the TLS library will use them: readable PEM, a private key
 * that the passphrase opens, a certificate that matches it, a CA bundle that
 * parses. Every failure names the setting. Also used when the files change on
 * disk (certificate renewal): a renewal that does not pass is not applied.
 *
 * The files are read through the bounded operator-file reader (regular files
 * of at most FILE_LIMITS.tls, opened without blocking). uWS then reads them
 * itself, natively, when a serving thread starts; so that it reads exactly the
 * files checked, holdTlsFiles keeps them open and hands the serving threads
 * `/proc/self/fd/<n>` paths to the descriptors checked: a FIFO, a device or
 * another file put at the path afterwards is never what a thread loads
 * (docs/operator-files.md describes what remains: a file written in place).
 */
import { createPrivateKey, X509Certificate } from "node:crypto";
import { statSync } from "node:fs";
import { FILE_LIMITS, OperatorFileError, openOperatorFile, type OpenedOperatorFile } from "../util/operator-file.js";

export interface TlsSettings {
  readonly certFile: string;
  readonly keyFile: string;
  readonly passphrase?: string;
  readonly caFile?: string;
}

export interface CheckedTls {
  /** SHA-256 fingerprint of the leaf certificate (what a renewal changes). */
  readonly fingerprint: string;
  readonly subject: string;
  /** Expiry of the leaf certificate (ms since the epoch). */
  readonly notAfterMs: number;
}

/** TLS files checked and held open for the serving threads to load. */
export interface HeldTlsFiles {
  readonly checked: CheckedTls;
  /**
   * What a serving thread gives uWS: `/proc/self/fd/<n>` of the descriptors
   * checked, or the configured paths where /proc cannot name them.
   */
  readonly files: TlsSettings;
  /** True when `files` names the descriptors checked (not the configured paths). */
  readonly pinned: boolean;
  /** Closes the descriptors (once no thread starting with `files` still needs them). */
  release(): void;
}

export class TlsFilesError extends Error {
  override name = "TlsFilesError";
}

/** The setting names of TlsSettings' fields, as the operator wrote them (env or flag). */
export type TlsSettingNames = Record<keyof TlsSettings, string>;

export const TLS_SETTING_NAMES: TlsSettingNames = {
  certFile: "TLS_CERT_FILE",
  keyFile: "TLS_KEY_FILE",
  passphrase: "TLS_KEY_PASSPHRASE",
  caFile: "TLS_CA_FILE",
};

function open(path: string, setting: string): OpenedOperatorFile {
  try {
    return openOperatorFile(path, FILE_LIMITS.tls);
  } catch (error) {
    if (error instanceof OperatorFileError)
      throw new TlsFilesError(`${setting}: cannot read "${path}" (${error.problem})`, { cause: error });
    throw error;
  }
}

function readText(file: OpenedOperatorFile, setting: string): string {
  try {
    return file.readAll().toString("utf8");
  } catch (error) {
    if (error instanceof OperatorFileError)
      throw new TlsFilesError(`${setting}: cannot read "${file.path}" (${error.problem})`, { cause: error });
    throw error;
  }
}

/** Throws TlsFilesError naming the setting at fault; `names` maps each field to its setting name. */
export function checkTlsFiles(tls: TlsSettings, names: TlsSettingNames): CheckedTls {
  const held = holdTlsFiles(tls, names);
  held.release();
  return held.checked;
}

/**
 * Opens and checks the files (as checkTlsFiles) and keeps them open; the
 * caller releases them. Throws TlsFilesError (nothing stays open then).
 */
export function holdTlsFiles(tls: TlsSettings, names: TlsSettingNames): HeldTlsFiles {
  const opened: OpenedOperatorFile[] = [];
  const closeAll = () => {
    for (const file of opened) file.close();
  };
  try {
    const cert = open(tls.certFile, names.certFile);
    opened.push(cert);
    const key = open(tls.keyFile, names.keyFile);
    opened.push(key);
    const ca = tls.caFile === undefined ? undefined : open(tls.caFile, names.caFile);
    if (ca !== undefined) opened.push(ca);
    const checked = checkPem(
      tls,
      names,
      readText(cert, names.certFile),
      readText(key, names.keyFile),
      ca === undefined ? undefined : readText(ca, names.caFile),
    );
    const pinned = opened.every(namesDescriptor);
    const files: TlsSettings = pinned
      ? {
          certFile: fdPath(cert),
          keyFile: fdPath(key),
          ...(tls.passphrase === undefined ? {} : { passphrase: tls.passphrase }),
          ...(ca === undefined ? {} : { caFile: fdPath(ca) }),
        }
      : tls;
    let released = false;
    return {
      checked,
      files,
      pinned,
      release() {
        if (released) return;
        released = true;
        closeAll();
      },
    };
  } catch (error) {
    closeAll();
    throw error;
  }
}

function checkPem(tls: TlsSettings, names: TlsSettingNames, certPem: string, keyPem: string, caPem: string | undefined): CheckedTls {
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(certPem);
  } catch (error) {
    throw new TlsFilesError(`${names.certFile}: "${tls.certFile}" is not a PEM certificate (${(error as Error).message})`);
  }
  let key;
  try {
    key = createPrivateKey({ key: keyPem, format: "pem", ...(tls.passphrase === undefined ? {} : { passphrase: tls.passphrase }) });
  } catch (error) {
    const message = (error as Error).message;
    const why = /passphrase|decrypt|bad decrypt/i.test(message) ? `the key is encrypted and ${names.passphrase} does not open it` : message;
    throw new TlsFilesError(`${names.keyFile}: "${tls.keyFile}" is not a usable PEM private key (${why})`);
  }
  if (!certificate.checkPrivateKey(key))
    throw new TlsFilesError(
      `${names.keyFile}: the key in "${tls.keyFile}" does not belong to the certificate in ${names.certFile} ("${tls.certFile}")`,
    );
  if (caPem !== undefined) {
    try {
      new X509Certificate(caPem);
    } catch (error) {
      throw new TlsFilesError(`${names.caFile}: "${tls.caFile}" is not a PEM certificate bundle (${(error as Error).message})`);
    }
  }
  return { fingerprint: certificate.fingerprint256, subject: certificate.subject, notAfterMs: Date.parse(certificate.validTo) };
}

function fdPath(file: OpenedOperatorFile): string {
  return `/proc/self/fd/${file.fd}`;
}

/** True when /proc/self/fd/<fd> opens the very file checked (Linux); elsewhere the threads get the paths. */
function namesDescriptor(file: OpenedOperatorFile): boolean {
  try {
    const seen = statSync(fdPath(file));
    return seen.isFile() && seen.ino === file.stats.ino && seen.dev === file.stats.dev;
  } catch {
    return false;
  }
}
