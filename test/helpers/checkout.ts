import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { type Checkout, CheckoutSchema, type Order, OrderSchema } from "../../src/checkout/api.ts";
import { signatureHeader } from "../../src/checkout/signature.ts";
import type { StockLevel } from "../../src/stock/api.ts";
import { stockStore } from "../../src/stock/store.ts";
import { call, cartCall, operator } from "./cart.ts";

/** The development webhook secret, which vitest.config.ts gives the test worker. */
export const WEBHOOK_SECRET = "dev-checkout-webhook-secret";
/** The Stripe endpoint secret vitest.config.ts gives the test worker. */
export const STRIPE_SECRET = "whsec_test_0123456789abcdefghijklmnopqrstuv";

/** POST /checkouts with `token` (body `{}` unless given), with an Idempotency-Key when given. */
export function postCheckout(token: string, body: unknown = {}, key?: string): Promise<Response> {
  return cartCall(token, "/checkouts", {
    method: "POST",
    body,
    ...(key ? { headers: { "Idempotency-Key": key } } : {}),
  });
}

/** A 201 checkout, parsed; anything else fails the test. */
export async function checkoutFrom(res: Response, status = 201): Promise<Checkout> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return CheckoutSchema.parse(JSON.parse(text));
}

/** A 200 order, parsed. */
export async function orderFrom(res: Response): Promise<Order> {
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return OrderSchema.parse(JSON.parse(text));
}

/** What a payment moved, as the completion surfaces take it. */
export interface Paid {
  amount: string;
  currency: string;
}

/** A checkout to complete: its id and what it asks to be paid (`cost.total`), or an id with what was paid. */
type Payable = Pick<Checkout, "id" | "cost"> | { id: string; paid: Paid };

function paidFor(checkout: Payable, paid?: Paid): Paid {
  return paid ?? ("paid" in checkout ? checkout.paid : checkout.cost.total);
}

/** Completes a checkout through the operator surface, paying its total unless `paid` says otherwise. */
export function operatorComplete(checkout: Payable, reference = "pay_test", paid?: Paid): Promise<Response> {
  return operator(`/checkouts/${checkout.id}/complete`, {
    method: "POST",
    body: JSON.stringify({ payment_reference: reference, ...paidFor(checkout, paid) }),
  });
}

/** POSTs a webhook body with the given headers (JSON Content-Type unless overridden). */
export function postWebhook(body: string, headers: Record<string, string>): Promise<Response> {
  return call("/api/v1/webhooks/checkouts", {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body,
  });
}

/** The storefront's own completion event for a checkout, signed at `now`, paying its total unless `paid` says otherwise. */
export async function signedCompletion(
  checkout: Payable,
  reference = "pay_webhook",
  now = Date.now(),
  paid?: Paid,
): Promise<{ body: string; headers: Record<string, string> }> {
  const body = JSON.stringify({
    type: "checkout.completed",
    data: { checkout_id: checkout.id, payment_reference: reference, ...paidFor(checkout, paid) },
  });
  return { body, headers: { "Storefront-Signature": await signatureHeader(WEBHOOK_SECRET, body, now) } };
}

/** Sets the on-hand level of variants through the stock room's adapter. */
export async function setStock(levels: Record<string, number>): Promise<void> {
  const changes = Object.entries(levels).map(([variantId, value], index) => ({
    index,
    variantId,
    op: "set" as const,
    value,
  }));
  const batch = crypto.randomUUID();
  const result = await stockStore(env).apply(batch, batch, "operator", changes);
  expect(result.ok).toBe(true);
}

/** A variant's stock level. */
export async function stockOf(variantId: string): Promise<StockLevel> {
  return stockStore(env).level(variantId);
}
