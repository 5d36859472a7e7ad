import Stripe from "stripe";
import { beforeAll, describe, expect, it } from "vitest";
import type { Checkout } from "../../src/checkout/api.ts";
import { bearerInit } from "../helpers/bearer.ts";
import { cartCall, cartFrom, issueToken, operator } from "../helpers/cart.ts";
import { publishSeedCatalog } from "../helpers/catalog.ts";
import { checkoutFrom, orderFrom, postWebhook, STRIPE_SECRET } from "../helpers/checkout.ts";
import { publishRules } from "../helpers/rules.ts";
import { fetchAs } from "../helpers/worker.ts";
import { standInSession } from "./stand-in-client.ts";

/**
 * POST /checkouts with PAYMENT_PROVIDER=stripe charges the frozen total (contract 10.6, issue 43
 * part 5, issue 44 part 5): the session made by the worker, as the stand-in keeps it, carries the
 * discounts, the shipping rate and the tax exactly as frozen; under tax mode `stripe` it turns on
 * Stripe Tax, the completion compares what was paid less Stripe's tax with the frozen total, and
 * the order records the tax charged.
 */

const TEE = "44102938475602"; // 28.00
const HOODIE = "44102938475628"; // 64.95
const stripe = new Stripe("sk_test_unused");
const ZONES = {
  zones: [{ name: "Domestic", countries: ["US"], rates: [{ id: "standard", title: "Standard", price: "5.00" }] }],
};
const DISCOUNTS = [
  {
    id: "tees20",
    title: "20% off tees",
    kind: "percentage",
    value: "20",
    applies_to: { products: ["essential-crew-tee-black"] },
    combines_with: ["order", "shipping"],
  },
  {
    id: "five",
    title: "5 off",
    code: "FIVE",
    kind: "fixed_amount",
    value: "5.00",
    combines_with: ["product", "shipping"],
  },
];

beforeAll(async () => {
  await publishSeedCatalog();
});

/** A Stripe-mode checkout of 2 tees and a hoodie to California, with FIVE entered. */
async function stripeCheckout(): Promise<Checkout> {
  const { token } = await issueToken();
  for (const [variant_id, quantity] of [
    [TEE, 2],
    [HOODIE, 1],
  ] as const)
    expect((await cartCall(token, "/cart/lines", { method: "POST", body: { variant_id, quantity } })).status).toBe(200);
  await cartFrom(
    await cartCall(token, "/cart", {
      method: "PATCH",
      body: { buyer: { email: "dee@example.com", country: "US", region: "CA" }, discount_codes: ["FIVE"] },
    }),
  );
  return checkoutFrom(
    await fetchAs(
      "production",
      "/api/v1/checkouts",
      bearerInit(token, { method: "POST", body: { return_url: "https://shop.example/thanks" } }),
      { PAYMENT_PROVIDER: "stripe" } as Partial<Env>,
    ),
  );
}

const cents = (amount: string) => Math.round(Number(amount) * 100);

async function sessionOf(checkout: Checkout): Promise<Record<string, unknown>> {
  const session = await standInSession(checkout.url!.split("/").at(-1)!);
  expect(session).not.toBeNull();
  return session!;
}

/** Stripe's checkout.session.completed for the checkout, paying `amountTotal` of which `amountTax` is Stripe Tax's. */
async function completed(checkout: Checkout, amountTotal: number, amountTax: number): Promise<Response> {
  const body = JSON.stringify({
    id: `evt_${crypto.randomUUID().slice(0, 8)}`,
    object: "event",
    type: "checkout.session.completed",
    data: {
      object: {
        id: "cs_test_frozen",
        object: "checkout.session",
        client_reference_id: checkout.id,
        payment_intent: `pi_${crypto.randomUUID().slice(0, 8)}`,
        payment_status: "paid",
        amount_total: amountTotal,
        currency: "usd",
        total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: amountTax },
      },
    },
  });
  const header = await stripe.webhooks.generateTestHeaderStringAsync({
    payload: body,
    secret: STRIPE_SECRET,
    cryptoProvider: Stripe.createSubtleCryptoProvider(),
  });
  return postWebhook(body, { "Stripe-Signature": header });
}

describe("the Stripe session charges the frozen total", () => {
  it("carries a product and an order discount, the shipping rate and exclusive tax: amount_total is cost.total", async () => {
    await publishRules({
      discounts: DISCOUNTS,
      shipping: ZONES,
      tax: {
        mode: "exclusive",
        shipping_taxable: true,
        rates: [{ country: "US", region: "CA", rate: "0.0725", name: "Sales tax" }],
      },
    });
    const checkout = await stripeCheckout();
    expect(checkout.discounts.map((d) => d.id)).toEqual(["tees20", "five"]);
    expect(checkout.cost.tax).not.toBeNull();
    const session = await sessionOf(checkout);
    expect(session.amount_total).toBe(cents(checkout.cost.total.amount));
    expect(session.total_details).toMatchObject({
      amount_discount: cents(checkout.cost.discount_total.amount),
      amount_shipping: cents(checkout.cost.shipping!.amount),
    });
  });

  it("free shipping lowers the shipping rate, so amount_total is still cost.total", async () => {
    await publishRules({
      discounts: [{ id: "ship-free", title: "Free shipping", kind: "free_shipping" }],
      shipping: ZONES,
    });
    const checkout = await stripeCheckout();
    expect(checkout.discounts.map((d) => d.id)).toEqual(["ship-free"]);
    const session = await sessionOf(checkout);
    expect(session.amount_total).toBe(cents(checkout.cost.total.amount));
    expect(session.total_details).toMatchObject({ amount_shipping: 0, amount_discount: 0 });
  });

  it("tax mode stripe: Stripe Tax adds the tax, the completion compares the rest, the order records what was charged", async () => {
    await publishRules({ discounts: DISCOUNTS, shipping: ZONES, tax: { mode: "stripe" } });
    const checkout = await stripeCheckout();
    expect(checkout.cost).toMatchObject({ tax: null, tax_calculated_at: "payment" });
    const session = await sessionOf(checkout);
    expect(session.automatic_tax).toMatchObject({ enabled: true });
    const tax = (session.total_details as { amount_tax: number }).amount_tax;
    expect(tax).toBeGreaterThan(0);
    expect(session.amount_total).toBe(cents(checkout.cost.total.amount) + tax);

    const res = await completed(checkout, session.amount_total as number, tax);
    const receipt = (await res.json()) as { order_id: string; payment_status: string };
    expect(receipt.payment_status).toBe("paid");
    const order = await orderFrom(await operator(`/orders/${receipt.order_id}`));
    expect(order.amount_paid).toEqual({ amount: ((session.amount_total as number) / 100).toFixed(2), currency: "USD" });
    expect(order.cost.tax).toEqual({ amount: (tax / 100).toFixed(2), currency: "USD" });
    expect(order.cost.total).toEqual(order.amount_paid);
    expect(order.cost.subtotal).toEqual(checkout.cost.subtotal);
    expect(order.discounts).toEqual(checkout.discounts);

    // A payment whose amount less Stripe's tax is not the frozen total is a mismatch, as any other.
    const short = await stripeCheckout();
    const shortSession = await sessionOf(short);
    const shortTax = (shortSession.total_details as { amount_tax: number }).amount_tax;
    const refused = await completed(short, (shortSession.amount_total as number) - 100, shortTax);
    expect(((await refused.json()) as { payment_status: string }).payment_status).toBe("mismatch");
  });
});
