import * as z from "zod/mini";
import { HandleSchema, VariantIdSchema } from "../catalog/fields.ts";
import type { Currency } from "../money.ts";
import type { Ratio } from "../money-math.ts";

export { codeKey } from "./codes.ts";
import { COUNTRY_MESSAGE, isCountry, REGION_MESSAGE, REGION_PATTERN } from "./countries.ts";

/**
 * The store's rules document (contract 10.1): discounts, shipping zones and tax, published apart
 * from the catalog. `RulesDocumentSchema` is its shape (what `PUT /operator/rules` and
 * `npm run rules -- publish` accept, every key optional, unknown keys refused at every level);
 * `parseRules` checks it against the catalog's currency and compiles it into `Rules`, with every
 * amount in integer minor units and every rate an exact ratio, so pricing never parses a string.
 */

/** A discount's or a shipping rate's id: what the API answers and a usage counter is named by. */
const IdSchema = z
  .string("an id of 1 to 64 letters, digits, '.', '_' or '-'")
  .check(z.regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, "an id of 1 to 64 letters, digits, '.', '_' or '-'"));
const TitleSchema = z
  .string("text of 1 to 255 characters")
  .check(z.minLength(1, "text of 1 to 255 characters"), z.maxLength(255, "text of 1 to 255 characters"));
/** A decimal string; what it may hold (a percentage, an amount in the currency) is checked with the document. */
const DecimalSchema = z
  .string('a decimal string such as "10" or "5.00"')
  .check(z.regex(/^\d{1,9}(\.\d{1,4})?$/, 'a decimal string such as "10" or "5.00"'));
const CountSchema = (low: number, what: string) =>
  z
    .number(`an integer of at least ${low}${what}`)
    .check(
      z.int(`an integer of at least ${low}${what}`),
      z.gte(low, `an integer of at least ${low}${what}`),
      z.lte(1_000_000_000, "at most 1000000000"),
    );
const list = <T extends z.ZodMiniType>(item: T, max: number, what: string) =>
  z.array(item, `a list of ${what}`).check(z.maxLength(max, `at most ${max} ${what}`));
const TimeSchema = z.iso.datetime({
  offset: true,
  error: 'an ISO 8601 time with its offset, such as "2026-12-01T00:00:00Z"',
});
const CountrySchema = z.string(COUNTRY_MESSAGE).check(z.refine(isCountry, COUNTRY_MESSAGE));

export const DISCOUNT_KINDS = ["percentage", "fixed_amount", "free_shipping", "buy_x_get_y"] as const;
export type DiscountKind = (typeof DISCOUNT_KINDS)[number];
export const DISCOUNT_CLASSES = ["order", "product", "shipping"] as const;
export type DiscountClass = (typeof DISCOUNT_CLASSES)[number];
export const TAX_MODES = ["exclusive", "inclusive", "none", "stripe"] as const;
export type TaxMode = (typeof TAX_MODES)[number];

/** Whom a discount is for: the lines of these products (handles), collections (handles) or variants (ids). */
const TargetSchema = z.strictObject(
  {
    products: z.optional(list(HandleSchema, 1000, "product handles")),
    collections: z.optional(list(HandleSchema, 1000, "collection handles")),
    variants: z.optional(list(VariantIdSchema, 1000, "variant ids")),
  },
  "an object with products, collections and/or variants",
);

