import type { Currency } from "../money.ts";
import { type Buyer, type Cost, type PricingLine, priceCart, type RenderedCost, renderCost } from "../pricing/index.ts";
import type { Rules } from "../rules/schema.ts";
import type { CartHead, LineRow } from "./view.ts";

/**
 * The cart's side of its cost (contract 10.2): its available lines, the live rules and the
 * shopper's buyer, shipping option and codes, handed to the one pricing function (src/pricing)
 * and rendered by its one renderer. Nothing here computes money.
 */

/** Each row's line as pricing reads it. Rows are never changed in place (CartRows replaces them), so this is safe to keep. */
const pricingLines = new WeakMap<LineRow, PricingLine>();

function pricingLine(row: LineRow): PricingLine {
  let line = pricingLines.get(row);
  if (line === undefined) {
    line = {
      id: row.id,
      variant_id: row.variant_id,
      attributes: row.attributes,
      handle: row.handle,
      collections: JSON.parse(row.collections) as string[],
      quantity: row.quantity,
      unit_price: row.unit_price_minor,
      requires_shipping: row.requires_shipping === 1,
      weight_grams: row.weight_grams,
    };
    pricingLines.set(row, line);
  }
  return line;
}

/** What a cart's cost depends on beyond its rows: the live rules (null: none) and the moment. */
export interface PricingContext {
  rules: Rules | null;
  currency: Currency;
  now: number;
}

/** The cart's cost in minor units, from its available lines only (a sold-out line is not priced). */
export function costOf(
  head: Pick<CartHead, "buyer" | "shipping_option" | "discount_codes">,
  rows: readonly LineRow[],
  context: PricingContext,
): Cost {
  return priceCart({
    currency: context.currency,
    lines: rows.filter((row) => row.available === 1).map(pricingLine),
    rules: context.rules,
    buyer: head.buyer === null ? null : (JSON.parse(head.buyer) as Buyer),
    shipping_option: head.shipping_option,
    discount_codes: JSON.parse(head.discount_codes) as string[],
    now: context.now,
    // Usage limits (contract 10.3): the ids of limited discounts with no use left come from the
    // per-discount usage objects, which a later release adds; until then none is exhausted here.
    exhausted: [],
  });
}

/** The cart's cost as the API answers it. */
export function renderedCostOf(
  head: Pick<CartHead, "buyer" | "shipping_option" | "discount_codes">,
  rows: readonly LineRow[],
  context: PricingContext,
): RenderedCost {
  return renderCost(costOf(head, rows, context));
}
