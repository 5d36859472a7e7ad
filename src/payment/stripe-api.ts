import * as z from "zod/mini";
import { type FormObject, formBody } from "./form.ts";

/** Where and how the worker reaches Stripe's HTTP API. */
export interface StripeSettings {
  /** STRIPE_API_BASE, default https://api.stripe.com (tests point it at the local stand-in). */
  apiBase: string;
  /** STRIPE_SECRET_KEY (`sk_…` or a restricted `rk_…`). Never logged or answered. */
  secretKey: string;
  /** How long one request may take before it counts as Stripe being down. */
  timeoutMs: number;
}

export const DEFAULT_STRIPE_API_BASE = "https://api.stripe.com";
export const DEFAULT_STRIPE_TIMEOUT_MS = 10_000;

/** A Stripe answer, or why there is none: `status` null when nothing came back (down, timed out). */
export type StripeResult<T> = { ok: true; value: T } | { ok: false; status: number | null; reason: string };

const SessionSchema = z.looseObject({
  id: z.string(),
  url: z.nullable(z.string()),
  amount_total: z.nullable(z.number()),
  currency: z.nullable(z.string()),
  status: z.nullable(z.string()),
});
export type StripeSession = z.infer<typeof SessionSchema>;

const CouponSchema = z.looseObject({ id: z.string() });
const ErrorSchema = z.looseObject({
  error: z.looseObject({ type: z.optional(z.string()), code: z.optional(z.string()) }),
});

/**
 * One POST to Stripe over plain fetch, form-encoded, with an Idempotency-Key (a retry with the
 * same key is answered with the first result, so a checkout never makes two sessions). The
 * reason of a failure names Stripe's error type and code only: Stripe's messages can quote what
 * was sent, and nothing sent (the key included) may reach a log or an answer.
 */
async function post<T>(
  settings: StripeSettings,
  path: string,
  params: FormObject,
  idempotencyKey: string,
  schema: z.ZodMiniType<T>,
): Promise<StripeResult<T>> {
  let res: Response;
  try {
    res = await fetch(`${settings.apiBase.replace(/\/+$/, "")}${path}`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${settings.secretKey}`,
        "Content-Type": "application/x-www-form-urlencoded",
        "Idempotency-Key": idempotencyKey,
      },
      body: formBody(params),
      signal: AbortSignal.timeout(settings.timeoutMs),
    });
  } catch (error) {
    const timedOut = error instanceof Error && error.name === "TimeoutError";
    return { ok: false, status: null, reason: timedOut ? "timeout" : "unreachable" };
  }
  const payload: unknown = await res.json().catch(() => null);
  if (!res.ok) {
    const parsed = ErrorSchema.safeParse(payload);
    const detail = parsed.success ? [parsed.data.error.type, parsed.data.error.code].filter(Boolean).join("/") : "";
    return { ok: false, status: res.status, reason: detail || `http_${res.status}` };
  }
  const parsed = schema.safeParse(payload);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, status: res.status, reason: "unreadable" };
}

export function createCoupon(
  settings: StripeSettings,
  params: FormObject,
  key: string,
): Promise<StripeResult<{ id: string }>> {
  return post(settings, "/v1/coupons", params, key, CouponSchema);
}

export function createCheckoutSession(
  settings: StripeSettings,
  params: FormObject,
  key: string,
): Promise<StripeResult<StripeSession>> {
  return post(settings, "/v1/checkout/sessions", params, key, SessionSchema);
}

export function expireCheckoutSession(
  settings: StripeSettings,
  sessionId: string,
): Promise<StripeResult<StripeSession>> {
  return post(
    settings,
    `/v1/checkout/sessions/${encodeURIComponent(sessionId)}/expire`,
    {},
    `expire-${sessionId}`,
    SessionSchema,
  );
}
