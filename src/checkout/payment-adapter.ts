import { planSession } from "../payment/session.ts";
import {
  createCheckoutSession,
  createCoupon,
  DEFAULT_STRIPE_API_BASE,
  DEFAULT_STRIPE_TIMEOUT_MS,
  expireCheckoutSession,
  type StripeResult,
  type StripeSettings,
} from "../payment/stripe-api.ts";
import type { PaymentSessions, SessionOutcome, SessionRequest } from "./payment-port.ts";

/**
 * The worker's Stripe settings (STRIPE_SECRET_KEY is a secret, so the generated Env does not name
 * it). Each is read as `env.NAME`, which is how `npm run dev` finds the names it passes from the
 * environment (src/cli/dev-vars.ts).
 */
export function stripeSettings(env: Env & { STRIPE_SECRET_KEY?: unknown }): StripeSettings | null {
  const key = typeof env.STRIPE_SECRET_KEY === "string" ? env.STRIPE_SECRET_KEY.trim() : "";
  if (key === "") return null;
  const base = typeof env.STRIPE_API_BASE === "string" ? env.STRIPE_API_BASE.trim() : "";
  const timeout = Number(env.STRIPE_TIMEOUT_MS);
  return {
    apiBase: base || DEFAULT_STRIPE_API_BASE,
    secretKey: key,
    timeoutMs: Number.isInteger(timeout) && timeout >= 100 && timeout <= 60_000 ? timeout : DEFAULT_STRIPE_TIMEOUT_MS,
  };
}

function failed(result: Extract<StripeResult<unknown>, { ok: false }>): SessionOutcome {
  const unanswered = result.status === null || result.status >= 500 || result.status === 409 || result.status === 429;
  return { ok: false, kind: unanswered ? "unanswered" : "refused", reason: result.reason };
}

/** One line at error level naming what Stripe said (its error type and code, never what was sent). */
function logStripe(operation: string, checkoutId: string, reason: string): void {
  console.error(
    JSON.stringify({ level: "error", error: "stripe_request_failed", operation, checkout_id: checkoutId, reason }),
  );
}

/**
 * Stripe Checkout Sessions over Stripe's HTTP API (plain fetch: the `stripe` package is a test
 * tool here). The checkout id is the Idempotency-Key of the session (and of its coupon), so a
 * retry never makes a second session and a lost answer is recovered by replaying the request.
 */
export function stripeSessions(env: Env): PaymentSessions {
  const settings = stripeSettings(env);
  async function open(request: SessionRequest): Promise<SessionOutcome> {
    if (!settings) return { ok: false, kind: "refused", reason: "STRIPE_SECRET_KEY is not set" };
    const plan = planSession({ ...request, expiresAt: Math.ceil(request.expiresAt / 1000) });
    if (!plan.ok) return { ok: false, kind: "refused", reason: plan.message };
    let couponId: string | null = null;
    if (plan.coupon) {
      const coupon = await createCoupon(settings, plan.coupon, `${request.checkoutId}-coupon`);
      if (!coupon.ok) return failed(coupon);
      couponId = coupon.value.id;
    }
    const created = await createCheckoutSession(settings, plan.session(couponId), request.checkoutId);
    if (!created.ok) return failed(created);
    const session = created.value;
    // Stripe's own arithmetic must give the checkout's total, or the shopper would pay another amount.
    if (session.amount_total !== plan.amountTotal || !session.url) {
      await expireCheckoutSession(settings, session.id);
      return { ok: false, kind: "refused", reason: `amount_total ${session.amount_total} is not ${plan.amountTotal}` };
    }
    return { ok: true, session: { id: session.id, url: session.url } };
  }
  return {
    async open(request) {
      const outcome = await open(request);
      if (!outcome.ok) logStripe("create_session", request.checkoutId, outcome.reason);
      return outcome;
    },
    async recover(request) {
      const outcome = await open(request);
      return outcome.ok ? outcome.session.id : null;
    },
    async expire(sessionId) {
      if (!settings) return false;
      const result = await expireCheckoutSession(settings, sessionId);
      // 400: the session is no longer open (expired already, or complete): nothing left to expire.
      if (result.ok || result.status === 400 || result.status === 404) return true;
      logStripe("expire_session", sessionId, result.reason);
      return false;
    },
  };
}
