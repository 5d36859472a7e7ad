import { mulDivHalfUp } from "../money-math.ts";
import type { Tax, TaxRate } from "../rules/schema.ts";
import type { Buyer } from "./api.ts";

/**
 * The rate a destination gets (contract 10.5): its country and region's, else its country's
 * (a rate without a region); none matched: null, and the tax is 0. Under `inclusive`, before a
 * destination is known, the document's first rate (the store's home) says how much of a price is tax.
 */
export function rateFor(tax: Tax, buyer: Buyer | null): TaxRate | null {
  if (!buyer) return tax.mode === "inclusive" ? (tax.rates[0] ?? null) : null;
  let country: TaxRate | null = null;
  for (const rate of tax.rates) {
    if (rate.country !== buyer.country) continue;
    if (rate.region !== null && rate.region === buyer.region) return rate;
    if (rate.region === null) country = rate;
  }
  return country;
}

/**
 * The tax of one amount (a line after its discounts, or shipping after its discount), rounded
 * half-up: `amount × rate` when prices exclude it, `amount × rate / (1 + rate)` when they include it.
 */
export function taxOf(amount: number, rate: TaxRate | null, included: boolean): number {
  if (rate === null || amount === 0) return 0;
  const { num, den } = rate.rate;
  return mulDivHalfUp(amount, num, included ? den + num : den);
}
