import type { Cart } from "./api.ts";

/** Why a cart operation did not happen. Crosses RPC as data, since thrown errors lose their class. */
export type CartFailureCode =
  | "resource_missing"
  | "sold_out"
  | "insufficient_stock"
  | "parameter_invalid"
  | "quantity_exceeded"
  | "cart_full"
  | "attributes_too_large"
  | "idempotency_key_reused"
  | "idempotency_key_in_use"
  | "token_revoked"
  | "rate_limited"
  | "catalog_unavailable";

export interface CartFailure {
  code: CartFailureCode;
  message: string;
  param?: string;
  /** `insufficient_stock`: units left to take. */
  available_quantity?: number;
}

/**
 * What every Cart RPC method returns: the cart, or the reason it did not change. The cart
 * crosses RPC as its JSON text (`cartJson`, exactly the bytes of the 200 answer), not as an
 * object: one string is far cheaper to pass between isolates than a cart's object graph, and
 * the route then answers it as is instead of serialising it again.
 */
export type CartReply = (
  | { ok: true; cartJson: CartJson; replayed: boolean }
  | { ok: false; failure: CartFailure; replayed: boolean }
) & {
  /** The write limit as this answer leaves it (writes only; never stored with a replayed answer). */
  rate?: WriteRate;
};

/** What is left of a token's cart write limit: the `RateLimit` answer header's `r` and `t`. */
export interface WriteRate {
  /** Writes left in the current window. */
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

/** `JSON.stringify` of a {@link Cart}. */
export type CartJson = string;

/** An Idempotency-Key and the fingerprint (method, path, body) of the request that carried it. */
export interface IdempotencyClaim {
  key: string;
  fingerprint: string;
}
