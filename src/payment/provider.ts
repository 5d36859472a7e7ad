/**
 * PAYMENT_PROVIDER (contract 10.6): who makes the hand-off `url` of a checkout.
 * - `stripe`: the worker creates a Stripe Checkout Session and answers its url;
 * - `template`: the CHECKOUT_URL template;
 * - `shopify`: the Shopify cart permalink (SHOPIFY_STORE_DOMAIN, store-owned variant ids);
 * - unset (or anything else): the template if set, else the permalink when possible.
 */
export type PaymentProvider = "stripe" | "template" | "shopify" | null;

export function paymentProvider(setting: unknown): PaymentProvider {
  const value = typeof setting === "string" ? setting.trim().toLowerCase() : "";
  return value === "stripe" || value === "template" || value === "shopify" ? value : null;
}

/** Stripe's shortest session is 30 minutes from its creation: with `stripe` a hold lasts at least 31 (a minute for clocks and the request). */
export const STRIPE_MIN_HOLD_SECONDS = 31 * 60;
/** Stripe's longest session is 24 hours: a hold never outlives the session that pays for it. */
export const STRIPE_MAX_HOLD_SECONDS = 24 * 60 * 60;
