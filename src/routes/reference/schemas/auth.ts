/**
 * The OpenAPI documentation of the schemas of src/auth/: their component ids, descriptions and
 * examples, attached to the schemas themselves (see src/openapi/schema-docs.ts). Node side only.
 */
import { documentSchema } from "../../../openapi/schema-docs.ts";
import {
  IssueTokenRequestSchema,
  IssuedTokenSchema,
  RevokeByHashRequestSchema,
  RevokeShopperRequestSchema,
  ShopperRevocationSchema,
  TokenIdSchema,
  TokenListSchema,
  TokenRecordSchema,
} from "../../../auth/api.ts";

// src/auth/api.ts

documentSchema(TokenIdSchema, { id: "TokenId", description: "A token's id (`tok_…`), safe to log and list." });

documentSchema(TokenRecordSchema, {
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

documentSchema(TokenRecordSchema.shape.holder, {
  description: "Whose cart the token opens. Rotation keeps it, so the cart survives.",
});

documentSchema(IssuedTokenSchema, {
  id: "IssuedToken",
  description: "A newly issued token: the record plus the token itself, shown once.",
});

documentSchema(IssuedTokenSchema.shape.token, {
  description: "The bearer token. Shown in this response only; store it now.",
});

documentSchema(IssueTokenRequestSchema, {
  id: "IssueTokenRequest",
  description: "Issue a token for a new holder (a new, empty cart).",
});

documentSchema(TokenListSchema, {
  id: "TokenList",
  description: "Every token record, revoked ones included, newest first.",
});

documentSchema(RevokeByHashRequestSchema, {
  id: "RevokeByHashRequest",
  description:
    "Names a token by its SHA-256, the form it is stored in, so a leaked token can be " +
    "revoked without sending it anywhere. `npm run token -- revoke --token <token>` computes " +
    "the hash on the operator's machine.",
  example: { token_sha256: "0c8a5e1f3b7d9c2e4a6f8b0d1c3e5a7f9b2d4c6e8a0f1b3d5c7e9a2b4d6f8c0e" },
});

documentSchema(RevokeByHashRequestSchema.shape.token_sha256, {
  description: "The SHA-256 of the token, as 64 lower-case hex digits. Never the token itself.",
});

documentSchema(RevokeShopperRequestSchema, {
  id: "RevokeShopperRequest",
  description:
    "Names a shopper token (`sf_cart_…`) by its holder, which `npm run token -- revoke --token -` reads " +
    "out of the token on the operator's machine: the signature, the secret part, is never sent.",
  example: { holder: "shp_6f1d2c3b4a5968778695a4b3c2d1e0f9" },
});

documentSchema(RevokeShopperRequestSchema.shape.holder, {
  description: "The holder a shopper token names (`shp_` and 32 hex digits). Never the token itself.",
});

documentSchema(ShopperRevocationSchema, {
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
