/** GET /v1/openapi.json (public): the OpenAPI 3.1 document, built from the route table once per thread. */
import { buildOpenApiDocument } from "../../openapi/openapi-document.js";
import { rawJson, type Reply } from "../reply.js";

let documentBytes: Buffer | null = null;

/** The encoded document (built on first use: it is derived from the route table, which holds this handler). */
export function openApiDocumentBytes(): Buffer {
  return (documentBytes ??= Buffer.from(JSON.stringify(buildOpenApiDocument())));
}

export function getOpenApiDocument(): Reply {
  return rawJson(200, openApiDocumentBytes());
}
