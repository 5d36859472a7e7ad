import * as z from "zod/mini";
import { CODE_REASONS } from "../discounts/types.ts";
import { MoneySchema } from "../money.ts";
import { COUNTRY_MESSAGE, isCountry, REGION_MESSAGE, REGION_PATTERN } from "../rules/countries.ts";

/**
 * The wire shapes of a cost (contract 10.2-10.5), defined once: the cart, the checkout and the
 * order answer them, rendered from a `Cost` by `renderCost`. The model (stacking, rounding,
 * combining) is told in the reference; these descriptions say what each field is.
 */

/** Most codes a cart holds at once. */
export const MAX_DISCOUNT_CODES = 5;
/** Longest code, trimmed. */
export const MAX_CODE_CHARS = 64;

export const BuyerSchema = z
  .strictObject({
    email: z.optional(
      z.email("an email address").check(z.maxLength(254, "an email address of at most 254 characters")),
    ),
    country: z
      .string(COUNTRY_MESSAGE)
      .check(z.refine(isCountry, COUNTRY_MESSAGE))
      .register(z.globalRegistry, { description: "ISO 3166-1 alpha-2, in capitals." }),
    region: z.optional(
      z
        .string(REGION_MESSAGE)
        .check(z.regex(REGION_PATTERN, REGION_MESSAGE))
        .register(z.globalRegistry, { description: "ISO 3166-2 subdivision without the country: `CA` for US-CA." }),
    ),
    postal_code: z.optional(
      z
        .string("text of 1 to 16 characters")
        .check(z.regex(/^[A-Za-z0-9][A-Za-z0-9 -]{0,15}$/, "1 to 16 letters, digits, spaces or hyphens")),
    ),
  })
  .register(z.globalRegistry, {
    id: "Buyer",
    description:
      "Where the order goes, and who orders: the destination picks the shipping zone and the tax rate; the email is checked at checkout for once-per-buyer discounts.",
    example: { email: "ada@example.com", country: "US", region: "CA", postal_code: "94107" },
  });
export type Buyer = z.infer<typeof BuyerSchema>;

/** `PATCH /cart`'s `discount_codes`: replaces the set; each code is trimmed and compared without case. */
export const DiscountCodesInputSchema = z
  .array(
    z
      .string("a code")
      .check(
        z.refine(
          (code) => code.trim().length >= 1 && code.trim().length <= MAX_CODE_CHARS,
          `a code of 1 to ${MAX_CODE_CHARS} characters`,
        ),
      ),
    "a list of codes",
  )
  .check(z.maxLength(MAX_DISCOUNT_CODES, `at most ${MAX_DISCOUNT_CODES} codes`))
  .register(z.globalRegistry, {
    description: `At most ${MAX_DISCOUNT_CODES} codes; trimmed, compared without case. Replaces the cart's codes; \`[]\` clears them.`,
    example: ["SUMMER10"],
  });

export const CostSchema = z
  .object({
    subtotal: MoneySchema,
    discount_total: MoneySchema,
    shipping: z.nullable(MoneySchema).register(z.globalRegistry, {
      description:
        "The selected rate's price (a free-shipping discount counts in `discount_total`); null when nothing ships, the store has no zones, or no destination or rate is known yet.",
    }),
    tax: z.nullable(MoneySchema).register(z.globalRegistry, {
      description:
        "Null with no tax rules, in modes `none` and `stripe`, and (mode `exclusive`) until a destination is known.",
    }),
    total: MoneySchema,
    tax_included: z.boolean().register(z.globalRegistry, {
      description: "True when prices include the tax (mode `inclusive`): `tax` is then part of `total`, not added.",
    }),
    tax_calculated_at: z.nullable(z.literal("payment")).register(z.globalRegistry, {
      description: '`"payment"` in mode `stripe`: the payment session computes the tax. Null otherwise.',
    }),
  })
  .register(z.globalRegistry, {
    id: "Cost",
    description:
      "The cart's cost: total = subtotal − discount_total + shipping + tax (tax only when prices exclude it), exactly, in the currency's minor units.",
  });
export type CostWire = z.infer<typeof CostSchema>;

export const AppliedDiscountSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    code: z.nullable(z.string()).register(z.globalRegistry, { description: "Null for an automatic discount." }),
    amount: MoneySchema,
  })
  .register(z.globalRegistry, { id: "AppliedDiscount", description: "A discount the cart takes, and what it saves." });

export const DiscountAllocationSchema = z
  .object({ discount_id: z.string(), amount: MoneySchema })
  .register(z.globalRegistry, { id: "DiscountAllocation", description: "A discount's share of one line." });

export const DiscountCodeResultSchema = z
  .object({
    code: z.string().register(z.globalRegistry, { description: "As entered, trimmed." }),
    applicable: z.boolean(),
    reason: z.nullable(z.enum(CODE_REASONS)).register(z.globalRegistry, {
      description: "Why the code does not apply; null when it does. Branch on this, not on `message`.",
    }),
    message: z.string().register(z.globalRegistry, {
      description: "A sentence a storefront can show (English): `Add 12.50 more to use SUMMER10.`",
    }),
  })
  .register(z.globalRegistry, {
    id: "DiscountCodeResult",
    description: "The answer to one entered code. An unknown or inapplicable code is never an error status.",
  });

export const ShippingOptionSchema = z
  .object({ id: z.string(), title: z.string(), price: MoneySchema })
  .register(z.globalRegistry, { id: "ShippingOption", description: "A shipping rate the cart can take." });

export const DiscountsSchema = z.array(AppliedDiscountSchema);
export const DiscountAllocationsSchema = z.array(DiscountAllocationSchema);
export const DiscountCodesSchema = z.array(DiscountCodeResultSchema);
export const ShippingOptionsSchema = z.array(ShippingOptionSchema).register(z.globalRegistry, {
  description:
    "The destination zone's rates whose conditions the cart meets, cheapest first; `[]` until a destination is known.",
});
