/**
 * The credentials of an s3:// origin (fleet.md §16), looked up again for every poll so keys rotate
 * without a restart: `AWS_ACCESS_KEY_ID` + `AWS_SECRET_ACCESS_KEY` (+ `AWS_SESSION_TOKEN`) from the
 * environment, else the profile `AWS_PROFILE` (default `default`) of the shared credentials file
 * `AWS_SHARED_CREDENTIALS_FILE` (default `~/.aws/credentials`), the INI file every AWS tool writes.
 * No credentials at all is allowed (a public bucket: requests go unsigned).
 *
 * Nothing here puts a secret into an error message: a problem names the file, the profile and the
 * missing field only.
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { AwsCredentials } from "./sigv4.js";

export type Environment = Readonly<Record<string, string | undefined>>;

export class CredentialsError extends Error {
  override name = "CredentialsError";
}

/** Largest credentials file read (it holds a few keys). */
const MAX_FILE_BYTES = 1 << 20;

/** Reads the credentials now (environment first, then the file); null: none configured (unsigned requests). Throws CredentialsError. */
export function resolveCredentials(env: Environment): AwsCredentials | null {
  const id = nonEmpty(env.AWS_ACCESS_KEY_ID);
  const secret = nonEmpty(env.AWS_SECRET_ACCESS_KEY);
  if (id !== undefined || secret !== undefined) {
    if (id === undefined || secret === undefined)
      throw new CredentialsError(`${id === undefined ? "AWS_ACCESS_KEY_ID" : "AWS_SECRET_ACCESS_KEY"} is not set while the other one is`);
    const token = nonEmpty(env.AWS_SESSION_TOKEN);
    return token === undefined
      ? { accessKeyId: id, secretAccessKey: secret }
      : { accessKeyId: id, secretAccessKey: secret, sessionToken: token };
  }
  const explicit = nonEmpty(env.AWS_SHARED_CREDENTIALS_FILE);
  const file = explicit ?? join(env.HOME ?? homedir(), ".aws", "credentials");
  const profile = nonEmpty(env.AWS_PROFILE) ?? "default";
  let text: string;
  try {
    const bytes = readFileSync(file);
    if (bytes.length > MAX_FILE_BYTES) throw new CredentialsError(`the credentials file ${file} is larger than 1 MiB`);
    text = bytes.toString("utf8");
  } catch (error) {
    if (error instanceof CredentialsError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    // The default file's absence means "no credentials"; a file the operator named must be there.
    if (code === "ENOENT" && explicit === undefined && env.AWS_PROFILE === undefined) return null;
    throw new CredentialsError(`cannot read the credentials file ${file} (${code ?? "error"})`);
  }
  return profileCredentials(text, profile, file);
}

/** The credentials of `profile` in an INI text; throws CredentialsError naming what is missing (never a value). */
export function profileCredentials(text: string, profile: string, file: string): AwsCredentials {
  const section = parseIni(text).get(profile);
  if (section === undefined) throw new CredentialsError(`the credentials file ${file} has no profile [${profile}]`);
  const id = nonEmpty(section.get("aws_access_key_id"));
  const secret = nonEmpty(section.get("aws_secret_access_key"));
  if (id === undefined || secret === undefined)
    throw new CredentialsError(
      `profile [${profile}] of ${file} has no ${id === undefined ? "aws_access_key_id" : "aws_secret_access_key"}`,
    );
  const token = nonEmpty(section.get("aws_session_token"));
  return token === undefined
    ? { accessKeyId: id, secretAccessKey: secret }
    : { accessKeyId: id, secretAccessKey: secret, sessionToken: token };
}

/** Sections of an INI text: `[name]` lines, `key = value` lines, `#` and `;` comments. */
export function parseIni(text: string): Map<string, Map<string, string>> {
  const sections = new Map<string, Map<string, string>>();
  let current: Map<string, string> | null = null;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const header = /^\[\s*(?:profile\s+)?([^\]]+?)\s*\]$/.exec(line);
    if (header !== null) {
      current = sections.get(header[1]) ?? new Map();
      sections.set(header[1], current);
      continue;
    }
    const eq = line.indexOf("=");
    if (eq < 0 || current === null) continue;
    current.set(line.slice(0, eq).trim().toLowerCase(), line.slice(eq + 1).trim());
  }
  return sections;
}

function nonEmpty(text: string | undefined): string | undefined {
  return text === undefined || text === "" ? undefined : text;
}
