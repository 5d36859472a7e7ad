import * as z from "zod/mini";

/**
 * Schemas of the operator's token surface (`/api/v1/operator/tokens`), shared by the worker, the
 * CLI and the OpenAPI document. A token record never holds the token or its hash.
 */

const TOKEN_ID = /^tok_[A-Za-z0-9_]{1,64}$/;

export const TokenIdSchema = z
  .string()
  .check(z.regex(TOKEN_ID))
  .register(z.globalRegistry, { id: "TokenId", description: "A token's id (`tok_…`), safe to log and list." });

export const TokenRecordSchema = z
  .object({
    object: z.literal("token"),
    id: TokenIdSchema,
    holder: z.string().register(z.globalRegistry, {
      description: "Whose cart the token opens. Rotation keeps it, so the cart survives.",
    }),
    label: z.nullable(z.string()),
    created_at: z.iso.datetime(),
    revoked_at: z.nullable(z.iso.datetime()),
  })
  .register(z.globalRegistry, {
    id: "TokenRecord",
    description: "What is stored about a token (under the SHA-256 of the token, never the token).",
    example: {
      object: "token",
      id: "tok_3ZbQ9mW1xY7kLp2Rt5Vc",
      holder: "hld_8sJd2LmQ0pXw4Nz6Tb1K",
      label: "web storefront",
      created_at: "2026-11-21T04:00:00.000Z",
      revoked_at: null,
    },
  });
export type TokenRecord = z.infer<typeof TokenRecordSchema>;

export const IssuedTokenSchema = z
  .extend(TokenRecordSchema, {
    token: z
      .string()
      .register(z.globalRegistry, { description: "The bearer token. Shown in this response only; store it now." }),
  })
  .register(z.globalRegistry, {
    id: "IssuedToken",
    description: "A newly issued token: the record plus the token itself, shown once.",
  });
export type IssuedToken = z.infer<typeof IssuedTokenSchema>;

export const IssueTokenRequestSchema = z
  .strictObject({ label: z.optional(z.string().check(z.minLength(1), z.maxLength(100))) })
  .register(z.globalRegistry, {
    id: "IssueTokenRequest",
    description: "Issue a token for a new holder (a new, empty cart).",
  });
export type IssueTokenRequest = z.infer<typeof IssueTokenRequestSchema>;

export const TokenListSchema = z
  .object({
    object: z.literal("list"),
    count: z.number().check(z.int(), z.nonnegative()),
    data: z.array(TokenRecordSchema),
    has_more: z.literal(false),
  })
  .register(z.globalRegistry, {
    id: "TokenList",
    description: "Every token record, revoked ones included, newest first.",
  });
export type TokenList = z.infer<typeof TokenListSchema>;

export const RevokeByHashRequestSchema = z
  .strictObject({
    token_sha256: z
      .string()
      .check(z.regex(/^[0-9a-f]{64}$/))
      .register(z.globalRegistry, {
        description: "The SHA-256 of the token, as 64 lower-case hex digits. Never the token itself.",
      }),
  })
  .register(z.globalRegistry, {
    id: "RevokeByHashRequest",
    description:
      "Names a token by its SHA-256, the form it is stored in, so a leaked token can be " +
      "revoked without sending it anywhere. `npm run token -- revoke --token <token>` computes " +
      "the hash on the operator's machine.",
    example: { token_sha256: "0c8a5e1f3b7d9c2e4a6f8b0d1c3e5a7f9b2d4c6e8a0f1b3d5c7e9a2b4d6f8c0e" },
  });
export type RevokeByHashRequest = z.infer<typeof RevokeByHashRequestSchema>;

export const RevokeShopperRequestSchema = z
  .strictObject({
    holder: z
      .string()
      .check(z.regex(/^shp_[0-9a-f]{32}$/))
      .register(z.globalRegistry, {
        description: "The holder a shopper token names (`shp_` and 32 hex digits). Never the token itself.",
      }),
  })
  .register(z.globalRegistry, {
    id: "RevokeShopperRequest",
    description:
      "Names a shopper token (`sf_cart_…`) by its holder, which `npm run token -- revoke --token -` reads " +
      "out of the token on the operator's machine: the signature, the secret part, is never sent.",
    example: { holder: "shp_6f1d2c3b4a5968778695a4b3c2d1e0f9" },
  });
export type RevokeShopperRequest = z.infer<typeof RevokeShopperRequestSchema>;

export const ShopperRevocationSchema = z
  .object({
    object: z.literal("shopper_token_revocation"),
    holder: z.string(),
    revoked_at: z.iso.datetime(),
  })
  .register(z.globalRegistry, {
    id: "ShopperRevocation",
    description:
      "A revoked shopper token: its holder's cart refuses it, and every token renewed from it, on " +
      "the very next request (401 `token_revoked`). The shopper gets a new cart from `POST /carts`.",
    example: {
      object: "shopper_token_revocation",
      holder: "shp_6f1d2c3b4a5968778695a4b3c2d1e0f9",
      revoked_at: "2026-11-21T04:00:00.000Z",
    },
  });
export type ShopperRevocation = z.infer<typeof ShopperRevocationSchema>;

/** Path parameters of `/operator/tokens/{id}/…`: an id not shaped like one answers 404 like an unknown one. */
export const TokenPathParamsSchema = z.strictObject({ id: TokenIdSchema });

/** What the bearer middleware hands to cart and checkout handlers: never the token itself. */
export interface Principal {
  tokenId: string;
  holder: string;
}
