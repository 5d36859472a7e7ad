import { fromMinor } from "../money.ts";
import type { PaymentAmounts } from "../payment/amounts.ts";
import type { Checkout } from "./api.ts";
import type { FrozenLine } from "./orders.ts";

/**
 * The cost a checkout froze, in integer minor units (contract 10.2's `cost`). Today a checkout's
 * total is its subtotal: no discounts, no shipping, no tax. When the pricing room's cost is frozen
 * into the checkout, `CheckoutContent.cost` carries it and nothing below changes: the payment
 * session, the completion check and the order all read it through `frozenCost`, never recompute it.
 */
export interface FrozenCost {
  subtotal: number;
  discount_total: number;
  shipping: number | null;
  tax: number | null;
  total: number;
  tax_included: boolean;
  discounts: { id: string; title: string; code: string | null; amount: number }[];
}

/** Where the order goes, as the cart carried it (contract 10.4's buyer). */
export interface FrozenBuyer {
  email?: string;
  country: string;
  region?: string;
  postal_code?: string;
}

/** The selected shipping rate, frozen. */
export interface FrozenShippingOption {
  id: string;
  title: string;
  price: number;
}

/** What a checkout froze besides its lines: its cost, its buyer and its shipping option (older checkouts lack them). */
export interface FrozenMoney {
  lines: readonly FrozenLine[];
  currency: string;
  cost?: FrozenCost;
  buyer?: FrozenBuyer | null;
  shipping_option?: FrozenShippingOption | null;
}

/** Today's cost of frozen lines: their subtotal is their total. */
export function costOfLines(lines: readonly FrozenLine[]): FrozenCost {
  const subtotal = lines.reduce((sum, line) => sum + line.unit_price_minor * line.quantity, 0);
  return {
    subtotal,
    discount_total: 0,
    shipping: null,
    tax: null,
    total: subtotal,
    tax_included: false,
    discounts: [],
  };
}

/** The checkout's frozen cost: the one place every reader of a checkout's amounts goes through. */
export function frozenCost(content: FrozenMoney): FrozenCost {
  return content.cost ?? costOfLines(content.lines);
}

/**
 * What the payment is for, from the frozen cost: the lines' discounts come off the lines (the
 * allocations), a free-shipping discount (the rest of `discount_total`) off the shipping rate,
 * and tax is added only when prices exclude it.
 */
export function paymentAmounts(content: FrozenMoney): PaymentAmounts {
  const cost = frozenCost(content);
  const onLines = content.lines.reduce(
    (sum, line) => sum + (line.discount_allocations ?? []).reduce((s, a) => s + a.amount, 0),
    0,
  );
  const shipping =
    cost.shipping === null
      ? null
      : {
          title: content.shipping_option?.title ?? "Shipping",
          amount: cost.shipping - (cost.discount_total - onLines),
        };
  return {
    currency: content.currency,
    lines: content.lines.map((line) => ({
      name: line.variant_title === "Default Title" ? line.title : `${line.title} — ${line.variant_title}`,
      quantity: line.quantity,
      unit_minor: line.unit_price_minor,
    })),
    subtotal: cost.subtotal,
    discount: onLines,
    shipping,
    tax: cost.tax_included ? 0 : (cost.tax ?? 0),
    total: cost.total,
  };
}

/** The wire `cost` of a frozen cost. */
export function costJson(cost: FrozenCost, currency: string): Checkout["cost"] {
  return {
    subtotal: fromMinor(cost.subtotal, currency),
    discount_total: fromMinor(cost.discount_total, currency),
    shipping: cost.shipping === null ? null : fromMinor(cost.shipping, currency),
    tax: cost.tax === null ? null : fromMinor(cost.tax, currency),
    total: fromMinor(cost.total, currency),
    tax_included: cost.tax_included,
  };
}
