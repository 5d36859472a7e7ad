// Mounts Scalar's API reference (public/docs/scalar.js, copied from the pinned
// @scalar/api-reference package by `npm run docs:assets`) on the OpenAPI document of this server.
// Everything Scalar could fetch from elsewhere is switched off: its fonts, telemetry, the AI agent,
// MCP, the developer toolbar and the request proxy. The page's CSP forbids it anyway.
(() => {
  var local = ["localhost", "127.0.0.1", "[::1]"].indexOf(location.hostname) !== -1;
  var bearer = { token: local ? "sf_dev_LocalToken_A1" : "" };
  // The example key of the document's Idempotency-Key (src/cart/api.ts).
  var EXAMPLE_IDEMPOTENCY_KEY = "9f1c2d6e-3b1a-4c55-8a0e-7f7b2b1d5c10";
  function freshKey() {
    if (crypto.randomUUID) return crypto.randomUUID();
    var bytes = crypto.getRandomValues(new Uint8Array(16));
    return Array.prototype.map.call(bytes, (b) => (b + 256).toString(16).slice(1)).join("");
  }
  // Short anchors other pages link to (a 401's docs_url is /docs#authentication), mapped to the
  // ids Scalar gives the description's headings (`<slug>/description/<heading>`).
  var ALIASES = { "#authentication": "#storefront/description/authentication" };
  if (ALIASES[location.hash]) history.replaceState(null, "", ALIASES[location.hash]);
  window.Scalar.createApiReference("#reference", {
    url: "/api/v1/openapi.json",
    slug: "storefront", // the first part of every anchor: /docs#storefront/tag/cart/POST/api/v1/cart/lines
    // The client calls the server that served this page, directly (no proxy).
    servers: [{ url: location.origin, description: "This server" }],
    baseServerURL: location.origin,
    withDefaultFonts: false,
    telemetry: false,
    agent: { disabled: true },
    mcp: { disabled: true },
    showDeveloperTools: "never",
    hideClientButton: false,
    documentDownloadType: "json",
    defaultHttpClient: { targetKey: "shell", clientKey: "curl" },
    orderRequiredPropertiesFirst: true,
    persistAuth: false,
    authentication: { preferredSecurityScheme: "bearerAuth", securitySchemes: { bearerAuth: bearer } },
    // "Test Request" on a write: the document's example Idempotency-Key, sent as is, would make
    // every later send replay the first answer (or 422 once the body is edited). Each send gets
    // a fresh key instead; a key the reader typed is kept, so a replay can still be tried.
    onBeforeRequest: (context) => {
      var headers = context?.requestBuilder?.headers;
      if (!headers || headers.get("Idempotency-Key") !== EXAMPLE_IDEMPOTENCY_KEY) return;
      headers.set("Idempotency-Key", freshKey());
    },
    favicon: "/favicon.svg",
    metaData: { title: "Storefront API reference" },
  });
})();
