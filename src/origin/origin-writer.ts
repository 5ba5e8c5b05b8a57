/**
 * Writing to an origin, for `publish` (fleet.md §21): a plain copy for `file:`, HTTP(S) PUT and DELETE for
 * a WebDAV origin (nginx's `dav_methods PUT DELETE`), S3 PUT and DELETE. Where the origin supports
 * conditional writes (S3's `If-None-Match: *` and `If-Match`, a hard link for `file:`) they are used, so two
 * publishers cannot both win a generation; a plain WebDAV server ignores them (publish from one place).
 */
import { createHash, randomBytes } from "node:crypto";
import { copyFile, link, mkdir, readFile, rename, stat, unlink, utimes } from "node:fs/promises";
import type { Stats } from "node:fs";
import { dirname, join } from "node:path";
import { syncDirectory, writeAtomically } from "./local-copy.js";
import { HttpExchange, readBounded, type ExchangeOptions, type ExchangeResponse } from "./http-exchange.js";
import { httpBase, httpObjectUrl, type OriginLocation } from "./origin-location.js";
import { S3Client, type S3Settings } from "./s3-client.js";
import type { Environment } from "./aws-credentials.js";
import { MANIFEST_MAX_BYTES } from "./manifest.js";

export type WriteBody = Buffer | { readonly file: string; readonly size: number };

/** A conditional write: create only (`*`), or replace only this version (an ETag). */
export type WriteCondition = { readonly ifNoneMatch: "*" } | { readonly ifMatch: string } | null;

export interface OriginWriter {
  readonly display: string;
  /** Whether conditions are enforced (else they are sent and may be ignored). */
  readonly conditional: boolean;
  /** An object's bytes (at most 1 MiB: manifests) and ETag; null when absent. */
  read(key: string): Promise<{ bytes: Buffer; etag: string | null } | null>;
  exists(key: string): Promise<boolean>;
  /** Writes an object; false when its condition failed (someone else wrote first). */
  put(key: string, body: WriteBody, condition: WriteCondition): Promise<boolean>;
  remove(key: string): Promise<void>;
  close(): void;
}

export class PublishError extends Error {
  override name = "PublishError";
}

export function createOriginWriter(
  location: OriginLocation,
  options: ExchangeOptions & { s3: S3Settings; env: Environment },
): OriginWriter {
  if (location.kind === "file") return fileWriter(location.dir, location.display);
  const exchange = new HttpExchange(options);
  if (location.kind === "s3") return s3Writer(new S3Client(location, options.s3, exchange, options.env), location.display, exchange);
  return webDavWriter(location.base, location.display, exchange);
}

const fileEtag = (bytes: Buffer) => `"${createHash("sha256").update(bytes).digest("hex")}"`;

function fileWriter(dir: string, display: string): OriginWriter {
  const at = (key: string) => join(dir, ...key.split("/"));
  return {
    display,
    conditional: true,
    async read(key) {
      const bytes = await readFile(at(key)).catch((error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") return null;
        throw error;
      });
      return bytes === null ? null : { bytes, etag: fileEtag(bytes) };
    },
    exists: (key) =>
      stat(at(key)).then(
        (s) => s.isFile(),
        () => false,
      ),
    async put(key, body, condition) {
      const path = at(key);
      await mkdir(dirname(path), { recursive: true });
      if (condition !== null && "ifMatch" in condition) {
        const current = await this.read(key);
        if (current === null || current.etag !== condition.ifMatch) return false;
      }
      if (condition === null || "ifMatch" in condition) {
        const before = await stat(path).catch(() => null);
        if (Buffer.isBuffer(body)) await writeAtomically(path, body);
        else await copyInto(body.file, path);
        await distinctMtime(path, before);
        return true;
      }
      // Create only: a hard link fails when the name exists (atomic on one file system).
      const temporary = `${path}.${randomBytes(6).toString("hex")}.tmp`;
      if (Buffer.isBuffer(body)) await writeAtomically(temporary, body);
      else await copyInto(body.file, temporary);
      try {
        await link(temporary, path);
        await syncDirectory(dirname(path));
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
        throw error;
      } finally {
        await unlink(temporary).catch(() => {});
      }
    },
    async remove(key) {
      await unlink(at(key)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== "ENOENT") throw error;
      });
    },
    close() {},
  };
}

/**
 * A server in front of the directory (nginx, Apache) makes ETags of the modification time in whole seconds and the
 * size: a replaced file of the same size written within the same second would keep its ETag, and instances polling
 * with If-None-Match would be answered 304. Such a file's time is moved a second past the old one's.
 */
