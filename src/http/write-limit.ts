import { createMiddleware } from "hono/factory";
import type { AuthedEnv } from "./require-token.ts";
import { ApiError, rateLimited } from "./errors.ts";
import { clientAddressKey } from "./client-address.ts";

/** The binding's period (wrangler.toml `simple.period`): the longest a refused client waits. */
const PERIOD_SECONDS = 60;

/**
 * 120 writes per minute per token at the edge, counted by the Workers Rate Limiting binding under
 * the token id (never the token). Runs after authentication, so unauthenticated noise costs
 * nothing. The cart's own writes no longer pass here: the cart object calls the binding after
 * resolving the Idempotency-Key, so that a replay is never counted (src/cart/cart-object.ts);
 * this stays for a write surface that does not go through the cart object.
 */
export const writeLimit = createMiddleware<AuthedEnv>(async (c, next) => {
  const { success } = await c.env.CART_WRITE_LIMITER.limit({ key: c.var.principal.tokenId });
  if (!success) {
    throw new ApiError(
      429,
      {
        type: "rate_limit_error",
        code: "rate_limited",
        message: "Too many cart writes for this token. Retry after the Retry-After delay.",
      },
      { "Retry-After": String(PERIOD_SECONDS) },
    );
  }
  await next();
});

/**
 * `POST /checkouts`: 10 a minute per token (CHECKOUT_TOKEN_LIMITER, keyed by the token id) and 60
 * a minute per client address (CHECKOUT_ADDRESS_LIMITER, an IPv6 address by its /64), so one
 * token, or one client minting tokens, cannot keep re-creating checkouts to hoard units (contract
 * 9.4, docs/decisions/0008). A request without `CF-Connecting-IP` (only local tools and tests)
 * has no address to count.
 */
export const checkoutLimit = createMiddleware<AuthedEnv>(async (c, next) => {
  const token = await c.env.CHECKOUT_TOKEN_LIMITER.limit({ key: c.var.principal.tokenId });
  if (!token.success)
    throw rateLimited("Too many checkouts for this token. Retry after the Retry-After delay.", PERIOD_SECONDS);
  const address = clientAddressKey(c);
  if (address !== undefined && !(await c.env.CHECKOUT_ADDRESS_LIMITER.limit({ key: address })).success)
    throw rateLimited("Too many checkouts from this address. Retry after the Retry-After delay.", PERIOD_SECONDS);
  await next();
});
