import { type Context, Hono, type MiddlewareHandler } from "hono";
import { IdempotencyKeySchema } from "../cart/api.ts";
import { cartFor, requestFingerprint } from "../cart/cart-client.ts";
import {
  CheckoutPathParamsSchema,
  CheckoutSchema,
  CreateCheckoutRequestSchema,
  NoQuerySchema,
} from "../checkout/api.ts";
import { checkoutsFor } from "../checkout/client.ts";
import type { CheckoutReply } from "../checkout/failure.ts";
import type { AppEnv } from "../http/app-env.ts";
import { docsUrlFor } from "../http/bearer.ts";
import { JSON_CONTENT_TYPE } from "../http/cache.ts";
import { authenticationError, fromCheckoutFailure, invalidRequest, resourceMissing } from "../http/errors.ts";
import { noStore } from "../http/no-store.ts";
import { type AuthedEnv, requireToken } from "../http/require-token.ts";
import { parseJsonBody, validQuery } from "../http/validate.ts";
import { writeLimit } from "../http/write-limit.ts";
import { describe } from "../openapi/describe.ts";
import { CART_WRITE_ERRORS, errors, JSON_BODY_ERRORS, QUERY_ERRORS, TOKEN_ERRORS } from "../openapi/errors.ts";
import type { ResponseSpec } from "../openapi/spec.ts";

const HEADERS = ["X-Request-Id", "Cache-Control", "Vary"] as const;

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
async function refuseRevoked(c: Context<AuthedEnv>): Promise<void> {
  const { tokenId, holder } = c.var.principal;
  if (await cartFor(c.env, holder).isRevoked(tokenId)) {
    throw authenticationError(docsUrlFor(c.req.url, c.env.DOCS_URL), "The token has been revoked.", "token_revoked");
  }
}

function checkoutOk(description: string, extra: readonly "Idempotent-Replayed"[] = []): ResponseSpec {
  return { description, schema: CheckoutSchema, headers: [...HEADERS, ...extra] };
}

/** The states, the hand-off and completion are told once, in the reference's "Checkout and orders" (src/openapi/guide.ts, not bundled). */
const SEE = "States, the hand-off `url` and completion: the reference's Checkout and orders section.";

/**
 * Checkouts: the holder's cart frozen for payment, its units held in stock. Every handler
 * authenticates first and hands the work to the holder's checkout object; none reads storage.
 */
export const checkouts = new Hono<AppEnv>()
  .use("*", noStore)
  .post(
    "/",
    describe({
      operationId: "createCheckout",
      summary: "Check out the cart",
      description:
        "Re-prices the holder's cart at the live catalog and holds every line's units in stock " +
        "(all or none) for `CHECKOUT_HOLD_SECONDS`: 201 with the Checkout (lines frozen with " +
        "their prices). 409 `checkout_unavailable` names each line at fault in `lines` and holds " +
        "nothing; 400 `cart_empty`. One open checkout per holder: a new one cancels the previous " +
        "first. Body `{}`, none, or `{return_url}` (https only). `Idempotency-Key` replays the " +
        `first answer; counts as a cart write. ${SEE}`,
      tag: "Checkout",
      auth: "bearer",
      query: NoQuerySchema,
      requestHeaders: [{ name: "Idempotency-Key", schema: IdempotencyKeySchema }],
      body: {
        schema: CreateCheckoutRequestSchema,
        required: false,
        examples: {
          empty: { summary: "No return URL", value: {} },
          returnUrl: { summary: "With a return URL", value: { return_url: "https://shop.example/thanks" } },
        },
      },
      responses: {
        201: checkoutOk("The open checkout.", ["Idempotent-Replayed"]),
        ...errors(...CART_WRITE_ERRORS, ...QUERY_ERRORS, ...JSON_BODY_ERRORS, "cart_empty", "checkout_unavailable"),
      },
    }),
    requireToken,
    writeLimit,
    validQuery(NoQuerySchema),
    async (c) => {
      // A revoked token is refused before its body is even read, as on every cart route.
      await refuseRevoked(c);
      // No body at all is `{}`: a checkout needs nothing but the token.
      const empty = c.req.header("content-length") === "0" || c.req.raw.body === null;
      const body = empty ? {} : await parseJsonBody(c, CreateCheckoutRequestSchema);
      const key = c.req.header("idempotency-key");
      if (key !== undefined && !IdempotencyKeySchema.safeParse(key).success) {
        throw invalidRequest(
          "parameter_invalid",
          "Idempotency-Key must be 1–255 printable ASCII characters.",
          "Idempotency-Key",
        );
      }
      const { tokenId, holder } = c.var.principal;
      const reply = await checkoutsFor(c.env, holder).create({
        holder,
        tokenId,
        returnUrl: body.return_url ?? null,
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
    },
  )
  .get(
    "/:id",
    describe({
      operationId: "getCheckout",
      summary: "Get a checkout",
      description: `The holder's own checkout; any other id (another holder's included) is 404. ${SEE}`,
      tag: "Checkout",
      auth: "bearer",
      params: CheckoutPathParamsSchema,
      query: NoQuerySchema,
      responses: {
        200: checkoutOk("The checkout and its status."),
        ...errors(...TOKEN_ERRORS, ...QUERY_ERRORS, "resource_missing"),
      },
    }),
    requireToken,
    validQuery(NoQuerySchema),
    checkoutIdShape,
    async (c) => {
      await refuseRevoked(c);
      return respondCheckout(c, await checkoutsFor(c.env, c.var.principal.holder).get(c.req.param("id")));
    },
  )
  .delete(
    "/:id",
    describe({
      operationId: "cancelCheckout",
      summary: "Cancel a checkout",
      description:
        "Cancels the holder's open checkout and releases its holds; again answers the same. " +
        "Completed or expired: 409 `checkout_not_open`. Another holder's id: 404.",
      tag: "Checkout",
      auth: "bearer",
      params: CheckoutPathParamsSchema,
      query: NoQuerySchema,
      responses: {
        200: checkoutOk("The canceled checkout."),
        ...errors(...TOKEN_ERRORS, ...QUERY_ERRORS, "resource_missing", "checkout_not_open"),
      },
    }),
    requireToken,
    validQuery(NoQuerySchema),
    checkoutIdShape,
    async (c) => {
      await refuseRevoked(c);
      return respondCheckout(c, await checkoutsFor(c.env, c.var.principal.holder).cancel(c.req.param("id")));
    },
  );
