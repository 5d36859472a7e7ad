import type { CodeReason } from "../discounts/types.ts";

/**
 * A cart line that stops a checkout, and why (contract 9.4): `hold_limit` with `max_quantity` (the
 * most a holder may hold of the variant), `hold_cooldown` with `cooldown_ends_at` (when the holder
 * may hold it again).
 */
export interface UnavailableLine {
  id: string;
  code: "sold_out" | "insufficient_stock" | "resource_missing" | "hold_limit" | "hold_cooldown";
  available_quantity?: number;
  max_quantity?: number;
  cooldown_ends_at?: string;
}

/** Shipping that stops a checkout (contract 10.4): no destination yet, or none of its options applies. */
export type ShippingFault = "shipping_required" | "shipping_unavailable";

/**
 * A discount that stops a checkout (contract 10.3): a code the cart answered applicable that the
 * checkout cannot apply, or a limited discount with no use left to reserve. `code` is null for an
 * automatic discount, which `discount_id` names.
 */
export interface DiscountFault {
  code: string | null;
  reason: CodeReason;
  discount_id?: string;
}

/** Why a checkout operation did not happen. Crosses RPC as data, since thrown errors lose their class. */
export type CheckoutFailureCode =
  | "resource_missing"
  | "cart_empty"
  | "checkout_unavailable"
  | "checkout_not_open"
  | "idempotency_key_reused"
  | "token_revoked"
  | "catalog_unavailable"
  | "parameter_missing"
  | "payment_provider_unavailable";

export interface CheckoutFailure {
  code: CheckoutFailureCode;
  message: string;
  param?: string;
  lines?: UnavailableLine[];
  discount_codes?: DiscountFault[];
  shipping?: ShippingFault;
}

/**
 * What every checkout RPC method returns: the answer's JSON text (a Checkout or an Order) with
 * its status, or the reason nothing happened.
 */
export type CheckoutReply =
  | { ok: true; status: 200 | 201; json: string; replayed: boolean }
  | { ok: false; failure: CheckoutFailure; replayed: boolean };

/** The answer for a checkout id that names nothing its asker may reach. */
export function missingCheckout(): CheckoutReply {
  return {
    ok: false,
    failure: { code: "resource_missing", message: "No such checkout.", param: "id" },
    replayed: false,
  };
}
