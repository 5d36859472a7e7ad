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
  description:
    "Set the cart's note, attributes, buyer, shipping option and/or discount codes. A field left out is left as it is.",
  example: {
    buyer: { email: "ada@example.com", country: "US", region: "CA", postal_code: "94107" },
    shipping_option: "express",
    discount_codes: ["SUMMER10"],
  },
});

documentSchema(UpdateCartRequestSchema.shape.note, {
  description: "The cart's note; `null` clears it; absent leaves it.",
});

documentSchema(UpdateCartRequestSchema.shape.attributes, {
  description: "Replaces the cart's whole set of attributes; `null` or `{}` clears them; absent leaves them.",
});

// The cost's fields (contract 10.2-10.5); the operations' own prose is src/routes/reference/cart-cost.ts.

documentSchema(UpdateCartRequestSchema.shape.buyer, {
  description:
    "Where the order goes (and who orders): replaces the buyer; `null` clears it; absent leaves it. The destination picks the shipping zone and the tax rate.",
});

documentSchema(UpdateCartRequestSchema.shape.shipping_option, {
  description:
    "The id of one of the cart's `shipping_options` (with this request's buyer, if it sets one); an id not offered is 400 `parameter_invalid`. `null`: the cheapest, which is also the default.",
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
    "Optional header on cart writes. The same key with the same request is replayed for 24 h: nothing is applied " +
    "again; a refusal answers as it was, a success with the cart as it is at the replay. " +
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

documentSchema(CartLineSchema.shape.options, {
  description:
    'The selected options, as the variants endpoint answers them (`{"size": "M", "color": "Black"}`, or `{"title": "Default Title"}`): option API name to value, plain text.',
});

documentSchema(CartLineSchema.shape.sku, { description: "The variant's SKU; null when it has none." });

documentSchema(CartLineSchema.shape.image, {
  description:
    "The picture to show for the line: the variant's own image (its colour), else the product's featured image; null when the product has none.",
});

documentSchema(CartLineSchema.shape.url, {
  description:
    "The product's path in this API (`/api/v1/products/<handle>`), as collection items give it: what a cart drawer links to (a storefront maps the handle to its own product page).",
  example: "/api/v1/products/essential-crew-tee-black",
});

documentSchema(CartLineSchema.shape.compare_at_price, {
  description:
    "The unit price before a reduction, for a struck-through price: only ever above `unit_price`, else null.",
});

documentSchema(CartLineSchema.shape.requires_shipping, {
  description:
    "Whether the variant is shipped (section 10.4): a cart whose lines all say false (gift cards, downloads) needs no destination and has no shipping charge.",
});

documentSchema(CartLineSchema.shape.discount_allocations, {
  description:
    "Each product or order discount's share of this line (a free-shipping discount has none): product discounts first, then order discounts, each in the rules' order. Every discount's shares sum exactly to its amount. `[]` for a line not priced (`available: false`).",
});

documentSchema(CartLineSchema.shape.in_stock, {
  description:
    "Whether live stock still covers the line's whole quantity (section 9.3): read from the Stock object on every cart read. False when fewer units are left than the line holds (the checkout would refuse it with `insufficient_stock`) or none (then `available` is false too). Always equal to `available` for a variant whose stock is not tracked.",
});

documentSchema(CartSchema, {
  id: "Cart",
  description: "The token holder's cart. Expires 30 days after the last write; an expired cart reads as empty.",
});

documentSchema(CartSchema.shape.discounts, {
  description:
    "The discounts the cart takes (codes entered and automatic ones), each with what it saves, in the rules' order.",
});

documentSchema(CartSchema.shape.discount_codes, {
  description:
    "One answer per code the shopper entered (`PATCH /cart`), in the order entered: whether it applies, and why not.",
});

documentSchema(CartSchema.shape.shipping_option, {
  description:
    "The rate `cost.shipping` charges: the one chosen with `PATCH /cart`, else (or when it stops applying) the cheapest offered; null when nothing is offered or nothing ships.",
});

documentSchema(CartSchema.shape.buyer, {
  description: "Where the order goes, as set with `PATCH /cart`; null until then.",
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
