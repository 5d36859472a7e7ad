import { CartSchema } from "../cart/api.ts";
import { SEED_EXAMPLES } from "./seed-examples.ts";
import type { HeaderName, ResponseSpec } from "./spec.ts";

/**
 * Pieces the route descriptions share: the catalog's cached answers and the cart's answers.
 * Each route writes its own `describe({...})` with them.
 */

export const CATALOG_HEADERS = ["X-Request-Id", "Cache-Control", "ETag", "X-Catalog-Version"] as const;

/** Catalog reads take `If-None-Match`. */
export const IF_NONE_MATCH = [{ name: "If-None-Match" }] as const;

/** A catalog 200: cached, with an ETag and the version that answered. */
export function catalogOk(
  description: string,
  schema: ResponseSpec["schema"],
  examples?: ResponseSpec["examples"],
): ResponseSpec {
  return { description, schema, headers: CATALOG_HEADERS, ...(examples ? { examples } : {}) };
}

/** A catalog list 200: as catalogOk, plus `Link` to its neighbouring pages (when it has any). */
export function catalogListOk(
  description: string,
  schema: ResponseSpec["schema"],
  examples?: ResponseSpec["examples"],
): ResponseSpec {
  return { ...catalogOk(description, schema, examples), headers: [...CATALOG_HEADERS, "Link"] };
}

export const CATALOG_NOT_MODIFIED: ResponseSpec = {
  description: "The `If-None-Match` ETag still matches: no body.",
  headers: CATALOG_HEADERS,
};

export const CACHING =
  "Anonymous and cached at the edge under the published catalog version; answers carry " +
  "`ETag` and `X-Catalog-Version`, and `If-None-Match` answers 304.";

const CART_HEADERS: readonly HeaderName[] = ["X-Request-Id", "Cache-Control", "Vary"];

/** A cart answer, with the cart `POST /cart/lines` answers for the seed's M / Black crew tee. */
/** What a cart write's 200 adds: the replay marker and what is left of the write limit. */
export const WRITE_HEADERS = ["Idempotent-Replayed", "RateLimit-Policy", "RateLimit"] as const;

export function cartOk(
  description: string,
  extraHeaders: readonly (typeof WRITE_HEADERS)[number][] = [],
): ResponseSpec {
  return {
    description,
    schema: CartSchema,
    headers: [...CART_HEADERS, ...extraHeaders],
    examples: { cart: { summary: "One M / Black crew tee", value: SEED_EXAMPLES.cart } },
  };
}

export const CART_WRITES =
  "Counts toward the limit of 120 cart writes per minute per token (429 `rate_limited` with " +
  "`Retry-After` above it); an idempotent replay does not count. Every write that reaches the " +
  'cart answers `RateLimit-Policy: "cart-writes";q=120;w=60` and `RateLimit: "cart-writes";r=<left>;t=<seconds>` ' +
  "(IETF httpapi RateLimit headers draft), so a client can slow down before a 429. Send an " +
  "`Idempotency-Key` to make a retry safe: its replay answers a refusal as it was, and a " +
  "success with the cart as it is at the replay (nothing is applied again).";
