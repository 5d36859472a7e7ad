import type { OperationDoc } from "../../openapi/spec.ts";
import { CartTokenSchema, CreateCartRequestSchema } from "../../cart/api.ts";
import { errors, JSON_BODY_ERRORS } from "../../openapi/errors.ts";
import { SEED_EXAMPLES } from "../../openapi/seed-examples.ts";

const TOKEN_HEADERS = ["X-Request-Id", "Cache-Control", "Vary"] as const;

/** The OpenAPI description of src/routes/carts.ts's operations, by operationId (never in the Worker bundle). */
export const CARTS_DOCS = {
  createCart: {
    summary: "Create a cart (get a shopper token)",
    description:
      "Anonymous. Answers **201** with a new shopper token (`sf_cart_…`) and the new, empty cart " +
      "it opens: what a browser storefront calls once per visitor (Shopify's `cartCreate`, " +
      "Medusa's `POST /store/carts`). Keep the token (for example in `localStorage`) and send it " +
      "as `Authorization: Bearer <token>` on every cart call; it reaches only its own cart.\n\n" +
      "The token is signed by the server (HMAC-SHA256) and stored nowhere: issuing writes nothing, " +
      "and checking it reads nothing. It lives **30 days** (`expires_at`). Past half its life, " +
      "every successful cart answer carries a fresh token for the same cart in the `Cart-Token` " +
      "header (its expiry in `Cart-Token-Expires`): replace the kept token with it, and a shopper " +
      "who keeps using the cart never loses it. An expired token is 401 `token_expired`; a token " +
      "that was revoked by the operator (`npm run token -- revoke --token -`) is 401 " +
      "`token_revoked`, as is one signed with a secret the operator has since retired; call " +
      "`POST /carts` again for a new cart.\n\n" +
      "Send no body, or `{}`; any field is 400 `parameter_unknown`. At most 20 new carts per " +
      "minute per client address (an IPv6 address counts by its /64; 429 `rate_limited` with " +
      "`Retry-After`). 503 " +
      "`cart_tokens_unconfigured` when the server has no `CART_TOKEN_SECRET`.",
    tag: "Cart",
    auth: "none",
    body: { schema: CreateCartRequestSchema, required: false },
    responses: {
      201: {
        description: "The new shopper token and its empty cart.",
        schema: CartTokenSchema,
        headers: TOKEN_HEADERS,
        examples: { created: { summary: "A new cart", value: SEED_EXAMPLES.cartToken } },
      },
      ...errors(
        ...JSON_BODY_ERRORS,
        "parameter_unknown",
        // A body that is JSON but not an object (`[]`): Schemathesis found it undocumented (issue 42).
        "parameter_invalid",
        "rate_limited",
        "cart_tokens_unconfigured",
      ),
    },
  },
} satisfies Record<string, OperationDoc>;
