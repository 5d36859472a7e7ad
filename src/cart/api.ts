import * as z from "zod/mini";
import { ImageSchema } from "../catalog/api.ts";
import { HandleSchema } from "../catalog/fields.ts";
import { MoneySchema } from "../money.ts";
import {
  AppliedDiscountSchema,
  BuyerSchema,
  CostSchema,
  DiscountAllocationSchema,
  DiscountCodeResultSchema,
  DiscountCodesInputSchema,
  ShippingOptionSchema,
  ShippingOptionsSchema,
} from "../pricing/api.ts";

/**
 * Request and response schemas of the cart. The route validates with
 * them, the OpenAPI document is generated from them, and tests check real responses against them.
 */

/** A cart expires this long after its last write. */
export const CART_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/** Most lines in one cart; a 251st distinct variant answers 400 `cart_full`. */
export const MAX_LINES = 250;
/** Most units on one line; going above answers 400 `quantity_exceeded`. */
export const MAX_LINE_QUANTITY = 999;
/** Longest accepted Idempotency-Key. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

export const VariantIdInputSchema = z
  .string()
  .check(
    z.regex(
      /^(\d{1,20}|gid:\/\/shopify\/ProductVariant\/\d{1,20})$/,
      "digits or gid://shopify/ProductVariant/<digits>",
    ),
  );

/** Most characters (Unicode code points) in a cart's note. */
export const MAX_NOTE_CHARS = 5000;
/** Most attribute pairs on a cart or a line. */
export const MAX_ATTRIBUTES = 50;
/** Longest attribute key and value, in characters (Unicode code points). */
export const MAX_ATTRIBUTE_KEY_CHARS = 100;
export const MAX_ATTRIBUTE_VALUE_CHARS = 1000;
/**
 * Most bytes (UTF-8) of a cart's note, its attribute keys and values and every line's attribute
 * keys and values, together: what keeps a cart's checkout and order rows far below the 2 MB a
 * SQLite or D1 value may hold (docs/decisions/0010-cart-bounds.md). Past it: 400 `attributes_too_large`.
 */
export const MAX_CART_ATTRIBUTE_BYTES = 65_536;

/** Characters as a reader counts them (code points, so an emoji is one), as JSON Schema's `maxLength` does. */
function chars(text: string): number {
  let n = 0;
  for (const _ of text) n += 1;
  return n;
}

/**
 * The limits, checked on the object as JSON.parse made it, so each refusal names the key at fault
 * (`attributes.Engraving`). `__proto__` is refused by name: as a key of the parsed object it is
 * real, but zod's record (like any plain object) would silently drop it.
 */
function checkAttributes(value: unknown, ctx: z.core.ParsePayload): void {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return;
  const keys = Object.keys(value);
  const issue = (message: string, path: PropertyKey[] = []) =>
    ctx.issues.push({ code: "custom", message, input: value, path });
  if (keys.length > MAX_ATTRIBUTES) issue(`at most ${MAX_ATTRIBUTES} pairs (${keys.length} were sent)`);
  for (const key of keys) {
    const text = (value as Record<string, unknown>)[key];
    if (key === "__proto__") issue("a key other than __proto__", [key]);
    else if (chars(key) < 1 || chars(key) > MAX_ATTRIBUTE_KEY_CHARS)
      issue(`a key of 1 to ${MAX_ATTRIBUTE_KEY_CHARS} characters`, [key]);
    else if (typeof text === "string" && chars(text) > MAX_ATTRIBUTE_VALUE_CHARS)
      issue(`a value of at most ${MAX_ATTRIBUTE_VALUE_CHARS} characters`, [key]);
  }
}

export const AttributesSchema = z.pipe(
  z.transform((value, ctx) => {
    checkAttributes(value, ctx);
    return value;
  }),
  z.record(z.string().check(z.minLength(1)), z.string()),
);
export type Attributes = z.infer<typeof AttributesSchema>;

export const NoteSchema = z
  .string()
  .check(z.refine((text) => chars(text) <= MAX_NOTE_CHARS, `text of at most ${MAX_NOTE_CHARS} characters`));

