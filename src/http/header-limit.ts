/**
 * The largest request header section (request line, header fields and the
 * blank line after them) a serving thread accepts; a larger one is answered
 * 431 by uWS and the connection closed, however many TCP reads it arrives in.
 * uWS reads the limit from the C environment once per process, when the
 * first thread loads its binary (a worker's own `env` is not seen, and a
 * later change has no effect): the main thread, which never loads uWS, sets
 * it before it starts the serving threads.
 */
export const UWS_HEADER_LIMIT_VARIABLE = "UWS_HTTP_MAX_HEADERS_SIZE";

export function setHeaderSizeLimit(bytes: number): void {
  process.env[UWS_HEADER_LIMIT_VARIABLE] = String(bytes);
}
