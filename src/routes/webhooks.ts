import { Hono } from "../http/hono.ts";
import {
  CHECKOUT_ID_PATTERN,
  CheckoutCompletedEventSchema,
  StorefrontEventSchema,
  StripeEventSchema,
  type WebhookReceipt,
} from "../checkout/api.ts";
import { checkoutHost, completeById } from "../checkout/client.ts";
import type { CompletedBy } from "../checkout/orders.ts";
import { checkSignature } from "../checkout/signature.ts";
import type { AppEnv } from "../http/app-env.ts";
import { fromCheckoutFailure, invalidRequest, signatureRefused } from "../http/errors.ts";
import { noStore } from "../http/no-store.ts";
import { checkoutWebhookSecret, stripeWebhookSecret } from "../http/secrets.ts";
import { readJsonText, toValidationError, validQuery } from "../http/validate.ts";
import { describe } from "../openapi/describe.ts";
import { NoQuerySchema } from "../catalog/api.ts";
import { isCurrency } from "../money.ts";
import { type Received, receivedFrom } from "../payment/amounts.ts";
import { fromStripeAmount } from "../payment/stripe-units.ts";

/** A webhook body may be larger than an API write: Stripe's events run to a few KiB, some more. */
export const MAX_WEBHOOK_BYTES = 64 * 1024;

/** The events that complete a checkout, per scheme. */
const STRIPE_COMPLETING = new Set(["checkout.session.completed", "checkout.session.async_payment_succeeded"]);
/** A Stripe Checkout Session paid (or needing no payment); `unpaid` waits for async_payment_succeeded. */
const STRIPE_PAID = new Set(["paid", "no_payment_required"]);
/** A delayed payment that failed: the session can no longer be paid, so its checkout is canceled. */
const STRIPE_FAILED = "checkout.session.async_payment_failed";

function ignored(type: string): WebhookReceipt {
  return { object: "webhook_receipt", handled: false, type, checkout_id: null, order_id: null, payment_status: null };
}

/** What a payment side says it moved, or the 400 that says why it cannot be read. */
function received(amount: string, currency: string, param: string): Received {
  const parsed = receivedFrom(amount, currency);
  if (!parsed) throw invalidRequest("parameter_invalid", `${amount} has more decimals than ${currency} has.`, param);
  return parsed;
}

/** Stripe's amount_total, currency (`usd`, in Stripe's minor units) and the tax Stripe Tax added, as ISO minor units. */
function stripeReceived(
  amountTotal: number | null | undefined,
  currency: string | null | undefined,
  amountTax: number | null | undefined,
): Received {
  const code = (currency ?? "").toUpperCase();
  if (typeof amountTotal !== "number" || !Number.isSafeInteger(amountTotal) || amountTotal < 0 || !isCurrency(code)) {
    throw invalidRequest(
      "parameter_missing",
      "The session must carry amount_total and currency.",
      "data.object.amount_total",
    );
  }
  const minor = fromStripeAmount(amountTotal, code);
  if (minor === null)
    throw invalidRequest("parameter_invalid", "amount_total is not a whole amount.", "data.object.amount_total");
  const tax = typeof amountTax === "number" && amountTax > 0 ? fromStripeAmount(amountTax, code) : null;
  return { amount_minor: minor, currency: code, ...(tax !== null ? { tax_minor: tax } : {}) };
}

/** The signed request as the webhook reads it: the two signature headers and the raw body. */
export interface SignedDelivery {
  storefrontSignature: string | undefined;
  stripeSignature: string | undefined;
  body: string;
}

/**
 * Verifies a delivery and acts on it: completes the checkout it names, exactly once. Throws the
 * contract's errors (nothing changed) for a missing, malformed or wrong signature, one from
 * outside the 5-minute window, a body that is not JSON, or an unknown checkout; answers a receipt
 * with `handled: false` for events it does not act on. Never echoes a signature or secret.
 */
export async function receiveCheckoutWebhook(env: Env, delivery: SignedDelivery): Promise<WebhookReceipt> {
  const scheme = delivery.stripeSignature !== undefined ? "stripe" : "storefront";
  const header = scheme === "stripe" ? delivery.stripeSignature : delivery.storefrontSignature;
  const name = scheme === "stripe" ? "Stripe-Signature" : "Storefront-Signature";
  if (header === undefined) {
    throw signatureRefused("signature_invalid", "Sign the event: send Storefront-Signature (or Stripe-Signature).");
  }
  const secret = scheme === "stripe" ? stripeWebhookSecret(env) : checkoutWebhookSecret(env);
  if (secret === undefined) {
    throw signatureRefused(
      "signature_invalid",
      `This server has no secret to check ${name} with (${scheme === "stripe" ? "STRIPE_WEBHOOK_SECRET" : "CHECKOUT_WEBHOOK_SECRET"} is not set).`,
    );
  }
  const check = await checkSignature(header, delivery.body, secret);
  if (check === "malformed") {
    throw signatureRefused("signature_invalid", `${name} must be t=<unix seconds>,v1=<64 hex digits>.`);
  }
  if (check === "mismatch") throw signatureRefused("signature_invalid", `The ${name} does not match this body.`);
  if (check === "outside_window") {
    throw signatureRefused(
      "timestamp_out_of_range",
      "The signature's timestamp is more than 300 seconds from now: a replay, or a clock far off.",
    );
  }
  let event: unknown;
  try {
    event = JSON.parse(delivery.body);
  } catch {
    throw invalidRequest("invalid_json", "The request body is not valid JSON.");
  }
  return scheme === "stripe" ? stripeEvent(env, event) : storefrontEvent(env, event);
}

