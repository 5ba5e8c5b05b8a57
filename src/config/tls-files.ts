/**
 * The HTTPS settings (TLS_CERT_FILE, TLS_KEY_FILE, TLS_KEY_PASSPHRASE, TLS_CA_FILE)
 * checked the way the TLS library will use them: readable PEM, a private key
 * that the passphrase opens, a certificate that matches it, a CA bundle that
 * parses. Every failure names the setting. Also used when the files change on
 * disk (certificate renewal): a renewal that does not pass is not applied.
 */
import { createPrivateKey, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";

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

export class TlsFilesError extends Error {
  override name = "TlsFilesError";
}

function read(path: string, setting: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new TlsFilesError(`${setting}: cannot read "${path}" (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}

/** Throws TlsFilesError naming the setting at fault; `names` maps each field to its setting name. */
export function checkTlsFiles(tls: TlsSettings, names: Record<keyof TlsSettings, string>): CheckedTls {
  const certPem = read(tls.certFile, names.certFile);
  const keyPem = read(tls.keyFile, names.keyFile);
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
  if (!certificate.checkPrivateKey(key)) throw new TlsFilesError(`${names.keyFile}: the key in "${tls.keyFile}" does not belong to the certificate in ${names.certFile} ("${tls.certFile}")`);
  if (tls.caFile !== undefined) {
    const caPem = read(tls.caFile, names.caFile);
    try {
      new X509Certificate(caPem);
    } catch (error) {
      throw new TlsFilesError(`${names.caFile}: "${tls.caFile}" is not a PEM certificate bundle (${(error as Error).message})`);
    }
  }
  return { fingerprint: certificate.fingerprint256, subject: certificate.subject, notAfterMs: Date.parse(certificate.validTo) };
}
