/**
 * The message-framing checks of RFC 9112 §6 that uWS's parser leaves to the
 * application. The parser itself rejects (400/431/505, then closes) a
 * Content-Length that is not a plain decimal, Content-Length together with
 * Transfer-Encoding, a missing or repeated Host and an oversized header
 * section; it passes on
 *   - several Content-Length fields (it reads the first; the rest of the body
 *     would be parsed as the next request), and
 *   - a Transfer-Encoding other than exactly `chunked` (`identity`,
 *     `xchunked`, `chunked, identity`, `gzip, chunked`, `chunked` twice...),
 *     which it decodes as chunked all the same.
 * Both are answered 400 INVALID_REQUEST_FRAMING and the connection closed.
 * What stays out of reach (bytes pipelined behind such a request in the same
 * read are parsed before the handler can close) is in docs/reverse-proxy.md.
 */
import { ApiError } from "./errors.js";
import type { HttpRequest } from "./uws.js";

/** The framing fields of one request, every occurrence in order. */
export interface FramingFields {
  readonly contentLength: readonly string[];
  readonly transferEncoding: readonly string[];
}

/**
 * Reads the framing fields of a request, given its first Content-Length
 * (which the request info has already read). A request without a framing
 * field (every GET a client sends) costs one header look-up; only one with a
 * body walks the header list, to see the repeats that `getHeader` hides.
 */
export function readFramingFields(req: HttpRequest, firstContentLength: string): FramingFields | null {
  if (firstContentLength === "" && req.getHeader("transfer-encoding") === "") return null;
  const contentLength: string[] = [];
  const transferEncoding: string[] = [];
  req.forEach((name, value) => {
    if (name === "content-length") contentLength.push(value);
    else if (name === "transfer-encoding") transferEncoding.push(value);
  });
  return { contentLength, transferEncoding };
}

/** The framing error of a request, or null when its body is delimited unambiguously. */
export function framingError(fields: FramingFields): ApiError | null {
  if (fields.contentLength.length > 1) {
    return invalidFraming(
      "content-length",
      fields.contentLength,
      "The request has more than one Content-Length header; send exactly one.",
      "RFC 9112 §6.3: several Content-Length fields leave the body's length ambiguous.",
    );
  }
  if (fields.transferEncoding.length === 0) return null;
  // A list may be split over several fields; empty list elements are allowed and ignored (RFC 9110 §5.6.1).
  const codings = fields.transferEncoding
    .join(",")
    .split(",")
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== "");
  if (codings.length === 1 && codings[0] === "chunked") return null;
  const details =
    codings[codings.length - 1] !== "chunked"
      ? "RFC 9112 §6.3: chunked is not the final transfer coding, so the body's length cannot be determined."
      : codings.indexOf("chunked") < codings.length - 1
        ? "RFC 9112 §7: chunked is applied more than once."
        : `Only the chunked transfer coding is supported; received ${codings.slice(0, -1).join(", ")} before it.`;
  return invalidFraming("transfer-encoding", fields.transferEncoding, "Send the body with Content-Length, or with Transfer-Encoding: chunked and no other coding.", details);
}

function invalidFraming(header: "content-length" | "transfer-encoding", values: readonly string[], message: string, details: string): ApiError {
  return new ApiError("INVALID_REQUEST_FRAMING", message, details, { header, values: [...values] });
}

/** The framing error of the request being handled (`firstContentLength`: its first Content-Length, "" when none), or null. */
export function checkRequestFraming(req: HttpRequest, firstContentLength: string): ApiError | null {
  const fields = readFramingFields(req, firstContentLength);
  return fields === null ? null : framingError(fields);
}
