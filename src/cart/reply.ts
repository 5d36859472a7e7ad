import { authenticationError } from "../auth/bearer.ts";
import { ApiError, catalogUnavailable, invalidRequest, resourceMissing, soldOut } from "../http/errors.ts";
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

/**
 * Turns a failure reported by the cart object into the contract's error. `token_revoked` is
 * the Durable Object refusing a token KV still believes in: the same 401 as any bad token.
 */
export function failureToApiError(failure: CartFailure, docsUrl: string | undefined): ApiError {
  switch (failure.code) {
    case "resource_missing":
      return resourceMissing(failure.message, failure.param);
    case "sold_out":
      return soldOut(failure.param);
    case "parameter_invalid":
    case "quantity_exceeded":
    case "cart_full":
      return invalidRequest(failure.code, failure.message, failure.param);
    case "idempotency_key_reused":
      return new ApiError(422, { type: "idempotency_error", code: failure.code, message: failure.message });
    case "idempotency_key_in_use":
      return new ApiError(409, { type: "idempotency_error", code: failure.code, message: failure.message });
    case "token_revoked":
      return authenticationError(docsUrl, failure.message, true);
    case "catalog_unavailable":
      return catalogUnavailable();
  }
}
