/** GET /v1/openapi.json (public): the OpenAPI 3.1 document of a route table, built once per thread. */
import { buildOpenApiDocument } from "../../openapi/openapi-document.js";
import type { DocumentedRoute } from "../../openapi/operation-doc.js";
import { rawJson, type Reply } from "../reply.js";

export class OpenApiDocument {
  private bytes: Buffer | null = null;

  /** @param routes the table to document (a function: the table holds this document's handler) */
  constructor(private readonly routes: () => readonly DocumentedRoute[]) {}

  /** The encoded document (built on first use; the serving thread builds it as it starts). */
  encoded(): Buffer {
    return (this.bytes ??= Buffer.from(JSON.stringify(buildOpenApiDocument(this.routes()))));
  }

  reply(): Reply {
    return { ...rawJson(200, this.encoded()), cacheKey: "openapi" };
  }
}
