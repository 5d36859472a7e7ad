import { documentSchema } from "../../../openapi/schema-docs.ts";
import {
  AppliedDiscountSchema,
  BuyerSchema,
  CostSchema,
  DiscountAllocationSchema,
  DiscountCodeResultSchema,
  DiscountCodesInputSchema,
  MAX_DISCOUNT_CODES,
  ShippingOptionSchema,
  ShippingOptionsSchema,
} from "../../../pricing/api.ts";

// src/pricing/api.ts

documentSchema(BuyerSchema, {
  id: "Buyer",
  description:
    "Where the order goes, and who orders: the destination picks the shipping zone and the tax rate; the email is checked at checkout for once-per-buyer discounts.",
  example: { email: "ada@example.com", country: "US", region: "CA", postal_code: "94107" },
});

documentSchema(BuyerSchema.shape.email.def.innerType, {
  description:
    "An address as `format: email` means it: at most 64 characters before the `@` (letters, digits and `_ ' + -`, dots between), a host name whose labels are 1 to 63 letters, digits or hyphens, none first or last, and 254 characters in all. Anything else is 400 `parameter_invalid`.",
});

documentSchema(BuyerSchema.shape.country, { description: "ISO 3166-1 alpha-2, in capitals." });

documentSchema(BuyerSchema.shape.region.def.innerType, {
  description: "ISO 3166-2 subdivision without the country: `CA` for US-CA.",
});

documentSchema(DiscountCodesInputSchema, {
  description: `At most ${MAX_DISCOUNT_CODES} codes; trimmed, compared without case. Replaces the cart's codes; \`[]\` clears them.`,
  example: ["SUMMER10"],
});

documentSchema(CostSchema, {
  id: "Cost",
  description:
    "The cart's cost: total = subtotal − discount_total + shipping + tax (tax only when prices exclude it), exactly, in the currency's minor units.",
});

documentSchema(CostSchema.shape.shipping, {
  description:
    "The selected rate's price (a free-shipping discount counts in `discount_total`); null when nothing ships, the store has no zones, or no destination or rate is known yet.",
});

documentSchema(CostSchema.shape.tax, {
  description:
    "Null with no tax rules, in modes `none` and `stripe`, and (mode `exclusive`) until a destination is known.",
});

documentSchema(CostSchema.shape.tax_included, {
  description: "True when prices include the tax (mode `inclusive`): `tax` is then part of `total`, not added.",
});

documentSchema(CostSchema.shape.tax_calculated_at, {
  description: '`"payment"` in mode `stripe`: the payment session computes the tax. Null otherwise.',
});

documentSchema(AppliedDiscountSchema, {
  id: "AppliedDiscount",
  description: "A discount the cart takes, and what it saves.",
});

documentSchema(AppliedDiscountSchema.shape.code, { description: "Null for an automatic discount." });

documentSchema(DiscountAllocationSchema, { id: "DiscountAllocation", description: "A discount's share of one line." });

documentSchema(DiscountCodeResultSchema, {
  id: "DiscountCodeResult",
  description: "The answer to one entered code. An unknown or inapplicable code is never an error status.",
});

documentSchema(DiscountCodeResultSchema.shape.code, { description: "As entered, trimmed." });

documentSchema(DiscountCodeResultSchema.shape.reason, {
  description: "Why the code does not apply; null when it does. Branch on this, not on `message`.",
});

documentSchema(DiscountCodeResultSchema.shape.message, {
  description: "A sentence a storefront can show (English): `Add 12.50 more to use SUMMER10.`",
});

documentSchema(ShippingOptionSchema, { id: "ShippingOption", description: "A shipping rate the cart can take." });

documentSchema(ShippingOptionsSchema, {
  description:
    "The destination zone's rates whose conditions the cart meets, cheapest first; `[]` until a destination is known.",
});
