// The API reference: Swagger UI over the service's own /openapi.json (relative, so the page
// also works behind a path prefix). No validator badge: it would call an outside server.
// The key given to Authorize lives in this tab only (persistAuthorization off).
window.ui = SwaggerUIBundle({
  url: new URL("openapi.json", document.baseURI).href,
  dom_id: "#swagger-ui",
  presets: [SwaggerUIBundle.presets.apis],
  layout: "BaseLayout",
  deepLinking: true,
  validatorUrl: null,
  persistAuthorization: false,
  displayOperationId: true,
  displayRequestDuration: true,
  defaultModelsExpandDepth: 0,
});
