import { describedOperations, type RouteEntry } from "./describe.ts";
import { buildDocument, type DocumentInfo } from "./document.ts";
import type { JsonSchema } from "./json-schema.ts";
import type { DescribedOperation } from "./spec.ts";

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
    "- Every answer carries `X-Request-Id` and `X-Content-Type-Options: nosniff`.",
    "- **HEAD** works wherever GET does: it answers what GET would (status and headers, `ETag` included) without a body. This document lists it as a `head` operation beside every `get`, with the same parameters and statuses.",
    "- **Operator endpoints** (issuing and revoking tokens) are not part of this reference or of a client generated from it: they have their own document, `GET /api/v1/operator/openapi.json`, behind the operator secret.",
    "",
    // The heading's id is `authentication`: a 401's `docs_url` points at `/docs#authentication`.
    "## Authentication",
    "",
    "Catalog reads are anonymous. The cart and checkout need `Authorization: Bearer <token>`; the scheme word is case-insensitive, the token is not, and a token in the query string is never accepted. There are no API keys and no login: `POST /api/v1/auth/login` always answers 501.",
    "",
    "Tokens are issued and revoked by the operator (`npm run token`). A revoked token stops working on the very next cart request. A missing, unknown or revoked token answers **401** `authentication_error` with `WWW-Authenticate: Bearer realm=\"storefront\"`.",
    "",
    "Under `npm run dev` two tokens exist, `sf_dev_LocalToken_A1` and `sf_dev_LocalToken_B2`; this reference and [Try the catalog](/docs/try) (pick a product, a size and colour, add it to the cart: 200, or 404 Sold out) fill in the first when served from localhost. A deployed worker refuses every `sf_dev_` token.",
  ].join("\n"),
  tags: [
    { name: "Catalog", description: "Products, variants and collections. Anonymous." },
    { name: "Cart", description: "The token holder's cart, one per token holder. Bearer token required." },
    { name: "Auth", description: "Checkout and login are reserved for a future release." },
    { name: "Service", description: "Health, this document and the interactive reference." },
  ],
};

/** The operator's reference: the token surface `npm run token` drives. */
const OPERATOR_INFO: DocumentInfo = {
  title: "Storefront API: operator",
  version: INFO.version,
  description: [
    "The operator's surface: issuing, listing, rotating and revoking customer tokens. `npm run token` drives it; it is not part of the storefront's reference (`/api/v1/openapi.json`) or of a client generated from it.",
    "",
    "Every operation needs `Authorization: Bearer <OPERATOR_SECRET>` (a Wrangler secret; `npm run dev` sets `dev-operator-secret`). A customer token (`sf_…`) can never reach it. This document itself is served behind the same secret. Answers are `Cache-Control: no-store`, carry no CORS headers (browsers are not meant to call it), and never repeat a token, hash or id they were sent.",
    "",
    "Errors follow the storefront's envelope: `{\"error\": {\"type\", \"message\", \"code\", \"param\"}}`.",
  ].join("\n"),
  tags: [{ name: "Operator", description: "Issuing and revoking customer tokens. Operator secret required." }],
};

/**
 * The app's two OpenAPI documents, built from the `describe(...)` middleware in its routes once
 * the routes are mounted (`load(app.routes)`, like the route table), then once per isolate: the
 * schemas they come from never change at run time. Operations that need the operator secret go
 * to the operator document, every other one to the public document.
 */
export class ApiReference {
  #operations: DescribedOperation[] = [];
  #public: JsonSchema | undefined;
  #operator: JsonSchema | undefined;

  load(routes: readonly RouteEntry[]): void {
    this.#operations = describedOperations(routes);
    this.#public = undefined;
    this.#operator = undefined;
  }

  /** Every described operation, public and operator, in route order. */
  get operations(): readonly DescribedOperation[] {
    return this.#operations;
  }

  /** The storefront's document, served at `/api/v1/openapi.json` and rendered at `/docs`. */
  publicDocument(): JsonSchema {
    this.#public ??= buildDocument(INFO, this.#operations.filter((op) => op.spec.auth !== "operator"));
    return this.#public;
  }

  /** The operator's document, served at `/api/v1/operator/openapi.json` behind the operator secret. */
  operatorDocument(): JsonSchema {
    this.#operator ??= buildDocument(OPERATOR_INFO, this.#operations.filter((op) => op.spec.auth === "operator"));
    return this.#operator;
  }
}

/** The app's reference; `src/index.ts` loads it with the app's routes. */
export const apiReference = new ApiReference();

/** The storefront's document (what `/api/v1/openapi.json` answers). */
export function openApiDocument(): JsonSchema {
  return apiReference.publicDocument();
}
