import { Hono } from "hono";
import {
  IssuedTokenSchema,
  IssueTokenRequestSchema,
  RevokeByHashRequestSchema,
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
import { resourceMissing } from "../http/errors.ts";
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
      description: "Revokes the token and issues a new one for the same holder, so the cart survives.",
      tag: "Operator",
      auth: "operator",
      params: TokenPathParamsSchema,
      responses: {
        201: { description: "The new token and its record.", schema: IssuedTokenSchema, headers: NO_STORE },
        ...errors(...OPERATOR_ERRORS, "resource_missing"),
      },
    }),
    async (c) => {
      const issued = await admin(c.env).rotate(tokenId(c.req.param("id")));
      return issued ? c.json(issued, 201) : noSuchToken();
    },
  );
