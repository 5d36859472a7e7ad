import type { Cart } from "./api.ts";

/** Why a cart operation did not happen. Crosses RPC as data, since thrown errors lose their class. */
export type CartFailureCode =
  | "resource_missing"
  | "sold_out"
  | "parameter_invalid"
  | "quantity_exceeded"
  | "cart_full"
  | "idempotency_key_reused"
  | "idempotency_key_in_use"
  | "token_revoked"
  | "catalog_unavailable";

export interface CartFailure {
  code: CartFailureCode;
  message: string;
  param?: string;
}

/** What every Cart RPC method returns: the cart, or the reason it did not change. */
export type CartReply =
  | { ok: true; cart: Cart; replayed: boolean }
  | { ok: false; failure: CartFailure; replayed: boolean };

/** An Idempotency-Key and the fingerprint (method, path, body) of the request that carried it. */
export interface IdempotencyClaim {
  key: string;
  fingerprint: string;
}
