import { Hono, type MiddlewareHandler } from "hono";
import { issueShopperToken } from "../auth/shopper-token.ts";
import { CartTokenSchema, CreateCartRequestSchema } from "../cart/api.ts";
import { newCartJson } from "../cart/cart-client.ts";
import { CatalogStore, pointerTtlMs } from "../catalog/store.ts";
import type { AppEnv } from "../http/app-env.ts";
import { JSON_CONTENT_TYPE } from "../http/cache.ts";
import { cartTokensUnconfigured, rateLimited } from "../http/errors.ts";
import { noStore } from "../http/no-store.ts";
import { cartTokenSecrets } from "../http/secrets.ts";
import { parseJsonBody } from "../http/validate.ts";
import { describe } from "../openapi/describe.ts";
import { errors, JSON_BODY_ERRORS } from "../openapi/errors.ts";
import { SEED_EXAMPLES } from "../openapi/seed-examples.ts";
import { DEFAULT_CURRENCY } from "../money.ts";

/** CART_ISSUE_LIMITER's period (wrangler.toml `simple.period`): the longest a refused client waits. */
const ISSUE_PERIOD_SECONDS = 60;

/**
 * Issuing is limited per client address (`CF-Connecting-IP`, which Cloudflare sets and a client
 * cannot forge through it), so one address cannot mint carts without end. Requests that reach the
 * worker without it (only in local tools) share one bucket.
 */
const issueLimit: MiddlewareHandler<AppEnv> = async (c, next) => {
  const key = c.req.header("cf-connecting-ip") ?? "no-address";
  const { success } = await c.env.CART_ISSUE_LIMITER.limit({ key });
  if (!success) {
    throw rateLimited("Too many new carts from this address. Retry after the Retry-After delay.", ISSUE_PERIOD_SECONDS);
  }
  await next();
};

/**
 * No body, or `{}`: a browser's `fetch(url, {method: "POST"})` sends nothing and no media type,
 * which is accepted; anything sent is read as a JSON body under the usual rules (415, 413,
 * invalid_json, and any field is 400 `parameter_unknown`).
 */
const emptyBody: MiddlewareHandler<AppEnv> = async (c, next) => {
  const length = c.req.header("content-length");
  const hasBody = c.req.raw.body !== null && length !== "0";
  if (hasBody || c.req.header("content-type") !== undefined) await parseJsonBody(c, CreateCartRequestSchema);
  await next();
};

const TOKEN_HEADERS = ["X-Request-Id", "Cache-Control", "Vary"] as const;

/**
 * `POST /carts`: a cart for every visitor, no operator involved (contract 9.1). The token is
 * signed here and stored nowhere; the cart's Durable Object comes into being on the first write,
 * so this answer writes nothing.
 */
export const carts = new Hono<AppEnv>().use("*", noStore).post(
  "/",
  describe({
    operationId: "createCart",
    summary: "Create a cart (get a shopper token)",
    description:
      "Anonymous. Answers **201** with a new shopper token (`sf_cart_…`) and the new, empty cart " +
      "it opens: what a browser storefront calls once per visitor (Shopify's `cartCreate`, " +
      "Medusa's `POST /store/carts`). Keep the token (for example in `localStorage`) and send it " +
      "as `Authorization: Bearer <token>` on every cart call; it reaches only its own cart.\n\n" +
      "The token is signed by the server (HMAC-SHA256) and stored nowhere: issuing writes nothing, " +
      "and checking it reads nothing. It lives **30 days** (`expires_at`). Past half its life, " +
      "every successful cart answer carries a fresh token for the same cart in the `Cart-Token` " +
      "header (its expiry in `Cart-Token-Expires`): replace the kept token with it, and a shopper " +
      "who keeps using the cart never loses it. An expired token is 401 `token_expired`; a token " +
      "that was revoked by the operator (`npm run token -- revoke --token -`) is 401 " +
      "`token_revoked`, as is one signed with a secret the operator has since retired; call " +
      "`POST /carts` again for a new cart.\n\n" +
      "Send no body, or `{}`; any field is 400 `parameter_unknown`. At most 20 new carts per " +
      "minute per client address (429 `rate_limited` with `Retry-After`). 503 " +
      "`cart_tokens_unconfigured` when the server has no `CART_TOKEN_SECRET`.",
    tag: "Cart",
    auth: "none",
    body: { schema: CreateCartRequestSchema, required: false },
    responses: {
      201: {
        description: "The new shopper token and its empty cart.",
        schema: CartTokenSchema,
        headers: TOKEN_HEADERS,
        examples: { created: { summary: "A new cart", value: SEED_EXAMPLES.cartToken } },
      },
      ...errors(...JSON_BODY_ERRORS, "parameter_unknown", "rate_limited", "cart_tokens_unconfigured"),
    },
  }),
  issueLimit,
  emptyBody,
  async (c) => {
    const secrets = cartTokenSecrets(c.env);
    if (!secrets.ok) throw cartTokensUnconfigured(secrets.message);
    const now = Date.now();
    const [{ token, claims }, meta] = await Promise.all([
      issueShopperToken(secrets.current, now),
      new CatalogStore(c.env.CATALOG, { pointerTtlMs: pointerTtlMs(c.env.CATALOG_POINTER_TTL_MS) }).currentMeta(),
    ]);
    const cart = newCartJson(c.env, claims.holder, now, meta?.currency ?? DEFAULT_CURRENCY);
    const expires = new Date(claims.expiresAt).toISOString();
    // The cart is already JSON text (the object's own renderer); the rest is spliced around it.
    const body = `{"object":"cart_token","token":${JSON.stringify(token)},"expires_at":"${expires}","cart":${cart}}`;
    return c.body(body, 201, { "Content-Type": JSON_CONTENT_TYPE });
  },
);
