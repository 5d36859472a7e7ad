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
} from "../cart/api.ts";
import { cartFor, requestFingerprint } from "../cart/cart-client.ts";
import { variantDigits } from "../catalog/ids.ts";
import type { CartReply, IdempotencyClaim } from "../cart/failure.ts";
import { writeLimit } from "../http/write-limit.ts";
import type { AppEnv } from "../http/app-env.ts";
import { fromFailure, invalidRequest, resourceMissing } from "../http/errors.ts";
import { docsUrlFor } from "../http/bearer.ts";
import { validJson, validQuery } from "../http/validate.ts";
import { describe } from "../openapi/describe.ts";
import { CART_WRITE_ERRORS, errors, JSON_BODY_ERRORS, QUERY_ERRORS, TOKEN_ERRORS } from "../openapi/errors.ts";
import { CART_WRITES, cartOk } from "../openapi/responses.ts";
import { SEED_EXAMPLES } from "../openapi/seed-examples.ts";

const IDEMPOTENCY = [{ name: "Idempotency-Key", schema: IdempotencyKeySchema }] as const;

/** Answers a cart reply: the Cart, or the contract's error for the failure the object reported. */
function respond(c: Context<AuthedEnv>, reply: CartReply): Response {
  if (reply.replayed) c.header("Idempotent-Replayed", "true");
  if (!reply.ok) throw fromFailure(reply.failure, docsUrlFor(c.req.url, c.env.DOCS_URL));
  // The object's JSON text as is, with the contract's JSON Content-Type.
  return c.body(reply.cartJson, 200, { "Content-Type": JSON_CONTENT_TYPE });
}

/** The Idempotency-Key of a write, if sent, with the fingerprint of the request it belongs to. */
async function idempotencyClaim(c: Context<AuthedEnv>, body: unknown): Promise<IdempotencyClaim | undefined> {
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
 * The cart. Every handler authenticates first, then hands the work to the
 * holder's Durable Object; writes also pass the per-token rate limit. No handler reads storage.
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
        ...errors(...TOKEN_ERRORS, ...QUERY_ERRORS, "catalog_unavailable"),
      },
    }),
    requireToken,
    validQuery(CartQuerySchema),
    async (c) => {
      const { tokenId, holder } = c.var.principal;
      return respond(c, await cartFor(c.env, holder).getCart({ tokenId }));
    },
  )
  .delete(
    "/",
    describe({
      operationId: "emptyCart",
      summary: "Empty the cart",
      description: `Removes every line and answers the emptied cart. ${CART_WRITES}`,
      tag: "Cart",
      auth: "bearer",
      query: CartQuerySchema,
      requestHeaders: IDEMPOTENCY,
      responses: {
        200: cartOk("The emptied cart.", ["Idempotent-Replayed"]),
        ...errors(...CART_WRITE_ERRORS, ...QUERY_ERRORS),
      },
    }),
    requireToken,
    writeLimit,
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
        `in the cart adds to its line. 503 \`catalog_unavailable\` while no catalog has been ` +
        `published. Live stock (section 9.3): for a variant whose stock the catalog tracks, the add ` +
        `reads the variant's Stock object itself, never a cached copy: nothing left is 404 ` +
        `\`sold_out\`; more than is left (counting what the line already holds; units held by open ` +
        `checkouts are gone) is 409 \`insufficient_stock\` with \`param: "quantity"\` and ` +
        `\`available_quantity\`, and changes nothing. A cart does not reserve stock: a checkout does. ` +
        `${CART_WRITES}`,
      tag: "Cart",
      auth: "bearer",
      query: CartQuerySchema,
      requestHeaders: IDEMPOTENCY,
      body: {
        schema: AddCartLineRequestSchema,
        examples: {
          available: { summary: "An available variant: 200", value: SEED_EXAMPLES.addAvailable },
          soldOut: { summary: "A sold-out variant (Example T-Shirt): 404 Sold out", value: SEED_EXAMPLES.addSoldOut },
        },
      },
      responses: {
        200: cartOk("The cart with the variant added.", ["Idempotent-Replayed"]),
        ...errors(
          ...CART_WRITE_ERRORS,
          ...QUERY_ERRORS,
          ...JSON_BODY_ERRORS,
          "parameter_missing",
          "quantity_exceeded",
          "cart_full",
          "resource_missing",
          "sold_out",
          "insufficient_stock",
        ),
      },
    }),
    requireToken,
    writeLimit,
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
        `unknown one. Growing a line of a tracked variant reads live stock as an add does (404 ` +
        `\`sold_out\`, 409 \`insufficient_stock\` with \`available_quantity\`); shrinking always works. ` +
        `${CART_WRITES}`,
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
        200: cartOk("The cart with the line changed.", ["Idempotent-Replayed"]),
        ...errors(
          ...CART_WRITE_ERRORS,
          ...QUERY_ERRORS,
          ...JSON_BODY_ERRORS,
          "parameter_missing",
          "quantity_exceeded",
          "resource_missing",
          "sold_out",
          "insufficient_stock",
        ),
      },
    }),
    requireToken,
    writeLimit,
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
        200: cartOk("The cart without the line.", ["Idempotent-Replayed"]),
        ...errors(...CART_WRITE_ERRORS, ...QUERY_ERRORS, "resource_missing"),
      },
    }),
    requireToken,
    writeLimit,
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
