import * as z from "zod";
import { IssuedTokenSchema, IssueTokenRequestSchema, TokenListSchema, TokenPathParamsSchema, TokenRecordSchema } from "../../auth/api.ts";
import { errors } from "../errors.ts";
import type { OperationSpec } from "../spec.ts";

/**
 * What the seed's reference shows being sent to `POST /auth/login`. The route never reads it
 * (login always answers 501), so the schema only documents it and accepts anything.
 */
export const LoginRequestSchema = z
  .looseObject({
    vibes: z.string().optional().meta({ description: "The token value, in the seed's example. Ignored." }),
    linkedin_premium: z.boolean().optional().meta({ description: "Ignored." }),
  })
  .meta({ id: "LoginRequest", description: "Ignored: login is reserved and always answers 501.", example: { vibes: "<ACCESS_TOKEN>", linkedin_premium: true } });

const NO_STORE = ["X-Request-Id", "Cache-Control"] as const;

/** Login and checkout (reserved), and the operator's token surface. */
export const authOperations: OperationSpec[] = [
  {
    method: "post",
    path: "/api/v1/auth/login",
    operationId: "login",
    summary: "Log in (reserved)",
    description: "Always 501 `not_implemented` with `retry: false`, whatever the body, headers or token: the Bearer token is presented directly on each request. Other methods answer 405.",
    tag: "Auth",
    auth: "none",
    body: { schema: LoginRequestSchema, required: false },
    responses: errors([405, 501]),
  },
  {
    method: "post",
    path: "/api/v1/checkouts",
    operationId: "createCheckout",
    summary: "Create a checkout (reserved)",
    description: "401 without a valid token; with one, 501 `not_implemented` with `retry: false`.",
    tag: "Auth",
    auth: "bearer",
    responses: errors([401, 501]),
  },
  {
    method: "get",
    path: "/api/v1/operator/tokens",
    operationId: "listTokens",
    summary: "List token records",
    description: "Every token record, revoked ones included. Never a token or its hash.",
    tag: "Operator",
    auth: "operator",
    responses: { 200: { description: "The token records.", schema: TokenListSchema, headers: NO_STORE }, ...errors([401]) },
  },
  {
    method: "post",
    path: "/api/v1/operator/tokens",
    operationId: "issueToken",
    summary: "Issue a token",
    description: "A new token for a new holder (a new, empty cart). The token appears in this response only.",
    tag: "Operator",
    auth: "operator",
    body: { schema: IssueTokenRequestSchema, examples: { labelled: { summary: "With a label", value: { label: "web storefront" } } } },
    responses: { 201: { description: "The new token and its record.", schema: IssuedTokenSchema, headers: NO_STORE }, ...errors([400, 401, 413, 415]) },
  },
  {
    method: "post",
    path: "/api/v1/operator/tokens/:id/revoke",
    operationId: "revokeToken",
    summary: "Revoke a token",
    description: "Takes effect on the very next cart request, everywhere.",
    tag: "Operator",
    auth: "operator",
    params: TokenPathParamsSchema,
    responses: { 200: { description: "The revoked record.", schema: TokenRecordSchema, headers: NO_STORE }, ...errors([401, 404], ["resource_missing"]) },
  },
  {
    method: "post",
    path: "/api/v1/operator/tokens/:id/rotate",
    operationId: "rotateToken",
    summary: "Rotate a token",
    description: "Revokes the token and issues a new one for the same holder, so the cart survives.",
    tag: "Operator",
    auth: "operator",
    params: TokenPathParamsSchema,
    responses: { 201: { description: "The new token and its record.", schema: IssuedTokenSchema, headers: NO_STORE }, ...errors([401, 404], ["resource_missing"]) },
  },
];
