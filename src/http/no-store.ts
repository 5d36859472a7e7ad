import { createMiddleware } from "hono/factory";
import { setResponseHeaders } from "./response-headers.ts";

/**
 * `Cache-Control: no-store` on every response of a private surface (cart, checkouts, auth,
 * operator), errors and 405s included: these answers belong to one token holder and must never
 * sit in a shared or browser cache.
 */
export const noStore = createMiddleware(async (c, next) => {
  await next();
  setResponseHeaders(c, (headers) => headers.set("Cache-Control", "no-store"));
});
