import type { DiscountClass } from "../rules/schema.ts";

/**
 * A cart line as pricing reads it: what discounts, shipping and tax need, and nothing positional.
 * The cart passes its available lines only.
 */
export interface PricingLine {
  /** Opaque: maps results back to the cart's line. Never used to order lines or break a tie. */
  readonly id: string;
  readonly variant_id: string;
  /** The line's attributes as canonical JSON (keys sorted, `{}` when none): after the variant id, the tie-break. */
  readonly attributes: string;
  /** The product's handle and the handles of the collections it is in: discount targets. */
  readonly handle: string;
  readonly collections: readonly string[];
  readonly quantity: number;
  /** Minor units of the catalog's currency. */
  readonly unit_price: number;
  readonly requires_shipping: boolean;
  /** Grams per unit; null when the catalog does not say (counted as 0 by weight conditions). */
  readonly weight_grams: number | null;
}

/** Why an entered code does not apply (contract 10.3); null when it does. */
export const CODE_REASONS = [
  "unknown",
  "not_started",
  "expired",
  "minimum_not_met",
  "no_eligible_lines",
  "usage_limit_reached",
  "not_combinable",
  "once_per_buyer",
] as const;
export type CodeReason = (typeof CODE_REASONS)[number];

/** The answer to one entered code: `code` as the shopper typed it, trimmed. */
export interface CodeResult {
  readonly code: string;
  readonly applicable: boolean;
  readonly reason: CodeReason | null;
  readonly message: string;
}

/** A discount's share of one line, in minor units. */
export interface Allocation {
  readonly discount_id: string;
  readonly amount: number;
}

/** A discount the cart took, and how much it saves in all (minor units). */
export interface AppliedDiscount {
  readonly id: string;
  readonly title: string;
  /** The document's spelling of the code; null for an automatic discount. */
  readonly code: string | null;
  readonly class: DiscountClass;
  readonly amount: number;
}

/** A condition a discount does not meet: the reason (contract 10.3) and what a message needs to be specific. */
export interface Unmet {
  readonly reason: CodeReason;
  /** minimum_not_met: the minor units still missing from the eligible subtotal. */
  readonly amount?: number;
  /** minimum_not_met: the eligible units still missing. */
  readonly units?: number;
  /** not_started / expired: the moment (epoch ms). */
  readonly at?: number;
}
