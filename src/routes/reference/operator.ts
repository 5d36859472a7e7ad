import type { OperationDoc } from "../../openapi/spec.ts";
import {
  IssuedTokenSchema,
  IssueTokenRequestSchema,
  RevokeByHashRequestSchema,
  RevokeShopperRequestSchema,
  ShopperRevocationSchema,
  TokenListSchema,
  TokenPathParamsSchema,
  TokenRecordSchema,
} from "../../auth/api.ts";
import { IdempotencyKeySchema } from "../../cart/api.ts";
import { errors, JSON_BODY_ERRORS, OPERATOR_ERRORS, QUERY_ERRORS } from "../../openapi/errors.ts";

const NO_STORE = ["X-Request-Id", "Cache-Control"] as const;

/** The OpenAPI description of src/routes/operator.ts's operations, by operationId (never in the Worker bundle). */
export const OPERATOR_DOCS = {
  listTokens: {
    summary: "List token records",
    description: "Every token record, revoked ones included. Never a token or its hash.",
    tag: "Operator",
    auth: "operator",
    responses: {
      200: { description: "The token records.", schema: TokenListSchema, headers: NO_STORE },
      ...errors(...OPERATOR_ERRORS),
    },
  },
  issueToken: {
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
  },
  revokeTokenByHash: {
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
  },
  revokeShopperToken: {
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
  },
  revokeToken: {
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
  },
  rotateToken: {
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
  },
} satisfies Record<string, OperationDoc>;
