/**
 * Throwaway certificates made at test time with the `openssl` CLI (Debian's
 * `openssl` package; npm test installs it when missing): a CA, and server
 * certificates it signs for 127.0.0.1 / localhost.
 */
import { execFileSync } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import tls from "node:tls";
import { tempDir } from "./fixtures.js";

function openssl(args: string[], cwd: string): void {
  try {
    execFileSync("openssl", args, { cwd, stdio: ["ignore", "ignore", "pipe"] });
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { stderr?: Buffer };
    if (e.code === "ENOENT")
      throw new Error(
        "the openssl CLI is not installed: `apt-get install -y openssl` (npm test does this as root: tools/check-system.mjs)",
      );
    throw new Error(`openssl ${args.join(" ")} failed: ${e.stderr?.toString() ?? e.message}`);
  }
}

export interface TestCa {
  readonly dir: string;
  readonly certFile: string;
  readonly keyFile: string;
  readonly pem: string;
}

export interface ServerCertificate {
  readonly certFile: string;
  readonly keyFile: string;
}

/** A self-signed CA in `dir`. */
export function makeCa(dir: string, name = "ca"): TestCa {
  openssl(
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-keyout",
      `${name}.key`,
      "-out",
      `${name}.pem`,
      "-days",
      "2",
      "-subj",
      `/CN=liquidity-gateway test CA ${name}`,
    ],
    dir,
  );
  const certFile = path.join(dir, `${name}.pem`);
  return { dir, certFile, keyFile: path.join(dir, `${name}.key`), pem: readFileSync(certFile, "utf8") };
}

/**
 * A server certificate for 127.0.0.1 and localhost signed by `ca`, written as
 * `<name>.pem` / `<name>.key` in `dir`; `passphrase` encrypts the key.
 */
export function makeServerCertificate(ca: TestCa, dir: string, name: string, passphrase?: string): ServerCertificate {
  const ext = path.join(dir, `${name}.ext`);
  writeFileSync(ext, "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n");
  openssl(
    [
      "req",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-keyout",
      `${name}.plain.key`,
      "-out",
      `${name}.csr`,
      "-subj",
      `/CN=${name}`,
    ],
    dir,
  );
  openssl(
    [
      "x509",
      "-req",
      "-in",
      `${name}.csr`,
      "-CA",
      ca.certFile,
      "-CAkey",
      ca.keyFile,
      "-CAcreateserial",
      "-out",
      `${name}.pem`,
      "-days",
      "2",
      "-extfile",
      ext,
    ],
    dir,
  );
  if (passphrase === undefined) openssl(["pkey", "-in", `${name}.plain.key`, "-out", `${name}.key`], dir);
  else openssl(["pkey", "-in", `${name}.plain.key`, "-aes256", "-passout", `pass:${passphrase}`, "-out", `${name}.key`], dir);
  return { certFile: path.join(dir, `${name}.pem`), keyFile: path.join(dir, `${name}.key`) };
}

/**
 * A CA and a server certificate ("first") it signed, in a new temporary directory, with that certificate's files
 * copied to live.pem and live.key there: the paths a gateway is given and a test later replaces.
 */
export function liveCertificate(prefix: string): {
  dir: string;
  ca: TestCa;
  first: ServerCertificate;
  liveCert: string;
  liveKey: string;
} {
  const dir = tempDir(prefix);
  const ca = makeCa(dir);
  const first = makeServerCertificate(ca, dir, "first");
  const liveCert = path.join(dir, "live.pem");
  const liveKey = path.join(dir, "live.key");
  copyFileSync(first.certFile, liveCert);
  copyFileSync(first.keyFile, liveKey);
  return { dir, ca, first, liveCert, liveKey };
}

/** The SHA-256 fingerprint of a certificate file. */
export function fingerprintOf(certFile: string): string {
  return new X509Certificate(readFileSync(certFile)).fingerprint256;
}

/** The SHA-256 fingerprint of the certificate the server presents on a new connection. */
export function servedFingerprint(port: number, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: "127.0.0.1", port, ca, servername: "localhost" }, () => {
      resolve(socket.getPeerX509Certificate()!.fingerprint256);
      socket.end();
    });
    socket.on("error", reject);
  });
}
