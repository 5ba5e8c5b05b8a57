/** Structured JSON logs (pino). API keys never reach a log line: only key ids. */
import { pino, type Logger } from "pino";

export type { Logger };

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: "liquidity-gateway" },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ["authorization", "*.authorization", "headers.authorization"], censor: "[redacted]" },
  });
}
