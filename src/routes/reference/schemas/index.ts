/**
 * Every schema's OpenAPI documentation (ids, descriptions, examples), one module per room of
 * src/: the schemas there carry only their shape, so the Worker that validates with them never
 * carries their prose. Loaded with the operations' descriptions (../index.ts), before any document
 * is built; a schema a document uses without documentation fails the build (src/openapi/document.ts).
 */
import "./auth.ts";
import "./browse.ts";
import "./cart.ts";
import "./catalog.ts";
import "./checkout.ts";
import "./http.ts";
import "./money.ts";
import "./pricing.ts";
import "./routes.ts";
import "./rules.ts";
import "./stock.ts";
