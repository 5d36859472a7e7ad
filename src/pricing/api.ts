import * as z from "zod/mini";
import { CODE_REASONS } from "../discounts/types.ts";
import { MoneySchema } from "../money.ts";
import { COUNTRY_MESSAGE, isCountry, REGION_MESSAGE, REGION_PATTERN } from "../rules/countries.ts";

/**
 * The wire shapes of a cost (contract 10.2-10.5), defined once: the cart, the checkout and the
 * order answer them, rendered from a `Cost` by `renderCost`. The model (stacking, rounding,
 * combining) is told in the reference; what each field is, in src/routes/reference/schemas/pricing.ts.
 *
 * The schemas of answers, which only the reference and the tests parse, are each built by an
 * arrow function called at once and marked `@__PURE__`: the bundler can then leave out of the
 * Worker each one no Worker code uses (docs/decisions/0009-schema-docs-out-of-the-worker.md, "Answers' schemas").
 */

/** Most codes a cart holds at once. */
export const MAX_DISCOUNT_CODES = 5;
/** Longest code, trimmed. */
export const MAX_CODE_CHARS = 64;

/**
 * An email address as the document's `format: email` means it (RFC 5321's dot-atom local part of
 * ordinary characters, a host name's labels): zod's own pattern let a domain label end in a hyphen
 * or run past 63 characters, addresses a standard validator (Schemathesis's) refuses. The local
 * part's 64 characters are checked beside it (a pattern without look-ahead, for every engine).
 */
const EMAIL_PATTERN =
  /^(?:[A-Za-z0-9_'+-]+\.)*[A-Za-z0-9_'+-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;
const EMAIL_MESSAGE = "an email address (a local part of at most 64 characters, host name labels of at most 63)";

export const BuyerSchema = z.strictObject({
  email: z.optional(
    z.email({ pattern: EMAIL_PATTERN, error: EMAIL_MESSAGE }).check(
      z.maxLength(254, "an email address of at most 254 characters"),
      z.refine((email) => email.indexOf("@") <= 64, EMAIL_MESSAGE),
    ),
  ),
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

export const CostSchema = /* @__PURE__ */ (() =>
  z.object({
    subtotal: MoneySchema,
    discount_total: MoneySchema,
    shipping: z.nullable(MoneySchema),
    tax: z.nullable(MoneySchema),
    total: MoneySchema,
    tax_included: z.boolean(),
    tax_calculated_at: z.nullable(z.literal("payment")),
  }))();
export type CostWire = z.infer<typeof CostSchema>;

export const AppliedDiscountSchema = /* @__PURE__ */ (() =>
  z.object({
    id: z.string(),
    title: z.string(),
    code: z.nullable(z.string()),
    amount: MoneySchema,
  }))();

export const DiscountAllocationSchema = /* @__PURE__ */ (() =>
  z.object({ discount_id: z.string(), amount: MoneySchema }))();

export const DiscountCodeResultSchema = /* @__PURE__ */ (() =>
  z.object({
    code: z.string(),
    applicable: z.boolean(),
    reason: z.nullable(z.enum(CODE_REASONS)),
    message: z.string(),
  }))();

export const ShippingOptionSchema = /* @__PURE__ */ (() =>
  z.object({ id: z.string(), title: z.string(), price: MoneySchema }))();

export const DiscountsSchema = /* @__PURE__ */ (() => z.array(AppliedDiscountSchema))();
export const DiscountAllocationsSchema = /* @__PURE__ */ (() => z.array(DiscountAllocationSchema))();
export const DiscountCodesSchema = /* @__PURE__ */ (() => z.array(DiscountCodeResultSchema))();
export const ShippingOptionsSchema = /* @__PURE__ */ (() => z.array(ShippingOptionSchema))();
