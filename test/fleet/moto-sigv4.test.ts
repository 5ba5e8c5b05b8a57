/** Our SigV4 signer against a real S3 API that checks signatures (moto re-signs each request with botocore's signer). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMotoServer, type MotoServer } from "../support/moto-server.js";

let moto: MotoServer;
beforeAll(async () => {
  moto = await startMotoServer();
  await moto.createBucket("sigv4-check");
});
afterAll(async () => {
  await moto?.stop();
});

describe("moto_server with SigV4 verification on", () => {
  it("takes requests signed with the right secret and refuses a wrong secret or an unknown key", async () => {
    expect((await moto.s3("PUT", "/sigv4-check/a/b%20c.json", Buffer.from("{}"))).status).toBe(200);
    expect(await moto.s3("GET", "/sigv4-check/a/b%20c.json")).toEqual({ status: 200, body: "{}" });
    const wrong = await moto.s3("GET", "/sigv4-check/a/b%20c.json", undefined, { ...moto.credentials, secretAccessKey: "wrong" });
    expect(wrong.status).toBe(403);
    expect(wrong.body).toContain("SignatureDoesNotMatch");
    const unknown = await moto.s3("GET", "/sigv4-check/a/b%20c.json", undefined, {
      accessKeyId: "AKIAUNKNOWN000000000",
      secretAccessKey: "x",
    });
    expect(unknown.status).toBe(403);
    expect(unknown.body).toContain("InvalidAccessKeyId");
  });
});
