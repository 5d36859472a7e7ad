import { applyDiscounts } from "../discounts/combine.ts";
import type { Allocation, PricingLine } from "../discounts/types.ts";
import type { Rules } from "../rules/schema.ts";
import { quoteShipping } from "./shipping.ts";
import { rateFor, taxOf } from "./tax.ts";
import type { Cost, LineCost, PricingInput } from "./types.ts";

/** Variant ids compare as numbers (shorter first), then attributes, then the rest: never position or line id. */
function canonical(a: PricingLine, b: PricingLine): number {
  if (a.variant_id !== b.variant_id) {
    if (a.variant_id.length !== b.variant_id.length) return a.variant_id.length - b.variant_id.length;
    return a.variant_id < b.variant_id ? -1 : 1;
  }
  if (a.attributes !== b.attributes) return a.attributes < b.attributes ? -1 : 1;
  // One cart never holds two lines of one variant and attributes; other callers still get one answer.
  return a.unit_price - b.unit_price || a.quantity - b.quantity;
}

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

/** A store without rules: no discounts, no zones, no tax (codes are all unknown, whose message names no amount). */
const NO_RULES: Rules = { currency: "USD", discounts: [], zones: [], tax: null };

/**
 * A cart's cost (contract 10.2-10.5), in integer minor units, with no I/O: the cart, the checkout,
 * the payment session and the order all take it from here. Lines are put in a canonical order
 * first (variant id, then attributes), so every rounding and tie lands the same whatever order
 * the lines were added in.
 */
export function priceCart(input: PricingInput): Cost {
  const rules = input.rules ?? NO_RULES;
  const order = input.lines.map((_, i) => i).sort((a, b) => canonical(input.lines[a]!, input.lines[b]!));
  const lines = order.map((i) => input.lines[i]!);
  const totals = lines.map((line) => line.quantity * line.unit_price);
  const subtotal = sum(totals);

  const quote = quoteShipping(rules, lines, input.buyer, input.shipping_option);
  const shipping = quote.selected?.price ?? null;
  const outcome = applyDiscounts(rules, { lines, totals, shipping }, input.discount_codes ?? [], {
    now: input.now,
    exhausted: new Set(input.exhausted ?? []),
    used: new Set(input.used_by_buyer ?? []),
  });

  // Each line's allocations: product discounts first, then order discounts, each in document order.
  const taken = [...outcome.taken].sort(
    (a, b) => Number(a.discount.class !== "product") - Number(b.discount.class !== "product"),
  );
  const allocations: Allocation[][] = lines.map(() => []);
  const lineDiscount = lines.map(() => 0);
  for (const { discount, lines: amounts } of taken) {
    amounts?.forEach((amount, i) => {
      if (amount === 0) return;
      allocations[i]!.push({ discount_id: discount.id, amount });
      lineDiscount[i] = lineDiscount[i]! + amount;
    });
  }
  const discountTotal = sum(outcome.taken.map((t) => t.amount));

  // Tax (10.5): none without tax rules, in modes none and stripe, and under exclusive until a destination is known.
  const included = rules.tax?.mode === "inclusive";
  const tax = included || (rules.tax?.mode === "exclusive" && input.buyer !== null) ? rules.tax : null;
  const rate = tax ? rateFor(tax, input.buyer) : null;
  const lineTax = lines.map((_, i) => (tax ? taxOf(totals[i]! - lineDiscount[i]!, rate, included) : null));
  let shippingTax: number | null = null;
  if (tax)
    shippingTax = tax.shipping_taxable && shipping !== null ? taxOf(shipping - outcome.shipping, rate, included) : 0;
  const taxTotal = tax ? sum(lineTax.map((t) => t ?? 0)) + (shippingTax ?? 0) : null;

  const costs: LineCost[] = [];
  order.forEach((inputIndex, i) => {
    costs[inputIndex] = {
      id: lines[i]!.id,
      subtotal: totals[i]!,
      discount_allocations: allocations[i]!,
      discount_total: lineDiscount[i]!,
      tax: lineTax[i]!,
    };
  });

  return {
    currency: input.currency,
    subtotal,
    discount_total: discountTotal,
    shipping,
    tax: taxTotal,
    total: subtotal - discountTotal + (shipping ?? 0) + (taxTotal !== null && !included ? taxTotal : 0),
    tax_included: included,
    tax_calculated_at: rules.tax?.mode === "stripe" ? "payment" : null,
    shipping_tax: shippingTax,
    tax_rate: rate ? { country: rate.country, region: rate.region, name: rate.name, rate: rate.rate } : null,
    discounts: outcome.taken.map(({ discount, amount }) => ({
      id: discount.id,
      title: discount.title,
      code: discount.code,
      class: discount.class,
      amount,
    })),
    lines: costs,
    discount_codes: outcome.codes,
    shipping_options: quote.options,
    shipping_option: quote.selected,
    shipping_required: quote.required,
    shipping_status: quote.status,
  };
}
