import * as z from "zod/mini";
import { ImageSchema } from "../catalog/api.ts";
import { HandleSchema } from "../catalog/schema.ts";
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
  )
  .register(z.globalRegistry, {
    id: "VariantIdInput",
    description: "A variant id: `<digits>` or `gid://shopify/ProductVariant/<digits>`.",
    example: "44102938475602",
  });

/** Most characters (Unicode code points) in a cart's note. */
export const MAX_NOTE_CHARS = 5000;
/** Most attribute pairs on a cart or a line. */
export const MAX_ATTRIBUTES = 50;
/** Longest attribute key and value, in characters (Unicode code points). */
export const MAX_ATTRIBUTE_KEY_CHARS = 100;
export const MAX_ATTRIBUTE_VALUE_CHARS = 1000;

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

export const AttributesSchema = z
  .pipe(
    z.transform((value, ctx) => {
      checkAttributes(value, ctx);
      return value;
    }),
    z.record(
      z.string().check(z.minLength(1)).register(z.globalRegistry, { maxLength: MAX_ATTRIBUTE_KEY_CHARS }),
      z.string().register(z.globalRegistry, { maxLength: MAX_ATTRIBUTE_VALUE_CHARS }),
    ),
  )
  .register(z.globalRegistry, {
    id: "Attributes",
    description:
      `Key-value pairs of plain text (at most ${MAX_ATTRIBUTES}; a key is 1–${MAX_ATTRIBUTE_KEY_CHARS} ` +
      `characters, a value at most ${MAX_ATTRIBUTE_VALUE_CHARS}; characters are Unicode code points). ` +
      "Stored and served exactly as written (no trimming, no HTML: escape them when you show them), " +
      "keys in code-point order. A refusal names the key at fault in `param` (`attributes.Gift wrap`).",
    example: { "Gift wrap": "yes", "Delivery window": "Saturday morning" },
  });
export type Attributes = z.infer<typeof AttributesSchema>;

export const NoteSchema = z
  .string()
  .check(z.refine((text) => chars(text) <= MAX_NOTE_CHARS, `text of at most ${MAX_NOTE_CHARS} characters`))
  .register(z.globalRegistry, {
    description: `A note for the order: plain text, at most ${MAX_NOTE_CHARS} characters, stored and served as written.`,
    maxLength: MAX_NOTE_CHARS,
    example: "Please leave the parcel with the neighbour at number 12.",
  });

export const UpdateCartRequestSchema = z
  .strictObject({
    note: z
      .optional(z.nullable(NoteSchema))
      .register(z.globalRegistry, { description: "The cart's note; `null` clears it; absent leaves it." }),
    attributes: z.optional(z.nullable(AttributesSchema)).register(z.globalRegistry, {
      description: "Replaces the cart's whole set of attributes; `null` or `{}` clears them; absent leaves them.",
    }),
    // The pricing fields' descriptions are registered Node-side (src/routes/reference/cart-cost.ts),
    // so their prose stays out of the Worker bundle.
    buyer: z.optional(z.nullable(BuyerSchema)),
    shipping_option: z.optional(
      z.nullable(
        z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, "a shipping option id from shipping_options")),
      ),
    ),
    discount_codes: z.optional(DiscountCodesInputSchema),
  })
  .register(z.globalRegistry, {
    id: "UpdateCartRequest",
    description:
      "Set the cart's note, attributes, buyer, shipping option and/or discount codes. A field left out is left as it is.",
    example: {
      buyer: { email: "ada@example.com", country: "US", region: "CA", postal_code: "94107" },
      shipping_option: "express",
      discount_codes: ["SUMMER10"],
    },
  });
export type UpdateCartRequest = z.infer<typeof UpdateCartRequestSchema>;

export const AddCartLineRequestSchema = z
  .strictObject({
    variant_id: VariantIdInputSchema,
    quantity: z
      .number()
      .check(z.int(), z.gte(1), z.lte(MAX_LINE_QUANTITY))
      .register(z.globalRegistry, { description: "Units to add, 1–999." }),
    handle: z
      .optional(HandleSchema)
      .register(z.globalRegistry, { description: "When given, must be the variant's product handle." }),
    variant_title: z.optional(z.string().check(z.minLength(1), z.maxLength(255))).register(z.globalRegistry, {
      description: "When given, must be the variant's title (`M / Black`, `Default Title`).",
    }),
    attributes: z.optional(AttributesSchema).register(z.globalRegistry, {
      description:
        "Line properties (an engraving, a gift message). The same variant with other attributes is " +
        "another line; with the same attributes (in any key order) it adds to that line.",
    }),
  })
  .register(z.globalRegistry, {
    id: "AddCartLineRequest",
    description: "Add units of a variant. A variant already in the cart with the same attributes adds to its line.",
    example: { variant_id: "44102938475602", quantity: 1 },
  });
export type AddCartLineRequest = z.infer<typeof AddCartLineRequestSchema>;

export const UpdateCartLineRequestSchema = z
  .strictObject({
    quantity: z
      .number()
      .check(z.int(), z.gte(0), z.lte(MAX_LINE_QUANTITY))
      .register(z.globalRegistry, { description: "The line's new quantity; 0 removes the line." }),
  })
  .register(z.globalRegistry, {
    id: "UpdateCartLineRequest",
    description: "Set a line's quantity.",
    example: { quantity: 2 },
  });
