import type { Currency } from "../money.ts";
import type { PaymentAmounts, Received } from "../payment/amounts.ts";
import { type AppliedDiscount, type Cost, type RenderedCost, renderCost } from "../pricing/index.ts";

/**
 * The cost a checkout froze, in integer minor units (contract 10.2's `cost`, 10.7): the pricing
 * room's cost at the moment of the checkout (`frozenFrom`), kept as it was whatever the rules
 * became since. The payment session, the completion check and the order all read it through
 * `frozenCost`, never recompute it. A checkout made before costs were frozen has none: its total
 * was its subtotal.
 */
export interface FrozenCost {
  subtotal: number;
  discount_total: number;
  shipping: number | null;
  tax: number | null;
  total: number;
  tax_included: boolean;
  /** `"payment"` under tax mode `stripe`: the payment session computes the tax (absent on older checkouts: null). */
  tax_calculated_at?: "payment" | null;
  discounts: { id: string; title: string; code: string | null; amount: number; class?: AppliedDiscount["class"] }[];
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

/**
 * The cost an order records: the frozen one, but under tax mode `stripe` with the tax the payment
 * computed (its `tax_minor`) and the total it makes, so the order says what was charged.
 */
export function chargedCost(cost: FrozenCost, received: Received | undefined): FrozenCost {
  if (cost.tax_calculated_at !== "payment" || received?.tax_minor === undefined) return cost;
  return { ...cost, tax: received.tax_minor, total: cost.total + received.tax_minor };
}

/** A checkout's lines before costs were frozen: their subtotal is their total. */
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
    tax_at_payment: cost.tax_calculated_at === "payment",
  };
}

/** The frozen parts of a priced cost: the cost, and each line's allocations and tax (by the cost's line order). */
export function frozenFrom(cost: Cost): {
  cost: FrozenCost;
  lines: Pick<FrozenLine, "discount_allocations" | "tax">[];
} {
  return {
    cost: {
      subtotal: cost.subtotal,
      discount_total: cost.discount_total,
      shipping: cost.shipping,
      tax: cost.tax,
      total: cost.total,
      tax_included: cost.tax_included,
      tax_calculated_at: cost.tax_calculated_at,
      discounts: cost.discounts.map((d) => ({ ...d })),
    },
    lines: cost.lines.map((line) => ({
      discount_allocations: line.discount_allocations.map((a) => ({ ...a })),
      tax: line.tax,
    })),
  };
}

/** The frozen cost as the API answers it, through the pricing room's one renderer. */
export function renderFrozen(content: FrozenMoney): RenderedCost {
  const cost = frozenCost(content);
  const option = content.shipping_option ?? null;
  return renderCost({
    ...cost,
    currency: content.currency as Currency,
    tax_calculated_at: cost.tax_calculated_at ?? null,
    shipping_tax: null,
    tax_rate: null,
    discounts: cost.discounts.map((d) => ({ ...d, class: d.class ?? "order" })),
    lines: content.lines.map((line) => ({
      id: line.id,
      subtotal: line.unit_price_minor * line.quantity,
      discount_allocations: line.discount_allocations ?? [],
      discount_total: 0,
      tax: line.tax ?? null,
    })),
    discount_codes: [],
    shipping_options: option ? [option] : [],
    shipping_option: option,
    shipping_required: option !== null,
    shipping_status: option ? "ready" : "not_needed",
  });
}

/** A frozen checkout line as the cart object keeps it (integer minor units). */
export interface FrozenLine {
  id: string;
  variant_id: string;
  handle: string;
  title: string;
  variant_title: string;
  quantity: number;
  unit_price_minor: number;
  attributes: Record<string, string>;
  /** The line's share of each discount, as the checkout froze it (absent: none). */
  discount_allocations?: { discount_id: string; amount: number }[];
  /** The line's tax as the checkout froze it (absent or null: none known). */
  tax?: number | null;
}
