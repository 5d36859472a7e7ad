/**
 * Which statuses the contract allows for each endpoint, so a property can say "this answer is
 * one the contract allows here" for any method and path. 405 (known path, wrong method) and 404
 * `route_not_found` are allowed anywhere; every other status is per endpoint.
 */

/** The endpoints of the contract, plus `unknown` for every path the app has no route for. */
export type EndpointName =
  | "products"
  | "product"
  | "variants"
  | "collections"
  | "collection"
  | "cart"
  | "cart-lines"
  | "cart-line"
  | "carts"
  | "checkouts"
  | "checkout"
  | "webhook"
  | "dev-pay"
  | "login"
  | "operator"
  | "openapi"
  | "health"
  | "docs"
  | "unknown";

const CATALOG_READ = [200, 304, 400, 404, 503];
/** Every cart write can also meet auth (401), a bad header (400) or the rate limit (429). */
const CART_WRITE = [200, 400, 401, 404, 409, 413, 415, 422, 429, 503];

/** Allowed statuses by endpoint and method (`*` for any method the endpoint answers). */
const TABLE: Record<EndpointName, Record<string, number[]>> = {
  products: { GET: CATALOG_READ, HEAD: CATALOG_READ },
  product: { GET: CATALOG_READ, HEAD: CATALOG_READ },
  variants: { GET: CATALOG_READ, HEAD: CATALOG_READ },
  collections: { GET: CATALOG_READ, HEAD: CATALOG_READ },
  collection: { GET: CATALOG_READ, HEAD: CATALOG_READ },
  cart: {
    GET: [200, 400, 401],
    HEAD: [200, 400, 401],
    DELETE: [200, 400, 401, 409, 422, 429],
    PATCH: [200, 400, 401, 409, 413, 415, 422, 429],
  },
  "cart-lines": { POST: CART_WRITE },
  "cart-line": { PATCH: CART_WRITE, DELETE: [200, 400, 401, 404, 409, 422, 429] },
  // POST /carts: anonymous; a body field, bad JSON, size or media type, or the per-address issuing limit.
  carts: { POST: [201, 400, 413, 415, 429] },
  // Checkout (contract 9.4): a cart write that holds stock (409 checkout_unavailable, 400 cart_empty).
  checkouts: { POST: [201, 400, 401, 409, 413, 415, 422, 429, 503] },
  checkout: { GET: [200, 400, 401, 404], HEAD: [200, 400, 401, 404], DELETE: [200, 400, 401, 404, 409] },
  // The signed webhook: no token; a bad signature or body is 400, an unknown checkout 404.
  webhook: { POST: [200, 400, 404, 413, 415] },
  // The local test payment page (development only; the tests run as development).
  "dev-pay": { GET: [200, 404], HEAD: [200, 404], POST: [200, 400, 404] },
  login: { POST: [501] },
  // The operator guard runs before routing inside the surface: any method without the secret is 401 (400 for two credentials).
  operator: { GET: [200, 400, 401], HEAD: [200, 400, 401], POST: [200, 201, 400, 401, 404, 413, 415], "*": [400, 401] },
  openapi: { GET: [200], HEAD: [200] },
  health: { GET: [200], HEAD: [200] },
  docs: { GET: [200, 302, 304], HEAD: [200, 302, 304] },
  unknown: {},
};

const V1 = "/api/v1";

/** Names the endpoint a (decoded) path belongs to, the way the app's router would. */
export function endpointOf(path: string): EndpointName {
  const p = path.length > 1 ? path.replace(/\/$/, "") : path;
  // The reference pages and their files (static assets the worker serves; an unknown file is 404).
  if (p === "/" || p === "/docs" || p === "/favicon.svg" || /^\/docs\/[^/]+$/.test(p)) return "docs";
  if (/^\/dev\/pay\/[^/]+$/.test(p)) return "dev-pay";
  if (!p.startsWith(`${V1}/`)) return "unknown";
  const rest = p.slice(V1.length + 1).split("/");
  const [head, second, third] = rest;
  switch (head) {
    case "products":
      if (rest.length === 1) return "products";
      if (rest.length === 2) return "product";
      return rest.length === 3 && third === "variants" ? "variants" : "unknown";
    case "collections":
      return rest.length === 1 ? "collections" : rest.length === 2 ? "collection" : "unknown";
    case "cart":
      if (rest.length === 1) return "cart";
      if (second !== "lines") return "unknown";
      return rest.length === 2 ? "cart-lines" : rest.length === 3 ? "cart-line" : "unknown";
    case "carts":
      return rest.length === 1 ? "carts" : "unknown";
    case "checkouts":
      return rest.length === 1 ? "checkouts" : rest.length === 2 ? "checkout" : "unknown";
    case "webhooks":
      return rest.length === 2 && second === "checkouts" ? "webhook" : "unknown";
    case "auth":
      return rest.length === 2 && second === "login" ? "login" : "unknown";
    case "operator":
      // The operator guard covers the whole surface, unknown paths under it included.
      return "operator";
    case "openapi.json":
      return rest.length === 1 ? "openapi" : "unknown";
    case "health":
      return rest.length === 1 ? "health" : "unknown";
    default:
      return "unknown";
  }
}

/**
 * The statuses the contract allows for `method` on `path`: the endpoint's own, plus 404
 * (unknown route) and 405 (wrong method) anywhere, plus 204 for a CORS preflight.
 */
export function allowedStatuses(rawMethod: string, path: string): Set<number> {
  // workerd upper-cases every method name (fetch itself only the six standard ones), so `patch` is PATCH.
  const method = rawMethod.toUpperCase();
  const endpoint = TABLE[endpointOf(path)];
  const own = [...(endpoint[method] ?? []), ...(endpoint["*"] ?? [])];
  // 414: a URL over 16 KiB, on any path, like 404 and 405.
  return new Set([...own, 404, 405, 414, ...(method === "OPTIONS" ? [204] : [])]);
}

/** The 5xx answers the contract itself prescribes on an endpoint (501 reserved, 503 unpublished). */
export function contractFiveHundreds(path: string): Set<number> {
  const name = endpointOf(path);
  if (name === "login") return new Set([501]);
  if (["products", "product", "variants", "collections", "collection", "cart-lines", "checkouts"].includes(name))
    return new Set([503]);
  return new Set();
}
