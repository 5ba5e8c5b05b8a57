/**
 * Where a fleet's files live (shared/spec/fleet.md §16, §21): `SNAPSHOT_ORIGIN` and `publish --to`.
 *
 * - `https://host/prefix/` (or `http://`): any server answering GET with an ETag; a `user:password@`
 *   in the URL is sent as HTTP Basic credentials and never shown.
 * - `s3://bucket/prefix/`: S3's REST API, signed (sigv4.ts; endpoint and region from S3_* settings).
 * - `file:DIR` (publish only): a directory, e.g. the root an nginx serves.
 *
 * An object's key (manifest.ts checks it is relative, without `..` or a scheme) is appended to the
 * prefix. `display` is the location without credentials or query: what logs and status show.
 */
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

export type OriginLocation =
  | { readonly kind: "http"; readonly base: URL; readonly display: string }
  | { readonly kind: "s3"; readonly bucket: string; readonly prefix: string; readonly display: string }
  | { readonly kind: "file"; readonly dir: string; readonly display: string };

export class OriginLocationError extends Error {
  override name = "OriginLocationError";
}

/** S3 bucket names: 3-63 of a-z 0-9 . -, starting and ending with a letter or digit. */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
/** A prefix: path segments of printable characters without `..`, `\`, `?` or `#`. */
const PREFIX_SEGMENT = /^[A-Za-z0-9._~!$&'()*+,;=:@%-]+$/;

/** What the operator wrote, read as a location; `allowFile`: `file:` is taken (publish). Throws OriginLocationError. */
export function parseOriginLocation(text: string, allowFile: boolean): OriginLocation {
  if (text.startsWith("s3://")) return s3Location(text);
  if (text.startsWith("file:")) {
    if (!allowFile)
      throw new OriginLocationError("a file: origin is for `publish --to` only; instances pull from https://, http:// or s3://");
    return fileLocation(text);
  }
  if (text.startsWith("https://") || text.startsWith("http://")) return httpLocation(text);
  throw new OriginLocationError(`must start with https://, http://, s3://${allowFile ? " or file:" : ""}`);
}

function httpLocation(text: string): OriginLocation {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new OriginLocationError("is not a valid URL");
  }
  if (url.hostname === "") throw new OriginLocationError("names no host");
  if (url.search !== "" || url.hash !== "") throw new OriginLocationError("must not have a query or a fragment (the prefix is a path)");
  checkPrefix(url.pathname.slice(1));
  if (!url.pathname.endsWith("/")) url.pathname += "/";
  return { kind: "http", base: url, display: `${url.protocol}//${url.host}${url.pathname}` };
}

function s3Location(text: string): OriginLocation {
  const rest = text.slice("s3://".length);
  const slash = rest.indexOf("/");
  const bucket = slash < 0 ? rest : rest.slice(0, slash);
  let prefix = slash < 0 ? "" : rest.slice(slash + 1);
  if (!BUCKET.test(bucket) || bucket.includes("..")) throw new OriginLocationError(`names no valid bucket ("${bucket.slice(0, 70)}")`);
  checkPrefix(prefix);
  if (prefix !== "" && !prefix.endsWith("/")) prefix += "/";
  return { kind: "s3", bucket, prefix, display: `s3://${bucket}/${prefix}` };
}

function fileLocation(text: string): OriginLocation {
  const rest = text.slice("file:".length);
  let dir: string;
  try {
    dir = rest.startsWith("//") ? fileURLToPath(text) : resolve(rest);
  } catch {
    throw new OriginLocationError("is not a valid file: URL");
  }
  if (rest === "") throw new OriginLocationError("names no directory");
  return { kind: "file", dir, display: `file:${dir}` };
}

function checkPrefix(prefix: string): void {
  if (prefix === "") return;
  const segments = (prefix.endsWith("/") ? prefix.slice(0, -1) : prefix).split("/");
  for (const segment of segments) {
    if (segment === "" || segment === "." || segment === ".." || !PREFIX_SEGMENT.test(segment))
      throw new OriginLocationError(`has a prefix that is not a plain path ("${prefix.slice(0, 80)}")`);
  }
}

/** The URL of an object of an http(s) origin (the key is relative and checked: it stays under the prefix). */
export function httpObjectUrl(base: URL, key: string): URL {
  return new URL(key.split("/").map(encodeURIComponent).join("/"), base);
}

/** An http(s) origin's base split in two: the URL without its user and password, and the Basic authorization they make (if any). */
export function httpBase(base: URL): { readonly plain: URL; readonly basic: (() => Readonly<Record<string, string>>) | undefined } {
  const plain = new URL(base.href);
  plain.username = "";
  plain.password = "";
  if (base.username === "") return { plain, basic: undefined };
  const token = Buffer.from(`${decodeURIComponent(base.username)}:${decodeURIComponent(base.password)}`).toString("base64");
  return { plain, basic: () => ({ authorization: `Basic ${token}` }) };
}
