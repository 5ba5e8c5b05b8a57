/**
 * The optional signature of a manifest (fleet.md §17): `manifest.json.sig` holds
 * `{"keyId":"…","signature":"<base64 Ed25519 over the exact bytes of manifest.json>"}`. With
 * ORIGIN_PUBLIC_KEYS set (`keyId=<key>` pairs, comma-separated; two keys allow a rotation) a manifest
 * without a valid signature by one of them is refused. Keys are raw 32-byte Ed25519 public keys in
 * base64, or PEM/DER SPKI; `publish --sign-key` takes a PEM PKCS#8 private key (`openssl genpkey
 * -algorithm ed25519`) or a raw 32-byte seed in base64.
 */
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from "node:crypto";
import typia, { type tags } from "typia";

export interface ManifestSignatureFile {
  keyId: string & tags.Pattern<"^[A-Za-z0-9._:-]{1,64}$">;
  /** Base64 of the 64-byte Ed25519 signature. */
  signature: string & tags.MaxLength<200>;
}

const validateSignatureFile = typia.createValidateEquals<ManifestSignatureFile>();

/** Largest signature file read (bytes). */
export const SIGNATURE_MAX_BYTES = 4096;

export interface TrustedKey {
  readonly keyId: string;
  readonly key: KeyObject;
}

export type SignatureProblem = "unsigned" | "bad-signature";

export class SignatureError extends Error {
  override name = "SignatureError";
  constructor(
    readonly code: SignatureProblem,
    message: string,
  ) {
    super(message);
  }
}

const SPKI_ED25519_PREFIX = Buffer.from("302a300506032b6570032100", "hex");
const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");
const KEY_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** ORIGIN_PUBLIC_KEYS read: `id=key,id=key`; throws Error with a message naming the bad pair (never a whole key). */
export function parsePublicKeys(text: string): TrustedKey[] {
  const keys: TrustedKey[] = [];
  for (const part of text.split(",")) {
    const pair = part.trim();
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    const keyId = eq < 0 ? "" : pair.slice(0, eq).trim();
    const value = eq < 0 ? "" : pair.slice(eq + 1).trim();
    // A bare base64 key ends in "=" padding: without a key after it, that "=" is no separator.
    if (!KEY_ID.test(keyId) || /^=*$/.test(value))
      throw new Error(`"${pair.slice(0, 20)}…" is not keyId=<public key> (keyId: 1-64 of A-Z a-z 0-9 . _ : -)`);
    if (keys.some((k) => k.keyId === keyId)) throw new Error(`key id "${keyId}" is listed twice`);
    keys.push({ keyId, key: publicKeyOf(value, keyId) });
  }
  if (keys.length === 0) throw new Error("lists no key");
  return keys;
}

function publicKeyOf(text: string, keyId: string): KeyObject {
  try {
    const key = text.includes("-----BEGIN")
      ? createPublicKey(text)
      : (() => {
          const der = Buffer.from(text, "base64");
          if (der.length === 32) return createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, der]), format: "der", type: "spki" });
          return createPublicKey({ key: der, format: "der", type: "spki" });
        })();
    if (key.asymmetricKeyType !== "ed25519") throw new Error(`is a ${key.asymmetricKeyType} key`);
    return key;
  } catch (error) {
    throw new Error(`the key of "${keyId}" is not an Ed25519 public key (raw 32 bytes in base64, or PEM): ${(error as Error).message}`);
  }
}

/** A private key from `publish --sign-key`'s file: PEM PKCS#8, or a raw 32-byte seed in base64. */
export function privateKeyOf(text: string): KeyObject {
  const key = text.includes("-----BEGIN")
    ? createPrivateKey(text)
    : createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seedOf(text)]), format: "der", type: "pkcs8" });
  if (key.asymmetricKeyType !== "ed25519") throw new Error(`the signing key is a ${key.asymmetricKeyType} key, not Ed25519`);
  return key;
}

function seedOf(text: string): Buffer {
  const seed = Buffer.from(text.trim(), "base64");
  if (seed.length !== 32) throw new Error("the signing key is neither PEM nor a 32-byte Ed25519 seed in base64");
  return seed;
}

/** The signature file of `manifest` signed with `key` as `keyId`. */
export function signManifest(manifest: Buffer, key: KeyObject, keyId: string): Buffer {
  if (!KEY_ID.test(keyId)) throw new Error(`the key id "${keyId.slice(0, 70)}" is not 1-64 of A-Z a-z 0-9 . _ : -`);
  const file: ManifestSignatureFile = { keyId, signature: sign(null, manifest, key).toString("base64") };
  return Buffer.from(`${JSON.stringify(file)}\n`, "utf8");
}

/**
 * Which trusted key signed `manifest` (the signature file's bytes, or null when the origin has none).
 * Throws SignatureError: `unsigned` (no file), `bad-signature` (malformed, an unknown key id, or a
 * signature that does not verify).
 */
export function verifyManifest(manifest: Buffer, signatureFile: Buffer | null, keys: readonly TrustedKey[]): { keyId: string } {
  if (signatureFile === null)
    throw new SignatureError("unsigned", "the manifest is not signed (no manifest.json.sig) and ORIGIN_PUBLIC_KEYS is set");
  let parsed: unknown;
  try {
    parsed = JSON.parse(signatureFile.toString("utf8"));
  } catch {
    throw new SignatureError("bad-signature", "manifest.json.sig is not JSON");
  }
  const checked = validateSignatureFile(parsed);
  if (!checked.success) throw new SignatureError("bad-signature", "manifest.json.sig is not {keyId, signature}");
  const { keyId, signature } = checked.data;
  const trusted = keys.find((k) => k.keyId === keyId);
  if (trusted === undefined)
    throw new SignatureError("bad-signature", `manifest.json.sig names key "${keyId}", which is not in ORIGIN_PUBLIC_KEYS`);
  const bytes = Buffer.from(signature, "base64");
  if (bytes.length !== 64 || !verify(null, manifest, trusted.key, bytes))
    throw new SignatureError("bad-signature", `the signature by "${keyId}" does not verify over manifest.json`);
  return { keyId };
}
