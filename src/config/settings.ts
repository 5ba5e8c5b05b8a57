/**
 * Every setting of the gateway, declared once: its environment variable, its flag (a flag wins over
 * its variable), the values it takes, its default and its help. loadConfig (config.ts) reads them in
 * this order; --help (`liquidity-gateway --help`) and the settings table of docs/operators.md
 * (`npm run docs:settings`) are written from them. A key is the GatewayConfig field it becomes; a
 * group (stream, tls, quotaStore) becomes an object of that name. Adding a setting: one entry here
 * (and a rule in config.ts when it depends on another setting); then `npm run docs:settings`.
 */
import { randomBytes } from "node:crypto";
import { availableParallelism, freemem } from "node:os";
import { DEFAULT_CHANGES_MAX_MB, DEFAULT_CHANGES_RETENTION } from "../serving/change-history.js";
import { DEFAULT_TOKEN_LOGO_TEMPLATE } from "../snapshot/normalize-token.js";
import { DEFAULT_FRESHNESS_TARGET_S, DEFAULT_WORKER_IDLE_S, DEFAULT_WORKERS_KEPT } from "../snapshot/build-pool.js";
import { DEFAULT_STREAM_LIMITS } from "../stream/stream-limits.js";
import { FILE_LIMIT_RANGE_MB, FILE_LIMITS, mebibytes } from "../util/operator-file.js";
import { DEFAULT_SNAPSHOT_DIR, SAMPLE_KEYS_FILE } from "./paths.js";
import { computed, setting, type OnlyWith } from "./setting.js";
import {
  anyText,
  changesRetention,
  corsOrigins,
  cronSchedule,
  endpointUrl,
  existingDirectory,
  existingFile,
  fileOrNothing,
  filePath,
  integer,
  integerOr,
  ipRanges,
  matching,
  mebibyteSize,
  oneOf,
  optional,
  originLocation,
  publicKeys,
  redisUrl,
  requestsPerWindow,
  seconds,
  secret,
  trueOrFalse,
} from "./value-types.js";
import type { OriginLocation } from "../origin/origin-location.js";

const quotaStoreKind = setting({
  env: "QUOTA_STORE",
  flag: "--quota-store",
  type: oneOf(["memory", "redis"]),
  default: "memory",
  help: "Where key quotas and failed-authentication counts live: `memory` (this instance's counters) or `redis` (shared by every instance using `REDIS_URL`).",
  more: "See [Running several instances](#running-several-instances).",
});

/** The Redis settings mean something only with QUOTA_STORE=redis. */
const withRedis: OnlyWith = { setting: quotaStoreKind, value: "redis", purpose: "to share quotas through Redis" };

const snapshotOrigin = setting({
  env: "SNAPSHOT_ORIGIN",
  flag: "--snapshot-origin",
  type: optional(originLocation),
  default: undefined,
  defaultText: "none (files are pushed into `SNAPSHOT_DIR`)",
  help:
    "Where the fleet's files are pulled from: `https://host/prefix/` (or `http://`: any server answering GET with an `ETag`) or " +
    "`s3://bucket/prefix/` (S3's API: R2, GCS, MinIO, Ceph with `S3_ENDPOINT`); `SNAPSHOT_DIR` becomes the instance's copy.",
  more: "See [fleet.md](fleet.md): the manifest, polling, signatures, `publish`, and what was tested against what.",
});

/** The ORIGIN_* settings mean something only with SNAPSHOT_ORIGIN. */
const withOrigin: OnlyWith = {
  setting: snapshotOrigin,
  value: { test: (value) => value !== undefined, text: "an origin (https://, http:// or s3://)" },
  purpose: "to pull files from an origin",
};

/** The S3_* settings mean something only with an s3:// SNAPSHOT_ORIGIN. */
const withS3: OnlyWith = {
  setting: snapshotOrigin,
  value: { test: (value) => (value as OriginLocation | undefined)?.kind === "s3", text: "an s3:// URL" },
  purpose: "to pull from S3",
};

