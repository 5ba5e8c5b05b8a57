/**
 * Runs Debian's nginx in the foreground as a child process, in a temporary
 * prefix (config, pid, logs and temp files there; no root needed), with the
 * repository's config/nginx.conf.example in front of a gateway port.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { PROJECT_ROOT } from "./gateway-process.js";

export const NGINX_EXAMPLE = path.join(PROJECT_ROOT, "config/nginx.conf.example");

export interface Nginx {
  readonly port: number;
  readonly errorLog: () => string;
  stop(): Promise<void>;
}

/** The nginx binary; throws (the suite fails, it is not skipped) when there is none. */
export function findNginx(): string {
  for (const candidate of ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/local/nginx/sbin/nginx"])
    if (existsSync(candidate)) return candidate;
  const which = spawnSync("sh", ["-c", "command -v nginx"], { encoding: "utf8" });
  if (which.status === 0 && which.stdout.trim()) return which.stdout.trim();
  throw new Error(
    "nginx is not installed: the reverse-proxy mitigation cannot be tested. Install it (apt-get install -y nginx-light); npm test does when it runs as root (tools/check-system.mjs).",
  );
}

/** The example config with its listen and upstream lines pointed at these ports (each must occur exactly once). */
export function exampleConfigFor(listenPort: number, gatewayPort: number): string {
  const text = readFileSync(NGINX_EXAMPLE, "utf8");
  const replace = (source: string, pattern: RegExp, by: string) => {
    const matches = source.match(new RegExp(pattern.source, "gm")) ?? [];
    if (matches.length !== 1) throw new Error(`${NGINX_EXAMPLE}: expected exactly one line matching ${pattern}, found ${matches.length}`);
    return source.replace(new RegExp(pattern.source, "m"), by);
  };
  const listened = replace(text, /^(\s*)listen 80;/, `$1listen 127.0.0.1:${listenPort};`);
  return replace(listened, /^(\s*)server 127\.0\.0\.1:8080;/, `$1server 127.0.0.1:${gatewayPort};`);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
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

export async function startNginx(gatewayPort: number): Promise<Nginx> {
  const binary = findNginx();
  const prefix = mkdtempSync(path.join(tmpdir(), "lgw-nginx-"));
  chmodSync(prefix, 0o755); // nginx's workers (user nobody when started as root) create their temp dirs in here
  const port = await freePort();
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
      exampleConfigFor(port, gatewayPort),
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
  for (let waited = 0; !(await accepts(port)); waited += 50) {
    if (exited || waited > 5000) {
      child.kill("SIGKILL");
      throw new Error(`nginx did not start on port ${port}:\n${output}\n${readLog()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    port,
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