export const UpdateCartRequestSchema = z.strictObject({
  note: z.optional(z.nullable(NoteSchema)),
  attributes: z.optional(z.nullable(AttributesSchema)),
  buyer: z.optional(z.nullable(BuyerSchema)),
  shipping_option: z.optional(
    z.nullable(
      z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, "a shipping option id from shipping_options")),
    ),
  ),
  discount_codes: z.optional(DiscountCodesInputSchema),
});
export type UpdateCartRequest = z.infer<typeof UpdateCartRequestSchema>;

export const AddCartLineRequestSchema = z.strictObject({
  variant_id: VariantIdInputSchema,
  quantity: z.number().check(z.int(), z.gte(1), z.lte(MAX_LINE_QUANTITY)),
  handle: z.optional(HandleSchema),
  variant_title: z.optional(z.string().check(z.minLength(1), z.maxLength(255))),
  attributes: z.optional(AttributesSchema),
});
export type AddCartLineRequest = z.infer<typeof AddCartLineRequestSchema>;

export const UpdateCartLineRequestSchema = z.strictObject({
  quantity: z.number().check(z.int(), z.gte(0), z.lte(MAX_LINE_QUANTITY)),
});
export type UpdateCartLineRequest = z.infer<typeof UpdateCartLineRequestSchema>;

export const LineIdSchema = z.string().check(z.regex(/^cl_[A-Za-z0-9]{1,64}$/));

/** Path parameters of `/cart/lines/{line_id}`. */
export const CartLinePathParamsSchema = z.strictObject({ line_id: LineIdSchema });

/** Cart endpoints take no query parameters; any given answers 400 `parameter_unknown`. */
export const CartQuerySchema = z.strictObject({});

export const IdempotencyKeySchema = z
  .string()
  .check(
    z.minLength(1),
    z.maxLength(MAX_IDEMPOTENCY_KEY_LENGTH),
    z.regex(/^[\x21-\x7e]+$/, "printable ASCII without spaces"),
  );

export const CartLineSchema = z.object({
  object: z.literal("cart_line"),
  id: LineIdSchema,
  variant_id: z.string(),
  handle: z.string(),
  title: z.string(),
  variant_title: z.string(),
  // What a cart drawer shows (issue 42 point 16).
  options: z.record(z.string(), z.string()),
  sku: z.nullable(z.string()),
  image: z.nullable(ImageSchema),
  url: z.string(),
  quantity: z.number().check(z.int(), z.gte(1), z.lte(MAX_LINE_QUANTITY)),
  unit_price: MoneySchema,
  compare_at_price: z.nullable(MoneySchema),
  line_total: MoneySchema,
  available: z.boolean(),
  attributes: z.record(z.string(), z.string()),
  in_stock: z.boolean(),
  requires_shipping: z.boolean(),
  discount_allocations: z.array(DiscountAllocationSchema),
});
export type CartLine = z.infer<typeof CartLineSchema>;

export const CartSchema = z.object({
  object: z.literal("cart"),
  id: z.string(),
  lines: z.array(CartLineSchema),
  total_quantity: z.number().check(z.int(), z.nonnegative()),
  subtotal: MoneySchema,
  // The cost (contract 10.2).
  cost: CostSchema,
  discounts: z.array(AppliedDiscountSchema),
  discount_codes: z.array(DiscountCodeResultSchema),
  shipping_options: ShippingOptionsSchema,
  shipping_option: z.nullable(ShippingOptionSchema),
  buyer: z.nullable(BuyerSchema),
  note: z.nullable(z.string()),
  attributes: z.record(z.string(), z.string()),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
  expires_at: z.iso.datetime(),
});
export type Cart = z.infer<typeof CartSchema>;

export const CartTokenSchema = z.object({
  object: z.literal("cart_token"),
  token: z.string(),
  expires_at: z.iso.datetime(),
  cart: CartSchema,
});
export type CartToken = z.infer<typeof CartTokenSchema>;

/** `POST /carts` takes no body, or an empty object; any field is 400 `parameter_unknown`. */
export const CreateCartRequestSchema = z.strictObject({});
