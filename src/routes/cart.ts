import { Hono, type Context, type MiddlewareHandler } from "hono";
import { JSON_CONTENT_TYPE } from "../http/cache.ts";
import { noStore } from "../http/no-store.ts";
import { requireToken, type AuthedEnv } from "../http/require-token.ts";
import {
  AddCartLineRequestSchema,
  CartLinePathParamsSchema,
  CartQuerySchema,
  IdempotencyKeySchema,
  UpdateCartLineRequestSchema,
  UpdateCartRequestSchema,
} from "../cart/api.ts";
import { cartFor, requestFingerprint } from "../cart/cart-client.ts";
import { canonicalAttributes } from "../cart/view.ts";
import { variantDigits } from "../catalog/ids.ts";
import type { CartReply, IdempotencyClaim } from "../cart/failure.ts";
import { WRITE_LIMIT, WRITE_WINDOW_SECONDS } from "../cart/write-rate.ts";
import type { AppEnv } from "../http/app-env.ts";
import { fromFailure, invalidRequest, rateLimited, resourceMissing } from "../http/errors.ts";
import { docsUrlFor } from "../http/bearer.ts";
import { validJson, validQuery } from "../http/validate.ts";
import { describe } from "../openapi/describe.ts";
import { CART_WRITE_ERRORS, errors, JSON_BODY_ERRORS, QUERY_ERRORS, BEARER_ERRORS } from "../openapi/errors.ts";
import { CART_WRITES, cartOk, WRITE_HEADERS } from "../openapi/responses.ts";
import { SEED_EXAMPLES } from "../openapi/seed-examples.ts";

