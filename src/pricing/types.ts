import type { AppliedDiscount, Allocation, CodeResult, PricingLine } from "../discounts/types.ts";
import type { Currency } from "../money.ts";
import type { Ratio } from "../money-math.ts";
import type { Rules } from "../rules/schema.ts";
import type { Buyer } from "./api.ts";

export type { AppliedDiscount, Allocation, CodeResult, PricingLine };

/** Everything a cart's cost depends on. Pure data: the same input always gives the same cost. */
export interface PricingInput {
  /** The catalog's currency (the rules were parsed in it). */
  readonly currency: Currency;
  /** The cart's available lines, in any order: the cost does not depend on it. */
  readonly lines: readonly PricingLine[];
  /** The live rules; null (or rules with nothing in them) when the store has none. */
  readonly rules: Rules | null;
  readonly buyer: Buyer | null;
  /** The shopper's chosen rate id; the cheapest offered when absent, null or no longer offered. */
  readonly shipping_option?: string | null;
  /**
   * The entered codes, as the shopper typed them: at most 5 (DiscountCodesInputSchema). With 25
   * automatic discounts and more than 5 applicable codes, priceCart throws a RangeError.
   */
  readonly discount_codes?: readonly string[];
  /** Epoch milliseconds: the moment starts_at and ends_at are judged against. */
  readonly now: number;
  /** Ids of discounts whose usage_limit is used up (from the usage counters; later work). */
  readonly exhausted?: readonly string[];
  /** Ids of once_per_buyer discounts this buyer (by email) already used (known at checkout). */
  readonly used_by_buyer?: readonly string[];
}

/**
 * Where shipping stands (contract 10.4):
 * - `not_needed`: the rules have no zones, or no line requires shipping; `shipping` is null and no destination is needed.
 * - `destination_required`: zones and shipping lines, no destination yet; checkout refuses with `shipping_required`.
 * - `unavailable`: the destination has no zone, or no rate whose conditions the cart meets; checkout refuses with `shipping_unavailable`.
 * - `ready`: an option is selected and `shipping` is its price.
 */
export type ShippingStatus = "not_needed" | "destination_required" | "unavailable" | "ready";

export interface ShippingOption {
  readonly id: string;
  readonly title: string;
  /** Minor units, before any shipping discount. */
  readonly price: number;
}

/** One line's share of the cost, in minor units. */
export interface LineCost {
  readonly id: string;
  /** quantity × unit price, before discounts. */
  readonly subtotal: number;
  /** Product discounts first, then order discounts, each in document order; amounts above 0 only. */
  readonly discount_allocations: readonly Allocation[];
  readonly discount_total: number;
  /** The line's tax (after its discounts); null when the cart's tax is null. Under `inclusive`, the part of the price that is tax. */
  readonly tax: number | null;
}

/** The tax rate the destination gets, for a receipt or a payment session; null when tax is null or no rate matched. */
export interface AppliedTaxRate {
  readonly country: string;
  readonly region: string | null;
  readonly name: string;
  readonly rate: Ratio;
}

/**
 * A cart's cost, in integer minor units. `total = subtotal − discount_total + shipping + tax`
 * (tax only when prices exclude it) holds exactly; every product or order discount's line
 * allocations sum to its amount; nothing is negative.
 */
export interface Cost {
  readonly currency: Currency;
  readonly subtotal: number;
  /** Every applied discount's amount, the shipping discount's included. */
  readonly discount_total: number;
  /** The selected rate's price, before a shipping discount; null unless `shipping_status` is `ready`. */
  readonly shipping: number | null;
  readonly tax: number | null;
  readonly total: number;
  /** True under `inclusive`: prices include the tax, and `tax` says how much of the total it is. */
  readonly tax_included: boolean;
  /** `"payment"` under `stripe` (the payment session computes the tax), else null. */
  readonly tax_calculated_at: "payment" | null;
  /** The tax on shipping (after a shipping discount), part of `tax`; null when `tax` is null. */
  readonly shipping_tax: number | null;
  readonly tax_rate: AppliedTaxRate | null;
  /** The discounts taken, in document order. */
  readonly discounts: readonly AppliedDiscount[];
  /** One per input line, in the input's order. */
  readonly lines: readonly LineCost[];
  /** One per entered code, in the order entered. */
  readonly discount_codes: readonly CodeResult[];
  /** The rates offered for the destination, cheapest first (ties in document order). */
  readonly shipping_options: readonly ShippingOption[];
  readonly shipping_option: ShippingOption | null;
  /** Whether the cart needs a destination and a rate to check out (zones exist and a line requires shipping). */
  readonly shipping_required: boolean;
  readonly shipping_status: ShippingStatus;
}

/** The checkout's refusal for a cost (contract 10.3, faults at checkout), or null when shipping is settled. */
export function shippingFault(cost: Cost): "shipping_required" | "shipping_unavailable" | null {
  if (cost.shipping_status === "destination_required") return "shipping_required";
  if (cost.shipping_status === "unavailable") return "shipping_unavailable";
  return null;
}
