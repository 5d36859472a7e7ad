import { type Currency, fromMinor, type Money, toMinor } from "../money.ts";

/**
 * What a payment is for, as the checkout froze it, in integer minor units of `currency`. The
 * checkout room reads its frozen cost into this shape through one function (never recomputing
 * it); the session builder and the completion check read nothing else.
 */
export interface PaymentAmounts {
  currency: Currency;
  /** The frozen lines at their frozen unit prices. */
  lines: readonly { name: string; quantity: number; unit_minor: number }[];
  subtotal: number;
  /** Taken off the lines (product and order discounts); a free-shipping discount is in `shipping` instead. */
  discount: number;
  /** The selected shipping rate net of shipping discounts, or null when nothing is shipped or charged. */
  shipping: { title: string; amount: number } | null;
  /** Tax added on top of the prices (exclusive mode); 0 when prices include it or there is none. */
  tax: number;
  /** subtotal − discount + shipping + tax, exactly. */
  total: number;
  /** Tax mode `stripe`: the payment session computes the tax and adds it on top of `total`. */
  tax_at_payment: boolean;
}

/** What a payment says it moved: an amount in minor units of its currency. */
export interface Received {
  amount_minor: number;
  currency: Currency;
  /** The tax the payment computed itself (Stripe Tax's `total_details.amount_tax`), part of `amount_minor`. */
  tax_minor?: number;
}

/** `paid` when the payment moved exactly the checkout's total in its currency, else `mismatch`. */
export type PaymentStatus = "paid" | "mismatch";

/**
 * Whether the payment moved the checkout's total. Under tax mode `stripe` (`taxAtPayment`) the
 * payment adds the tax it computed, so what it moved less that tax must be the frozen total
 * (which holds none); a payment that says no tax is compared whole.
 */
export function paymentStatus(
  expected: { total: number; currency: Currency; taxAtPayment?: boolean },
  received: Received,
): PaymentStatus {
  const tax = expected.taxAtPayment ? (received.tax_minor ?? 0) : 0;
  return received.currency === expected.currency && received.amount_minor - tax === expected.total
    ? "paid"
    : "mismatch";
}

/** A received amount as Money (its own currency's digits). */
export function receivedMoney(received: Received): Money {
  return fromMinor(received.amount_minor, received.currency);
}

/** A payment side's decimal amount in `currency`, or null when it has more decimals than the currency has digits. */
export function receivedFrom(amount: string, currency: Currency): Received | null {
  try {
    return { amount_minor: toMinor(amount, currency), currency };
  } catch {
    return null;
  }
}