async function distinctMtime(path: string, before: Stats | null): Promise<void> {
  if (before === null) return;
  const after = await stat(path);
  if (after.size !== before.size || Math.floor(after.mtimeMs / 1000) !== Math.floor(before.mtimeMs / 1000)) return;
  const later = new Date(Math.floor(before.mtimeMs / 1000) * 1000 + 1000);
  await utimes(path, after.atime, later);
}

async function copyInto(source: string, path: string): Promise<void> {
  const temporary = `${path}.${randomBytes(6).toString("hex")}.part`;
  await copyFile(source, temporary);
  await rename(temporary, path);
  await syncDirectory(dirname(path));
}

function conditionHeaders(condition: WriteCondition): Record<string, string> {
  if (condition === null) return {};
  return "ifNoneMatch" in condition ? { "if-none-match": "*" } : { "if-match": condition.ifMatch };
}

async function expectOk(response: ExchangeResponse, what: string, detail: () => string = () => ""): Promise<void> {
  response.body.resume();
  if (response.status >= 200 && response.status < 300) return;
  throw new PublishError(`${what} answered ${response.status}${detail()}`);
}

function webDavWriter(base: URL, display: string, exchange: HttpExchange): OriginWriter {
  const { plain, basic: auth } = httpBase(base);
  const url = (key: string) => httpObjectUrl(plain, key);
  return {
    display,
    conditional: false,
    async read(key) {
      const response = await exchange.request({ method: "GET", url: url(key), auth });
      if (response.status === 404) {
        response.body.resume();
        return null;
      }
      if (response.status !== 200) await expectOk(response, `GET ${key}`);
      const bytes = await readBounded(response.body, MANIFEST_MAX_BYTES);
      if (bytes === null) throw new PublishError(`${key} at the origin is larger than 1 MiB`);
      const etag = response.headers.etag;
      return { bytes, etag: typeof etag === "string" ? etag : null };
    },
    async exists(key) {
      const response = await exchange.request({ method: "HEAD", url: url(key), auth });
      response.body.resume();
      if (response.status === 404) return false;
      if (response.status === 200) return true;
      throw new PublishError(`HEAD ${key} answered ${response.status}`);
    },
    async put(key, body, condition) {
      const response = await exchange.request({ method: "PUT", url: url(key), headers: conditionHeaders(condition), body, auth });
      if (response.status === 412) {
        response.body.resume();
        return false;
      }
      await expectOk(response, `PUT ${key}`);
      return true;
    },
    async remove(key) {
      const response = await exchange.request({ method: "DELETE", url: url(key), auth });
      if (response.status === 404) {
        response.body.resume();
        return;
      }
      await expectOk(response, `DELETE ${key}`);
    },
    close: () => exchange.close(),
  };
}

function s3Writer(client: S3Client, display: string, exchange: HttpExchange): OriginWriter {
  const said = (failure: { code: string | null; message: string | null } | null) => () =>
    failure?.code ? ` (${failure.code}${failure.message ? `: ${failure.message}` : ""})` : "";
  return {
    display,
    conditional: true,
    async read(key) {
      const answer = await client.send("GET", key);
      if (answer.status === 404) return null;
      if (answer.status !== 200) await expectOk(answer, `GET ${key}`, said(answer.failure));
      const bytes = await readBounded(answer.body, MANIFEST_MAX_BYTES);
      if (bytes === null) throw new PublishError(`${key} at the origin is larger than 1 MiB`);
      const etag = answer.headers.etag;
      return { bytes, etag: typeof etag === "string" ? etag : null };
    },
    async exists(key) {
      const answer = await client.send("HEAD", key);
      answer.body.resume();
      if (answer.status === 404) return false;
      if (answer.status === 200) return true;
      throw new PublishError(`HEAD ${key} answered ${answer.status}${said(answer.failure)()}`);
    },
    async put(key, body, condition) {
      const answer = await client.send("PUT", key, { headers: conditionHeaders(condition), body });
      // 412 PreconditionFailed; 409 ConditionalRequestConflict (a concurrent conditional write).
      if (answer.status === 412 || answer.status === 409) return false;
      await expectOk(answer, `PUT ${key}`, said(answer.failure));
      return true;
    },
    async remove(key) {
      const answer = await client.send("DELETE", key);
      if (answer.status === 404) return;
      await expectOk(answer, `DELETE ${key}`, said(answer.failure));
    },
    close: () => exchange.close(),
  };
}
