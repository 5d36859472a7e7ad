import type { MiddlewareHandler } from "hono";
import { Hono } from "../http/hono.ts";
import { issueShopperToken } from "../auth/shopper-token.ts";
import { CreateCartRequestSchema } from "../cart/api.ts";
import { newCartJson } from "../cart/cart-client.ts";
import { CatalogStore, pointerTtlMs } from "../catalog/store.ts";
import type { AppEnv } from "../http/app-env.ts";
import { JSON_CONTENT_TYPE } from "../http/cache.ts";
import { clientAddressKey } from "../http/client-address.ts";
import { cartTokensUnconfigured, rateLimited } from "../http/errors.ts";
import { noStore } from "../http/no-store.ts";
import { cartTokenSecrets } from "../http/secrets.ts";
import { parseJsonBody } from "../http/validate.ts";
import { describe } from "../openapi/describe.ts";
import { type Currency, DEFAULT_CURRENCY } from "../money.ts";
import { RulesStore } from "../rules/store.ts";

/** CART_ISSUE_LIMITER's period (wrangler.toml `simple.period`): the longest a refused client waits. */
const ISSUE_PERIOD_SECONDS = 60;

/**
 * Issuing is limited per client address (`CF-Connecting-IP`, an IPv6 one by its /64: see
 * client-address.ts), so one client cannot mint carts without end. Requests that reach the
 * worker without it (only in local tools) share one bucket.
 */
const issueLimit: MiddlewareHandler<AppEnv> = async (c, next) => {
  const key = clientAddressKey(c) ?? "no-address";
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

/**
 * `POST /carts`: a cart for every visitor, no operator involved (contract 9.1). The token is
 * signed here and stored nowhere; the cart's Durable Object comes into being on the first write,
 * so this answer writes nothing.
 */
export const carts = new Hono<AppEnv>()
  .use("*", noStore)
  .post("/", describe("createCart"), issueLimit, emptyBody, async (c) => {
    const secrets = cartTokenSecrets(c.env);
    if (!secrets.ok) throw cartTokensUnconfigured(secrets.message);
    const now = Date.now();
    const ttl = { pointerTtlMs: pointerTtlMs(c.env.CATALOG_POINTER_TTL_MS) };
    const rulesStore = new RulesStore(c.env.CATALOG, ttl);
    const [{ token, claims }, meta, pointer] = await Promise.all([
      issueShopperToken(secrets.current, now),
      new CatalogStore(c.env.CATALOG, ttl).currentMeta(),
      rulesStore.pointer(),
    ]);
    const currency = (meta?.currency ?? DEFAULT_CURRENCY) as Currency;
    const rules = meta ? ((await rulesStore.rules(pointer, currency))?.rules ?? null) : null;
    const cart = newCartJson(c.env, claims.holder, now, currency, rules);
    const expires = new Date(claims.expiresAt).toISOString();
    // The cart is already JSON text (the object's own renderer); the rest is spliced around it.
    const body = `{"object":"cart_token","token":${JSON.stringify(token)},"expires_at":"${expires}","cart":${cart}}`;
    return c.body(body, 201, { "Content-Type": JSON_CONTENT_TYPE });
  });
