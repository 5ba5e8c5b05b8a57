/** SNAPSHOT_ORIGIN / publish --to, S3 object URLs, and the credentials lookup (fleet.md §16). */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CredentialsError, parseIni, resolveCredentials } from "../../../src/origin/aws-credentials.js";
import { httpObjectUrl, parseOriginLocation } from "../../../src/origin/origin-location.js";
import { parseS3Error, s3ObjectUrl } from "../../../src/origin/s3-client.js";
import { conditionalHeaders } from "../../../src/origin/origin-reader.js";

describe("origin locations", () => {
  it("reads https, http and s3 origins, the prefix ending in a slash, credentials never shown", () => {
    const https = parseOriginLocation("https://user:secret@cdn.example.com/fleet/prod", false);
    expect(https).toMatchObject({ kind: "http", display: "https://cdn.example.com/fleet/prod/" });
    expect(https.kind === "http" && httpObjectUrl(https.base, "chains/1/x.msgpack").href).toBe(
      "https://user:secret@cdn.example.com/fleet/prod/chains/1/x.msgpack",
    );
    expect(parseOriginLocation("http://127.0.0.1:8080", false)).toMatchObject({ kind: "http", display: "http://127.0.0.1:8080/" });
    expect(parseOriginLocation("s3://my-bucket/a/b", false)).toMatchObject({
      kind: "s3",
      bucket: "my-bucket",
      prefix: "a/b/",
      display: "s3://my-bucket/a/b/",
    });
    expect(parseOriginLocation("s3://my-bucket", false)).toMatchObject({ bucket: "my-bucket", prefix: "" });
    expect(parseOriginLocation("file:/srv/origin", true)).toMatchObject({ kind: "file", dir: "/srv/origin" });
    expect(parseOriginLocation("file:///srv/origin", true)).toMatchObject({ kind: "file", dir: "/srv/origin" });
  });

  it("refuses what is not an origin, with a reason", () => {
    const refused =
      (text: string, allowFile = false) =>
      () =>
        parseOriginLocation(text, allowFile);
    expect(refused("ftp://x/")).toThrow(/must start with/);
    expect(refused("file:/x")).toThrow(/publish --to/);
    expect(refused("https://x/p?token=1")).toThrow(/query/);
    expect(refused("https://x/a/../b")).not.toThrow(); // URL parsing resolves it to /b/
    expect(refused("s3://Bad_Bucket/")).toThrow(/bucket/);
    expect(refused("s3://b..c/")).toThrow(/bucket/);
    expect(refused("s3://bucket/a//b")).toThrow(/prefix/);
    expect(refused("s3://bucket/a/../b")).toThrow(/prefix/);
  });

  it("addresses S3 objects virtual-hosted or by path", () => {
    const aws = { endpoint: undefined, region: "eu-west-1", forcePathStyle: false };
    const location = { bucket: "fleet", prefix: "prod/" };
    expect(s3ObjectUrl(location, aws, "manifest.json").href).toBe("https://fleet.s3.eu-west-1.amazonaws.com/prod/manifest.json");
    expect(s3ObjectUrl(location, { ...aws, forcePathStyle: true }, "manifest.json").href).toBe(
      "https://s3.eu-west-1.amazonaws.com/fleet/prod/manifest.json",
    );
    const local = { endpoint: "http://127.0.0.1:9000", region: "us-east-1", forcePathStyle: false };
    expect(s3ObjectUrl(location, local, "a b.json").href).toBe("http://127.0.0.1:9000/fleet/prod/a%20b.json");
    const r2 = { endpoint: "https://acct.r2.cloudflarestorage.com", region: "auto", forcePathStyle: false };
    expect(s3ObjectUrl(location, r2, "manifest.json").href).toBe("https://fleet.acct.r2.cloudflarestorage.com/prod/manifest.json");
    expect(s3ObjectUrl({ bucket: "with.dots", prefix: "" }, aws, "k").href).toBe("https://s3.eu-west-1.amazonaws.com/with.dots/k");
  });

  it("polls with If-None-Match, and with If-Modified-Since only without an ETag", () => {
    expect(conditionalHeaders({ etag: '"e"', lastModified: "Wed, 01 Jan 2025 00:00:00 GMT" })).toEqual({ "if-none-match": '"e"' });
    expect(conditionalHeaders({ etag: null, lastModified: "Wed, 01 Jan 2025 00:00:00 GMT" })).toEqual({
      "if-modified-since": "Wed, 01 Jan 2025 00:00:00 GMT",
    });
    expect(conditionalHeaders(null)).toEqual({});
  });

  it("reads S3's XML errors", () => {
    const body = Buffer.from(
      "<?xml version='1.0'?><Error><Code>RequestTimeTooSkewed</Code><Message>The difference is too large.</Message></Error>",
    );
    expect(parseS3Error(403, body)).toEqual({ status: 403, code: "RequestTimeTooSkewed", message: "The difference is too large." });
    expect(parseS3Error(500, null)).toEqual({ status: 500, code: null, message: null });
  });
});