export type UpdateCartLineRequest = z.infer<typeof UpdateCartLineRequestSchema>;

export const LineIdSchema = z
  .string()
  .check(z.regex(/^cl_[A-Za-z0-9]{1,64}$/))
  .register(z.globalRegistry, {
    id: "CartLineId",
    description: "A cart line id (`cl_…`). Another cart's line id answers 404 like an unknown one.",
  });

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
  )
  .register(z.globalRegistry, {
    id: "IdempotencyKey",
    description:
      "Optional header on cart writes. The same key with the same request replays the first answer for 24 h. " +
      "Send a new random key per new request (a UUID); the reference's Test Request replaces this " +
      "example with a fresh key on every send (a key typed there is kept, to try a replay).",
    example: "9f1c2d6e-3b1a-4c55-8a0e-7f7b2b1d5c10",
  });

export const CartLineSchema = z
  .object({
    object: z.literal("cart_line"),
    id: LineIdSchema,
    variant_id: z.string(),
    handle: z.string(),
    title: z.string().register(z.globalRegistry, {
      description: "The product title: plain text as the store wrote it, not HTML (escape it).",
    }),
    variant_title: z.string().register(z.globalRegistry, {
      description: "The variant's title (`M / Black`, `Default Title`): plain text, not HTML (escape it).",
    }),
    // What a cart drawer shows (issue 42 point 16); described Node-side (src/routes/reference/cart-cost.ts).
    options: z.record(z.string(), z.string()),
    sku: z.nullable(z.string()),
    image: z.nullable(ImageSchema),
    url: z.string(),
    quantity: z.number().check(z.int(), z.gte(1), z.lte(MAX_LINE_QUANTITY)),
    unit_price: MoneySchema,
    compare_at_price: z.nullable(MoneySchema),
    line_total: MoneySchema,
    available: z.boolean().register(z.globalRegistry, {
      description: "False when the variant went sold out; such lines are left out of the subtotal.",
    }),
    attributes: z.record(z.string(), z.string()).register(z.globalRegistry, {
      description: "The line's attributes as written (`{}` when none), keys in code-point order.",
    }),
    in_stock: z.boolean().register(z.globalRegistry, {
      description:
        "Whether live stock still covers the line's whole quantity (section 9.3): read from the Stock object on every cart read. False when fewer units are left than the line holds (the checkout would refuse it with `insufficient_stock`) or none (then `available` is false too). Always equal to `available` for a variant whose stock is not tracked.",
    }),
    requires_shipping: z.boolean(),
    discount_allocations: z.array(DiscountAllocationSchema),
  })
  .register(z.globalRegistry, {
    id: "CartLine",
    description: "One variant in the cart, priced against the current catalog.",
  });
export type CartLine = z.infer<typeof CartLineSchema>;

export const CartSchema = z
  .object({
    object: z.literal("cart"),
    id: z.string(),
    lines: z.array(CartLineSchema),
    total_quantity: z.number().check(z.int(), z.nonnegative()),
    subtotal: MoneySchema,
    // The cost (contract 10.2); its fields are described Node-side (src/routes/reference/cart-cost.ts).
    cost: CostSchema,
    discounts: z.array(AppliedDiscountSchema),
    discount_codes: z.array(DiscountCodeResultSchema),
    shipping_options: ShippingOptionsSchema,
    shipping_option: z.nullable(ShippingOptionSchema),
    buyer: z.nullable(BuyerSchema),
    note: z.nullable(z.string()).register(z.globalRegistry, { description: "The cart's note as written, or null." }),
    attributes: z.record(z.string(), z.string()).register(z.globalRegistry, {
      description: "The cart's attributes as written (`{}` when none), keys in code-point order.",
    }),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
    expires_at: z.iso.datetime(),
  })
  .register(z.globalRegistry, {
    id: "Cart",
    description: "The token holder's cart. Expires 30 days after the last write; an expired cart reads as empty.",
  });
export type Cart = z.infer<typeof CartSchema>;

export const CartTokenSchema = z
  .object({
    object: z.literal("cart_token"),
    token: z.string().register(z.globalRegistry, {
      description:
        "The shopper token (`sf_cart_…`): send it as `Authorization: Bearer <token>` on every cart " +
        "call. Keep it (for example in `localStorage`); it is shown in this response only.",
    }),
    expires_at: z.iso.datetime().register(z.globalRegistry, {
      description: "When the token stops working, 30 days from now unless renewed (see `Cart-Token`).",
    }),
    cart: CartSchema,
  })
  .register(z.globalRegistry, {
    id: "CartToken",
    description: "A new shopper token and the new, empty cart it opens.",
  });
export type CartToken = z.infer<typeof CartTokenSchema>;

/** `POST /carts` takes no body, or an empty object; any field is 400 `parameter_unknown`. */
export const CreateCartRequestSchema = z
  .strictObject({})
  .register(z.globalRegistry, { id: "CreateCartRequest", description: "Nothing: send no body, or `{}`.", example: {} });
