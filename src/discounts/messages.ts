import { type Currency, fromMinor } from "../money.ts";
import type { Unmet } from "./types.ts";

const when = (at: number) => `${new Date(at).toISOString().slice(0, 16).replace("T", " ")} UTC`;

/**
 * The sentence a storefront shows for an entered code (English; `reason` is what code branches
 * on). Specific where it can be: how much more to add, since when, with what it clashes.
 */
export function codeMessage(code: string, unmet: Unmet | null, currency: Currency, clash?: string): string {
  if (unmet === null) return `${code} is applied.`;
  switch (unmet.reason) {
    case "unknown":
      return `${code} is not a valid discount code.`;
    case "not_started":
      return `${code} can be used from ${when(unmet.at ?? 0)}.`;
    case "expired":
      return `${code} expired at ${when(unmet.at ?? 0)}.`;
    case "usage_limit_reached":
      return `${code} has reached its usage limit.`;
    case "once_per_buyer":
      return `${code} can be used once per customer, and this email has already used it.`;
    case "no_eligible_lines":
      return `${code} does not apply to anything in your cart.`;
    case "minimum_not_met":
      if (unmet.amount !== undefined) return `Add ${fromMinor(unmet.amount, currency).amount} more to use ${code}.`;
      return `Add ${unmet.units} more eligible ${unmet.units === 1 ? "item" : "items"} to use ${code}.`;
    case "not_combinable":
      return `${code} cannot be combined with ${clash ?? "another discount in your cart"}.`;
  }
}
