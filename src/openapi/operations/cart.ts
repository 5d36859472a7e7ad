import {
  AddCartLineRequestSchema,
  CartLinePathParamsSchema,
  CartQuerySchema,
  CartSchema,
  IdempotencyKeySchema,
  UpdateCartLineRequestSchema,
} from "../../cart/api.ts";
import { errors } from "../errors.ts";
import { SEED_EXAMPLES } from "../seed-examples.ts";
import type { OperationSpec, ResponseSpec } from "../spec.ts";

const CART_HEADERS = ["X-Request-Id", "Cache-Control", "Vary"] as const;

const usd = (amount: string) => ({ amount, currency: "USD" }) as const;

/** What `POST /cart/lines` answers for the seed's M / Black crew tee, into an empty cart. */
const CART_EXAMPLE = {
  object: "cart",
  id: "cart_5c1e0b7f3a9d2e8c4b6a1f0d",
  lines: [
    {
      object: "cart_line",
      id: "cl_Qm3x8Zp1Lk5Vb7Nc2Wd4",
      variant_id: "44102938475602",
      handle: "essential-crew-tee-black",
      title: "Essential Crew Tee - Black",
      variant_title: "M / Black",
      quantity: 1,
      unit_price: usd("28.00"),
      line_total: usd("28.00"),
      available: true,
    },
  ],
  total_quantity: 1,
  subtotal: usd("28.00"),
  created_at: "2026-11-21T04:00:00.000Z",
  updated_at: "2026-11-21T04:00:00.000Z",
  expires_at: "2026-12-21T04:00:00.000Z",
};

function cart(description: string, extraHeaders: readonly ("Idempotent-Replayed")[] = []): ResponseSpec {
  return {
    description,
    schema: CartSchema,
    headers: [...CART_HEADERS, ...extraHeaders],
    examples: { cart: { summary: "One M / Black crew tee", value: CART_EXAMPLE } },
  };
}

const WRITES =
  "Counts toward the limit of 120 cart writes per minute per token (429 above it). Send an `Idempotency-Key` to make a retry safe.";
const IDEMPOTENCY = [{ name: "Idempotency-Key", schema: IdempotencyKeySchema }] as const;

/** The cart and checkout operations (contract section 4); every one needs a Bearer token. */
export const cartOperations: OperationSpec[] = [
  {
    method: "get",
    path: "/api/v1/cart",
    operationId: "getCart",
    summary: "Get the cart",
    description: "The token holder's cart; an empty one when none exists or it expired. Lines are re-priced against the current catalog.",
    tag: "Cart",
    auth: "bearer",
    query: CartQuerySchema,
    responses: { 200: cart("The cart."), ...errors([400, 401], ["parameter_unknown"]) },
  },
  {
    method: "delete",
    path: "/api/v1/cart",
    operationId: "emptyCart",
    requestHeaders: IDEMPOTENCY,
    summary: "Empty the cart",
    description: `Removes every line and answers the emptied cart. ${WRITES}`,
    tag: "Cart",
    auth: "bearer",
    query: CartQuerySchema,
    responses: { 200: cart("The emptied cart.", ["Idempotent-Replayed"]), ...errors([400, 401, 409, 422, 429], ["parameter_unknown", "parameter_invalid"]) },
  },
  {
    method: "post",
    path: "/api/v1/cart/lines",
    operationId: "addCartLine",
    summary: "Add a variant to the cart",
    description: `200 with the cart for an available variant; 404 \`sold_out\` (message \`Sold out\`) for a sold-out one, 404 \`resource_missing\` for an unknown one. Adding a variant already in the cart adds to its line. ${WRITES}`,
    tag: "Cart",
    auth: "bearer",
    query: CartQuerySchema,
    requestHeaders: IDEMPOTENCY,
    body: {
      schema: AddCartLineRequestSchema,
      examples: {
        available: { summary: "An available variant: 200", value: SEED_EXAMPLES.addAvailable },
        soldOut: { summary: "A sold-out variant (Example T-Shirt): 404 Sold out", value: SEED_EXAMPLES.addSoldOut },
      },
    },
    responses: {
      200: cart("The cart with the variant added.", ["Idempotent-Replayed"]),
      ...errors([400, 401, 404, 409, 413, 415, 422, 429], [
        "parameter_invalid",
        "parameter_missing",
        "parameter_unknown",
        "invalid_json",
        "quantity_exceeded",
        "cart_full",
        "authentication_error",
        "resource_missing",
        "sold_out",
        "idempotency_key_in_use",
        "idempotency_key_reused",
        "body_too_large",
        "unsupported_media_type",
        "rate_limited",
      ]),
    },
  },
  {
    method: "patch",
    path: "/api/v1/cart/lines/:line_id",
    operationId: "updateCartLine",
    requestHeaders: IDEMPOTENCY,
    summary: "Change a line's quantity",
    description: `Sets the quantity; 0 removes the line. Another cart's line id answers 404 like an unknown one. ${WRITES}`,
    tag: "Cart",
    auth: "bearer",
    params: CartLinePathParamsSchema,
    query: CartQuerySchema,
    body: { schema: UpdateCartLineRequestSchema, examples: { two: { summary: "Two units", value: { quantity: 2 } } } },
    responses: {
      200: cart("The cart with the line changed.", ["Idempotent-Replayed"]),
      ...errors([400, 401, 404, 409, 413, 415, 422, 429], [
        "parameter_invalid",
        "parameter_missing",
        "parameter_unknown",
        "invalid_json",
        "authentication_error",
        "resource_missing",
        "body_too_large",
        "unsupported_media_type",
        "rate_limited",
      ]),
    },
  },
  {
    method: "delete",
    path: "/api/v1/cart/lines/:line_id",
    operationId: "removeCartLine",
    requestHeaders: IDEMPOTENCY,
    summary: "Remove a line",
    description: `Another cart's line id answers 404 like an unknown one. ${WRITES}`,
    tag: "Cart",
    auth: "bearer",
    params: CartLinePathParamsSchema,
    query: CartQuerySchema,
    responses: {
      200: cart("The cart without the line.", ["Idempotent-Replayed"]),
      ...errors([400, 401, 404, 409, 422, 429], ["parameter_unknown", "parameter_invalid", "resource_missing"]),
    },
  },
];
