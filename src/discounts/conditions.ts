import type { Discount } from "../rules/schema.ts";
import type { DiscountCart } from "./kinds/kind.ts";
import type { Unmet } from "./types.ts";

/** What the conditions are judged against besides the cart: the clock and the usage the caller knows. */
export interface Judge {
  readonly now: number;
  /** Ids whose usage_limit is used up. */
  readonly exhausted: ReadonlySet<string>;
  /** Ids of once_per_buyer discounts this buyer already used. */
  readonly used: ReadonlySet<string>;
}

/** The conditions that do not look at the cart: its dates (inclusive) and its uses. */
export function unmetOutsideCart(d: Discount, judge: Judge): Unmet | null {
  if (d.starts_at !== null && judge.now < d.starts_at) return { reason: "not_started", at: d.starts_at };
  if (d.ends_at !== null && judge.now > d.ends_at) return { reason: "expired", at: d.ends_at };
  if (judge.exhausted.has(d.id)) return { reason: "usage_limit_reached" };
  if (d.once_per_buyer && judge.used.has(d.id)) return { reason: "once_per_buyer" };
  return null;
}

/** The cart's conditions: eligible lines at all, then minimum_subtotal and minimum_quantity over them, before any discount. */
export function unmetInCart(d: Discount, cart: DiscountCart, eligible: readonly number[]): Unmet | null {
  if (eligible.length === 0) return { reason: "no_eligible_lines" };
  let subtotal = 0;
  let units = 0;
  for (const i of eligible) {
    subtotal += cart.totals[i]!;
    units += cart.lines[i]!.quantity;
  }
  if (d.minimum_subtotal !== null && subtotal < d.minimum_subtotal)
    return { reason: "minimum_not_met", amount: d.minimum_subtotal - subtotal };
  if (d.minimum_quantity !== null && units < d.minimum_quantity)
    return { reason: "minimum_not_met", units: d.minimum_quantity - units };
  return null;
}
