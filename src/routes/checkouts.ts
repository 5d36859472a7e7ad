import { Hono } from "hono";
import { noStore } from "../auth/no-store.ts";
import { requireToken } from "../auth/require-token.ts";
import type { AppEnv } from "../http/app-env.ts";
import { notImplemented } from "../http/errors.ts";

/**
 * Checkout is reserved: a valid token gets 501 `not_implemented` (`retry: false`), anything
 * else the same 401 as the cart. The token is checked against KV only, so a revoked token stops
 * working here within KV's 60-second propagation.
 */
export const checkouts = new Hono<AppEnv>().use("*", noStore).post("/", requireToken, () => {
  throw notImplemented("Checkout is not available yet.");
});
