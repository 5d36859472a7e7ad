import { buildDocument, type DocumentInfo } from "./document.ts";
import type { JsonSchema } from "./json-schema.ts";
import { authOperations } from "./operations/auth.ts";
import { cartOperations } from "./operations/cart.ts";
import { catalogOperations } from "./operations/catalog.ts";
import { metaOperations } from "./operations/meta.ts";
import type { OperationSpec } from "./spec.ts";

const INFO: DocumentInfo = {
  title: "Storefront API",
  version: "1.0.0",
  description: [
    "An apparel store's catalog and cart. Catalog reads are anonymous and cached at the edge; the cart needs a Bearer token.",
    "",
    "- **Errors**: every non-2xx answer (but 304) is `{\"error\": {...}}` with `type`, `message` and, where they apply, `code`, `param`, `docs_url`, `request_id`, `retry`.",
    "- **Unknown routes** answer 404 `route_not_found`; a known path with the wrong method 405 `method_not_allowed` with `Allow`.",
    "- **Query strings** are strict: an unknown parameter is 400 `parameter_unknown`, one given twice 400 `parameter_invalid`.",
    "- **Bodies**: `Content-Type: application/json` (else 415), at most 16 KiB (else 413).",
    "- **Money** is `{\"amount\": \"28.00\", \"currency\": \"USD\"}`: a decimal string with two decimals.",
    "- **CORS**: catalog reads allow any origin; the cart only the origins in `ALLOWED_ORIGINS`.",
    "- Every answer carries `X-Request-Id` and `X-Content-Type-Options: nosniff`; `HEAD` works wherever `GET` does.",
  ].join("\n"),
  tags: [
    { name: "Catalog", description: "Products, variants and collections. Anonymous." },
    { name: "Cart", description: "The token holder's cart, one per token holder. Bearer token required." },
    { name: "Auth", description: "Checkout and login are reserved for a future release." },
    { name: "Operator", description: "Issuing and revoking customer tokens. Operator secret required." },
    { name: "Service", description: "Health, this document and the interactive reference." },
  ],
};

/** Every operation the app serves, in the order the reference lists them. */
export const operations: readonly OperationSpec[] = [...catalogOperations, ...cartOperations, ...authOperations, ...metaOperations];

let cached: JsonSchema | undefined;

/** The OpenAPI document, built once per isolate: the schemas it comes from never change at run time. */
export function openApiDocument(): JsonSchema {
  cached ??= buildDocument(INFO, operations);
  return cached;
}
