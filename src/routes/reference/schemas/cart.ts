/**
 * The OpenAPI documentation of the schemas of src/cart/: their component ids, descriptions and
 * examples, attached to the schemas themselves (see src/openapi/schema-docs.ts). Node side only.
 */
import { documentSchema } from "../../../openapi/schema-docs.ts";
import {
  AddCartLineRequestSchema,
  AttributesSchema,
  CartLineSchema,
  CartSchema,
  CartTokenSchema,
  CreateCartRequestSchema,
  IdempotencyKeySchema,
  LineIdSchema,
  MAX_ATTRIBUTES,
  MAX_ATTRIBUTE_KEY_CHARS,
  MAX_ATTRIBUTE_VALUE_CHARS,
  MAX_NOTE_CHARS,
  NoteSchema,
  UpdateCartLineRequestSchema,
  UpdateCartRequestSchema,
  VariantIdInputSchema,
} from "../../../cart/api.ts";

// src/cart/api.ts

documentSchema(VariantIdInputSchema, {
  id: "VariantIdInput",
  description: "A variant id: `<digits>` or `gid://shopify/ProductVariant/<digits>`.",
  example: "44102938475602",
});

documentSchema(AttributesSchema, {
  id: "Attributes",
  description:
    `Key-value pairs of plain text (at most ${MAX_ATTRIBUTES}; a key is 1–${MAX_ATTRIBUTE_KEY_CHARS} ` +
    `characters, a value at most ${MAX_ATTRIBUTE_VALUE_CHARS}; characters are Unicode code points). ` +
    "Stored and served exactly as written (no trimming, no HTML: escape them when you show them), " +
    "keys in code-point order. A refusal names the key at fault in `param` (`attributes.Gift wrap`). " +
    "The real limits: the operation's description.",
  example: { "Gift wrap": "yes", "Delivery window": "Saturday morning" },
  maxProperties: MAX_ATTRIBUTES,
});

documentSchema(AttributesSchema.def.out.def.keyType, { maxLength: MAX_ATTRIBUTE_KEY_CHARS });

documentSchema(AttributesSchema.def.out.def.valueType, { maxLength: MAX_ATTRIBUTE_VALUE_CHARS });

documentSchema(NoteSchema, {
  description:
    `A note for the order: plain text, at most ${MAX_NOTE_CHARS} characters, stored and served as written. ` +
    "The real limits: the operation's description.",
  maxLength: MAX_NOTE_CHARS,
  example: "Please leave the parcel with the neighbour at number 12.",
});

documentSchema(UpdateCartRequestSchema, {
  id: "UpdateCartRequest",
  description: "Set the cart's note and/or attributes. A field left out is left as it is.",
  example: { note: "Please gift wrap.", attributes: { "Gift wrap": "yes" } },
});

documentSchema(UpdateCartRequestSchema.shape.note, {
  description: "The cart's note; `null` clears it; absent leaves it.",
});

documentSchema(UpdateCartRequestSchema.shape.attributes, {
  description: "Replaces the cart's whole set of attributes; `null` or `{}` clears them; absent leaves them.",
});

documentSchema(AddCartLineRequestSchema, {
  id: "AddCartLineRequest",
  description: "Add units of a variant. A variant already in the cart with the same attributes adds to its line.",
  example: { variant_id: "44102938475602", quantity: 1 },
});

documentSchema(AddCartLineRequestSchema.shape.quantity, { description: "Units to add, 1–999." });

documentSchema(AddCartLineRequestSchema.shape.handle, {
  description: "When given, must be the variant's product handle.",
});

documentSchema(AddCartLineRequestSchema.shape.variant_title, {
  description: "When given, must be the variant's title (`M / Black`, `Default Title`).",
});

documentSchema(AddCartLineRequestSchema.shape.attributes, {
  description:
    "Line properties (an engraving, a gift message). The same variant with other attributes is " +
    "another line; with the same attributes (in any key order) it adds to that line.",
});

documentSchema(UpdateCartLineRequestSchema, {
  id: "UpdateCartLineRequest",
  description: "Set a line's quantity.",
  example: { quantity: 2 },
});

documentSchema(UpdateCartLineRequestSchema.shape.quantity, {
  description: "The line's new quantity; 0 removes the line.",
});

documentSchema(LineIdSchema, {
  id: "CartLineId",
  description: "A cart line id (`cl_…`). Another cart's line id answers 404 like an unknown one.",
});

documentSchema(IdempotencyKeySchema, {
  id: "IdempotencyKey",
  description:
    "Optional header on cart writes. The same key with the same request replays the first answer for 24 h. " +
    "Send a new random key per new request (a UUID); the reference's Test Request replaces this " +
    "example with a fresh key on every send (a key typed there is kept, to try a replay).",
  example: "9f1c2d6e-3b1a-4c55-8a0e-7f7b2b1d5c10",
});

documentSchema(CartLineSchema, {
  id: "CartLine",
  description: "One variant in the cart, priced against the current catalog.",
});

documentSchema(CartLineSchema.shape.title, {
  description: "The product title: plain text as the store wrote it, not HTML (escape it).",
});

documentSchema(CartLineSchema.shape.variant_title, {
  description: "The variant's title (`M / Black`, `Default Title`): plain text, not HTML (escape it).",
});

documentSchema(CartLineSchema.shape.available, {
  description: "False when the variant went sold out; such lines are left out of the subtotal.",
});

documentSchema(CartLineSchema.shape.attributes, {
  description: "The line's attributes as written (`{}` when none), keys in code-point order.",
});

documentSchema(CartLineSchema.shape.in_stock, {
  description:
    "Whether live stock still covers the line's whole quantity (section 9.3): read from the Stock object on every cart read. False when fewer units are left than the line holds (the checkout would refuse it with `insufficient_stock`) or none (then `available` is false too). Always equal to `available` for a variant whose stock is not tracked.",
});

documentSchema(CartSchema, {
  id: "Cart",
  description: "The token holder's cart. Expires 30 days after the last write; an expired cart reads as empty.",
});

documentSchema(CartSchema.shape.note, { description: "The cart's note as written, or null." });

documentSchema(CartSchema.shape.attributes, {
  description: "The cart's attributes as written (`{}` when none), keys in code-point order.",
});

documentSchema(CartTokenSchema, {
  id: "CartToken",
  description: "A new shopper token and the new, empty cart it opens.",
});

documentSchema(CartTokenSchema.shape.token, {
  description:
    "The shopper token (`sf_cart_…`): send it as `Authorization: Bearer <token>` on every cart " +
    "call. Keep it (for example in `localStorage`); it is shown in this response only.",
});

documentSchema(CartTokenSchema.shape.expires_at, {
  description: "When the token stops working, 30 days from now unless renewed (see `Cart-Token`).",
});

documentSchema(CreateCartRequestSchema, {
  id: "CreateCartRequest",
  description: "Nothing: send no body, or `{}`.",
  example: {},
});
