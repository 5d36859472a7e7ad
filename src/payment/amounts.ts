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
}

/** What a payment says it moved: an amount in minor units of its currency. */
export interface Received {
  amount_minor: number;
  currency: Currency;
}

/** `paid` when the payment moved exactly the checkout's total in its currency, else `mismatch`. */
export type PaymentStatus = "paid" | "mismatch";

export function paymentStatus(expected: { total: number; currency: Currency }, received: Received): PaymentStatus {
  return received.currency === expected.currency && received.amount_minor === expected.total ? "paid" : "mismatch";
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
