/**
 * AWS Signature Version 4 (the `Authorization` header of S3's REST API, fleet.md §16): pure functions,
 * checked against AWS's published test suite (test/unit/origin/sigv4.test.ts) and S3's worked examples.
 *
 * canonical request -> string to sign -> signature with the derived key; S3 paths are encoded once and
 * never normalized. The caller chooses the payload hash (`UNSIGNED-PAYLOAD` for every request here).
 */
import { createHash, createHmac } from "node:crypto";

export interface AwsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

export const UNSIGNED_PAYLOAD = "UNSIGNED-PAYLOAD";
const ALGORITHM = "AWS4-HMAC-SHA256";

/** A request as signed: path already as sent (encoded), the query's pairs, every header to sign. */
export interface CanonicalInput {
  readonly method: string;
  /** The path as sent on the wire (percent-encoded). */
  readonly path: string;
  /** Query pairs, decoded (they are encoded here). */
  readonly query: readonly (readonly [string, string])[];
  /** Headers to sign, in any order and case; a repeated name is joined with `,` in order. */
  readonly headers: readonly (readonly [string, string])[];
  readonly payloadHash: string;
}

/** RFC 3986 encoding of SigV4: everything but A-Z a-z 0-9 - . _ ~ as %XX (uppercase); `/` kept when `path`. */
export function uriEncode(text: string, path: boolean): string {
  let out = "";
  for (const byte of Buffer.from(text, "utf8")) {
    const c = String.fromCharCode(byte);
    if (/[A-Za-z0-9\-._~]/.test(c) || (path && c === "/")) out += c;
    else out += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** Encodes each segment of a key path once (S3): what is sent and what is signed. */
export function encodePath(path: string): string {
  return uriEncode(path, true);
}

function canonicalHeaders(headers: CanonicalInput["headers"]): { text: string; signed: string } {
  const byName = new Map<string, string[]>();
  for (const [name, value] of headers) {
    const key = name.toLowerCase();
    const trimmed = value.trim().replace(/\s+/g, " ");
    const list = byName.get(key);
    if (list === undefined) byName.set(key, [trimmed]);
    else list.push(trimmed);
  }
  const names = [...byName.keys()].sort();
  return { text: names.map((n) => `${n}:${byName.get(n)!.join(",")}\n`).join(""), signed: names.join(";") };
}

function canonicalQuery(query: CanonicalInput["query"]): string {
  return query
    .map(([k, v]) => [uriEncode(k, false), uriEncode(v, false)] as const)
    .sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
}

export function canonicalRequest(input: CanonicalInput): { text: string; signedHeaders: string } {
  const headers = canonicalHeaders(input.headers);
  const text = [input.method, input.path, canonicalQuery(input.query), headers.text, headers.signed, input.payloadHash].join("\n");
  return { text, signedHeaders: headers.signed };
}

export function sha256Hex(data: string | Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}

/** `20150830T123600Z` of a date. */
export function amzDate(date: Date): string {
  return date
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");
}

export function credentialScope(amzDateText: string, region: string, service: string): string {
  return `${amzDateText.slice(0, 8)}/${region}/${service}/aws4_request`;
}

export function stringToSign(amzDateText: string, scope: string, canonicalRequestText: string): string {
  return [ALGORITHM, amzDateText, scope, sha256Hex(canonicalRequestText)].join("\n");
}

export function signature(secretAccessKey: string, amzDateText: string, region: string, service: string, toSign: string): string {
  const hmac = (key: Buffer | string, data: string) => createHmac("sha256", key).update(data, "utf8").digest();
  const dateKey = hmac(`AWS4${secretAccessKey}`, amzDateText.slice(0, 8));
  const signingKey = hmac(hmac(hmac(dateKey, region), service), "aws4_request");
  return createHmac("sha256", signingKey).update(toSign, "utf8").digest("hex");
}

export function authorization(accessKeyId: string, scope: string, signedHeaders: string, signatureHex: string): string {
  return `${ALGORITHM} Credential=${accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signatureHex}`;
}

export interface SignedRequestInput {
  readonly method: string;
  /** host[:port] as sent in `Host`. */
  readonly host: string;
  /** The path as sent (encodePath). */
  readonly path: string;
  readonly query?: readonly (readonly [string, string])[];
  readonly region: string;
  readonly service: string;
  readonly credentials: AwsCredentials;
  readonly date: Date;
  /** Default UNSIGNED-PAYLOAD. */
  readonly payloadHash?: string;
}

/**
 * The headers that sign an S3 request: `x-amz-date`, `x-amz-content-sha256`, `x-amz-security-token`
 * (with a session) and `authorization`; host, date, payload hash and token are signed.
 */
export function signedHeaders(input: SignedRequestInput): Record<string, string> {
  const date = amzDate(input.date);
  const payloadHash = input.payloadHash ?? UNSIGNED_PAYLOAD;
  const headers: [string, string][] = [
    ["host", input.host],
    ["x-amz-content-sha256", payloadHash],
    ["x-amz-date", date],
  ];
  if (input.credentials.sessionToken !== undefined) headers.push(["x-amz-security-token", input.credentials.sessionToken]);
  const request = canonicalRequest({ method: input.method, path: input.path, query: input.query ?? [], headers, payloadHash });
  const scope = credentialScope(date, input.region, input.service);
  const sig = signature(input.credentials.secretAccessKey, date, input.region, input.service, stringToSign(date, scope, request.text));
  const out: Record<string, string> = Object.fromEntries(headers.filter(([name]) => name !== "host"));
  out.authorization = authorization(input.credentials.accessKeyId, scope, request.signedHeaders, sig);
  return out;
}
