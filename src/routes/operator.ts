import { Hono } from "../http/hono.ts";
import { idempotencyKeyOf } from "./idempotency-key.ts";
import {
  IssueTokenRequestSchema,
  RevokeByHashRequestSchema,
  RevokeShopperRequestSchema,
  TokenIdSchema,
} from "../auth/api.ts";
import { noStore } from "../http/no-store.ts";
import { requireOperator } from "../http/operator-auth.ts";
import { TokenAdmin } from "../auth/token-admin.ts";
import { cartFor } from "../cart/cart-client.ts";
import type { AppEnv } from "../http/app-env.ts";
import { ApiError, resourceMissing } from "../http/errors.ts";
import { operatorSecret } from "../http/secrets.ts";
import { validJson } from "../http/validate.ts";
import { describe } from "../openapi/describe.ts";

/** Token administration wired to the cart, which hears of a revocation before KV does. */
function admin(env: Env): TokenAdmin {
  return new TokenAdmin(env.TOKENS, (holder, tokenId) => cartFor(env, holder).revokeToken(tokenId));
}

/**
 * The answer for an id that names no token. It never repeats what was sent: an operator who
 * pastes a token where its id belongs must not get the token back in a response (or a log of it).
 */
function noSuchToken(): never {
  throw resourceMissing(
    "No token has that id. Ids look like tok_… (npm run token -- list); to revoke by the " +
      "token itself, use npm run token -- revoke --token.",
    "id",
  );
}

function tokenId(id: string): string {
  if (!TokenIdSchema.safeParse(id).success) noSuchToken();
  return id;
}

/**
 * The operator's token surface, used by `npm run token`. Guarded by OPERATOR_SECRET, never by
 * a customer token; not exposed to browsers (no CORS). A new token appears in exactly one
 * response (issue or rotate); lists and revocations show records only, and no answer repeats
 * an id, token or hash it was given.
 */
export const operator = new Hono<AppEnv>()
  .use("*", noStore)
  .use("*", requireOperator)
  .get("/tokens", describe("listTokens"), async (c) => {
    const data = await admin(c.env).list();
    return c.json({ object: "list" as const, count: data.length, data, has_more: false as const }, 200);
  })
  .post("/tokens", describe("issueToken"), validJson(IssueTokenRequestSchema), async (c) => {
    const body = c.req.valid("json");
    return c.json(await admin(c.env).issue(body.label), 201);
  })
  // By the token's SHA-256 in the body, never the token and never in a URL.
  .post("/tokens/revoke", describe("revokeTokenByHash"), validJson(RevokeByHashRequestSchema), async (c) => {
    const record = await admin(c.env).revokeByHash(c.req.valid("json").token_sha256);
    if (!record) throw resourceMissing("No token has that hash.", "token_sha256");
    return c.json(record, 200);
  })
  .post("/tokens/revoke-shopper", describe("revokeShopperToken"), validJson(RevokeShopperRequestSchema), async (c) =>
    c.json(await admin(c.env).revokeShopper(c.req.valid("json").holder), 200),
  )
  .post("/tokens/:id/revoke", describe("revokeToken"), async (c) => {
    const record = await admin(c.env).revoke(tokenId(c.req.param("id")));
    return record ? c.json(record, 200) : noSuchToken();
  })
  .post("/tokens/:id/rotate", describe("rotateToken"), async (c) => {
    const id = tokenId(c.req.param("id"));
    const key = idempotencyKeyOf(c);
    // requireOperator ran, so the secret is set.
    const secret = operatorSecret(c.env)!;
    const rotation = await admin(c.env).rotate(id, key === undefined ? undefined : { operatorSecret: secret, key });
    switch (rotation.outcome) {
      case "unknown":
        return noSuchToken();
      case "revoked":
        throw new ApiError(409, {
          type: "invalid_request_error",
          code: "token_already_revoked",
          message:
            "That token is revoked; only a live token rotates. Issue a new token for a new " +
            "holder (npm run token -- issue), or rotate the holder's live token.",
          param: "id",
        });
      case "replayed":
        c.header("Idempotent-Replayed", "true");
        return c.json(rotation.issued, 201);
      case "issued":
        return c.json(rotation.issued, 201);
    }
  });
