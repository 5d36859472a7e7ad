import { createMiddleware } from "hono/factory";
import type { AuthedEnv } from "./require-token.ts";
import { ApiError } from "./errors.ts";

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
