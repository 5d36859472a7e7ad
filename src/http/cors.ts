import type { Context, MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import type { AppEnv } from "./app-env.ts";
import { setResponseHeaders } from "./response-headers.ts";
import type { RouteTable } from "./route-table.ts";

// If-None-Match: a browser revalidating a cart read sends it, and a preflight that refuses it
// fails the read before it is sent.
const ALLOW_HEADERS = ["Authorization", "Content-Type", "Idempotency-Key", "If-None-Match"];
// Cart-Token(-Expires): a renewed shopper token; RateLimit(-Policy): the cart write limit, so a
// browser can back off before a 429.
const EXPOSE_HEADERS = [
  "ETag",
  "X-Request-Id",
  "Retry-After",
  "Idempotent-Replayed",
  "X-Catalog-Version",
  "Cart-Token",
  "Cart-Token-Expires",
  "RateLimit-Policy",
  "RateLimit",
  // Link: a browser storefront follows a list's rel="next" without reading the body.
  "Link",
];
const MAX_AGE_SECONDS = 7200;
const EXPOSE = EXPOSE_HEADERS.join(",");

type AllowOrigin = (origin: string, c: Context<AppEnv>) => string | null;
const anyOrigin: AllowOrigin = () => "*";

/**
 * hono/cors answers preflights. Every other request gets the same headers hono/cors would give it,
 * set once after the handler on the response it made: hono/cors sets them on a placeholder before
 * the handler runs and appends `Vary` with `c.header()`, which costs two copies of the response.
 */
function corsPolicy(allowOrigin: AllowOrigin, table: RouteTable): MiddlewareHandler<AppEnv> {
  const preflight = cors({
    origin: (origin, c) => allowOrigin(origin, c as Context<AppEnv>),
    allowMethods: (_origin, c) => table.allowedMethods(c.req.path),
    allowHeaders: ALLOW_HEADERS,
    exposeHeaders: EXPOSE_HEADERS,
    maxAge: MAX_AGE_SECONDS,
  });
  const varyOrigin = allowOrigin !== anyOrigin;
  return async (c, next) => {
    if (c.req.method === "OPTIONS") return preflight(c, next);
    await next();
    const origin = allowOrigin(c.req.header("origin") ?? "", c);
    setResponseHeaders(c, (headers) => {
      if (origin) headers.set("Access-Control-Allow-Origin", origin);
      headers.set("Access-Control-Expose-Headers", EXPOSE);
      if (varyOrigin) headers.append("Vary", "Origin");
    });
  };
}

/** Catalog reads: any origin may read them; no credentials are involved. */
export function publicCors(table: RouteTable): MiddlewareHandler<AppEnv> {
  return corsPolicy(anyOrigin, table);
}

/**
 * One entry of ALLOWED_ORIGINS: `*`, an exact origin, or an origin whose port is `*`
 * (`http://localhost:*`), which is how `npm run dev` allows every local front end.
 */
function originMatches(entry: string, origin: string): boolean {
  if (entry === "*" || entry === origin) return true;
  if (!entry.endsWith(":*")) return false;
  const prefix = entry.slice(0, -1);
  return origin.startsWith(prefix) && /^\d{1,5}$/.test(origin.slice(prefix.length));
}

/** Parses ALLOWED_ORIGINS (comma-separated) and answers whether `origin` is allowed. */
export function isAllowedOrigin(allowedOrigins: string, origin: string): boolean {
  if (!origin) return false;
  return allowedOrigins
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean)
    .some((entry) => originMatches(entry, origin));
}

/**
 * Cart and checkout: the origin is echoed only when ALLOWED_ORIGINS allows it, always with
 * `Vary: Origin`, never with `Access-Control-Allow-Credentials` (tokens are not cookies).
 */
export function allowlistCors(table: RouteTable): MiddlewareHandler<AppEnv> {
  return corsPolicy((origin, c) => (isAllowedOrigin(c.env.ALLOWED_ORIGINS ?? "", origin) ? origin : null), table);
}