export const SETTINGS = {
  port: setting({
    env: "PORT",
    flag: "--port",
    type: integer(0, 65_535),
    default: 8080,
    help: "TCP port; `0` picks a free one (logged).",
  }),
  host: setting({
    env: "HOST",
    flag: "--host",
    type: matching(/^[A-Za-z0-9.:_-]+$/, "be a host name or IP address", "host name or IP address"),
    default: "0.0.0.0",
    help: "Listen address.",
  }),
  snapshotDir: setting({
    env: "SNAPSHOT_DIR",
    flag: "--snapshot-dir",
    type: existingDirectory,
    default: DEFAULT_SNAPSHOT_DIR,
    defaultText: "the bundled sample (`snapshots/`)",
    help: "Directory of `chain-<chainId>.msgpack` files.",
  }),
  apiKeysFile: setting({
    env: "API_KEYS_FILE",
    flag: "--api-keys-file",
    type: fileOrNothing("a readable keys file"),
    default: SAMPLE_KEYS_FILE,
    defaultText: "the bundled sample (sandbox key; warning logged)",
    help: "API keys file (`shared/spec/keys-file.md`); must exist, unless `SNAPSHOT_ORIGIN` brings it (no keys until it does).",
  }),
  basketsFile: setting({
    env: "BASKETS_FILE",
    flag: "--baskets-file",
    type: optional(existingFile("a baskets file")),
    default: undefined,
    defaultText: "`baskets.json` in `SNAPSHOT_DIR` (none there: no baskets)",
    help: "The operator's token baskets; must exist when set.",
    more: "The format: [baskets.md](baskets.md).",
  }),
  origin: {
    location: snapshotOrigin,
    pollMinSeconds: setting({
      env: "ORIGIN_POLL_MIN_S",
      flag: "--origin-poll-min-s",
      type: seconds(0.05, 86_400),
      default: 10,
      help: "Shortest wait between two polls of the origin (seconds); each wait is uniform in [min, max], so a fleet spreads its polls.",
      onlyWith: withOrigin,
    }),
    pollMaxSeconds: setting({
      env: "ORIGIN_POLL_MAX_S",
      flag: "--origin-poll-max-s",
      type: seconds(0.05, 86_400),
      default: 20,
      help: "Longest wait between two polls (seconds; at least `ORIGIN_POLL_MIN_S`); also the longest backoff after errors.",
      onlyWith: withOrigin,
    }),
    timeoutSeconds: setting({
      env: "ORIGIN_TIMEOUT_S",
      flag: "--origin-timeout-s",
      type: seconds(0.05, 3600),
      default: 30,
      help: "Longest wait for a byte from the origin (connecting, the answer, the body); a stalled origin is given up after it.",
      onlyWith: withOrigin,
    }),
    maxSkewSeconds: setting({
      env: "ORIGIN_MAX_SKEW_S",
      flag: "--origin-max-skew-s",
      type: integer(0, 86_400),
      default: 300,
      help: "Allowance (seconds) on a manifest's `expires`: past it plus this, the manifest is refused (a frozen origin).",
      onlyWith: withOrigin,
    }),
    publicKeys: setting({
      env: "ORIGIN_PUBLIC_KEYS",
      flag: "--origin-public-keys",
      type: optional(publicKeys),
      default: undefined,
      defaultText: "none (signatures not checked)",
      help: "Ed25519 keys as `keyId=<key>`, comma-separated (two allow a rotation): a manifest without a valid signature by one of them is refused.",
      more: "Keys: raw 32 bytes in base64, or PEM. See [fleet.md](fleet.md#signing-and-rotating-keys).",
      onlyWith: withOrigin,
    }),
    readiness: setting({
      env: "ORIGIN_READY",
      flag: "--origin-ready",
      type: oneOf(["cached", "fresh"]),
      default: "cached",
      help: "`cached`: ready on the verified local copy (an origin outage does not stop a restarted fleet); `fresh`: ready only after a successful poll.",
      onlyWith: withOrigin,
    }),
    instanceId: setting({
      env: "INSTANCE_ID",
      flag: "--instance-id",
      type: optional(matching(/^[A-Za-z0-9._:-]{1,128}$/, "be 1-128 of A-Z a-z 0-9 . _ : -", "1-128 of `A-Z a-z 0-9 . _ : -`")),
      default: undefined,
      defaultText: "`<host name>:<port>`",
      help: "This instance's name in the fleet view (`GET /v1/status/fleet`).",
      onlyWith: withOrigin,
    }),
    s3: {
      endpoint: setting({
        env: "S3_ENDPOINT",
        flag: "--s3-endpoint",
        type: optional(endpointUrl),
        default: undefined,
        defaultText: "AWS (`https://s3.<region>.amazonaws.com`)",
        help: "The S3 API's URL: R2 (`https://<account>.r2.cloudflarestorage.com`), GCS (`https://storage.googleapis.com`), MinIO, Ceph.",
        onlyWith: withS3,
      }),
      region: setting({
        env: "S3_REGION",
        flag: "--s3-region",
        type: matching(/^[a-z0-9-]{1,32}$/, "be a region name such as us-east-1", "region (`auto` for R2)"),
        default: "us-east-1",
        help: "The region requests are signed for (`auto` for R2).",
        onlyWith: withS3,
      }),
      forcePathStyle: setting({
        env: "S3_FORCE_PATH_STYLE",
        flag: "--s3-force-path-style",
        type: trueOrFalse,
        default: false,
        help: "Address the bucket in the path (`endpoint/bucket/key`) rather than in the host name (always so for IP and `localhost` endpoints).",
        onlyWith: withS3,
      }),
    },
  },
  rebuildCron: setting({
    env: "REBUILD_CRON",
    flag: "--rebuild-cron",
    type: cronSchedule,
    default: "* * * * *",
    defaultText: "`* * * * *` (every minute)",
    help: "node-cron schedule of the backstop rescan of the snapshot directory.",
  }),
  logLevel: setting({
    env: "LOG_LEVEL",
    flag: "--log-level",
    type: oneOf(["fatal", "error", "warn", "info", "debug", "trace", "silent"]),
    default: "info",
    help: "pino level of the log (JSON lines on stdout).",
  }),
  tokenLogoTemplate: setting({
    env: "TOKEN_LOGO_URL_TEMPLATE",
    flag: "--token-logo-url-template",
    type: matching(/^https?:\/\/\S+$/, "be an http(s) URL template", "http(s) URL"),
    default: DEFAULT_TOKEN_LOGO_TEMPLATE,
    help: "Logo URL of tokens whose record has none; `{chainId}` and `{address}` are replaced.",
  }),
  cursorSecret: setting({
    env: "CURSOR_SECRET",
    flag: "--cursor-secret",
    type: secret(16),
    default: computed(() => randomBytes(32), "random per start"),
    help: "HMAC secret that signs cursors; set it so cursors survive restarts and work across instances.",
  }),
  cursorRetentionSeconds: setting({
    env: "CURSOR_RETENTION_SECONDS",
    flag: "--cursor-retention-seconds",
    type: integer(600, 86_400),
    default: 900,
    help: "How long (seconds) an earlier snapshot stays available to cursors after its last use.",
  }),
  snapshotMaxVersions: setting({
    env: "SNAPSHOT_MAX_VERSIONS",
    flag: "--snapshot-max-versions",
    type: integer(1, 64),
    default: 4,
    help: "Earlier snapshot versions kept for cursors at most.",
  }),
  changesRetention: setting({
    env: "CHANGES_RETENTION",
    flag: "--changes-retention",
    type: changesRetention,
    default: { count: DEFAULT_CHANGES_RETENTION.count, maxAgeSeconds: DEFAULT_CHANGES_RETENTION.maxAgeSeconds },
    help:
      "Change sets kept per chain for `GET /v1/changes` and the stream's replay: at most `COUNT` sets per chain and, with an age, " +
      "none served longer ago (without one, no age limit); a chain's latest set always stays.",
    more:
      "A client whose position is older than what is kept gets `resync` for that chain (`shared/spec/live.md` §12). Memory: each " +
      "kept set holds its changed addresses (about 50 bytes each), so a re-push that changes every pool of the large data set " +
      "(about 760,000 pools and tokens) keeps about 37 MB per set.",
  }),
  history: setting({
    env: "HISTORY",
    flag: "--history",
    type: oneOf(["on", "off"]),
    default: "on",
    help: "History of prices, TVL, volume and yield from the served files (`shared/spec/history.md`, docs/history.md); `off`: nothing is observed and the history routes answer 404 `HISTORY_DISABLED`.",
  }),
  historyDir: setting({
    env: "HISTORY_DIR",
    flag: "--history-dir",
    type: matching(/^\P{Cc}+$/u, "be a directory path", "directory path"),
    default: "history",
    defaultText: "`./history`",
    help: "Directory of the history store (an LMDB environment, created when missing; one gateway process writes it).",
  }),
  historyRawHours: setting({
    env: "HISTORY_RAW_HOURS",
    flag: "--history-raw-hours",
    type: integer(1, 24 * 366),
    default: 48,
    help: "Hours every observation is kept (minute candles are answered from them).",
  }),
  historyHourDays: setting({
    env: "HISTORY_HOUR_DAYS",
    flag: "--history-hour-days",
    type: integer(1, 3660),
    default: 90,
    help: "Days hourly buckets are kept; daily buckets are kept without limit.",
  }),
  historyMinFreeMb: setting({
    env: "HISTORY_MIN_FREE_MB",
    flag: "--history-min-free-mb",
    type: integer(0, 1_048_576),
    default: 256,
    help: "History stops writing (status `failed`, the files meanwhile a gap) while the file system of `HISTORY_DIR` has less free space than this, and resumes once it has more: the store is never written on a full disk (lmdb-js can corrupt the process's memory when a write fails for want of space; docs/history.md). Keep it above the largest file's write (tens of MB on a large set).",
  }),
  historyAnswerCacheMb: setting({
    env: "HISTORY_ANSWER_CACHE_MB",
    flag: "--history-answer-cache-mb",
    type: integer(0, 65_536),
    default: 32,
    help:
      "History answers (candles, pool rows) each serving thread keeps as sent (MiB): an open page until its chain's next " +
      "observed file, a closed one until retention moves its floor; 0: none kept.",
    more:
      "A kept page of 1,000 buckets costs about 2x a pool-details request's CPU, against 20-40x to make it from the store: " +
      "see [history.md](history.md#what-a-serving-thread-keeps). An answer counts its bytes plus about 160; one takes at " +
      "most an eighth of the budget; the least recently used go first.",
  }),
  changesMaxBytes: setting({
    env: "CHANGES_MAX_MB",
    flag: "--changes-max-mb",
    type: mebibyteSize(16, 65_536),
    default: mebibytes(DEFAULT_CHANGES_MAX_MB),
    help:
      "Most memory the kept change sets' address lists take together: past it the oldest sets go first, whatever their chain " +
      "(a chain's latest set always stays).",
    more:
      "So a run of pushes that change most records of large chains cannot grow the history without bound; clients whose " +
      "position falls before what is kept get `resync`.",
  }),
  snapshotMaxFutureSkewSeconds: setting({
    env: "SNAPSHOT_MAX_FUTURE_SKEW_SECONDS",
    flag: "--snapshot-max-future-skew-seconds",
    type: integer(0, 86_400),
    default: 300,
    help: "A snapshot file whose `generatedAt` is further ahead of this server's clock (seconds) is rejected (`future-generated-at`).",
  }),
  stream: {
    maxBufferBytes: setting({
      env: "STREAM_MAX_BUFFER_BYTES",
      flag: "--stream-max-buffer-bytes",
      type: integer(65_536, 1 << 30),
      default: DEFAULT_STREAM_LIMITS.maxBufferBytes,
      help: "Unsent bytes one stream connection may hold; past it the client is a slow consumer and is closed (WebSocket `4008 slow-consumer`).",
      more: "Must exceed the largest burst one swap sends a connection ([stream.md](stream.md#slow-consumers-heartbeats-limits)).",
    }),
    maxConnectionsPerKey: setting({
      env: "STREAM_MAX_CONNECTIONS_PER_KEY",
      flag: "--stream-max-connections-per-key",
      type: integer(1, 100_000),
      default: DEFAULT_STREAM_LIMITS.maxConnectionsPerKey,
      help: "Open streams (WebSocket and SSE) one key may hold on this instance; the next opening is answered 429.",
    }),
    maxTopics: setting({
      env: "STREAM_MAX_TOPICS",
      flag: "--stream-max-topics",
      type: integer(1, 100_000),
      default: DEFAULT_STREAM_LIMITS.maxTopics,
      help: "Topics one stream connection may hold.",
    }),
    maxAddresses: setting({
      env: "STREAM_MAX_ADDRESSES",
      flag: "--stream-max-addresses",
      type: integer(1, 10_000_000),
      default: DEFAULT_STREAM_LIMITS.maxAddresses,
      help: "Longest address list a `changes` event carries; a longer change set is sent as counts with `truncated: true` (`GET /v1/changes` pages through it).",
    }),
    maxBadMessages: setting({
      env: "STREAM_MAX_BAD_MESSAGES",
      flag: "--stream-max-bad-messages",
      type: integer(1, 10_000),
      default: DEFAULT_STREAM_LIMITS.maxBadMessages,
      help: "WebSocket messages in a row that are not JSON; the next one closes the connection (1008). Any JSON message, of whatever shape, ends the run.",
    }),
    maxMessagesPerSecond: setting({
      env: "STREAM_MAX_MESSAGES_PER_SECOND",
      flag: "--stream-max-messages-per-second",
      type: integer(1, 100_000),
      default: DEFAULT_STREAM_LIMITS.maxMessagesPerSecond,
      help: "WebSocket messages one stream connection may send per second, in bursts of as many; a message past it is answered by an error event (RATE_LIMIT_EXCEEDED) and not processed, and past twice it the connection is closed (1008).",
    }),
    maxKeyMessagesPerSecond: setting({
      env: "STREAM_MAX_KEY_MESSAGES_PER_SECOND",
      flag: "--stream-max-key-messages-per-second",
      type: integer(1, 1_000_000),
      default: DEFAULT_STREAM_LIMITS.maxKeyMessagesPerSecond,
      help: "WebSocket messages one key's stream connections may send per second together, on each serving thread; a message past it is answered by an error event (RATE_LIMIT_EXCEEDED) and not processed.",
    }),
  },
  defaultRateLimit: setting({
    env: "RATE_LIMIT_DEFAULT",
    flag: "--rate-limit-default",
    type: requestsPerWindow,
    default: "600/60",
    help: "Quota of keys whose record has no `rateLimit`.",
  }),
  failedAuthLimit: setting({
    env: "FAILED_AUTH_LIMIT",
    flag: "--failed-auth-limit",
    type: requestsPerWindow,
    default: "20/60",
    help: "Failed authentication attempts allowed per client address.",
  }),
  publicRateLimit: setting({
    env: "PUBLIC_RATE_LIMIT",
    flag: "--public-rate-limit",
    type: requestsPerWindow,
    default: "1200/60",
    help: "Requests without a key (`/metrics`, `/v1/openapi.json`, `/v1/asyncapi.json`, `/docs` and its files, unknown paths) allowed per client address; the probes `/health` and `/ready` are never counted.",
  }),
  maxHeldResponseMb: setting({
    env: "MAX_HELD_RESPONSE_MB",
    flag: "--max-held-response-mb",
    type: integer(1, 65_536),
    default: 64,
    help: "Response bytes (MiB) one serving thread holds for clients that do not read them; past it such connections are closed.",
  }),
  threads: setting({
    env: "GATEWAY_THREADS",
    flag: "--threads",
    type: integer(1, 63),
    default: computed(() => Math.min(availableParallelism(), 63), "the available cores"),
    help: "Serving threads sharing the port.",
  }),
  maxApiKeys: setting({
    env: "MAX_API_KEYS",
    flag: "--max-api-keys",
    type: integer(1, 1_000_000),
    default: 10_000,
    help: "Most keys the keys file may hold (the size of the shared quota table).",
  }),
  keysFileMaxBytes: setting({
    env: "KEYS_FILE_MAX_MB",
    flag: "--keys-file-max-mb",
    type: mebibyteSize(...FILE_LIMIT_RANGE_MB.keys),
    default: FILE_LIMITS.keys.maxBytes,
    help: "Largest keys file read; a larger one is rejected.",
    more: "How each file is read: [operator-files.md](operator-files.md).",
  }),
  basketsFileMaxBytes: setting({
    env: "BASKETS_FILE_MAX_MB",
    flag: "--baskets-file-max-mb",
    type: mebibyteSize(...FILE_LIMIT_RANGE_MB.baskets),
    default: FILE_LIMITS.baskets.maxBytes,
    help: "Largest baskets file read; a larger one is rejected.",
  }),
  snapshotFileMaxBytes: setting({
    env: "SNAPSHOT_FILE_MAX_MB",
    flag: "--snapshot-file-max-mb",
    type: mebibyteSize(...FILE_LIMIT_RANGE_MB.snapshot),
    default: FILE_LIMITS.snapshot.maxBytes,
    help: "Largest snapshot file read; a larger one is rejected (`too-large`).",
  }),
  buildWorkerMaxMb: setting({
    env: "BUILD_WORKER_MAX_MB",
    flag: "--build-worker-max-mb",
    type: optional(integer(16, 1_048_576)),
    default: undefined,
    defaultText: "Node's default",
    help: "Heap limit (MB) of a snapshot build worker; a build over it fails and the current data keeps serving.",
  }),
  buildStartWorkers: setting({
    env: "BUILD_START_WORKERS",
    flag: "--build-start-workers",
    type: integer(1, 8),
    default: computed(defaultStartWorkers, "`2` with 2 or more cores and 4 GiB of free memory, else `1`"),
    help:
      "Snapshot files built at once at start-up, before anything is served; afterwards files build one at a time, a file of " +
      "16 MiB or more on two build workers while the serving threads are idle (with `1`, never: one build worker).",
  }),
  buildWorkerIdleSeconds: setting({
    env: "BUILD_WORKER_IDLE_S",
    flag: "--build-worker-idle-s",
    type: integer(0, 86_400),
    default: DEFAULT_WORKER_IDLE_S,
    help:
      "Seconds a build worker thread stays alive after its last build, so that a re-push within that time starts at once on " +
      "warm code; `0`: it exits right after each build. Workers kept by `BUILD_WORKERS_KEPT` never exit for being idle.",
    more:
      "A worker started anew takes a few hundred milliseconds before it builds, and its first build runs on code not yet " +
      "optimized. It applies to the workers beyond `BUILD_WORKERS_KEPT` (two by default, which stay): with `BUILD_WORKERS_KEPT=0`, " +
      "raise it when pushes come often and memory is plentiful.",
  }),
  buildWorkersKept: setting({
    env: "BUILD_WORKERS_KEPT",
    flag: "--build-workers-kept",
    type: integer(0, 8),
    default: DEFAULT_WORKERS_KEPT,
    help:
      "Build worker threads kept alive however long they are idle (at most `BUILD_START_WORKERS`), so that a push starts " +
      "its build at once on warm code; the others exit after `BUILD_WORKER_IDLE_S`.",
    more:
      "A kept worker starts with the gateway and collects its heap soon after its tasks, but stays resident. Two by " +
      "default, so that a file large enough for two threads builds on two warm ones: on the large set a push was served " +
      "0.5-1.1 s sooner (3.0-3.4 s against 3.6-4.3 s for 2-5 % of a 237 MiB file changed) for 200-470 MiB more resident " +
      "than workers that exited, measured while idle workers could not collect their heaps; since they do, two kept cost " +
      "50-120 MiB (one kept worker alone did not serve sooner: its helper started cold). `0` gives that memory back " +
      "(bench/RESULTS.md, issue 30; docs/decisions/013-incremental-builds.md).",
  }),
  buildWorkerNice: setting({
    env: "BUILD_WORKER_NICE",
    flag: "--build-worker-nice",
    type: integer(0, 19),
    default: 10,
    help:
      "Niceness of a build worker thread while the serving threads are busy (Linux: per thread): under load the serving " +
      "threads get the CPU first. While they are idle, and at start-up, builds run at 0.",
    more:
      "Busy: event-loop utilization 25 % or more, looked at every 250 ms; the serving threads keep their niceness. A build's " +
      "niceness falls as its push ages (`FRESHNESS_TARGET_S`). Going back towards 0 needs `CAP_SYS_NICE` (or an `RLIMIT_NICE` " +
      "that allows it); without it the build thread stays at 0 and yields the CPU in the proportion the niceness would give.",
  }),
  freshnessTargetSeconds: setting({
    env: "FRESHNESS_TARGET_S",
    flag: "--freshness-target-s",
    type: integer(1, 3600),
    default: DEFAULT_FRESHNESS_TARGET_S,
    help:
      "Seconds after a push by which its build runs at the serving threads' priority even when they are busy: a build " +
      "under load starts at `BUILD_WORKER_NICE` and its niceness falls in step with the push's age, to 0 at this age.",
    more:
      "A build is then never starved: under load that saturates every core, a pushed file is served within about this " +
      "target plus its build's CPU time at an equal share of the cores (docs/operators.md, 'Fresh data under load'). Each " +
      "build's wait and niceness are logged (`snapshot-accepted`) and counted (`gateway_snapshot_build_wait_seconds`). " +
      "Raising a thread's priority again needs `CAP_SYS_NICE`; without it a build thread stays at 0 and yields the CPU in the same proportion instead.",
  }),
  tls: {
    certFile: setting({
      env: "TLS_CERT_FILE",
      flag: "--tls-cert-file",
      type: optional(filePath),
      default: undefined,
      defaultText: "none (plain HTTP)",
      help: "PEM certificate (with its chain): with `TLS_KEY_FILE`, every serving thread serves HTTPS on `PORT`.",
    }),
    keyFile: setting({
      env: "TLS_KEY_FILE",
      flag: "--tls-key-file",
      type: optional(filePath),
      default: undefined,
      defaultText: "none",
      help: "PEM private key of `TLS_CERT_FILE`.",
    }),
    passphrase: setting({
      env: "TLS_KEY_PASSPHRASE",
      flag: "--tls-key-passphrase",
      type: optional(anyText),
      default: undefined,
      defaultText: "none",
      help: "Passphrase of an encrypted `TLS_KEY_FILE`.",
    }),
    caFile: setting({
      env: "TLS_CA_FILE",
      flag: "--tls-ca-file",
      type: optional(filePath),
      default: undefined,
      defaultText: "none",
      help: "PEM CA bundle for client certificates: uWS asks clients for a certificate (mutual TLS; it does not refuse clients that send none).",
    }),
  },
  compressionMinBytes: setting({
    env: "COMPRESSION_MIN_BYTES",
    flag: "--compression-min-bytes",
    type: integerOr("off", Number.POSITIVE_INFINITY, 0, 1 << 30),
    default: 1024,
    help: "Bodies of at least this many bytes are sent `gzip` or `br` when the client accepts it; `off`: never.",
  }),
  compressionCacheMb: setting({
    env: "COMPRESSION_CACHE_MB",
    flag: "--compression-cache-mb",
    type: integer(0, 65_536),
    default: 32,
    help: "Compressed bodies kept per serving thread for reuse (MiB).",
  }),
  corsOrigins: setting({
    env: "CORS_ORIGINS",
    flag: "--cors-origins",
    type: corsOrigins,
    default: "",
    defaultText: "CORS off",
    help: "Origins allowed to call the API from a browser: a comma list of `scheme://host[:port]`, or `*`.",
  }),
  quotaStore: {
    kind: quotaStoreKind,
    url: setting({
      env: "REDIS_URL",
      flag: "--redis-url",
      type: optional(redisUrl),
      default: undefined,
      defaultText: "(required with `redis`)",
      help: "Redis of `QUOTA_STORE=redis`, as `redis://[user:password@]host:port[/db]` (`rediss://` for TLS).",
      onlyWith: withRedis,
    }),
    keyPrefix: setting({
      env: "REDIS_KEY_PREFIX",
      flag: "--redis-key-prefix",
      type: matching(/^[A-Za-z0-9._-]{1,64}$/, "be 1-64 of A-Z a-z 0-9 . _ -", "1-64 of `A-Z a-z 0-9 . _ -`"),
      default: "lgw",
      help: "Prefix of the gateway's Redis keys; instances that share quotas use the same one.",
      onlyWith: withRedis,
    }),
    timeoutMs: setting({
      env: "REDIS_TIMEOUT_MS",
      flag: "--redis-timeout-ms",
      type: integer(10, 5000),
      default: 250,
      help: "Longest a request waits for Redis (ms) before `QUOTA_FAILURE` applies.",
      onlyWith: withRedis,
    }),
    failure: setting({
      env: "QUOTA_FAILURE",
      flag: "--quota-failure",
      type: oneOf(["open", "closed"]),
      default: "open",
      help: "While Redis is unavailable: `open` counts on this instance's own counters, `closed` answers 503 `QUOTA_STORE_UNAVAILABLE`.",
      onlyWith: withRedis,
    }),
  },
  trustedProxies: setting({
    env: "TRUSTED_PROXIES",
    flag: "--trusted-proxies",
    type: ipRanges,
    default: [],
    defaultText: "none (the TCP peer)",
    help:
      "CIDR ranges (IPv4 and IPv6) of reverse proxies whose `X-Forwarded-For` / `Forwarded` / PROXY v2 name the client address " +
      "the per-address limits count; list only proxies that write the requests themselves.",
    more: "See [reverse-proxy.md](reverse-proxy.md#trusted-proxies).",
  }),
  maxHeaderBytes: setting({
    env: "MAX_HEADER_BYTES",
    flag: "--max-header-bytes",
    type: integer(1024, 65_536),
    default: 8192,
    help: "Largest request header section (request line, header fields, blank line) accepted, bytes; a larger one is answered 431 and the connection closed.",
    more: "Sets uWS's `UWS_HTTP_MAX_HEADERS_SIZE` (read once per process; do not set that one yourself).",
  }),
};

/** Two start-up builds where there are cores and memory for them: each holds a file's new columns and its worker's heap. */
function defaultStartWorkers(): number {
  return availableParallelism() >= 2 && freemem() >= 4 * 2 ** 30 ? 2 : 1;
}
