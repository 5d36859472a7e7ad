/**
 * What the cart's operations say about its cost (contract 10.2-10.5): where it is, when it is
 * computed, and what `PATCH /cart` sets. The model itself (stacking, rounding, combining, the
 * worked examples) is the pricing room's, told once in the guide's "Cost: discounts, shipping and tax" (src/openapi/cost-guide.ts).
 * The fields' own descriptions are in schemas/cart.ts and schemas/pricing.ts.
 */

/** Every cart answer's cost, in short: the sentence each cart operation ends with. */
export const COST_IN_EVERY_ANSWER =
  "Every cart answer carries its **cost** (contract 10.2): `cost` (`subtotal`, `discount_total`, " +
  "`shipping`, `tax`, `total`, `tax_included`, `tax_calculated_at`), the `discounts` taken, the " +
  "answers to the entered `discount_codes`, the `shipping_options` of the buyer's zone and the " +
  "`shipping_option` charged, the `buyer`, and on each line its `discount_allocations`. It is " +
  "computed when the answer is made, from the cart's available lines, the live rules " +
  "(`npm run rules`; none: no discount, shipping or tax) and the buyer; an Idempotency-Key replay " +
  "applies nothing again and answers the cart as it is at the replay, its cost included (the key " +
  'keeps a small mark, not the answer). The model (stacking, rounding, combining, a worked example per discount kind and tax mode) is in the guide\'s "Cost: discounts, shipping and tax".';

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
