import { createMiddleware } from "hono/factory";
import type { AuthedEnv } from "./require-token.ts";
import { rateLimited } from "./errors.ts";
import { clientAddressKey } from "./client-address.ts";

/** The binding's period (wrangler.toml `simple.period`): the longest a refused client waits. */
const PERIOD_SECONDS = 60;

/**
 * The limits of `POST /checkouts` (contract 9.4), at the edge after authentication (so
 * unauthenticated noise costs nothing): 10 a minute per token (CHECKOUT_TOKEN_LIMITER) and 60 a
 * minute per client address (CHECKOUT_ADDRESS_LIMITER, an IPv6 address by its /64), so no token,
 * and no client minting tokens, keeps re-creating checkouts to hoard units (docs/decisions/0012).
 * A checkout is not a cart write: the cart write limit (120 a minute, counted in the cart object)
 * is the `/cart` routes', and the checkout's own per-token limit is twelve times tighter, so
 * asking CART_WRITE_LIMITER too (a call to the limiter on every create) bought nothing. Every
 * limiter is keyed by the token id, never the token. A request without `CF-Connecting-IP` (only
 * local tools and tests) has no address to count.
 */
export const checkoutLimit = createMiddleware<AuthedEnv>(async (c, next) => {
  const { tokenId } = c.var.principal;
  if (!(await c.env.CHECKOUT_TOKEN_LIMITER.limit({ key: tokenId })).success)
    throw rateLimited("Too many checkouts for this token. Retry after the Retry-After delay.", PERIOD_SECONDS);
  const address = clientAddressKey(c);
  if (address !== undefined && !(await c.env.CHECKOUT_ADDRESS_LIMITER.limit({ key: address })).success)
    throw rateLimited("Too many checkouts from this address. Retry after the Retry-After delay.", PERIOD_SECONDS);
  await next();
});
