/** The framing rules the gateway adds to uWS's parser (RFC 9112 §6), as a pure function. */
import { describe, expect, it } from "vitest";
import { framingError } from "../../../src/http/request-framing.js";

const fields = (contentLength: string[], transferEncoding: string[] = []) => ({ contentLength, transferEncoding });

describe("framingError", () => {
  it("accepts no framing field, one Content-Length, or exactly the chunked coding", () => {
    for (const ok of [
      fields([]),
      fields(["0"]),
      fields(["65536"]),
      fields([], ["chunked"]),
      fields([], ["Chunked"]),
      fields([], [" chunked "]),
      fields([], ["chunked,"]), // empty list elements do not count (RFC 9110 §5.6.1)
      fields([], ["", "chunked"]),
    ]) {
      expect(framingError(ok), JSON.stringify(ok)).toBeNull();
    }
  });

  it("refuses several Content-Length fields, equal or not, naming every value", () => {
    for (const values of [
      ["2", "3"],
      ["2", "2"],
      ["0", "41", "7"],
    ]) {
      const error = framingError(fields(values));
      expect(error?.code).toBe("INVALID_REQUEST_FRAMING");
      expect(error?.status).toBe(400);
      expect(error?.metadata).toEqual({ header: "content-length", values });
    }
  });

  it("refuses a Transfer-Encoding whose final coding is not chunked", () => {
    for (const values of [["xchunked"], ["identity"], ["chunked, identity"], ["chunked", "gzip"], ["chunkedx"], ["chunked;q=1"]]) {
      const error = framingError(fields([], values));
      expect(error?.metadata, JSON.stringify(values)).toEqual({ header: "transfer-encoding", values });
      expect(error?.details).toMatch(/not the final transfer coding/);
    }
  });

  it("refuses chunked applied twice, in one field or two", () => {
    for (const values of [["chunked, chunked"], ["chunked", "chunked"]]) {
      expect(framingError(fields([], values))?.details, JSON.stringify(values)).toMatch(/more than once/);
    }
  });

  it("refuses codings other than chunked before it, naming them", () => {
    expect(framingError(fields([], ["gzip, chunked"]))?.details).toMatch(/received gzip before it/);
    expect(framingError(fields([], ["deflate", "br, chunked"]))?.details).toMatch(/received deflate, br before it/);
  });
});

describe("framingError: empty fields and both framings", () => {
  it("refuses an empty Content-Length (uWS reads it as no body), alone or with another field", () => {
    const alone = framingError(fields([""]));
    expect(alone?.code).toBe("INVALID_REQUEST_FRAMING");
    expect(alone?.metadata).toEqual({ header: "content-length", values: [""] });
    expect(alone?.details).toMatch(/empty Content-Length/);
    expect(framingError(fields([""], ["chunked"]))?.metadata).toEqual({ header: "content-length", values: [""] });
    // several fields: the repeat is named first, with every value
    expect(framingError(fields(["", "41"]))?.metadata).toEqual({ header: "content-length", values: ["", "41"] });
  });

  it("refuses a Transfer-Encoding field next to a Content-Length, even an empty one (uWS then frames by the length)", () => {
    const error = framingError(fields(["2"], [""]));
    expect(error?.metadata).toEqual({ header: "transfer-encoding", values: [""] });
    expect(error?.details).toMatch(/both Transfer-Encoding and Content-Length/);
    expect(framingError(fields(["2"], ["chunked"]))?.metadata).toEqual({ header: "transfer-encoding", values: ["chunked"] });
  });

  it("refuses a Transfer-Encoding that names no coding (uWS ignores it)", () => {
    for (const values of [[""], [" "], [",", ""]]) {
      const error = framingError(fields([], values));
      expect(error?.metadata, JSON.stringify(values)).toEqual({ header: "transfer-encoding", values });
      expect(error?.details).toMatch(/names no coding/);
    }
  });
});
