import type { PaymentAmounts } from "./amounts.ts";
import type { FormObject } from "./form.ts";
import { toStripeAmount } from "./stripe-units.ts";

/** Stripe takes at most 100 line items in a payment-mode Checkout Session; one may be the tax line. */
export const MAX_STRIPE_LINE_ITEMS = 100;

/** What a checkout asks Stripe for. */
export interface SessionRequest {
  checkoutId: string;
  amounts: PaymentAmounts;
  email: string | null;
  /** Where Stripe's page sends the shopper back, paid (`success_url`) or not (`cancel_url`). */
  returnUrl: string;
  /** Unix seconds: no earlier than the hold's end (Stripe: 30 minutes to 24 hours from creation). */
  expiresAt: number;
}

/** The requests that make the session: a coupon first when there is a discount, then the session. */
export type SessionPlan =
  | { ok: true; coupon: FormObject | null; session: (couponId: string | null) => FormObject; amountTotal: number }
  | { ok: false; message: string };

/**
 * Stripe's parameters for a checkout, built so the session's `amount_total` equals the checkout's
 * `total` to the minor unit whatever the discounts, shipping and tax (contract 10.6):
 * - each line at its frozen unit price (`price_data`, never a Stripe Price that could change);
 * - the discount as one `amount_off` coupon of exactly that amount, used once: Stripe applies a
 *   coupon to the line items only, so a free-shipping discount is carried in the shipping rate
 *   instead (`PaymentAmounts.shipping` is already net of it);
 * - shipping as one fixed-amount `shipping_rate_data` of the selected rate;
 * - tax added on top of the prices as one line item of exactly that amount, never as Stripe tax
 *   rates, which Stripe would compute and round its own way (an amount_off coupon only subtracts
 *   its amount, so the line it lands on does not change the total).
 * So amount_total = Σ lines + tax − discount + shipping = total.
 */
export function planSession(request: SessionRequest): SessionPlan {
  const { amounts } = request;
  const currency = amounts.currency.toLowerCase();
  const stripe = (minor: number) => toStripeAmount(minor, amounts.currency);
  const items = [
    ...amounts.lines.map((line) => ({ name: line.name, quantity: line.quantity, unit: stripe(line.unit_minor) })),
    ...(amounts.tax > 0 ? [{ name: "Tax", quantity: 1, unit: stripe(amounts.tax) }] : []),
  ];
  if (items.length > MAX_STRIPE_LINE_ITEMS) {
    return { ok: false, message: `Stripe Checkout takes at most ${MAX_STRIPE_LINE_ITEMS} line items.` };
  }
  const discount = stripe(amounts.discount);
  const shipping = amounts.shipping ? stripe(amounts.shipping.amount) : 0;
  const total = stripe(amounts.total);
  if (items.some((item) => item.unit === null) || discount === null || shipping === null || total === null) {
    return { ok: false, message: `Stripe cannot charge these ${amounts.currency} amounts exactly.` };
  }
  const metadata = { checkout_id: request.checkoutId };
  const coupon: FormObject | null =
    amounts.discount > 0
      ? { amount_off: discount, currency, duration: "once", max_redemptions: 1, name: "Discounts", metadata }
      : null;
  return {
    ok: true,
    coupon,
    amountTotal: total,
    session: (couponId) => ({
      mode: "payment",
      client_reference_id: request.checkoutId,
      metadata,
      payment_intent_data: { metadata },
      customer_email: request.email ?? undefined,
      line_items: items.map((item) => ({
        quantity: item.quantity,
        price_data: { currency, unit_amount: item.unit, product_data: { name: item.name } },
      })),
      discounts: couponId ? [{ coupon: couponId }] : undefined,
      shipping_options: amounts.shipping
        ? [
            {
              shipping_rate_data: {
                type: "fixed_amount",
                display_name: amounts.shipping.title,
                fixed_amount: { amount: shipping, currency },
              },
            },
          ]
        : undefined,
      success_url: request.returnUrl,
      cancel_url: request.returnUrl,
      expires_at: request.expiresAt,
    }),
  };
}
