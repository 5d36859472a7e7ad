import { Hono, type Context, type MiddlewareHandler } from "hono";
import { noStore } from "../http/no-store.ts";
import { requireToken, type AuthedEnv } from "../auth/require-token.ts";
import {
  AddCartLineRequestSchema,
  CartLinePathParamsSchema,
  CartQuerySchema,
  IdempotencyKeySchema,
  UpdateCartLineRequestSchema,
} from "../cart/api.ts";
import { cartFor, requestFingerprint } from "../cart/cart-client.ts";
import { variantDigits } from "../catalog/ids.ts";
import type { CartFailure, CartReply, IdempotencyClaim } from "../cart/failure.ts";
import { writeLimit } from "../http/write-limit.ts";
import type { AppEnv } from "../http/app-env.ts";
import { ApiError, catalogUnavailable, invalidRequest, resourceMissing, soldOut } from "../http/errors.ts";
import { authenticationError, docsUrlFor } from "../auth/bearer.ts";
import { validJson, validQuery } from "../http/validate.ts";

/**
 * Turns a failure reported by the cart object into the contract's error. `token_revoked` is
 * the Durable Object refusing a token KV still believes in: the same 401 as any bad token.
 */
export function failureToApiError(failure: CartFailure, docsUrl: string | undefined): ApiError {
  switch (failure.code) {
    case "resource_missing":
      return resourceMissing(failure.message, failure.param);
    case "sold_out":
      return soldOut(failure.param);
    case "parameter_invalid":
    case "quantity_exceeded":
    case "cart_full":
      return invalidRequest(failure.code, failure.message, failure.param);
    case "idempotency_key_reused":
      return new ApiError(422, { type: "idempotency_error", code: failure.code, message: failure.message });
    case "idempotency_key_in_use":
      return new ApiError(409, { type: "idempotency_error", code: failure.code, message: failure.message });
    case "token_revoked":
      return authenticationError(docsUrl, failure.message, true);
    case "catalog_unavailable":
      return catalogUnavailable();
  }
}

/** Answers a cart reply: the Cart, or the contract's error for the failure the object reported. */
function respond(c: Context<AuthedEnv>, reply: CartReply): Response {
  if (reply.replayed) c.header("Idempotent-Replayed", "true");
  if (!reply.ok) throw failureToApiError(reply.failure, docsUrlFor(c.req.url, c.env.DOCS_URL));
  return c.json(reply.cart, 200);
}

/** The Idempotency-Key of a write, if sent, with the fingerprint of the request it belongs to. */
async function idempotencyClaim(c: Context<AuthedEnv>, body: unknown): Promise<IdempotencyClaim | undefined> {
  const key = c.req.header("idempotency-key");
  if (key === undefined) return undefined;
  if (!IdempotencyKeySchema.safeParse(key).success) {
    throw invalidRequest("parameter_invalid", "Idempotency-Key must be 1–255 printable ASCII characters.", "Idempotency-Key");
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
 * The cart (contract section 4). Every handler authenticates first, then hands the work to the
 * holder's Durable Object; writes also pass the per-token rate limit. No handler reads storage.
 */
export const cart = new Hono<AppEnv>()
  .use("*", noStore)
  .get("/", requireToken, validQuery(CartQuerySchema), async (c) => {
    const { tokenId, holder } = c.var.principal;
    return respond(c, await cartFor(c.env, holder).getCart({ tokenId }));
  })
  .delete("/", requireToken, writeLimit, validQuery(CartQuerySchema), async (c) => {
    const { tokenId, holder } = c.var.principal;
    const idempotency = await idempotencyClaim(c, null);
    return respond(c, await cartFor(c.env, holder).clear({ tokenId, ...(idempotency ? { idempotency } : {}) }));
  })
  .post("/lines", requireToken, writeLimit, validQuery(CartQuerySchema), validJson(AddCartLineRequestSchema), async (c) => {
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
  })
  .patch("/lines/:line_id", requireToken, writeLimit, validQuery(CartQuerySchema), lineIdShape, validJson(UpdateCartLineRequestSchema), async (c) => {
    const lineId = c.req.param("line_id");
    const body = c.req.valid("json");
    const idempotency = await idempotencyClaim(c, body);
    const { tokenId, holder } = c.var.principal;
    return respond(
      c,
      await cartFor(c.env, holder).updateLine({ tokenId, lineId, quantity: body.quantity, ...(idempotency ? { idempotency } : {}) }),
    );
  })
  .delete("/lines/:line_id", requireToken, writeLimit, validQuery(CartQuerySchema), lineIdShape, async (c) => {
    const lineId = c.req.param("line_id");
    const idempotency = await idempotencyClaim(c, null);
    const { tokenId, holder } = c.var.principal;
    return respond(c, await cartFor(c.env, holder).removeLine({ tokenId, lineId, ...(idempotency ? { idempotency } : {}) }));
  });
