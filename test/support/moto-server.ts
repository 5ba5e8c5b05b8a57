/**
 * A REAL S3 API for the tests: moto's server (`moto_server`, Python; `pip install "moto[server]"`; npm test's
 * system check installs it where pip exists: tools/check-system.mjs) started as a child process on a free
 * loopback port, with SigV4 verification switched on.
 *
 * moto checks signatures once its IAM knows the key and its no-auth allowance is used up: the server starts
 * with INITIAL_NO_AUTH_ACTION_COUNT set, the setup creates (unauthenticated) an IAM user with an access key
 * and an allow-all policy and the bucket, then sets the allowance to 0 (`/moto-api/reset-auth`). From then on
 * moto re-signs every request with botocore's signer and the secret it holds: a wrong secret is refused
 * (403 SignatureDoesNotMatch). Stopped by its pid.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { freePort } from "../../bench/shared/free-port.js";
import { signedHeaders, sha256Hex, uriEncode, type AwsCredentials } from "../../src/origin/sigv4.js";

export const MOTO_SERVER_BINARY = process.env.MOTO_SERVER_BIN ?? "moto_server";

export interface MotoServer {
  readonly port: number;
  readonly endpoint: string;
  readonly region: string;
  /** The access key made at setup (allow-all policy). */
  readonly credentials: AwsCredentials;
  /** Another access key of the same user (a rotation). */
  createAccessKey(): Promise<AwsCredentials>;
  deleteAccessKey(accessKeyId: string): Promise<void>;
  createBucket(name: string): Promise<void>;
  /** One S3 request signed with `credentials` (default the setup's): status and body. */
  s3(method: string, path: string, body?: Buffer, credentials?: AwsCredentials): Promise<{ status: number; body: string }>;
  stop(): Promise<void>;
}

/** Throws a clear error when moto_server cannot be run. */
export function assertMotoInstalled(): void {
  const probe = spawnSync(MOTO_SERVER_BINARY, ["--help"], { encoding: "utf8" });
  if (probe.error || probe.status !== 0)
    throw new Error(
      `moto's S3 server is needed, and "${MOTO_SERVER_BINARY}" cannot be run (${probe.error?.message ?? `exit ${probe.status}`}). ` +
        'Install it with `pip install "moto[server]"` (npm test tries this when pip is there: tools/check-system.mjs), or point MOTO_SERVER_BIN at it.',
    );
}

const SETUP_CREDENTIALS: AwsCredentials = { accessKeyId: "AKIASETUPNOTCHECKED0", secretAccessKey: "setup-not-checked" };

export async function startMotoServer(): Promise<MotoServer> {
  assertMotoInstalled();
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  const region = "us-east-1";
  const child: ChildProcess = spawn(MOTO_SERVER_BINARY, ["-H", "127.0.0.1", "-p", String(port)], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, INITIAL_NO_AUTH_ACTION_COUNT: "1000", PYTHONUNBUFFERED: "1" },
  });
  let output = "";
  child.stdout!.on("data", (c) => (output = (output + c).slice(-4000)));
  child.stderr!.on("data", (c) => (output = (output + c).slice(-4000)));
  let exited = false;
  const exit = new Promise<void>((resolve) => child.on("exit", () => ((exited = true), resolve())));

  const request = async (
    method: string,
    path: string,
    service: string,
    credentials: AwsCredentials,
    body = Buffer.alloc(0),
    contentType?: string,
  ) => {
    const payloadHash = service === "s3" ? "UNSIGNED-PAYLOAD" : sha256Hex(body);
    const [pathname, query = ""] = path.split("?");
    const pairs = query === "" ? [] : query.split("&").map((p) => p.split("=").map(decodeURIComponent) as [string, string]);
    const headers = signedHeaders({
      method,
      host: `127.0.0.1:${port}`,
      path: pathname,
      query: pairs,
      region,
      service,
      credentials,
      date: new Date(),
      payloadHash,
    });
    const sent =
      pairs.length === 0 ? pathname : `${pathname}?${pairs.map(([k, v]) => `${uriEncode(k, false)}=${uriEncode(v, false)}`).join("&")}`;
    const res = await fetch(`${endpoint}${sent}`, {
      method,
      headers: { ...headers, ...(contentType ? { "content-type": contentType } : {}) },
      body: method === "GET" || method === "HEAD" ? undefined : body,
    });
    return { status: res.status, body: await res.text() };
  };
  const iam = async (params: Record<string, string>, credentials: AwsCredentials) => {
    const body = Buffer.from(new URLSearchParams({ ...params, Version: "2010-05-08" }).toString());
    const answer = await request("POST", "/", "iam", credentials, body, "application/x-www-form-urlencoded; charset=utf-8");
    if (answer.status !== 200) throw new Error(`moto IAM ${params.Action} answered ${answer.status}: ${answer.body.slice(0, 500)}`);
    return answer.body;
  };
  const keyOf = (xml: string): AwsCredentials => ({
    accessKeyId: /<AccessKeyId>([^<]+)<\/AccessKeyId>/.exec(xml)![1],
    secretAccessKey: /<SecretAccessKey>([^<]+)<\/SecretAccessKey>/.exec(xml)![1],
  });

  const deadline = Date.now() + 20_000;
  for (;;) {
    if (exited) throw new Error(`moto_server exited at start:\n${output}`);
    const up = await fetch(`${endpoint}/moto-api/`).then(
      () => true,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`moto_server did not answer on ${endpoint} within 20 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  // Unauthenticated setup (within the allowance), then signatures are checked for every request.
  await iam({ Action: "CreateUser", UserName: "fleet" }, SETUP_CREDENTIALS);
  const credentials = keyOf(await iam({ Action: "CreateAccessKey", UserName: "fleet" }, SETUP_CREDENTIALS));
  const policy = JSON.stringify({ Version: "2012-10-17", Statement: [{ Effect: "Allow", Action: "*", Resource: "*" }] });
  await iam({ Action: "PutUserPolicy", UserName: "fleet", PolicyName: "all", PolicyDocument: policy }, SETUP_CREDENTIALS);
  const reset = await fetch(`${endpoint}/moto-api/reset-auth`, { method: "POST", body: "0" });
  if (reset.status !== 200) throw new Error(`moto reset-auth answered ${reset.status}`);

  return {
    port,
    endpoint,
    region,
    credentials,
    createAccessKey: async () => keyOf(await iam({ Action: "CreateAccessKey", UserName: "fleet" }, credentials)),
    deleteAccessKey: async (accessKeyId) =>
      void (await iam({ Action: "DeleteAccessKey", UserName: "fleet", AccessKeyId: accessKeyId }, credentials)),
    async createBucket(name) {
      const answer = await request("PUT", `/${name}`, "s3", credentials);
      if (answer.status !== 200) throw new Error(`moto CreateBucket answered ${answer.status}: ${answer.body.slice(0, 300)}`);
    },
    s3: (method, path, body, with_) => request(method, path, "s3", with_ ?? credentials, body),
    async stop() {
      if (exited) return;
      child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exit;
      clearTimeout(killer);
    },
  };
}
