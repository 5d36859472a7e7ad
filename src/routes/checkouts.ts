import type { Context, MiddlewareHandler } from "hono";
import { idempotencyKeyOf } from "./idempotency-key.ts";
import { Hono } from "../http/hono.ts";
import { cartFor, requestFingerprint } from "../cart/cart-client.ts";
import { CheckoutPathParamsSchema, CreateCheckoutRequestSchema } from "../checkout/api.ts";
import { NoQuerySchema } from "../catalog/api.ts";
import { checkoutsFor, holderCheckout } from "../checkout/client.ts";
import type { CheckoutReply } from "../checkout/failure.ts";
import type { AppEnv } from "../http/app-env.ts";
import { docsUrlFor } from "../http/bearer.ts";
import { JSON_CONTENT_TYPE } from "../http/cache.ts";
import { authenticationError, fromCheckoutFailure, invalidRequest, resourceMissing } from "../http/errors.ts";
import { noStore } from "../http/no-store.ts";
import { type AuthedEnv, requireToken } from "../http/require-token.ts";
import { parseJsonBody, validQuery } from "../http/validate.ts";
import { checkoutLimit } from "../http/write-limit.ts";
import { paymentProvider } from "../payment/provider.ts";
import { describe } from "../openapi/describe.ts";

/** Answers a checkout reply: its JSON text with its status, or the contract's error. */
export function respondCheckout(c: Context, reply: CheckoutReply, docsUrl?: string): Response {
  if (reply.replayed) c.header("Idempotent-Replayed", "true");
  if (!reply.ok) throw fromCheckoutFailure(reply.failure, docsUrl);
  return c.body(reply.json, reply.status, { "Content-Type": JSON_CONTENT_TYPE });
}

/** A malformed checkout id cannot name a checkout: 404 before any storage is touched. */
const checkoutIdShape: MiddlewareHandler<AuthedEnv> = async (c, next) => {
  if (!CheckoutPathParamsSchema.safeParse({ id: c.req.param("id") }).success) {
    throw resourceMissing("No such checkout.", "id");
  }
  await next();
};

/** KV may still believe in a revoked token; the holder's cart object knows at once. */
export async function refuseRevoked(c: Context<AuthedEnv>): Promise<void> {
  const { tokenId, holder } = c.var.principal;
  if (await cartFor(c.env, holder).isRevoked(tokenId)) {
    throw authenticationError(docsUrlFor(c.req.url, c.env.DOCS_URL), "The token has been revoked.", "token_revoked");
  }
}

/** A checkout request's body, Idempotency-Key and payment provider, or the 400 that refuses it. */
async function checkoutRequest(c: Context<AuthedEnv>) {
  // No body at all is `{}`: a checkout needs nothing but the token.
  const empty = c.req.header("content-length") === "0" || c.req.raw.body === null;
  const body = empty ? {} : await parseJsonBody(c, CreateCheckoutRequestSchema);
  // http://localhost and http://127.0.0.1 bring a local storefront's shopper back, in development only.
  if (body.return_url?.startsWith("http:") && c.env.ENVIRONMENT !== "development") {
    throw invalidRequest(
      "parameter_invalid",
      "Invalid return_url: an absolute https URL (http://localhost and http://127.0.0.1 only under npm run dev).",
      "return_url",
    );
  }
  const key = idempotencyKeyOf(c);
  const provider = paymentProvider(c.env.PAYMENT_PROVIDER);
  if (provider === "stripe" && body.return_url === undefined) {
    throw invalidRequest(
      "parameter_missing",
      "Stripe's payment page needs somewhere to send the shopper back: send return_url.",
      "return_url",
    );
  }
  return { body, key, provider };
}

/**
 * Checkouts: the holder's cart frozen for payment, its units held in stock. Every handler
 * authenticates first and hands the work to the holder's cart object; none reads storage.
 */
export const checkouts = new Hono<AppEnv>()
  .use("*", noStore)
  .post("/", describe("createCheckout"), requireToken, checkoutLimit, validQuery(NoQuerySchema), async (c) => {
    // A revoked token is refused before anything about its request is (401 before 400, as on
    // every cart route): the cart object refuses it on the way, reading the cart, so the
    // holder's cart is asked here only when this request is about to be refused anyway.
    const { body, key, provider } = await checkoutRequest(c).catch(async (error: unknown) => {
      await refuseRevoked(c);
      throw error;
    });
    const { tokenId, holder } = c.var.principal;
    const reply = await checkoutsFor(c.env, holder).createCheckout({
      holder,
      tokenId,
      returnUrl: body.return_url ?? null,
      provider,
      handoff: {
        checkoutUrl: c.env.CHECKOUT_URL ?? "",
        shopifyDomain: c.env.SHOPIFY_STORE_DOMAIN ?? "",
        // The local test payment page exists only in development (src/routes/dev-pay.ts).
        devPayBase: c.env.ENVIRONMENT === "development" ? `${new URL(c.req.url).origin}/dev/pay/` : null,
      },
      ...(key !== undefined
        ? { idempotency: { key, fingerprint: await requestFingerprint("POST", c.req.path, body) } }
        : {}),
    });
    return respondCheckout(c, reply, docsUrlFor(c.req.url, c.env.DOCS_URL));
  })
  .get("/:id", describe("getCheckout"), requireToken, validQuery(NoQuerySchema), checkoutIdShape, async (c) => {
    await refuseRevoked(c);
    const id = c.req.param("id");
    return respondCheckout(c, await holderCheckout(c.env, c.var.principal.holder, id, (host) => host.getCheckout(id)));
  })
  .delete("/:id", describe("cancelCheckout"), requireToken, validQuery(NoQuerySchema), checkoutIdShape, async (c) => {
    await refuseRevoked(c);
    const id = c.req.param("id");
    return respondCheckout(
      c,
      await holderCheckout(c.env, c.var.principal.holder, id, (host) => host.cancelCheckout(id)),
    );
  });