async function storefrontEvent(env: Env, raw: unknown): Promise<WebhookReceipt> {
  if (typeof raw === "object" && raw !== null && (raw as { type?: unknown }).type === "checkout.completed") {
    // The event acted on: a refusal names the field at fault (`data.payment_reference`, `data.amount`).
    const parsed = CheckoutCompletedEventSchema.safeParse(raw, { reportInput: true });
    if (!parsed.success) throw toValidationError(parsed.error, "body", CheckoutCompletedEventSchema);
    const { type, data } = parsed.data;
    const paid = received(data.amount, data.currency, "data.amount");
    return complete(env, type, data.checkout_id, data.payment_reference, "webhook", paid);
  }
  // Events it does not act on are acknowledged whatever their data says.
  const parsed = StorefrontEventSchema.safeParse(raw);
  if (!parsed.success) throw invalidRequest("parameter_invalid", "The event must be {type, data}.", "type");
  return ignored(parsed.data.type);
}

async function stripeEvent(env: Env, raw: unknown): Promise<WebhookReceipt> {
  const parsed = StripeEventSchema.safeParse(raw);
  if (!parsed.success)
    throw invalidRequest("parameter_invalid", "The event must be a Stripe event {type, data.object}.", "type");
  const event = parsed.data;
  const session = event.data?.object;
  if (event.type === STRIPE_FAILED && session?.client_reference_id?.startsWith("chk_")) {
    return cancelUnpaid(env, event.type, session.client_reference_id);
  }
  if (!STRIPE_COMPLETING.has(event.type) || !session) return ignored(event.type);
  // Not paid yet (a delayed payment method): the async_payment_succeeded event completes it.
  if (event.type === "checkout.session.completed" && !STRIPE_PAID.has(session.payment_status ?? "paid")) {
    return ignored(event.type);
  }
  const checkoutId = session.client_reference_id;
  // A session this store did not start (no client_reference_id of ours): the account's, not ours.
  if (!checkoutId?.startsWith("chk_")) return ignored(event.type);
  const reference = session.payment_intent ?? session.id ?? checkoutId;
  return complete(
    env,
    event.type,
    checkoutId,
    reference,
    "stripe",
    stripeReceived(session.amount_total, session.currency, session.total_details?.amount_tax),
  );
}

/**
 * A delayed payment failed (`checkout.session.async_payment_failed`): no order, and the checkout
 * is canceled so its units go back at once (its session cannot be paid any more; the shopper
 * checks out again). One already completed, canceled or expired is left as it is.
 */
async function cancelUnpaid(env: Env, type: string, checkoutId: string): Promise<WebhookReceipt> {
  if (!CHECKOUT_ID_PATTERN.test(checkoutId)) return ignored(type);
  const reply = await checkoutHost(env, checkoutId)?.cancelCheckout(checkoutId);
  if (!reply) return ignored(type);
  return {
    object: "webhook_receipt",
    handled: reply.ok,
    type,
    checkout_id: checkoutId,
    order_id: null,
    payment_status: null,
  };
}

async function complete(
  env: Env,
  type: string,
  checkoutId: string,
  paymentReference: string,
  by: CompletedBy,
  paid: Received,
): Promise<WebhookReceipt> {
  if (!CHECKOUT_ID_PATTERN.test(checkoutId))
    throw fromCheckoutFailure({ code: "resource_missing", message: "No such checkout.", param: "checkout_id" });
  const reply = await completeById(env, checkoutId, paymentReference, by, paid);
  if (!reply.ok) throw fromCheckoutFailure({ ...reply.failure, param: "checkout_id" });
  const order = JSON.parse(reply.json) as { id: string; payment_status: "paid" | "mismatch" };
  return {
    object: "webhook_receipt",
    handled: true,
    type,
    checkout_id: checkoutId,
    order_id: order.id,
    payment_status: order.payment_status,
  };
}

/**
 * The payment side's signed webhook. No token and no CORS: the signature is the credential.
 */
export const webhooks = new Hono<AppEnv>()
  .use("*", noStore)
  .post("/checkouts", describe("receiveCheckoutWebhook"), validQuery(NoQuerySchema), async (c) => {
    const body = await readJsonText(c, MAX_WEBHOOK_BYTES);
    const receipt = await receiveCheckoutWebhook(c.env, {
      storefrontSignature: c.req.header("storefront-signature"),
      stripeSignature: c.req.header("stripe-signature"),
      body,
    });
    return c.json(receipt, 200);
  });
