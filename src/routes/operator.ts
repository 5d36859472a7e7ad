import { Hono } from "hono";
import {
  IssuedTokenSchema,
  IssueTokenRequestSchema,
  RevokeByHashRequestSchema,
  RevokeShopperRequestSchema,
  ShopperRevocationSchema,
  TokenIdSchema,
  TokenListSchema,
  TokenPathParamsSchema,
  TokenRecordSchema,
} from "../auth/api.ts";
import { noStore } from "../http/no-store.ts";
import { requireOperator } from "../http/operator-auth.ts";
import { TokenAdmin } from "../auth/token-admin.ts";
import { cartFor } from "../cart/cart-client.ts";
import type { AppEnv } from "../http/app-env.ts";
import { ApiError, invalidRequest, resourceMissing } from "../http/errors.ts";
import { operatorSecret } from "../http/secrets.ts";
import { IdempotencyKeySchema } from "../cart/api.ts";
import { validJson } from "../http/validate.ts";
import { describe } from "../openapi/describe.ts";
import { errors, JSON_BODY_ERRORS, OPERATOR_ERRORS, QUERY_ERRORS } from "../openapi/errors.ts";

const NO_STORE = ["X-Request-Id", "Cache-Control"] as const;

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
  .get(
    "/tokens",
    describe({
      operationId: "listTokens",
      summary: "List token records",
      description: "Every token record, revoked ones included. Never a token or its hash.",
      tag: "Operator",
      auth: "operator",
      responses: {
        200: { description: "The token records.", schema: TokenListSchema, headers: NO_STORE },
        ...errors(...OPERATOR_ERRORS),
      },
    }),
    async (c) => {
      const data = await admin(c.env).list();
      return c.json({ object: "list" as const, count: data.length, data, has_more: false as const }, 200);
    },
  )
  .post(
    "/tokens",
    describe({
      operationId: "issueToken",
      summary: "Issue a token",
      description: "A new token for a new holder (a new, empty cart). The token appears in this response only.",
      tag: "Operator",
      auth: "operator",
      body: {
        schema: IssueTokenRequestSchema,
        examples: { labelled: { summary: "With a label", value: { label: "web storefront" } } },
      },
      responses: {
        201: { description: "The new token and its record.", schema: IssuedTokenSchema, headers: NO_STORE },
        ...errors(...OPERATOR_ERRORS, ...QUERY_ERRORS, ...JSON_BODY_ERRORS),
      },
    }),
    validJson(IssueTokenRequestSchema),
    async (c) => {
      const body = c.req.valid("json");
      return c.json(await admin(c.env).issue(body.label), 201);
    },
  )
  // By the token's SHA-256 in the body, never the token and never in a URL.
  .post(
    "/tokens/revoke",
    describe({
      operationId: "revokeTokenByHash",
      summary: "Revoke a token by its SHA-256",
      description:
        "For an operator who holds a leaked token but not its id. The body carries the token's " +
        "SHA-256 (64 lower-case hex digits: the form tokens are stored in), never the token, and " +
        "never in a URL: `npm run token -- revoke --token <token>` (or `--token -` to read it " +
        "from stdin) computes the hash on the operator's machine. Takes effect on the very next " +
        "cart request, everywhere; revoking twice answers the same record. A hash no token has " +
        "is 404 `resource_missing`; no answer repeats the hash.",
      tag: "Operator",
      auth: "operator",
      body: { schema: RevokeByHashRequestSchema },
      responses: {
        200: { description: "The revoked record.", schema: TokenRecordSchema, headers: NO_STORE },
        ...errors(...OPERATOR_ERRORS, ...QUERY_ERRORS, ...JSON_BODY_ERRORS, "parameter_missing", "resource_missing"),
      },
    }),
    validJson(RevokeByHashRequestSchema),
    async (c) => {
      const record = await admin(c.env).revokeByHash(c.req.valid("json").token_sha256);
      if (!record) throw resourceMissing("No token has that hash.", "token_sha256");
      return c.json(record, 200);
    },
  )
  .post(
    "/tokens/revoke-shopper",
    describe({
      operationId: "revokeShopperToken",
      summary: "Revoke a shopper token",
      description:
        "For a leaked shopper token (`sf_cart_…`, from `POST /carts`). Such a token is stored " +
        "nowhere, so it is revoked where it is checked: its holder's cart object, which refuses it " +
        "and every token renewed from it (they name the same holder) from the very next cart " +
        "request, everywhere (401 `token_revoked`). The body names the holder, which " +
        "`npm run token -- revoke --token -` reads out of the pasted token on the operator's " +
        "machine; the signature never travels. Revoking twice is harmless.",
      tag: "Operator",
      auth: "operator",
      body: { schema: RevokeShopperRequestSchema },
      responses: {
        200: { description: "The revocation.", schema: ShopperRevocationSchema, headers: NO_STORE },
        ...errors(...OPERATOR_ERRORS, ...QUERY_ERRORS, ...JSON_BODY_ERRORS, "parameter_missing"),
      },
    }),
    validJson(RevokeShopperRequestSchema),
    async (c) => c.json(await admin(c.env).revokeShopper(c.req.valid("json").holder), 200),
  )
  .post(
    "/tokens/:id/revoke",
    describe({
      operationId: "revokeToken",
      summary: "Revoke a token",
      description:
        "Takes effect on the very next cart request, everywhere. An id that names no token (or " +
        "is not shaped like one) is 404, which never repeats what was sent.",
      tag: "Operator",
      auth: "operator",
      params: TokenPathParamsSchema,
      responses: {
        200: { description: "The revoked record.", schema: TokenRecordSchema, headers: NO_STORE },
        ...errors(...OPERATOR_ERRORS, "resource_missing"),
      },
    }),
    async (c) => {
      const record = await admin(c.env).revoke(tokenId(c.req.param("id")));
      return record ? c.json(record, 200) : noSuchToken();
    },
  )
  .post(
    "/tokens/:id/rotate",
    describe({
      operationId: "rotateToken",
      summary: "Rotate a token",
      description:
        "Revokes the token and issues a new one for the same holder, so the cart survives. Only " +
        "a live token rotates: rotating a revoked one (revoked for a leak, or rotated already) " +
        "is 409 `token_already_revoked`, so no call can mint another live credential for a " +
        "holder whose token was withdrawn. Send an `Idempotency-Key` to make a retry safe: a " +
        "retry with the same key answers the first rotation again (the same new token, with " +
        "`Idempotent-Replayed: true`) while that token is live; the key is scoped to the token " +
        "being rotated. The new token of a keyed rotation is derived from the operator secret, " +
        "the token id and the key (HMAC-SHA256), which is how it can be answered again while " +
        "only its SHA-256 is stored. `npm run token -- rotate` sends a fresh key each time.",
      tag: "Operator",
      auth: "operator",
      params: TokenPathParamsSchema,
      requestHeaders: [{ name: "Idempotency-Key", schema: IdempotencyKeySchema }],
      responses: {
        201: {
          description: "The new token and its record (again, on a retry with the same Idempotency-Key).",
          schema: IssuedTokenSchema,
          headers: [...NO_STORE, "Idempotent-Replayed"],
        },
        ...errors(...OPERATOR_ERRORS, "parameter_invalid", "resource_missing", "token_already_revoked"),
      },
    }),
    async (c) => {
      const id = tokenId(c.req.param("id"));
      const key = c.req.header("idempotency-key");
      if (key !== undefined && !IdempotencyKeySchema.safeParse(key).success) {
        throw invalidRequest(
          "parameter_invalid",
          "Idempotency-Key must be 1–255 printable ASCII characters.",
          "Idempotency-Key",
        );
      }
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
    },
  );
