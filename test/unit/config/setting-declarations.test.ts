/** The declaration table (src/config/settings.ts): what every declaration must hold for the loop, --help and the docs. */
import { describe, expect, it } from "vitest";
import { settingsOf } from "../../../src/config/read-settings.js";
import { Computed, ConfigError, describeDefault } from "../../../src/config/setting.js";
import { SETTINGS } from "../../../src/config/settings.js";

const all = settingsOf(SETTINGS);

describe("the settings' declarations", () => {
  it("name every variable and flag once, in their forms (UPPER_SNAKE, --kebab-case)", () => {
    expect(new Set(all.map((s) => s.env)).size).toBe(all.length);
    expect(new Set(all.map((s) => s.flag)).size).toBe(all.length);
    for (const s of all) {
      expect(s.env).toMatch(/^[A-Z][A-Z0-9_]*$/);
      expect(s.flag).toMatch(/^--[a-z][a-z0-9-]*$/);
    }
  });

  it("each say what they do, what they accept and what their default is", () => {
    for (const s of all) {
      expect(s.help, s.env).toMatch(/\S.*\.$/);
      expect(s.type.accepts, s.env).not.toBe("");
      expect(() => describeDefault(s), s.env).not.toThrow();
    }
  });

  it("have defaults their own type accepts: a default that is a value reads back as itself from its written form", () => {
    const at = (s: { env: string }) => ({ name: s.env, example: undefined });
    for (const s of all) {
      const fallback = s.default;
      if (fallback instanceof Computed) {
        const value = fallback.compute();
        if (s.type.format !== undefined) expect(s.type.parse(s.type.format(value), at(s)), s.env).toEqual(value);
      } else if (typeof fallback === "string") {
        expect(() => s.type.parse(fallback, at(s)), s.env).not.toThrow();
      } else if (fallback !== undefined && s.type.format !== undefined) {
        expect(s.type.parse(s.type.format(fallback), at(s)), s.env).toEqual(fallback);
      }
    }
  });

  it("name, in OnlyWith, a setting declared before them and a value that setting takes", () => {
    const dependent = all.filter((s) => s.onlyWith !== undefined);
    expect(dependent.map((s) => s.env)).toEqual([
      "ORIGIN_POLL_MIN_S",
      "ORIGIN_POLL_MAX_S",
      "ORIGIN_TIMEOUT_S",
      "ORIGIN_MAX_SKEW_S",
      "ORIGIN_PUBLIC_KEYS",
      "ORIGIN_READY",
      "INSTANCE_ID",
      "S3_ENDPOINT",
      "S3_REGION",
      "S3_FORCE_PATH_STYLE",
      "REDIS_URL",
      "REDIS_KEY_PREFIX",
      "REDIS_TIMEOUT_MS",
      "QUOTA_FAILURE",
    ]);
    for (const s of dependent) {
      const { setting: other, value } = s.onlyWith!;
      expect(all.indexOf(other), s.env).toBeGreaterThanOrEqual(0);
      expect(all.indexOf(other), s.env).toBeLessThan(all.indexOf(s));
      if (typeof value === "string") expect(() => other.type.parse(value, { name: other.env, example: undefined })).not.toThrow();
      else expect(value.test(other.type.parse("s3://bucket/p/", { name: other.env, example: undefined })), s.env).toBe(true);
    }
  });

  it("refuse a text outside their range or their words with a ConfigError that names the setting as given", () => {
    for (const s of all) {
      let refused: unknown = null;
      try {
        s.type.parse("\u0000 not a value", { name: s.flag, example: undefined });
      } catch (error) {
        refused = error;
      }
      // Free text (a passphrase) and paths (checked together by the TLS rule; API_KEYS_FILE by its rule: an origin may bring it) take anything.
      if (refused === null) {
        expect(["API_KEYS_FILE", "TLS_CERT_FILE", "TLS_KEY_FILE", "TLS_KEY_PASSPHRASE", "TLS_CA_FILE"], s.env).toContain(s.env);
        continue;
      }
      expect(refused, s.env).toBeInstanceOf(ConfigError);
      expect((refused as Error).message.startsWith(s.flag), s.env).toBe(true);
    }
  });
});
