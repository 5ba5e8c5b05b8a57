/** GET /v1/openapi.json (public): the OpenAPI 3.1 document, built and encoded once at start-up. */
import { buildOpenApiDocument } from "../../openapi/openapi-document.js";
import type { RequestInfo } from "../request-info.js";
import { sendJson } from "../respond.js";
import type { HttpResponse } from "../uws.js";

const DOCUMENT_BYTES = Buffer.from(JSON.stringify(buildOpenApiDocument()));

export function serveOpenApi(res: HttpResponse, info: RequestInfo): void {
  sendJson(res, info, 200, DOCUMENT_BYTES);
}
