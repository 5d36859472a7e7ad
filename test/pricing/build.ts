import type { PricingLine } from "../../src/discounts/types.ts";
import { fromMinor, toMinor } from "../../src/money.ts";
import { type Cost, type PricingInput, priceCart } from "../../src/pricing/index.ts";
import type { Rules } from "../../src/rules/schema.ts";
import { parseRules } from "../../src/rules/parse.ts";

/** The moment examples are priced at (inside every example's dates). */
export const NOW = Date.UTC(2026, 11, 15, 12);

/** A line: variant id, unit price as the catalog writes it, quantity, and what else the example needs. */
export function line(
  variant: string,
  price: string,
  quantity = 1,
  more: Partial<PricingLine> = {},
  currency = "USD",
): PricingLine {
  return {
    id: `cl_${variant}${more.attributes && more.attributes !== "{}" ? `_${more.attributes.length}` : ""}`,
    variant_id: variant,
    attributes: "{}",
    handle: `product-${variant}`,
    collections: [],
    quantity,
    unit_price: toMinor(price, currency),
    requires_shipping: true,
    weight_grams: null,
    ...more,
  };
}

/** A rules document parsed as the live rules would be; a mistake in an example fails loudly. */
export function rulesOf(doc: unknown, currency = "USD"): Rules {
  const parsed = parseRules(doc, currency);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return parsed.rules;
}

/** The cost of a cart at NOW, with no buyer, codes or usage unless given. */
export function costOf(input: Partial<PricingInput> & Pick<PricingInput, "lines">): Cost {
  return priceCart({ currency: input.rules?.currency ?? "USD", rules: null, buyer: null, now: NOW, ...input });
}

/**
 * A cost as the worked examples in the reference print it: one row per line (in the cart's
 * order), then the sums. The examples' expected tables are written out in full, so a figure
 * that changes is a figure a reader sees change.
 */
export function table(cost: Cost, lines: readonly PricingLine[]): string {
  const m = (minor: number) => fromMinor(minor, cost.currency).amount;
  const rows = cost.lines.map((c, i) => {
    const l = lines[i]!;
    const discounts = c.discount_allocations.map((a) => `${a.discount_id} −${m(a.amount)}`).join(", ") || "—";
    const tax = c.tax === null ? "—" : m(c.tax);
    return `| ${l.variant_id} | ${l.quantity} × ${m(l.unit_price)} | ${m(c.subtotal)} | ${discounts} | ${m(c.subtotal - c.discount_total)} | ${tax} |`;
  });
  const shipping = cost.shipping_option
    ? `shipping ${cost.shipping_option.title} ${m(cost.shipping_option.price)}`
    : "shipping —";
  const ship = cost.discounts.filter((d) => d.class === "shipping").map((d) => `, ${d.id} −${m(d.amount)}`);
  const tax = cost.tax === null ? "tax —" : `tax ${m(cost.tax)}${cost.tax_included ? " (included)" : ""}`;
  const shippingTax = cost.shipping_tax ? ` (${m(cost.shipping_tax)} on shipping)` : "";
  return [
    "| variant | units | line total | discounts | after discounts | tax |",
    "|---|---|---|---|---|---|",
    ...rows,
    "",
    `subtotal ${m(cost.subtotal)}, discounts −${m(cost.discount_total)}, ${shipping}${ship.join("")}, ${tax}${shippingTax}: **total ${m(cost.total)}**`,
  ].join("\n");
}