describe("credentials", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "lgw-creds-"));
  const file = path.join(dir, "credentials");

  it("come from the environment first, with a session token", () => {
    expect(resolveCredentials({ AWS_ACCESS_KEY_ID: "id", AWS_SECRET_ACCESS_KEY: "s", AWS_SESSION_TOKEN: "t", HOME: dir })).toEqual({
      accessKeyId: "id",
      secretAccessKey: "s",
      sessionToken: "t",
    });
    expect(() => resolveCredentials({ AWS_ACCESS_KEY_ID: "id", HOME: dir })).toThrow(/AWS_SECRET_ACCESS_KEY is not set/);
  });

  it("else from the profile of the shared file, read again on every call (rotation)", () => {
    writeFileSync(
      file,
      "[default]\naws_access_key_id = one\naws_secret_access_key = s1\n\n[profile ci]\naws_access_key_id=two\naws_secret_access_key=s2\n",
    );
    const env = { AWS_SHARED_CREDENTIALS_FILE: file, HOME: dir };
    expect(resolveCredentials(env)).toEqual({ accessKeyId: "one", secretAccessKey: "s1" });
    expect(resolveCredentials({ ...env, AWS_PROFILE: "ci" })).toEqual({ accessKeyId: "two", secretAccessKey: "s2" });
    writeFileSync(file, "[default]\naws_access_key_id = three\naws_secret_access_key = s3\n");
    expect(resolveCredentials(env)).toEqual({ accessKeyId: "three", secretAccessKey: "s3" });
  });

  it("none at all is allowed (unsigned); a named file or profile must be there; no message carries a secret", () => {
    expect(resolveCredentials({ HOME: path.join(dir, "nowhere") })).toBeNull();
    expect(() => resolveCredentials({ AWS_SHARED_CREDENTIALS_FILE: path.join(dir, "missing"), HOME: dir })).toThrow(CredentialsError);
    writeFileSync(file, "[default]\naws_access_key_id = id\n# aws_secret_access_key = hidden-secret\n");
    let message = "";
    try {
      resolveCredentials({ AWS_SHARED_CREDENTIALS_FILE: file, HOME: dir });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain("has no aws_secret_access_key");
    expect(message).not.toContain("hidden-secret");
    expect(() => resolveCredentials({ AWS_SHARED_CREDENTIALS_FILE: file, AWS_PROFILE: "other", HOME: dir })).toThrow(
      /no profile \[other\]/,
    );
  });

  it("parses INI sections, comments and `profile` headers", () => {
    const ini = parseIni("; c\n[a]\nk = v = w\n# c\n[profile b]\nx=1\n");
    expect(ini.get("a")?.get("k")).toBe("v = w");
    expect(ini.get("b")?.get("x")).toBe("1");
  });
});
