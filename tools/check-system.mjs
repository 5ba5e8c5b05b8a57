#!/usr/bin/env node
// The system programs the tests run for real, checked before anything else `npm test` does (plain
// JavaScript: it runs before the build). A missing one is installed from Debian's packages when this
// runs as root; otherwise it stops at once with the exact command to run.
//
//   redis-server   shared quotas across instances (test/server/shared-quotas.test.ts, test/app/redis-access-path.test.ts)
//   nginx          the reverse-proxy mitigation (test/server/reverse-proxy.test.ts, docs/reverse-proxy.md)
//   openssl, curl  throwaway certificates and a real TLS client (test/server/https.test.ts)
//   chromium       the API reference page in a real browser (test/server/docs-page.test.ts, npm run docs:screenshot)
//   prometheus     promtool checks and tests the alert rules; a real Prometheus scrapes a real gateway
//                  (test/monitoring/alert-rules.test.ts, test/server/prometheus-scrape.test.ts)
//   moto_server    the S3 origin, with SigV4 verification (test/fleet/origin-s3.test.ts, moto-sigv4.test.ts): not a
//                  Debian package; `pip install "moto[server]"` (tried here when pip is there, else named)
import { spawnSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";

/** An executable file named `name` on PATH (or at that path). */
function executable(name) {
  const candidates = isAbsolute(name)
    ? [name]
    : (process.env.PATH ?? "")
        .split(delimiter)
        .filter(Boolean)
        .map((dir) => join(dir, name));
  return candidates.some((file) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * What the tests look for (test/support/redis-server.ts, nginx-process.ts, tls-certificates.ts, https.test.ts,
 * tools/docs-browser.ts, test/support/prometheus.ts) and the package that brings it (Debian's prometheus brings promtool).
 */
const PROGRAMS = [
  { name: "redis-server", debian: "redis-server", found: () => executable(process.env.REDIS_SERVER_BIN ?? "redis-server") },
  {
    name: "nginx",
    debian: "nginx-light",
    found: () => ["nginx", "/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/local/nginx/sbin/nginx"].some(executable),
  },
  { name: "openssl", debian: "openssl", found: () => executable("openssl") },
  { name: "curl", debian: "curl", found: () => executable("curl") },
  { name: "chromium", debian: "chromium", found: () => executable(process.env.CHROMIUM_BIN ?? "chromium") },
  // Without its recommended node exporter: the tests start Prometheus themselves and need no exporter daemon.
  { name: "prometheus", debian: "prometheus", recommends: false, found: () => executable("prometheus") && executable("promtool") },
];

const missing = () => PROGRAMS.filter((p) => !p.found());

const absent = missing();
if (absent.length > 0) {
  const packages = absent.map((p) => p.debian).join(" ");
  const install = (list, flags) =>
    list.length === 0 ? [] : [`DEBIAN_FRONTEND=noninteractive apt-get install -y ${flags}${list.map((p) => p.debian).join(" ")}`];
  const command = [
    "apt-get update",
    ...install(
      absent.filter((p) => p.recommends !== false),
      "",
    ),
    ...install(
      absent.filter((p) => p.recommends === false),
      "--no-install-recommends ",
    ),
  ].join(" && ");
  const names = absent.map((p) => p.name).join(", ");
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  if (!isRoot) {
    console.error(`The tests run ${names}, which this machine lacks. Install them as root, then run npm test again:\n\n  ${command}\n`);
    process.exit(1);
  }
  if (!executable("apt-get")) {
    console.error(
      `The tests run ${names}, which this machine lacks, and there is no apt-get to install Debian's packages (${packages}); install them, then run npm test again.`,
    );
    process.exit(1);
  }
  console.log(`check-system: installing ${packages} (the tests run ${names})`);
  const run = spawnSync("sh", ["-c", command], {
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  });
  const still = missing();
  if (run.status !== 0 || still.length > 0) {
    console.error(
      `check-system: ${run.status !== 0 ? `the install failed (exit ${run.status})` : `still missing after the install: ${still.map((p) => p.name).join(", ")} (not on PATH?)`}`,
    );
    process.exit(1);
  }
}

/** Python programs the tests run (from PyPI: pip, not apt). */
const PIP_PROGRAMS = [{ name: "moto_server", pip: "moto[server]", found: () => executable(process.env.MOTO_SERVER_BIN ?? "moto_server") }];

const pipMissing = () => PIP_PROGRAMS.filter((p) => !p.found());
const absentPip = pipMissing();
if (absentPip.length > 0) {
  const names = absentPip.map((p) => p.name).join(", ");
  const spec = absentPip.map((p) => `"${p.pip}"`).join(" ");
  const pip = ["pip3", "pip"].find(executable);
  if (pip === undefined) {
    console.error(
      `The tests run ${names}, which this machine lacks, and there is no pip to install it. Install it, then run npm test again:\n\n  pip install ${spec}\n`,
    );
    process.exit(1);
  }
  console.log(`check-system: installing ${spec} with ${pip} (the tests run ${names})`);
  const run = spawnSync(pip, ["install", ...absentPip.map((p) => p.pip)], { stdio: ["ignore", "inherit", "inherit"] });
  const still = pipMissing();
  if (run.status !== 0 || still.length > 0) {
    console.error(
      `check-system: ${run.status !== 0 ? `${pip} install failed (exit ${run.status})` : `still missing after the install: ${still.map((p) => p.name).join(", ")} (not on PATH?)`}; install it with: pip install ${spec}`,
    );
    process.exit(1);
  }
}
