/** The kinds of values settings take (src/config/value-types.ts): what each reads, refuses and writes back. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../../src/config/setting.js";
import {
  changesRetention,
  corsOrigins,
  existingDirectory,
  existingFile,
  integer,
  integerOr,
  ipRanges,
  mebibyteSize,
  oneOf,
  redisUrl,
  requestsPerWindow,
  secret,
} from "../../../src/config/value-types.js";

const at = { name: "SOME_SETTING", example: undefined };
const refusal = (parse: () => unknown): string => {
  try {
    parse();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("accepted");
};

describe("value types", () => {
  it("integer: decimal digits from min to max, both ends included", () => {
    const port = integer(0, 65_535);
    expect(port.parse("0", at)).toBe(0);
    expect(port.parse("65535", at)).toBe(65_535);
    for (const text of ["65536", "-1", "80.5", "1e3", " 80", "0x10", ""])
      expect(refusal(() => port.parse(text, at))).toBe(`SOME_SETTING must be an integer from 0 to 65535; got "${text}".`);
    expect(port.accepts).toBe("0-65535");
  });

  it("mebibyteSize: MiB in, bytes out, MiB written back", () => {
    const size = mebibyteSize(1, 1024);
    expect(size.parse("16", at)).toBe(16 * 1024 * 1024);
    expect(size.format!(16 * 1024 * 1024)).toBe("16");
    expect(refusal(() => size.parse("0", at))).toBe('SOME_SETTING must be an integer from 1 to 1024; got "0".');
    expect(size.accepts).toBe("1-1024 MiB");
  });

  it("integerOr: a word for a value (COMPRESSION_MIN_BYTES=off)", () => {
    const min = integerOr("off", Number.POSITIVE_INFINITY, 0, 1 << 30);
    expect(min.parse("off", at)).toBe(Number.POSITIVE_INFINITY);
    expect(min.parse("1024", at)).toBe(1024);
    expect(min.format!(Number.POSITIVE_INFINITY)).toBe("off");
    expect(refusal(() => min.parse("Off", at))).toMatch(/must be an integer from 0 to 1073741824/);
  });

  it("oneOf: two words read 'a or b', more 'one of a, b, c'", () => {
    expect(refusal(() => oneOf(["memory", "redis"]).parse("disk", at))).toBe('SOME_SETTING must be memory or redis; got "disk".');
    expect(refusal(() => oneOf(["a", "b", "c"]).parse("d", at))).toBe('SOME_SETTING must be one of a, b, c; got "d".');
    expect(oneOf(["a", "b", "c"]).parse("b", at)).toBe("b");
  });

  it("requestsPerWindow: positive REQUESTS/SECONDS; the message's example is the setting's default", () => {
    expect(requestsPerWindow.parse("600/60", at)).toEqual({ requests: 600, windowSeconds: 60 });
    expect(requestsPerWindow.format!({ requests: 20, windowSeconds: 60 })).toBe("20/60");
    for (const text of ["0/60", "600/0", "600", "600/60s", "-1/60"])
      expect(refusal(() => requestsPerWindow.parse(text, { name: "X", example: "20/60" }))).toBe(
        `X must be REQUESTS/SECONDS with positive integers, e.g. 20/60; got "${text}".`,
      );
  });

  it("secret: at least so many characters, as bytes; never repeated in the message", () => {
    expect(secret(16).parse("0123456789abcdef", at)).toEqual(Buffer.from("0123456789abcdef"));
    const message = refusal(() => secret(16).parse("hunter2-secret", at));
    expect(message).toBe("SOME_SETTING must be at least 16 characters long.");
    expect(message).not.toContain("hunter2");
  });

  it("redisUrl: redis:// or rediss:// with a host; never repeats the URL (it may hold a password)", () => {
    expect(redisUrl.parse("rediss://user:pw@cache:6380/2", at)).toBe("rediss://user:pw@cache:6380/2");
    for (const text of ["http://user:pw@h:1", "10.1.2.3:6379", "redis:///2"]) {
      const message = refusal(() => redisUrl.parse(text, at));
      expect(message).toMatch(/^SOME_SETTING must be a redis:\/\/ or rediss:\/\/ URL with a host/);
      expect(message).not.toContain(text);
    }
  });

  it("paths: made absolute; a directory or a file must exist as one", () => {
    const dir = mkdtempSync(join(tmpdir(), "lgw-value-types-"));
    const file = join(dir, "keys.json");
    writeFileSync(file, "{}");
    expect(existingDirectory.parse(dir, at)).toBe(dir);
    expect(refusal(() => existingDirectory.parse(file, at))).toBe(`SOME_SETTING must be an existing directory; "${file}" is not.`);
    expect(existingFile("a baskets file").parse(file, at)).toBe(file);
    expect(refusal(() => existingFile("a baskets file").parse(dir, at))).toBe(
      `SOME_SETTING must name a baskets file; "${dir}" is not a file.`,
    );
    expect(existingDirectory.parse(".", at)).toBe(resolve("."));
  });

  it("other modules' parsers (CORS, CIDR ranges): their message, after the setting's name", () => {
    expect(corsOrigins.parse("", at)).toBe("");
    expect(corsOrigins.parse("https://a.example", at)).toBe("https://a.example");
    expect(refusal(() => corsOrigins.parse("a.example", at))).toMatch(/^SOME_SETTING: .+\.$/);
    expect(ipRanges.parse("10.0.0.0/8, ::1", at)).toEqual(["10.0.0.0/8", "::1"]);
    expect(refusal(() => ipRanges.parse("10.0.0.1/8", at))).toMatch(
      /^SOME_SETTING: "10.0.0.1\/8" has address bits set past its \/8 prefix/,
    );
  });

  it("changesRetention: COUNT or COUNT/MAX_AGE_SECONDS, written back the same way", () => {
    expect(changesRetention.parse("64", at)).toEqual({ count: 64, maxAgeSeconds: null });
    expect(changesRetention.parse("500/86400", at)).toEqual({ count: 500, maxAgeSeconds: 86_400 });
    expect(changesRetention.format!({ count: 500, maxAgeSeconds: 86_400 })).toBe("500/86400");
    expect(changesRetention.format!({ count: 64, maxAgeSeconds: null })).toBe("64");
  });

  it("a long text is cut in the message (it stays one readable line)", () => {
    const message = refusal(() => integer(1, 2).parse("9".repeat(500), at));
    expect(message).toBe(`SOME_SETTING must be an integer from 1 to 2; got "${"9".repeat(80)}".`);
  });
});
