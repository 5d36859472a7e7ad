import { createMiddleware } from "hono/factory";

/**
 * `Cache-Control: no-store` on every response of a private surface (cart, checkouts, auth,
 * operator), errors and 405s included: these answers belong to one token holder and must never
 * sit in a shared or browser cache.
 */
export const noStore = createMiddleware(async (c, next) => {
  await next();
  c.header("Cache-Control", "no-store");
});
