import * as z from "zod";
import { MoneySchema } from "../money.ts";

/**
 * Request and response schemas of the cart. The route validates with
 * them, the OpenAPI document is generated from them, and tests check real responses against them.
 */

/** Most lines in one cart; a 251st distinct variant answers 400 `cart_full`. */
export const MAX_LINES = 250;
/** Most units on one line; going above answers 400 `quantity_exceeded`. */
export const MAX_LINE_QUANTITY = 999;
/** Longest accepted Idempotency-Key. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

export const VariantIdInputSchema = z
  .string()
  .regex(/^(\d{1,20}|gid:\/\/shopify\/ProductVariant\/\d{1,20})$/, "digits or gid://shopify/ProductVariant/<digits>")
  .meta({
    id: "VariantIdInput",
    description: "A variant id: `<digits>` or `gid://shopify/ProductVariant/<digits>`.",
    example: "44102938475602",
  });

export const AddCartLineRequestSchema = z
  .strictObject({
    variant_id: VariantIdInputSchema,
    quantity: z.number().int().min(1).max(MAX_LINE_QUANTITY).meta({ description: "Units to add, 1–999." }),
    handle: z.string().max(255).optional().meta({ description: "When given, must be the variant's product handle." }),
    variant_title: z
      .string()
      .max(255)
      .optional()
      .meta({ description: "When given, must be the variant's title (`M / Black`, `Default Title`)." }),
  })
  .meta({
    id: "AddCartLineRequest",
    description: "Add units of a variant. A variant already in the cart adds to its line.",
    example: { variant_id: "44102938475602", quantity: 1 },
  });
export type AddCartLineRequest = z.infer<typeof AddCartLineRequestSchema>;

export const UpdateCartLineRequestSchema = z
  .strictObject({
    quantity: z
      .number()
      .int()
      .min(0)
      .max(MAX_LINE_QUANTITY)
      .meta({ description: "The line's new quantity; 0 removes the line." }),
  })
  .meta({ id: "UpdateCartLineRequest", description: "Set a line's quantity.", example: { quantity: 2 } });
export type UpdateCartLineRequest = z.infer<typeof UpdateCartLineRequestSchema>;

export const LineIdSchema = z
  .string()
  .regex(/^cl_[A-Za-z0-9]{1,64}$/)
  .meta({
    id: "CartLineId",
    description: "A cart line id (`cl_…`). Another cart's line id answers 404 like an unknown one.",
  });

/** Path parameters of `/cart/lines/{line_id}`. */
export const CartLinePathParamsSchema = z.strictObject({ line_id: LineIdSchema });

/** Cart endpoints take no query parameters; any given answers 400 `parameter_unknown`. */
export const CartQuerySchema = z.strictObject({});

export const IdempotencyKeySchema = z
  .string()
  .min(1)
  .max(MAX_IDEMPOTENCY_KEY_LENGTH)
  .regex(/^[\x21-\x7e]+$/, "printable ASCII without spaces")
  .meta({
    id: "IdempotencyKey",
    description:
      "Optional header on cart writes. The same key with the same request replays the first answer for 24 h.",
    example: "9f1c2d6e-3b1a-4c55-8a0e-7f7b2b1d5c10",
  });

export const CartLineSchema = z
  .object({
    object: z.literal("cart_line"),
    id: LineIdSchema,
    variant_id: z.string(),
    handle: z.string(),
    title: z
      .string()
      .meta({ description: "The product title: plain text as the store wrote it, not HTML (escape it)." }),
    variant_title: z
      .string()
      .meta({ description: "The variant's title (`M / Black`, `Default Title`): plain text, not HTML (escape it)." }),
    quantity: z.number().int().min(1).max(MAX_LINE_QUANTITY),
    unit_price: MoneySchema,
    line_total: MoneySchema,
    available: z
      .boolean()
      .meta({ description: "False when the variant went sold out; such lines are left out of the subtotal." }),
    in_stock: z.boolean().meta({
      description:
        "Whether live stock still covers the line's whole quantity (section 9.3): read from the Stock object on every cart read. False when fewer units are left than the line holds (the checkout would refuse it with `insufficient_stock`) or none (then `available` is false too). Always equal to `available` for a variant whose stock is not tracked.",
    }),
  })
  .meta({ id: "CartLine", description: "One variant in the cart, priced against the current catalog." });
export type CartLine = z.infer<typeof CartLineSchema>;

export const CartSchema = z
  .object({
    object: z.literal("cart"),
    id: z.string(),
    lines: z.array(CartLineSchema),
    total_quantity: z.number().int().nonnegative(),
    subtotal: MoneySchema,
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
    expires_at: z.iso.datetime(),
  })
  .meta({
    id: "Cart",
    description: "The token holder's cart. Expires 30 days after the last write; an expired cart reads as empty.",
  });
export type Cart = z.infer<typeof CartSchema>;
