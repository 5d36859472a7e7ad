import type { PricingLine } from "../discounts/types.ts";
import type { Rules } from "../rules/schema.ts";
import type { Buyer } from "./api.ts";
import type { ShippingOption, ShippingStatus } from "./types.ts";

export interface ShippingQuote {
  readonly status: ShippingStatus;
  readonly required: boolean;
  readonly options: readonly ShippingOption[];
  readonly selected: ShippingOption | null;
}

const NOT_NEEDED: ShippingQuote = { status: "not_needed", required: false, options: [], selected: null };

/**
 * The shipping options of a cart (contract 10.4): the rates of the destination's zone whose
 * conditions the lines that ship meet (their subtotal before discounts, their weight; both
 * bounds inclusive, an unknown weight counting 0), cheapest first, ties in document order. The
 * selection stays while it is offered; otherwise the cheapest is taken.
 */
export function quoteShipping(
  rules: Rules | null,
  lines: readonly PricingLine[],
  buyer: Buyer | null,
  selected: string | null | undefined,
): ShippingQuote {
  const zones = rules?.zones ?? [];
  let subtotal = 0;
  let grams = 0;
  let ships = false;
  for (const line of lines) {
    if (!line.requires_shipping) continue;
    ships = true;
    subtotal += line.quantity * line.unit_price;
    grams += line.quantity * (line.weight_grams ?? 0);
  }
  if (zones.length === 0 || !ships) return NOT_NEEDED;
  if (!buyer) return { status: "destination_required", required: true, options: [], selected: null };
  const zone = zones.find((z) => z.countries.includes(buyer.country));
  const within = (value: number, low: number | null, high: number | null) =>
    (low === null || value >= low) && (high === null || value <= high);
  const options = (zone?.rates ?? [])
    .filter(
      (rate) =>
        within(subtotal, rate.min_subtotal, rate.max_subtotal) &&
        within(grams, rate.min_weight_grams, rate.max_weight_grams),
    )
    .sort((a, b) => a.price - b.price || a.index - b.index)
    .map((rate) => ({ id: rate.id, title: rate.title, price: rate.price }));
  if (options.length === 0) return { status: "unavailable", required: true, options: [], selected: null };
  return {
    status: "ready",
    required: true,
    options,
    selected: options.find((option) => option.id === selected) ?? options[0]!,
  };
}
