import * as z from "zod/mini";
import { CODE_REASONS } from "../discounts/types.ts";
import { MoneySchema } from "../money.ts";
import { COUNTRY_MESSAGE, isCountry, REGION_MESSAGE, REGION_PATTERN } from "../rules/countries.ts";

/**
 * The wire shapes of a cost (contract 10.2-10.5), defined once: the cart, the checkout and the
 * order answer them, rendered from a `Cost` by `renderCost`. The model (stacking, rounding,
 * combining) is told in the reference; what each field is, in src/routes/reference/schemas/pricing.ts.
 */

/** Most codes a cart holds at once. */
export const MAX_DISCOUNT_CODES = 5;
/** Longest code, trimmed. */
export const MAX_CODE_CHARS = 64;

export const BuyerSchema = z.strictObject({
  email: z.optional(z.email("an email address").check(z.maxLength(254, "an email address of at most 254 characters"))),
  country: z.string(COUNTRY_MESSAGE).check(z.refine(isCountry, COUNTRY_MESSAGE)),
  region: z.optional(z.string(REGION_MESSAGE).check(z.regex(REGION_PATTERN, REGION_MESSAGE))),
  postal_code: z.optional(
    z
      .string("text of 1 to 16 characters")
      .check(z.regex(/^[A-Za-z0-9][A-Za-z0-9 -]{0,15}$/, "1 to 16 letters, digits, spaces or hyphens")),
  ),
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
  .check(z.maxLength(MAX_DISCOUNT_CODES, `at most ${MAX_DISCOUNT_CODES} codes`));

export const CostSchema = z.object({
  subtotal: MoneySchema,
  discount_total: MoneySchema,
  shipping: z.nullable(MoneySchema),
  tax: z.nullable(MoneySchema),
  total: MoneySchema,
  tax_included: z.boolean(),
  tax_calculated_at: z.nullable(z.literal("payment")),
});
export type CostWire = z.infer<typeof CostSchema>;

export const AppliedDiscountSchema = z.object({
  id: z.string(),
  title: z.string(),
  code: z.nullable(z.string()),
  amount: MoneySchema,
});

export const DiscountAllocationSchema = z.object({ discount_id: z.string(), amount: MoneySchema });

export const DiscountCodeResultSchema = z.object({
  code: z.string(),
  applicable: z.boolean(),
  reason: z.nullable(z.enum(CODE_REASONS)),
  message: z.string(),
});

export const ShippingOptionSchema = z.object({ id: z.string(), title: z.string(), price: MoneySchema });

export const DiscountsSchema = z.array(AppliedDiscountSchema);
export const DiscountAllocationsSchema = z.array(DiscountAllocationSchema);
export const DiscountCodesSchema = z.array(DiscountCodeResultSchema);
export const ShippingOptionsSchema = z.array(ShippingOptionSchema);
