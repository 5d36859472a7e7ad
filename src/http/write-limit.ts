import { createMiddleware } from "hono/factory";
import type { AuthedEnv } from "./require-token.ts";
import { rateLimited } from "./errors.ts";
import { clientAddressKey } from "./client-address.ts";

/** The binding's period (wrangler.toml `simple.period`): the longest a refused client waits. */
const PERIOD_SECONDS = 60;

/**
 * The limits of `POST /checkouts`, at the edge after authentication (so unauthenticated noise
 * costs nothing): it counts as a cart write (CART_WRITE_LIMITER, 120 a minute per token; the
 * cart's own writes count in the cart object, after their Idempotency-Key, so a replay is never
 * counted), and it is limited to 10 a minute per token (CHECKOUT_TOKEN_LIMITER) and 60 a minute
 * per client address (CHECKOUT_ADDRESS_LIMITER, an IPv6 address by its /64), so no token, and no
 * client minting tokens, keeps re-creating checkouts to hoard units (contract 9.4,
 * docs/decisions/0012). Every limiter is keyed by the token id, never the token. A request
 * without `CF-Connecting-IP` (only local tools and tests) has no address to count.
 */
export const checkoutLimit = createMiddleware<AuthedEnv>(async (c, next) => {
  const { tokenId } = c.var.principal;
  if (!(await c.env.CART_WRITE_LIMITER.limit({ key: tokenId })).success)
    throw rateLimited("Too many cart writes for this token. Retry after the Retry-After delay.", PERIOD_SECONDS);
  if (!(await c.env.CHECKOUT_TOKEN_LIMITER.limit({ key: tokenId })).success)
    throw rateLimited("Too many checkouts for this token. Retry after the Retry-After delay.", PERIOD_SECONDS);
  const address = clientAddressKey(c);
  if (address !== undefined && !(await c.env.CHECKOUT_ADDRESS_LIMITER.limit({ key: address })).success)
    throw rateLimited("Too many checkouts from this address. Retry after the Retry-After delay.", PERIOD_SECONDS);
  await next();
});
