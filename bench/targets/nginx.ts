/**
 * Debian's nginx run in the foreground as a child process, in a temporary prefix (config, pid, logs and
 * temp files there; no root needed), on a loopback port: the reverse-proxy tests put it in front of a
 * gateway (test/support/nginx-process.ts), the fleet tests and bench:fleet make it an origin (a static
 * root with ETags; with `dav`, a WebDAV target for `publish`; with `tls`, HTTPS). Stopped by its pid.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "../shared/free-port.js";

export interface NginxServer {
  readonly port: number;
  readonly pid: number;
  readonly errorLog: () => string;
  stop(): Promise<void>;
}

/** The nginx binary; throws (a test then fails, it is not skipped) when there is none. */
export function findNginx(): string {
  for (const candidate of ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/local/nginx/sbin/nginx"])
    if (existsSync(candidate)) return candidate;
  const which = spawnSync("sh", ["-c", "command -v nginx"], { encoding: "utf8" });
  if (which.status === 0 && which.stdout.trim()) return which.stdout.trim();
  throw new Error(
    "nginx is not installed. Install it (apt-get install -y nginx-light: it has the dav module); npm test does when it runs as root (tools/check-system.mjs).",
  );
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.on("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.on("error", () => resolve(false));
  });
}

/**
 * Starts nginx with `server` (the body of its `http` block, given the port to listen on) on `port` (default: a
 * free one); resolves once it accepts connections.
 */
export async function runNginx(server: (port: number) => string, port?: number): Promise<NginxServer> {
  const binary = findNginx();
  const prefix = mkdtempSync(path.join(tmpdir(), "lgw-nginx-"));
  chmodSync(prefix, 0o755); // nginx's workers (user nobody when started as root) create their temp dirs in here
  const listen = port ?? (await freePort());
  const errorLog = path.join(prefix, "error.log");
  const temp = (name: string) => `${name}_temp_path ${path.join(prefix, name)};`;
  writeFileSync(
    path.join(prefix, "nginx.conf"),
    [
      "daemon off;",
      "worker_processes 1;",
      `pid ${path.join(prefix, "nginx.pid")};`,
      `error_log ${errorLog} info;`,
      "events { worker_connections 256; }",
      "http {",
      "  access_log off;",
      `  ${temp("client_body")} ${temp("proxy")} ${temp("fastcgi")} ${temp("uwsgi")} ${temp("scgi")}`,
      server(listen),
      "}",
    ].join("\n"),
  );
  const child: ChildProcess = spawn(binary, ["-p", prefix, "-c", path.join(prefix, "nginx.conf"), "-e", errorLog], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (c) => (output += c));
  child.stderr!.on("data", (c) => (output += c));
  let exited = false;
  const exit = new Promise<void>((resolve) => child.on("exit", () => ((exited = true), resolve())));
  const readLog = () => (existsSync(errorLog) ? readFileSync(errorLog, "utf8") : "");
  for (let waited = 0; !(await accepts(listen)); waited += 50) {
    if (exited || waited > 5000) {
      child.kill("SIGKILL");
      throw new Error(`nginx did not start on port ${listen}:\n${output}\n${readLog()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    port: listen,
    pid: child.pid!,
    errorLog: readLog,
    async stop() {
      if (!exited) {
        child.kill("SIGTERM");
        const killer = setTimeout(() => child.kill("SIGKILL"), 5000);
        await exit;
        clearTimeout(killer);
      }
      rmSync(prefix, { recursive: true, force: true });
    },
  };
}

export interface OriginOptions {
  /** The directory served (and written, with `dav`). */
  readonly root: string;
  /** HTTPS with this certificate and key. */
  readonly tls?: { readonly certFile: string; readonly keyFile: string };
  /** Take PUT and DELETE (WebDAV, nginx's dav module): a `publish` target. */
  readonly dav?: boolean;
}

/** The `server` block of an origin: static files with ETag and conditional GET (nginx's defaults), optionally HTTPS and WebDAV. */
export function originServer(options: OriginOptions): (port: number) => string {
  return (port) =>
    [
      "  server {",
      `    listen 127.0.0.1:${port}${options.tls ? " ssl" : ""};`,
      ...(options.tls ? [`    ssl_certificate ${options.tls.certFile};`, `    ssl_certificate_key ${options.tls.keyFile};`] : []),
      `    root ${options.root};`,
      "    etag on;",
      "    client_max_body_size 0;",
      ...(options.dav ? ["    dav_methods PUT DELETE;", "    create_full_put_path on;", "    dav_access user:rw group:r all:r;"] : []),
      "  }",
    ].join("\n");
}

/** Makes `dir` writable by nginx's workers (user nobody when started as root), for a WebDAV origin. */
export function openForNginxWorkers(dir: string): void {
  chmodSync(dir, 0o777);
}
