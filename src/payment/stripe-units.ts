import type { Currency } from "../money.ts";
import { minorDigits } from "../money.ts";

/**
 * Stripe's own minor units, which are not always ISO 4217's: its zero-decimal list
 * (https://docs.stripe.com/currencies#zero-decimal) has MGA, which ISO gives 2 digits, and
 * leaves out ISK, which Stripe counts in two decimals though ISO gives it none.
 */
const STRIPE_ZERO = new Set("BIF CLP DJF GNF JPY KMF KRW MGA PYG RWF UGX VND VUV XAF XOF XPF".split(" "));
const STRIPE_THREE = new Set("BHD JOD KWD OMR TND".split(" "));

function stripeDigits(currency: Currency): number {
  if (STRIPE_ZERO.has(currency)) return 0;
  return STRIPE_THREE.has(currency) ? 3 : 2;
}

/** ISO minor units → Stripe's `amount` integer; null when Stripe cannot carry the amount exactly. */
export function toStripeAmount(minor: number, currency: Currency): number | null {
  const shift = stripeDigits(currency) - minorDigits(currency);
  if (shift >= 0) return minor * 10 ** shift;
  const scale = 10 ** -shift;
  return minor % scale === 0 ? minor / scale : null;
}

/** Stripe's `amount` integer → ISO minor units; null when it is not a whole number of them. */
export function fromStripeAmount(amount: number, currency: Currency): number | null {
  const shift = stripeDigits(currency) - minorDigits(currency);
  if (shift <= 0) return amount * 10 ** -shift;
  const scale = 10 ** shift;
  return amount % scale === 0 ? amount / scale : null;
}
