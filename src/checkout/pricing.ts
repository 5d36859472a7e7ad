import type { Cart } from "../cart/api.ts";
import { canonicalAttributes } from "../cart/view.ts";
import type { VariantRecord } from "../catalog/store.ts";
import { counted } from "../discounts/usage.ts";
import type { Currency } from "../money.ts";
import { type Cost, type PricingLine, priceCart, shippingFault } from "../pricing/index.ts";
import { codeKey } from "../rules/codes.ts";
import type { Discount, Rules } from "../rules/schema.ts";
import type { DiscountFault, ShippingFault } from "./failure.ts";

/**
 * The checkout's side of the cost (contract 10.7): the cart's lines at the live catalog, the live
 * rules and the cart's buyer, shipping option and codes, handed to the one pricing function. What
 * the checkout then refuses for is decided here too; nothing here computes money.
 */

/** What a checkout reads of the holder's cart besides its lines. */
export type CartMoney = Pick<Cart, "buyer" | "shipping_option" | "discount_codes" | "discounts">;

/** Each cart line at its live variant, as pricing reads it. */
export function pricingLine(
  line: { id: string; quantity: number; attributes?: Record<string, string> },
  variant: VariantRecord,
): PricingLine {
  return {
    id: line.id,
    variant_id: variant.id,
    attributes: canonicalAttributes(line.attributes),
    handle: variant.product_handle,
    collections: variant.collections,
    quantity: line.quantity,
    unit_price: variant.price_minor,
    requires_shipping: variant.requires_shipping,
    weight_grams: variant.weight_grams,
  };
}

/** The cart's cost at the moment of the checkout; `usedByBuyer`: the once_per_buyer discounts this buyer spent. */
export function priceCheckout(
  cart: CartMoney,
  lines: readonly PricingLine[],
  rules: Rules | null,
  currency: Currency,
  /** `exhausted`: the automatic discounts marked used up (an entered code is always tried: see `exhaustedAutomatic`). */
  context: { now: number; exhausted: readonly string[]; usedByBuyer: readonly string[] },
): Cost {
  return priceCart({
    currency,
    lines,
    rules,
    buyer: cart.buyer,
    shipping_option: cart.shipping_option?.id ?? null,
    discount_codes: cart.discount_codes.map((c) => c.code),
    now: context.now,
    exhausted: context.exhausted,
    used_by_buyer: context.usedByBuyer,
  });
}

/**
 * Why a priced cart cannot be checked out (contract 10.3, 10.4, faults at checkout): shipping not
 * settled, or a discount the cart applied that the checkout does not. The cart and the checkout
 * price the same lines, rules and codes at the same moment; what only the checkout knows is the
 * buyer's own uses of once_per_buyer discounts (`usedByBuyer`), so that is what such a fault
 * says. A discount never silently drops out of what the shopper pays; one the cart did not apply
 * (a code it answered inapplicable) does not block.
 */
export function costFaults(
  cart: CartMoney,
  cost: Cost,
  usedByBuyer: readonly string[],
): { shipping?: ShippingFault; discount_codes?: DiscountFault[] } | null {
  const shipping = shippingFault(cost) ?? undefined;
  const applied = new Set(cost.discounts.map((d) => d.id));
  const typed = new Map(cart.discount_codes.map((c) => [codeKey(c.code), c.code]));
  const reasons = new Map(cost.discount_codes.map((c) => [codeKey(c.code), c.reason]));
  const codes = cart.discounts
    .filter((d) => !applied.has(d.id))
    .map((d): DiscountFault => {
      const key = d.code === null ? null : codeKey(d.code);
      const reason = (key && reasons.get(key)) || (usedByBuyer.includes(d.id) ? "once_per_buyer" : "not_combinable");
      return { code: key ? (typed.get(key) ?? d.code) : null, reason, discount_id: d.id };
    });
  if (!shipping && codes.length === 0) return null;
  return { ...(shipping ? { shipping } : {}), ...(codes.length > 0 ? { discount_codes: codes } : {}) };
}

/** The discounts whose uses are counted: among `ids`, those the rules limit or allow once per buyer. */
export function countedAmong(rules: Rules | null, ids: ReadonlySet<string>): Discount[] {
  return (rules?.discounts ?? []).filter((d) => ids.has(d.id) && counted(d));
}

/** The counted discounts the cart could take: the automatic ones and those of its entered codes. */
export function countedCandidates(rules: Rules | null, cart: CartMoney): Discount[] {
  const entered = new Set(cart.discount_codes.map((c) => codeKey(c.code)));
  return (rules?.discounts ?? []).filter((d) => counted(d) && (d.code === null || entered.has(codeKey(d.code))));
}
