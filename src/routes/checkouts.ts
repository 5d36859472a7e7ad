import { Hono } from "hono";
import { docsUrlFor } from "../http/bearer.ts";
import { noStore } from "../http/no-store.ts";
import { requireToken } from "../http/require-token.ts";
import { cartFor } from "../cart/cart-client.ts";
import type { AppEnv } from "../http/app-env.ts";
import { authenticationError, notImplemented } from "../http/errors.ts";
import { describe } from "../openapi/describe.ts";

/**
 * Checkout is reserved: a valid token gets 501 `not_implemented` (`retry: false`), anything
 * else the same 401 as the cart. Besides the KV record, the holder's cart object is asked
 * whether the token was revoked, so a revoked token is refused here at once as well, not only
 * once KV has propagated.
 */
export const checkouts = new Hono<AppEnv>()
  .use("*", noStore)
  .post("/", describe("createCheckout"), requireToken, async (c) => {
    const { tokenId, holder } = c.var.principal;
    if (await cartFor(c.env, holder).isRevoked(tokenId)) {
      throw authenticationError(docsUrlFor(c.req.url, c.env.DOCS_URL), "The token has been revoked.", "token_revoked");
    }
    throw notImplemented("Checkout is not available yet.");
  });
