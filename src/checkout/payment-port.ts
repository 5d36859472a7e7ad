import type { PaymentAmounts } from "../payment/amounts.ts";
import type { PaymentSession } from "./checkout-rows.ts";

/**
 * What a checkout needs from a payment provider that makes its own payment sessions (Stripe
 * Checkout today): make one for the checkout's frozen amounts, and expire one so a released hold
 * cannot be paid. Both are idempotent by the checkout id, so a cart object that crashed or
 * timed out mid-way simply asks again.
 */
export interface SessionRequest {
  checkoutId: string;
  amounts: PaymentAmounts;
  email: string | null;
  returnUrl: string;
  /** The hold's end (ms): the session expires no earlier. */
  expiresAt: number;
}

/**
 * `unanswered`: nothing certain came back (down, timed out, a 5xx), so a session may exist at the
 * provider: the checkout must make sure it is expired. `refused`: the provider said no; nothing exists.
 */
export type SessionOutcome =
  | { ok: true; session: PaymentSession }
  | { ok: false; kind: "unanswered" | "refused"; reason: string };

export interface PaymentSessions {
  open(request: SessionRequest): Promise<SessionOutcome>;
  /** The session a creation made, learned by replaying it (same Idempotency-Key); null when that fails too. */
  recover(request: SessionRequest): Promise<string | null>;
  /** True once the session can no longer be paid (expired now, or already expired or complete). */
  expire(sessionId: string): Promise<boolean>;
}