const DiscountDocumentSchema = z.strictObject(
  {
    id: IdSchema,
    title: TitleSchema,
    code: z.optional(
      z
        .string("a code of 1 to 64 characters")
        .check(
          z.regex(
            /^[^\s\p{Cc}](?:[^\p{Cc}]{0,62}[^\s\p{Cc}])?$/u,
            "a code of 1 to 64 characters, without spaces around it or control characters",
          ),
        ),
    ),
    kind: z.enum(DISCOUNT_KINDS, `one of ${DISCOUNT_KINDS.join(", ")}`),
    value: z.optional(DecimalSchema),
    per_item: z.optional(z.boolean("true or false")),
    applies_to: z.optional(TargetSchema),
    buy: z.optional(
      z.strictObject(
        { quantity: CountSchema(1, ""), applies_to: z.optional(TargetSchema) },
        "an object with quantity and applies_to",
      ),
    ),
    get: z.optional(
      z.strictObject(
        { quantity: CountSchema(1, ""), applies_to: z.optional(TargetSchema), percentage: z.optional(DecimalSchema) },
        "an object with quantity, applies_to and percentage",
      ),
    ),
    max_uses_per_order: z.optional(CountSchema(1, "")),
    minimum_subtotal: z.optional(DecimalSchema),
    minimum_quantity: z.optional(CountSchema(1, " units")),
    starts_at: z.optional(TimeSchema),
    ends_at: z.optional(TimeSchema),
    usage_limit: z.optional(CountSchema(1, " uses")),
    once_per_buyer: z.optional(z.boolean("true or false")),
    combines_with: z.optional(
      z.array(z.enum(DISCOUNT_CLASSES, `one of ${DISCOUNT_CLASSES.join(", ")}`), "a list of order, product, shipping"),
    ),
  },
  "a discount object",
);
export type DiscountDocument = z.infer<typeof DiscountDocumentSchema>;

const RateDocumentSchema = z.strictObject(
  {
    id: IdSchema,
    title: TitleSchema,
    price: DecimalSchema,
    min_subtotal: z.optional(DecimalSchema),
    max_subtotal: z.optional(DecimalSchema),
    min_weight_grams: z.optional(CountSchema(0, " grams")),
    max_weight_grams: z.optional(CountSchema(0, " grams")),
  },
  "a rate object",
);

const ZoneDocumentSchema = z.strictObject(
  {
    name: TitleSchema,
    countries: list(CountrySchema, 250, "countries").check(z.minLength(1, "at least one country")),
    rates: list(RateDocumentSchema, 100, "rates").check(z.minLength(1, "at least one rate")),
  },
  "a zone object",
);

const TaxRateDocumentSchema = z.strictObject(
  {
    country: CountrySchema,
    region: z.optional(z.string(REGION_MESSAGE).check(z.regex(REGION_PATTERN, REGION_MESSAGE))),
    rate: z
      .string('a decimal from 0 to below 1 such as "0.2", at most 6 decimals')
      .check(z.regex(/^0(\.\d{1,6})?$/, 'a decimal from 0 to below 1 such as "0.2", at most 6 decimals')),
    name: TitleSchema,
  },
  "a tax rate object",
);

export const RulesDocumentSchema = z.strictObject(
  {
    discounts: z.optional(list(DiscountDocumentSchema, 10_000, "discounts")),
    shipping: z.optional(
      z.strictObject({ zones: z.optional(list(ZoneDocumentSchema, 250, "zones")) }, "an object with zones"),
    ),
    tax: z.optional(
      z.strictObject(
        {
          mode: z.enum(TAX_MODES, `one of ${TAX_MODES.join(", ")}`),
          rates: z.optional(list(TaxRateDocumentSchema, 5000, "tax rates")),
          shipping_taxable: z.optional(z.boolean("true or false")),
        },
        "an object with mode, rates and shipping_taxable",
      ),
    ),
  },
  "a JSON object",
);
export type RulesDocument = z.infer<typeof RulesDocumentSchema>;

/** A discount target as compiled: empty lists for what the document left out. */
export interface Target {
  readonly products: readonly string[];
  readonly collections: readonly string[];
  readonly variants: readonly string[];
}

interface DiscountCommon {
  /** Position in the document: the order of stacking and of the combining tie rule. */
  readonly index: number;
  readonly id: string;
  readonly title: string;
  /** As the document writes it; null for an automatic discount. */
  readonly code: string | null;
  /** `order` (no applies_to), `product` (applies_to, and every buy_x_get_y), `shipping` (free_shipping). */
  readonly class: DiscountClass;
  readonly combines_with: readonly DiscountClass[];
  readonly applies_to: Target | null;
  readonly minimum_subtotal: number | null;
  readonly minimum_quantity: number | null;
  /** Epoch milliseconds, inclusive at both ends. */
  readonly starts_at: number | null;
  readonly ends_at: number | null;
  readonly usage_limit: number | null;
  readonly once_per_buyer: boolean;
}

