import type { Context, MiddlewareHandler } from "hono";
import { idempotencyKeyOf } from "./idempotency-key.ts";
import { Hono } from "../http/hono.ts";
import { JSON_CONTENT_TYPE } from "../http/cache.ts";
import { noStore } from "../http/no-store.ts";
import { requireToken, type AuthedEnv } from "../http/require-token.ts";
import {
  AddCartLineRequestSchema,
  CartLinePathParamsSchema,
  CartQuerySchema,
  UpdateCartLineRequestSchema,
  UpdateCartRequestSchema,
} from "../cart/api.ts";
import { cartFor, requestFingerprint } from "../cart/cart-client.ts";
import { canonicalAttributes } from "../cart/view.ts";
import { variantDigits } from "../catalog/ids.ts";
import type { CartReply, IdempotencyClaim } from "../cart/failure.ts";
import { WRITE_LIMIT, WRITE_WINDOW_SECONDS } from "../cart/write-rate.ts";
import type { AppEnv } from "../http/app-env.ts";
import { fromFailure, rateLimited, resourceMissing } from "../http/errors.ts";
import { docsUrlFor } from "../http/bearer.ts";
import { validJson, validQuery } from "../http/validate.ts";
import { describe } from "../openapi/describe.ts";

const RATE_LIMIT_NAME = "cart-writes";
const RATE_LIMIT_POLICY = `"${RATE_LIMIT_NAME}";q=${WRITE_LIMIT};w=${WRITE_WINDOW_SECONDS}`;

/**
 * Answers a cart reply: the Cart, or the contract's error for the failure the object reported. A
 * write's answer says what is left of the token's write limit (IETF httpapi RateLimit headers
 * draft), so a browser can slow down before it meets a 429.
 */
function respond(c: Context<AuthedEnv>, reply: CartReply): Response {
  if (reply.replayed) c.header("Idempotent-Replayed", "true");
  if (reply.rate) {
    c.header("RateLimit-Policy", RATE_LIMIT_POLICY);
    c.header("RateLimit", `"${RATE_LIMIT_NAME}";r=${reply.rate.remaining};t=${reply.rate.resetSeconds}`);
  }
  if (!reply.ok && reply.failure.code === "rate_limited") {
    throw rateLimited(reply.failure.message, reply.rate?.resetSeconds ?? WRITE_WINDOW_SECONDS);
  }
  if (!reply.ok) throw fromFailure(reply.failure, docsUrlFor(c.req.url, c.env.DOCS_URL));
  // The object's JSON text as is, with the contract's JSON Content-Type.
  return c.body(reply.cartJson, 200, { "Content-Type": JSON_CONTENT_TYPE });
}

/**
 * The Idempotency-Key of a write, if sent, with the fingerprint of the request it belongs to. A
 * strict schema fixes the order of a body's fields, but not of `attributes` (a record): they are
 * fingerprinted in canonical form, so the same attributes in another key order are the same request.
 */
async function idempotencyClaim(c: Context<AuthedEnv>, raw: unknown): Promise<IdempotencyClaim | undefined> {
  const body =
    raw !== null && typeof raw === "object" && "attributes" in raw
      ? { ...raw, attributes: canonicalAttributes(raw.attributes as Record<string, string> | null) }
      : raw;
  const key = idempotencyKeyOf(c);
  if (key === undefined) return undefined;
  return { key, fingerprint: await requestFingerprint(c.req.method, c.req.path, body) };
}

/** A malformed line id cannot name a line: 404 before the body is read or storage touched. */
const lineIdShape: MiddlewareHandler<AuthedEnv> = async (c, next) => {
  if (!CartLinePathParamsSchema.safeParse({ line_id: c.req.param("line_id") }).success) {
    throw resourceMissing("No such cart line.", "line_id");
  }
  await next();
};

/**
 * The cart. Every handler authenticates first, then hands the work to the holder's Durable
 * Object, which also counts writes against the per-token rate limit (after the Idempotency-Key,
 * so a replay is never counted). No handler reads storage.
 */
export const cart = new Hono<AppEnv>()
  .use("*", noStore)
  .get("/", describe("getCart"), requireToken, validQuery(CartQuerySchema), async (c) => {
    const { tokenId, holder } = c.var.principal;
    return respond(c, await cartFor(c.env, holder).getCart({ tokenId }));
  })
  .patch(
    "/",
    describe("updateCart"),
    requireToken,
    validQuery(CartQuerySchema),
    validJson(UpdateCartRequestSchema),
    async (c) => {
      const body = c.req.valid("json");
      const idempotency = await idempotencyClaim(c, body);
      const { tokenId, holder } = c.var.principal;
      return respond(
        c,
        await cartFor(c.env, holder).updateCart({
          tokenId,
          ...(body.note !== undefined ? { note: body.note } : {}),
          ...(body.attributes !== undefined ? { attributes: body.attributes } : {}),
          ...(body.buyer !== undefined ? { buyer: body.buyer } : {}),
          ...(body.shipping_option !== undefined ? { shippingOption: body.shipping_option } : {}),
          ...(body.discount_codes !== undefined ? { discountCodes: body.discount_codes } : {}),
          ...(idempotency ? { idempotency } : {}),
        }),
      );
    },
  )
  .delete("/", describe("emptyCart"), requireToken, validQuery(CartQuerySchema), async (c) => {
    const { tokenId, holder } = c.var.principal;
    const idempotency = await idempotencyClaim(c, null);
    return respond(c, await cartFor(c.env, holder).clear({ tokenId, ...(idempotency ? { idempotency } : {}) }));
  })
  .post(
    "/lines",
    describe("addCartLine"),
    requireToken,
    validQuery(CartQuerySchema),
    validJson(AddCartLineRequestSchema),
    async (c) => {
      const body = c.req.valid("json");
      const idempotency = await idempotencyClaim(c, body);
      const { tokenId, holder } = c.var.principal;
      return respond(
        c,
        await cartFor(c.env, holder).addLine({
          tokenId,
          variantId: variantDigits(body.variant_id),
          quantity: body.quantity,
          ...(body.handle !== undefined ? { handle: body.handle } : {}),
          ...(body.variant_title !== undefined ? { variantTitle: body.variant_title } : {}),
          ...(body.attributes !== undefined ? { attributes: body.attributes } : {}),
          ...(idempotency ? { idempotency } : {}),
        }),
      );
    },
  )
  .patch(
    "/lines/:line_id",
    describe("updateCartLine"),
    requireToken,
    validQuery(CartQuerySchema),
    lineIdShape,
    validJson(UpdateCartLineRequestSchema),
    async (c) => {
      const lineId = c.req.param("line_id");
      const body = c.req.valid("json");
      const idempotency = await idempotencyClaim(c, body);
      const { tokenId, holder } = c.var.principal;
      return respond(
        c,
        await cartFor(c.env, holder).updateLine({
          tokenId,
          lineId,
          quantity: body.quantity,
          ...(idempotency ? { idempotency } : {}),
        }),
      );
    },
  )
  .delete(
    "/lines/:line_id",
    describe("removeCartLine"),
    requireToken,
    validQuery(CartQuerySchema),
    lineIdShape,
    async (c) => {
      const lineId = c.req.param("line_id");
      const idempotency = await idempotencyClaim(c, null);
      const { tokenId, holder } = c.var.principal;
      return respond(
        c,
        await cartFor(c.env, holder).removeLine({ tokenId, lineId, ...(idempotency ? { idempotency } : {}) }),
      );
    },
  );