const IDEMPOTENCY = [{ name: "Idempotency-Key", schema: IdempotencyKeySchema }] as const;
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
  const key = c.req.header("idempotency-key");
  if (key === undefined) return undefined;
  if (!IdempotencyKeySchema.safeParse(key).success) {
    throw invalidRequest(
      "parameter_invalid",
      "Idempotency-Key must be 1–255 printable ASCII characters.",
      "Idempotency-Key",
    );
  }
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
  .get(
    "/",
    describe({
      operationId: "getCart",
      summary: "Get the cart",
      description:
        "The token holder's cart; an empty one when none exists or it expired. Lines are " +
        "re-priced against the current catalog.",
      tag: "Cart",
      auth: "bearer",
      query: CartQuerySchema,
      responses: {
        200: cartOk("The cart."),
        ...errors(...BEARER_ERRORS, ...QUERY_ERRORS, "catalog_unavailable"),
      },
    }),
    requireToken,
    validQuery(CartQuerySchema),
    async (c) => {
      const { tokenId, holder } = c.var.principal;
      return respond(c, await cartFor(c.env, holder).getCart({ tokenId }));
    },
  )
  .patch(
    "/",
    describe({
      operationId: "updateCart",
      summary: "Set the cart's note and attributes",
      description:
        "Sets the cart's `note` (plain text, at most 5,000 characters) and/or `attributes` (at most " +
        "50 pairs; a key 1–100 characters, a value at most 1,000; characters are Unicode code " +
        "points). `attributes` replaces the whole set; `null` clears either field; a field left " +
        "out is left as it is. Both are stored and served exactly as written (no trimming, no " +
        "HTML: escape them when you show them), and the checkout and the order keep them. A " +
        "refusal names the field or the key at fault in `param` (`note`, `attributes`, " +
        `\`attributes.Gift wrap\`). ${CART_WRITES}`,
      tag: "Cart",
      auth: "bearer",
      query: CartQuerySchema,
      requestHeaders: IDEMPOTENCY,
      body: {
        schema: UpdateCartRequestSchema,
        examples: {
          both: {
            summary: "A note and attributes",
            value: { note: "Please gift wrap.", attributes: { "Gift wrap": "yes" } },
          },
          clear: { summary: "Clear both", value: { note: null, attributes: null } },
        },
      },
      responses: {
        200: cartOk("The cart with its note and attributes.", WRITE_HEADERS),
        ...errors(...CART_WRITE_ERRORS, ...QUERY_ERRORS, ...JSON_BODY_ERRORS),
      },
    }),
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
          ...(idempotency ? { idempotency } : {}),
        }),
      );
    },
  )
  .delete(
    "/",
    describe({
      operationId: "emptyCart",
      summary: "Empty the cart",
      description: `Removes every line, the note and the attributes, and answers the emptied cart. ${CART_WRITES}`,
      tag: "Cart",
      auth: "bearer",
      query: CartQuerySchema,
      requestHeaders: IDEMPOTENCY,
      responses: {
        200: cartOk("The emptied cart.", WRITE_HEADERS),
        ...errors(...CART_WRITE_ERRORS, ...QUERY_ERRORS),
      },
    }),
    requireToken,
    validQuery(CartQuerySchema),
    async (c) => {
      const { tokenId, holder } = c.var.principal;
      const idempotency = await idempotencyClaim(c, null);
      return respond(c, await cartFor(c.env, holder).clear({ tokenId, ...(idempotency ? { idempotency } : {}) }));
    },
  )
  .post(
    "/lines",
    describe({
      operationId: "addCartLine",
      summary: "Add a variant to the cart",
      description:
        `200 with the cart for an available variant; 404 \`sold_out\` (message \`Sold out\`) for ` +
        `a sold-out one, 404 \`resource_missing\` for an unknown one. Adding a variant already ` +
        `in the cart with the same \`attributes\` (line properties such as an engraving; in any ` +
        `key order) adds to its line; with other attributes it is another line, as at Shopify. ` +
        `Line attributes have the limits of the cart's (50 pairs, keys 1–100 and values up to ` +
        `1,000 characters; \`param\` names the key at fault) and are served as written. 503 ` +
        `\`catalog_unavailable\` while no catalog has been published. ${CART_WRITES}`,
      tag: "Cart",
      auth: "bearer",
      query: CartQuerySchema,
      requestHeaders: IDEMPOTENCY,
      body: {
        schema: AddCartLineRequestSchema,
        examples: {
          available: { summary: "An available variant: 200", value: SEED_EXAMPLES.addAvailable },
          soldOut: { summary: "A sold-out variant (Example T-Shirt): 404 Sold out", value: SEED_EXAMPLES.addSoldOut },
          engraved: {
            summary: "With line attributes: another line than the plain variant",
            value: { ...SEED_EXAMPLES.addAvailable, attributes: { Engraving: "A.B." } },
          },
        },
      },
      responses: {
        200: cartOk("The cart with the variant added.", WRITE_HEADERS),
        ...errors(
          ...CART_WRITE_ERRORS,
          ...QUERY_ERRORS,
          ...JSON_BODY_ERRORS,
          "parameter_missing",
          "quantity_exceeded",
          "cart_full",
          "resource_missing",
          "sold_out",
        ),
      },
    }),
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
    describe({
      operationId: "updateCartLine",
      summary: "Change a line's quantity",
      description:
        `Sets the quantity; 0 removes the line. Another cart's line id answers 404 like an ` +
        `unknown one. ${CART_WRITES}`,
      tag: "Cart",
      auth: "bearer",
      params: CartLinePathParamsSchema,
      query: CartQuerySchema,
      requestHeaders: IDEMPOTENCY,
      body: {
        schema: UpdateCartLineRequestSchema,
        examples: { two: { summary: "Two units", value: { quantity: 2 } } },
      },
      responses: {
        200: cartOk("The cart with the line changed.", WRITE_HEADERS),
        ...errors(
          ...CART_WRITE_ERRORS,
          ...QUERY_ERRORS,
          ...JSON_BODY_ERRORS,
          "parameter_missing",
          "quantity_exceeded",
          "resource_missing",
        ),
      },
    }),
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
    describe({
      operationId: "removeCartLine",
      summary: "Remove a line",
      description: `Another cart's line id answers 404 like an unknown one. ${CART_WRITES}`,
      tag: "Cart",
      auth: "bearer",
      params: CartLinePathParamsSchema,
      query: CartQuerySchema,
      requestHeaders: IDEMPOTENCY,
      responses: {
        200: cartOk("The cart without the line.", WRITE_HEADERS),
        ...errors(...CART_WRITE_ERRORS, ...QUERY_ERRORS, "resource_missing"),
      },
    }),
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
