/**
 * The message-framing checks of RFC 9112 §6 that uWS's parser leaves to the
 * application. The parser itself rejects (400/431/505, then closes) a
 * Content-Length that is not a plain decimal, a non-empty Content-Length
 * together with a non-empty Transfer-Encoding, a missing or repeated Host and
 * an oversized header section; it passes on
 *   - several Content-Length fields (it reads the first; the rest of the body
 *     would be parsed as the next request),
 *   - an empty Content-Length field (read as "no body": the body would be
 *     parsed as the next request), alone or with Transfer-Encoding,
 *   - a Transfer-Encoding other than exactly `chunked` (`identity`,
 *     `xchunked`, `chunked, identity`, `gzip, chunked`, `chunked` twice...),
 *     which it decodes as chunked all the same, and an empty one (ignored).
 * Each is answered 400 INVALID_REQUEST_FRAMING and the connection closed at
 * once: no byte after such a request is read as another request
 * (response-writer.ts, `refuseFraming`).
 *
 * What it costs: uWS reports an absent header and an empty one alike (""), so
 * only walking the header list sees an empty field: every request walks it
 * (about 0.2 µs per header field), GET and HEAD included, since an empty
 * Content-Length followed by a second one is a smuggling vector through any
 * front end that reads the last field.
 */
import { ApiError } from "../api/errors.js";
import type { HttpRequest } from "./uws.js";

/** The framing fields of one request, every occurrence in order. */
export interface FramingFields {
  readonly contentLength: readonly string[];
  readonly transferEncoding: readonly string[];
}

/**
 * Reads the framing fields of requests (every occurrence, empty ones included:
 * `getHeader` hides both the repeats and the empty fields). One reader per
 * app (serving thread): its header callback is made once, and lists only when
 * a framing field is found, so a request allocates nothing here; `forEach`
 * calls back synchronously, so one walk never sees another's fields.
 */
export class FramingReader {
  private lengths: string[] | null = null;
  private encodings: string[] | null = null;
  private readonly collect = (name: string, value: string): void => {
    if (name === "content-length") (this.lengths ??= []).push(value);
    else if (name === "transfer-encoding") (this.encodings ??= []).push(value);
  };

  /** The request's framing fields; null when it has none. */
  read(req: HttpRequest): FramingFields | null {
    this.lengths = this.encodings = null;
    req.forEach(this.collect);
    const contentLength = this.lengths;
    const transferEncoding = this.encodings;
    this.lengths = this.encodings = null;
    return contentLength === null && transferEncoding === null
      ? null
      : { contentLength: contentLength ?? [], transferEncoding: transferEncoding ?? [] };
  }

  /** The framing error of the request being handled, or null. */
  check(req: HttpRequest): ApiError | null {
    const fields = this.read(req);
    return fields === null ? null : framingError(fields);
  }
}

/** The framing error of a request, or null when its body is delimited unambiguously. */
export function framingError(fields: FramingFields): ApiError | null {
  const lengths = fields.contentLength;
  if (lengths.length > 1) {
    return invalidFraming(
      "content-length",
      lengths,
      "The request has more than one Content-Length header; send exactly one.",
      "RFC 9112 §6.3: several Content-Length fields leave the body's length ambiguous.",
    );
  }
  if (lengths.length === 1 && lengths[0] === "") {
    return invalidFraming(
      "content-length",
      lengths,
      "The request's Content-Length header is empty; send the body's length in bytes, or no Content-Length for no body.",
      "RFC 9112 §6.3: an empty Content-Length is not a valid length, so the body's length cannot be determined.",
    );
  }
  if (fields.transferEncoding.length === 0) return null;
  if (lengths.length === 1) {
    return invalidFraming(
      "transfer-encoding",
      fields.transferEncoding,
      "Send the body with Content-Length or with Transfer-Encoding: chunked, not both.",
      "RFC 9112 §6.3: a request with both Transfer-Encoding and Content-Length is a possible smuggling attempt.",
    );
  }
  // A list may be split over several fields; empty list elements are allowed and ignored (RFC 9110 §5.6.1).
  const codings = fields.transferEncoding
    .join(",")
    .split(",")
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== "");
  if (codings.length === 1 && codings[0] === "chunked") return null;
  const details =
    codings.length === 0
      ? "RFC 9112 §6.3: the Transfer-Encoding header names no coding, so chunked is not the final one and the body's length cannot be determined."
      : codings[codings.length - 1] !== "chunked"
        ? "RFC 9112 §6.3: chunked is not the final transfer coding, so the body's length cannot be determined."
        : codings.indexOf("chunked") < codings.length - 1
          ? "RFC 9112 §7: chunked is applied more than once."
          : `Only the chunked transfer coding is supported; received ${codings.slice(0, -1).join(", ")} before it.`;
  return invalidFraming(
    "transfer-encoding",
    fields.transferEncoding,
    "Send the body with Content-Length, or with Transfer-Encoding: chunked and no other coding.",
    details,
  );
}

function invalidFraming(
  header: "content-length" | "transfer-encoding",
  values: readonly string[],
  message: string,
  details: string,
): ApiError {
  return new ApiError("INVALID_REQUEST_FRAMING", message, details, { header, values: [...values] });
}
