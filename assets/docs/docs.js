// The API reference page (GET /docs): Swagger UI on the gateway's own OpenAPI document. A file of its own, not an
// inline script, so the page's Content-Security-Policy allows scripts of the gateway's origin only (docs/api-reference.md).
"use strict";

window.addEventListener("DOMContentLoaded", () => {
  const root = document.getElementById("swagger-ui");
  window.ui = window.SwaggerUIBundle({
    domNode: root,
    // Relative to the page (data-openapi="v1/openapi.json"), so the page works behind a reverse proxy's path prefix.
    url: new URL(root.dataset.openapi, document.baseURI).href,
    // Swagger UI's default asks validator.swagger.io for a badge: no request leaves the gateway's origin.
    validatorUrl: null,
    deepLinking: true,
    docExpansion: "list",
    defaultModelsExpandDepth: 0,
    displayRequestDuration: true,
    // The key typed into "Authorize" stays in the page's memory only (never in localStorage).
    persistAuthorization: false,
    presets: [window.SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
});
