import * as z from "zod/mini";

/**
 * Schemas of the operator's token surface (`/api/v1/operator/tokens`), shared by the worker, the
 * CLI and the OpenAPI document. A token record never holds the token or its hash.
 */

const TOKEN_ID = /^tok_[A-Za-z0-9_]{1,64}$/;

export const TokenIdSchema = z.string().check(z.regex(TOKEN_ID));

export const TokenRecordSchema = z.object({
  object: z.literal("token"),
  id: TokenIdSchema,
  holder: z.string(),
  label: z.nullable(z.string()),
  created_at: z.iso.datetime(),
  revoked_at: z.nullable(z.iso.datetime()),
});
export type TokenRecord = z.infer<typeof TokenRecordSchema>;

export const IssuedTokenSchema = z.extend(TokenRecordSchema, {
  token: z.string(),
});
export type IssuedToken = z.infer<typeof IssuedTokenSchema>;

export const IssueTokenRequestSchema = z.strictObject({
  label: z.optional(z.string().check(z.minLength(1), z.maxLength(100))),
});
export type IssueTokenRequest = z.infer<typeof IssueTokenRequestSchema>;

export const TokenListSchema = z.object({
  object: z.literal("list"),
  count: z.number().check(z.int(), z.nonnegative()),
  data: z.array(TokenRecordSchema),
  has_more: z.literal(false),
});
export type TokenList = z.infer<typeof TokenListSchema>;

export const RevokeByHashRequestSchema = z.strictObject({
  token_sha256: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
});
export type RevokeByHashRequest = z.infer<typeof RevokeByHashRequestSchema>;

export const RevokeShopperRequestSchema = z.strictObject({
  holder: z.string().check(z.regex(/^shp_[0-9a-f]{32}$/)),
});
export type RevokeShopperRequest = z.infer<typeof RevokeShopperRequestSchema>;

export const ShopperRevocationSchema = z.object({
  object: z.literal("shopper_token_revocation"),
  holder: z.string(),
  revoked_at: z.iso.datetime(),
});
export type ShopperRevocation = z.infer<typeof ShopperRevocationSchema>;

/** Path parameters of `/operator/tokens/{id}/…`: an id not shaped like one answers 404 like an unknown one. */
export const TokenPathParamsSchema = z.strictObject({ id: TokenIdSchema });

/** What the bearer middleware hands to cart and checkout handlers: never the token itself. */
export interface Principal {
  tokenId: string;
  holder: string;
}
