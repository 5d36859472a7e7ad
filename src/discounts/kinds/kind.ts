import type { Ratio } from "../../money-math.ts";
import type { Discount } from "../../rules/schema.ts";
import type { PricingLine, Unmet } from "../types.ts";

/**
 * The cart as discounts see it: lines in canonical order (variant id, then attributes), never in
 * the order they were added, so no result depends on it.
 */
export interface DiscountCart {
  readonly lines: readonly PricingLine[];
  /** quantity × unit price per line, in minor units. */
  readonly totals: readonly number[];
  /** The selected shipping rate's price; null while no rate is selected (or nothing ships). */
  readonly shipping: number | null;
}

/**
 * What a discount takes off; the stacking (stacking.ts) turns it into amounts per line:
 * - `percent`: of each eligible line's amount, rounded half-up per line;
 * - `per_unit`: an amount off each eligible unit, never more than the line;
 * - `amount`: one amount spread over the eligible lines in proportion to their amounts (largest remainder);
 * - `lines`: amounts already per line (aligned with `eligible`), taken on the lines' prices;
 * - `shipping`: the selected rate's price.
 */
export type Action =
  | { readonly take: "percent"; readonly percent: Ratio }
  | { readonly take: "per_unit"; readonly amount: number }
  | { readonly take: "amount"; readonly amount: number }
  | { readonly take: "lines"; readonly amounts: readonly number[] }
  | { readonly take: "shipping" };

/**
 * A discount kind, as Vendure's PromotionCondition and PromotionAction: which lines it looks at,
 * what it needs beyond the common conditions (conditions.ts), and what it takes off. Adding a kind
 * is a file like this one and its line in kinds/index.ts.
 */
export interface Kind<D extends Discount> {
  /** Indices of the lines its conditions count and its action may touch. */
  eligible(discount: D, cart: DiscountCart): number[];
  /** A condition of its own, checked after the common ones; null when met. */
  unmet?(discount: D, cart: DiscountCart, eligible: readonly number[]): Unmet | null;
  action(discount: D, cart: DiscountCart, eligible: readonly number[]): Action;
}
