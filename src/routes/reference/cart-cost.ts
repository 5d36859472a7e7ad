import * as z from "zod/mini";
import { CartLineSchema, CartSchema, UpdateCartRequestSchema } from "../../cart/api.ts";

/**
 * What the cart's operations say about its cost (contract 10.2-10.5): where it is, when it is
 * computed, and what `PATCH /cart` sets. The model itself (stacking, rounding, combining, the
 * worked examples) is the pricing room's, told once in the guide's "Cost: discounts, shipping and tax" (src/openapi/cost-guide.ts).
 */

/** Every cart answer's cost, in short: the sentence each cart operation ends with. */
export const COST_IN_EVERY_ANSWER =
  "Every cart answer carries its **cost** (contract 10.2): `cost` (`subtotal`, `discount_total`, " +
  "`shipping`, `tax`, `total`, `tax_included`, `tax_calculated_at`), the `discounts` taken, the " +
  "answers to the entered `discount_codes`, the `shipping_options` of the buyer's zone and the " +
  "`shipping_option` charged, the `buyer`, and on each line its `discount_allocations`. It is " +
  "computed when the answer is made, from the cart's available lines, the live rules " +
  "(`npm run rules`; none: no discount, shipping or tax) and the buyer; an Idempotency-Key replay " +
  'answers what the first answer said. The model (stacking, rounding, combining, a worked example per discount kind and tax mode) is in the guide\'s "Cost: discounts, shipping and tax".';

/** `PATCH /cart`'s pricing fields. */
export const PATCH_PRICING =
  "**Pricing fields** (contract 10.3-10.4), each optional, each left as it is when absent:\n" +
  "- `buyer`: `{email?, country, region?, postal_code?}` replaces the buyer (`null` clears it). " +
  "`country` is ISO 3166-1 alpha-2 (`US`), `region` an ISO 3166-2 subdivision without the country " +
  "(`CA` for US-CA). The country picks the shipping zone and, with the region, the tax rate " +
  "(region first, then the country alone, else no rate: tax 0); the email is what checkout checks " +
  "`once_per_buyer` discounts against.\n" +
  "- `shipping_option`: the `id` of one of `shipping_options`, checked against this request's " +
  "buyer when it sets one: an id not offered is **400** `parameter_invalid` (`param: " +
  "shipping_option`, naming the ids that are) and nothing changes. `null` (the default) takes " +
  "the cheapest. A chosen option that stops applying (another zone, a subtotal below its " +
  "`min_subtotal`) falls back to the cheapest, and comes back when it applies again.\n" +
  "- `discount_codes`: replaces the entered codes (`[]` clears them): at most 5, each trimmed, " +
  "compared without case (the same code twice is kept once, as first typed). **An unknown or " +
  "inapplicable code is never an error status**: the answer's `discount_codes` says, per code, " +
  "`applicable` and a machine `reason` (`unknown`, `not_started`, `expired`, `minimum_not_met`, " +
  "`no_eligible_lines`, `usage_limit_reached`, `not_combinable`, `once_per_buyer`) with a message " +
  "a storefront can show. (`usage_limit_reached` needs the usage counters of a later release; " +
  "until then a limit is not enforced in the cart.)\n\n" +
  "`DELETE /cart`, and a completed checkout, clear them with the lines, the note and the attributes.";

/**
 * Descriptions of schema fields, registered here (Node side: the document builder loads the
 * reference) instead of beside the schema in Worker code, so their prose never reaches the
 * Worker bundle, whose budget is 100 KiB gzip. Each field's schema is its own instance (a
 * wrapper made for that field), so a description lands on that field alone.
 */
function describeFields(
  shape: Record<string, z.ZodMiniType>,
  fields: Record<string, string | { description: string; example: unknown }>,
): void {
  for (const [name, doc] of Object.entries(fields)) {
    const field = shape[name];
    if (!field) throw new Error(`No field ${name} to describe.`);
    z.globalRegistry.add(field, typeof doc === "string" ? { description: doc } : doc);
  }
}

describeFields(CartLineSchema.shape, {
  options:
    'The selected options, as the variants endpoint answers them (`{"size": "M", "color": "Black"}`, or `{"title": "Default Title"}`): option API name to value, plain text.',
  sku: "The variant's SKU; null when it has none.",
  image:
    "The picture to show for the line: the variant's own image (its colour), else the product's featured image; null when the product has none.",
  url: {
    description:
      "The product's path in this API (`/api/v1/products/<handle>`), as collection items give it: what a cart drawer links to (a storefront maps the handle to its own product page).",
    example: "/api/v1/products/essential-crew-tee-black",
  },
  compare_at_price:
    "The unit price before a reduction, for a struck-through price: only ever above `unit_price`, else null.",
  requires_shipping:
    "Whether the variant is shipped (section 10.4): a cart whose lines all say false (gift cards, downloads) needs no destination and has no shipping charge.",
  discount_allocations:
    "Each product or order discount's share of this line (a free-shipping discount has none): product discounts first, then order discounts, each in the rules' order. Every discount's shares sum exactly to its amount. `[]` for a line not priced (`available: false`).",
});

describeFields(CartSchema.shape, {
  discounts:
    "The discounts the cart takes (codes entered and automatic ones), each with what it saves, in the rules' order.",
  discount_codes:
    "One answer per code the shopper entered (`PATCH /cart`), in the order entered: whether it applies, and why not.",
  shipping_option:
    "The rate `cost.shipping` charges: the one chosen with `PATCH /cart`, else (or when it stops applying) the cheapest offered; null when nothing is offered or nothing ships.",
  buyer: "Where the order goes, as set with `PATCH /cart`; null until then.",
});

describeFields(UpdateCartRequestSchema.shape, {
  buyer:
    "Where the order goes (and who orders): replaces the buyer; `null` clears it; absent leaves it. The destination picks the shipping zone and the tax rate.",
  shipping_option:
    "The id of one of the cart's `shipping_options` (with this request's buyer, if it sets one); an id not offered is 400 `parameter_invalid`. `null`: the cheapest, which is also the default.",
});
