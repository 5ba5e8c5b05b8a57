import { describe, expect, it } from "vitest";
import { FileAttempts, type ScanContext } from "../../../src/snapshot/file-attempts.js";

const NAME = "chain-1.msgpack";
const SHA_A = "a".repeat(64);
const SHA_B = "b".repeat(64);
const change: ScanContext = { tick: false, nowMs: 1_000_000, allowOlder: false };
const tick: ScanContext = { ...change, tick: true };

describe("FileAttempts: which scans build a file again", () => {
  it("a name never seen is built", () => {
    expect(new FileAttempts().decide(NAME, "s1", change)).toEqual({ build: true, unchangedRejected: null });
  });

  it("a served file is built again only when its signature changes, on a tick or not", () => {
    const a = new FileAttempts();
    a.record(NAME, "s1", { kind: "served", sha256: SHA_A });
    expect(a.decide(NAME, "s1", change)).toEqual({ build: false });
    expect(a.decide(NAME, "s1", tick)).toEqual({ build: false });
    expect(a.decide(NAME, "s2", change)).toEqual({ build: true, unchangedRejected: null });
  });

  it("a file that failed for I/O or a crash is built again on every tick, whatever its signature, and on a change", () => {
    const a = new FileAttempts();
    a.record(NAME, "s1", { kind: "failed" });
    expect(a.decide(NAME, "s1", change)).toEqual({ build: false });
    expect(a.decide(NAME, "s1", tick)).toEqual({ build: true, unchangedRejected: null });
    expect(a.decide(NAME, "s2", change)).toEqual({ build: true, unchangedRejected: null });
  });

  it("a file rejected for its content waits for a change; the same bytes again are then skipped quietly", () => {
    const a = new FileAttempts();
    a.record(NAME, "s1", { kind: "rejected", reason: "structure", message: "m", sha256: SHA_A, retryAtMs: null });
    expect(a.decide(NAME, "s1", change)).toEqual({ build: false });
    expect(a.decide(NAME, "s1", tick)).toEqual({ build: false });
    expect(a.decide(NAME, "s2", tick)).toEqual({ build: true, unchangedRejected: SHA_A });
  });

  it("a file rejected before it was read (its name) is built again when it changes", () => {
    const a = new FileAttempts();
    a.record(NAME, "s1", { kind: "rejected", reason: "unsupported-chain", message: "m", sha256: null, retryAtMs: null });
    expect(a.decide(NAME, "s1", tick)).toEqual({ build: false });
    expect(a.decide(NAME, "s2", change)).toEqual({ build: true, unchangedRejected: null });
  });

  it("a future-dated file is built again once the clock allows its generatedAt, unchanged or not", () => {
    const a = new FileAttempts();
    a.record(NAME, "s1", { kind: "rejected", reason: "future-generated-at", message: "m", sha256: SHA_A, retryAtMs: 2_000_000 });
    expect(a.decide(NAME, "s1", { ...tick, nowMs: 1_999_999 })).toEqual({ build: false });
    expect(a.decide(NAME, "s1", { ...change, nowMs: 2_000_000 })).toEqual({ build: true, unchangedRejected: null });
  });

  it("an out-of-order file is built again while the operator allows an older file for its chain", () => {
    const a = new FileAttempts();
    a.record(NAME, "s1", { kind: "rejected", reason: "out-of-order", message: "m", sha256: SHA_A, retryAtMs: null });
    expect(a.decide(NAME, "s1", change)).toEqual({ build: false });
    expect(a.decide(NAME, "s1", { ...change, allowOlder: true })).toEqual({ build: true, unchangedRejected: null });
    // the marker does not reopen other rejections
    a.record(NAME, "s1", { kind: "rejected", reason: "decode", message: "m", sha256: SHA_B, retryAtMs: null });
    expect(a.decide(NAME, "s1", { ...change, allowOlder: true })).toEqual({ build: false });
  });

  it("something that is not a regular file is news once per change, and a file there later is built", () => {
    const a = new FileAttempts();
    expect(a.notAFile(NAME, "dir:1", "directory")).toBe(true);
    expect(a.notAFile(NAME, "dir:1", "directory")).toBe(false);
    expect(a.notAFile(NAME, "fifo:2", "fifo")).toBe(true);
    expect(a.decide(NAME, "file:3", change)).toEqual({ build: true, unchangedRejected: null });
  });

  it("a name that disappears is forgotten: a file that appears there later is new", () => {
    const a = new FileAttempts();
    a.record(NAME, "s1", { kind: "rejected", reason: "structure", message: "m", sha256: SHA_A, retryAtMs: null });
    a.forget(NAME);
    expect(a.outcome(NAME)).toBeUndefined();
    expect(a.decide(NAME, "s1", change)).toEqual({ build: true, unchangedRejected: null });
  });
});
