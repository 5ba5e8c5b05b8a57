import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ALLOCATOR_TUNABLE, allocatorWarning } from "../../../src/config/allocator.js";
import { PROJECT_ROOT } from "../../support/gateway-process.js";

describe("the allocator setting the gateway wants", () => {
  it("warns on glibc without a fixed mmap threshold, naming the setting", () => {
    expect(allocatorWarning({}, true)).toContain(`GLIBC_TUNABLES=${ALLOCATOR_TUNABLE}`);
    expect(allocatorWarning({ GLIBC_TUNABLES: "glibc.malloc.arena_max=2" }, true)).not.toBeNull();
  });

  it("says nothing when the threshold is set either way, or off glibc", () => {
    expect(allocatorWarning({ GLIBC_TUNABLES: `glibc.malloc.arena_max=2:${ALLOCATOR_TUNABLE}` }, true)).toBeNull();
    expect(allocatorWarning({ MALLOC_MMAP_THRESHOLD_: "131072" }, true)).toBeNull();
    expect(allocatorWarning({}, false)).toBeNull();
  });

  it("npm start sets it (unless the environment already has GLIBC_TUNABLES)", () => {
    const start = (JSON.parse(readFileSync(path.join(PROJECT_ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts
      .start;
    expect(start).toContain(`GLIBC_TUNABLES=\${GLIBC_TUNABLES:-${ALLOCATOR_TUNABLE}}`);
  });
});
