import * as z from "zod";
import { HandleSchema } from "../catalog/schema.ts";
import { MoneySchema } from "../money.ts";

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
  .regex(/^(\d{1,20}|gid:\/\/shopify\/ProductVariant\/\d{1,20})$/, "digits or gid://shopify/ProductVariant/<digits>")
  .meta({
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
function checkAttributes(value: unknown, ctx: z.core.$RefinementCtx): void {
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
  .preprocess(
    (value, ctx) => {
      checkAttributes(value, ctx);
      return value;
    },
    z.record(
      z.string().min(1).meta({ maxLength: MAX_ATTRIBUTE_KEY_CHARS }),
      z.string().meta({ maxLength: MAX_ATTRIBUTE_VALUE_CHARS }),
    ),
  )
  .meta({
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
  .refine((text) => chars(text) <= MAX_NOTE_CHARS, `text of at most ${MAX_NOTE_CHARS} characters`)
  .meta({
    description: `A note for the order: plain text, at most ${MAX_NOTE_CHARS} characters, stored and served as written.`,
    maxLength: MAX_NOTE_CHARS,
    example: "Please leave the parcel with the neighbour at number 12.",
  });

export const UpdateCartRequestSchema = z
  .strictObject({
    note: NoteSchema.nullable()
      .optional()
      .meta({ description: "The cart's note; `null` clears it; absent leaves it." }),
    attributes: AttributesSchema.nullable().optional().meta({
      description: "Replaces the cart's whole set of attributes; `null` or `{}` clears them; absent leaves them.",
    }),
  })
  .meta({
    id: "UpdateCartRequest",
    description: "Set the cart's note and/or attributes. A field left out is left as it is.",
    example: { note: "Please gift wrap.", attributes: { "Gift wrap": "yes" } },
  });
export type UpdateCartRequest = z.infer<typeof UpdateCartRequestSchema>;

export const AddCartLineRequestSchema = z
  .strictObject({
    variant_id: VariantIdInputSchema,
    quantity: z.number().int().min(1).max(MAX_LINE_QUANTITY).meta({ description: "Units to add, 1–999." }),
    handle: HandleSchema.optional().meta({ description: "When given, must be the variant's product handle." }),
    variant_title: z
      .string()
      .min(1)
      .max(255)
      .optional()
      .meta({ description: "When given, must be the variant's title (`M / Black`, `Default Title`)." }),
    attributes: AttributesSchema.optional().meta({
      description:
        "Line properties (an engraving, a gift message). The same variant with other attributes is " +
        "another line; with the same attributes (in any key order) it adds to that line.",
    }),
  })
  .meta({
    id: "AddCartLineRequest",
    description: "Add units of a variant. A variant already in the cart with the same attributes adds to its line.",
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
    attributes: z
      .record(z.string(), z.string())
      .meta({ description: "The line's attributes as written (`{}` when none), keys in code-point order." }),
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
    note: z.string().nullable().meta({ description: "The cart's note as written, or null." }),
    attributes: z
      .record(z.string(), z.string())
      .meta({ description: "The cart's attributes as written (`{}` when none), keys in code-point order." }),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
    expires_at: z.iso.datetime(),
  })
  .meta({
    id: "Cart",
    description: "The token holder's cart. Expires 30 days after the last write; an expired cart reads as empty.",
  });
export type Cart = z.infer<typeof CartSchema>;

export const CartTokenSchema = z
  .object({
    object: z.literal("cart_token"),
    token: z.string().meta({
      description:
        "The shopper token (`sf_cart_…`): send it as `Authorization: Bearer <token>` on every cart " +
        "call. Keep it (for example in `localStorage`); it is shown in this response only.",
    }),
    expires_at: z.iso.datetime().meta({
      description: "When the token stops working, 30 days from now unless renewed (see `Cart-Token`).",
    }),
    cart: CartSchema,
  })
  .meta({
    id: "CartToken",
    description: "A new shopper token and the new, empty cart it opens.",
  });
export type CartToken = z.infer<typeof CartTokenSchema>;

/** `POST /carts` takes no body, or an empty object; any field is 400 `parameter_unknown`. */
export const CreateCartRequestSchema = z
  .strictObject({})
  .meta({ id: "CreateCartRequest", description: "Nothing: send no body, or `{}`.", example: {} });