export interface PercentageDiscount extends DiscountCommon {
  readonly kind: "percentage";
  /** The percentage as a fraction of 1 ("12.5" is 125/1000). */
  readonly percent: Ratio;
}
export interface FixedAmountDiscount extends DiscountCommon {
  readonly kind: "fixed_amount";
  /** Minor units. */
  readonly amount: number;
  readonly per_item: boolean;
}
export interface FreeShippingDiscount extends DiscountCommon {
  readonly kind: "free_shipping";
}
export interface BuyXGetYDiscount extends DiscountCommon {
  readonly kind: "buy_x_get_y";
  readonly buy: { readonly quantity: number; readonly applies_to: Target | null };
  readonly get: { readonly quantity: number; readonly applies_to: Target | null; readonly percent: Ratio };
  readonly max_uses_per_order: number | null;
}
export type Discount = PercentageDiscount | FixedAmountDiscount | FreeShippingDiscount | BuyXGetYDiscount;

export interface ShippingRate {
  readonly index: number;
  readonly id: string;
  readonly title: string;
  /** Minor units; the bounds are inclusive, null when the document leaves them out. */
  readonly price: number;
  readonly min_subtotal: number | null;
  readonly max_subtotal: number | null;
  readonly min_weight_grams: number | null;
  readonly max_weight_grams: number | null;
}
export interface ShippingZone {
  readonly name: string;
  readonly countries: readonly string[];
  readonly rates: readonly ShippingRate[];
}
export interface TaxRate {
  readonly country: string;
  readonly region: string | null;
  readonly rate: Ratio;
  readonly name: string;
}
export interface Tax {
  readonly mode: TaxMode;
  readonly rates: readonly TaxRate[];
  readonly shipping_taxable: boolean;
}

/** A rules document, checked and compiled for one currency. No zones: no shipping is charged. */
export interface Rules {
  readonly currency: Currency;
  readonly discounts: readonly Discount[];
  readonly zones: readonly ShippingZone[];
  readonly tax: Tax | null;
}

/** One mistake in a rules document: where (`["discounts", 2, "value"]`) and what it must be. */
export interface RulesIssue {
  readonly path: readonly (string | number)[];
  readonly message: string;
}

export type ParsedRules = { ok: true; rules: Rules } | { ok: false; issues: RulesIssue[] };

/** The path as the API's `param` names it: `discounts.2.value`. */
export function issueParam(path: readonly (string | number)[]): string {
  return path.join(".");
}

/** The path as the CLI prints it: `discounts[2].value`. */
export function issueWhere(path: readonly (string | number)[]): string {
  let text = "";
  for (const part of path) text += typeof part === "number" ? `[${part}]` : text ? `.${part}` : part;
  return text || "(document)";
}

/** The value at `path` in the raw document, to tell a missing field from a wrong one. */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const part of path) {
    if (value === null || typeof value !== "object" || !Object.hasOwn(value, part)) return undefined;
    value = (value as Record<PropertyKey, unknown>)[part];
  }
  return value;
}

/** zod's issues in the document's words: each unknown key its own issue, a missing field "required". */
export function shapeIssues(input: unknown, issues: readonly z.core.$ZodIssue[]): RulesIssue[] {
  return issues.flatMap((issue): RulesIssue[] => {
    const path = issue.path.map((part) => (typeof part === "number" ? part : String(part)));
    if (issue.code === "unrecognized_keys")
      return issue.keys.map((key) => ({ path: [...path, key], message: "unknown field" }));
    if (path.length > 0 && valueAt(input, issue.path) === undefined) return [{ path, message: "required" }];
    return [{ path, message: issue.message }];
  });
}
