#!/usr/bin/env node
/**
 * `liquidity-gateway`: starts the gateway (configuration from the environment
 * and flags, declared in src/config/settings.ts; docs/operators.md); `liquidity-gateway keys
 * ...` manages the keys file; `liquidity-gateway snapshots ...` acts on the
 * snapshot directory (e.g. allow a rollback); `liquidity-gateway publish ...`
 * publishes a directory to an origin (docs/fleet.md); `liquidity-gateway history rebuild --from DIR` replays
 * archived chain files into the history store. The gateway drains and stops on
 * SIGTERM/SIGINT, replaces its serving threads one by one on SIGUSR2, and on
 * SIGHUP rechecks its TLS files and replaces the threads when they pass.
 */
import { ConfigError, loadConfig } from "../config/config.js";
import { settingsHelp } from "../config/settings-doc.js";
import { startGateway } from "../gateway.js";
import { createLogger } from "../log/logger.js";
import { KeysFileError } from "../access/keys-file.js";
import { runKeysCli } from "./keys-cli.js";
import { runSnapshotsCli } from "./snapshots-cli.js";
import { runHistoryCli } from "./history-cli.js";
import { runPublishCli } from "./publish-cli.js";

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv[0] === "keys") {
    process.exitCode = await runKeysCli(argv.slice(1));
    return;
  }
  if (argv[0] === "snapshots") {
    process.exitCode = runSnapshotsCli(argv.slice(1));
    return;
  }
  if (argv[0] === "publish") {
    process.exitCode = await runPublishCli(argv.slice(1));
    return;
  }
  if (argv[0] === "history") {
    process.exitCode = runHistoryCli(argv.slice(1), {
      stdout: (t) => process.stdout.write(t),
      stderr: (t) => process.stderr.write(t),
      env: process.env,
    });
    return;
  }
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(`${settingsHelp()}\n`);
    return;
  }
  let config;
  try {
    config = loadConfig(argv, process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`liquidity-gateway: invalid configuration: ${error.message}\n${settingsHelp()}\n`);
      process.exit(2);
    }
    throw error;
  }
  const log = createLogger(config.logLevel);
  let gateway;
  try {
    gateway = await startGateway(config, log);
  } catch (error) {
    const message = error instanceof KeysFileError ? `invalid API keys file: ${error.message}` : (error as Error).message;
    process.stderr.write(`liquidity-gateway: cannot start: ${message}\n`);
    log.fatal({ event: "start-failed", err: error }, message);
    process.exit(1);
  }
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ event: "stopping", signal }, `stopping on ${signal}`);
    const force = setTimeout(() => process.exit(1), 5000);
    force.unref();
    gateway
      .stop()
      .then(() => {
        log.info({ event: "stopped" }, "stopped");
        log.flush?.();
        process.exit(0);
      })
      .catch((error: unknown) => {
        log.error({ event: "stop-failed", err: error }, "stop failed");
        process.exit(1);
      });
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  gateway.initialLoad.catch((error: unknown) => {
    log.fatal({ event: "initial-load-failed", err: error }, "initial snapshot load failed");
    stop("initial-load-failed");
  });
  process.on("SIGHUP", () => {
    log.info({ event: "reloading-tls" }, "SIGHUP: rechecking the TLS files");
    gateway.reloadTls().catch((error: unknown) => log.error({ event: "tls-reload-failed", err: error }, "reloading the TLS files failed"));
  });
  process.on("SIGUSR2", () => {
    log.info({ event: "restarting-threads" }, "SIGUSR2: replacing the serving threads one by one");
    gateway
      .restartThreads()
      .then(() => log.info({ event: "threads-restarted" }, "serving threads replaced"))
      .catch((error: unknown) => log.error({ event: "restart-failed", err: error }, "replacing the serving threads failed"));
  });
}

main().catch((error: unknown) => {
  // Failures main() does not report itself (its own are exit 1 or 2 with a message): the stack, exit 1.
  process.stderr.write(`liquidity-gateway: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
