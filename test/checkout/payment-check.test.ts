import { exports } from "cloudflare:workers";
import Stripe from "stripe";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Checkout } from "../../src/checkout/api.ts";
import type { VariantRecord } from "../../src/catalog/store.ts";
import { OrdersClient, runOrdersCommand } from "../../src/cli/orders-client.ts";
import { addLine, BASE, cartCall, issueToken, operator, OPERATOR_SECRET, seedVariants } from "../helpers/cart.ts";
import {
  checkoutFrom,
  operatorComplete,
  orderFrom,
  postCheckout,
  postWebhook,
  STRIPE_SECRET,
  setStock,
  signedCompletion,
  stockOf,
} from "../helpers/checkout.ts";

let variants: VariantRecord[];
const stripe = new Stripe("sk_test_unused");
const client = new OrdersClient(BASE, OPERATOR_SECRET, (input, init) => exports.default.fetch(input, init));

beforeAll(async () => {
  variants = (await seedVariants()).available;
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** A new holder's open checkout of one unit of each variant priced `prices` (minor units), stocked. */
async function checkoutOf(...prices: number[]): Promise<{ token: string; checkout: Checkout; ids: string[] }> {
  const ids = prices.map((price) => variants.find((v) => v.price_minor === price && v.available)!.id);
  await setStock(Object.fromEntries(ids.map((id) => [id, 20])));
  const { token } = await issueToken();
  for (const id of ids) expect((await addLine(token, id, 1)).status).toBe(200);
  return { token, checkout: await checkoutFrom(await postCheckout(token)), ids };
}

/** A Stripe event about `checkoutId`, as Stripe sends it (amounts in Stripe's minor units), signed by the stripe package. */
async function stripeEvent(
  type: string,
  checkoutId: string,
  session: { amount_total: number; currency: string; payment_status?: string },
): Promise<{ body: string; headers: Record<string, string> }> {
  const body = JSON.stringify({
    id: `evt_${crypto.randomUUID().slice(0, 8)}`,
    object: "event",
    type,
    data: {
      object: {
        id: "cs_test_link",
        object: "checkout.session",
        client_reference_id: checkoutId,
        payment_intent: "pi_link",
        payment_status: session.payment_status ?? "paid",
        amount_total: session.amount_total,
        currency: session.currency,
      },
    },
  });
  const header = await stripe.webhooks.generateTestHeaderStringAsync({
    payload: body,
    secret: STRIPE_SECRET,
    cryptoProvider: Stripe.createSubtleCryptoProvider(),
  });
  return { body, headers: { "Stripe-Signature": header } };
}

describe("completion checks the money (contract 10.6)", () => {
  it("answers the issue's repro, a 0.50 EUR Payment Link naming a 149.90 USD checkout, with a mismatch order", async () => {
    // 58.00 + 69.90 + 22.00: the 149.90 USD checkout of issue 43.
    const { checkout, ids } = await checkoutOf(5800, 6990, 2200);
    expect(checkout.cost.total).toEqual({ amount: "149.90", currency: "USD" });
    const errors = vi.spyOn(console, "error");
    const link = await stripeEvent("checkout.session.completed", checkout.id, { amount_total: 50, currency: "eur" });
    const res = await postWebhook(link.body, link.headers);
    expect(res.status).toBe(200);
    const receipt = (await res.json()) as { order_id: string; payment_status: string };
    expect(receipt.payment_status).toBe("mismatch");
    const order = await orderFrom(await operator(`/orders/${receipt.order_id}`));
    expect(order).toMatchObject({
      payment_status: "mismatch",
      amount_paid: { amount: "0.50", currency: "EUR" },
      cost: { total: { amount: "149.90", currency: "USD" } },
      completed_by: "stripe",
    });
    // The money moved: the order is written and the units are taken, but it never reads as paid.
    for (const id of ids) expect(await stockOf(id)).toMatchObject({ held: 0, quantity: 19 });
    const logged = errors.mock.calls.flat().map(String);
    const line = logged.find((l) => l.includes('"payment_mismatch"'));
    expect(line).toBeDefined();
    expect(JSON.parse(line!)).toMatchObject({
      level: "error",
      checkout_id: checkout.id,
      expected_minor: 14990,
      expected_currency: "USD",
      received_minor: 50,
      received_currency: "EUR",
    });
    expect(logged.join("\n")).not.toContain(STRIPE_SECRET);
    // orders -- check exits 1 naming it.
    const check = await runOrdersCommand({ action: "check" }, client);
    expect(check.ok).toBe(false);
    expect(check.lines.find((l) => l.includes(order.id))).toMatch(/payment_mismatch: .*0\.50 EUR.*149\.90 USD/);
  });

  it("is paid when the payment moved exactly the total, through each surface", async () => {
    for (const surface of ["operator", "webhook", "stripe"] as const) {
      const { checkout } = await checkoutOf(2800);
      let order: Awaited<ReturnType<typeof orderFrom>>;
      if (surface === "operator") order = await orderFrom(await operatorComplete(checkout));
      else {
        const delivery =
          surface === "webhook"
            ? await signedCompletion(checkout)
            : await stripeEvent("checkout.session.completed", checkout.id, { amount_total: 2800, currency: "usd" });
        const receipt = (await (await postWebhook(delivery.body, delivery.headers)).json()) as { order_id: string };
        order = await orderFrom(await operator(`/orders/${receipt.order_id}`));
      }
      expect(order).toMatchObject({
        payment_status: "paid",
        amount_paid: { amount: "28.00", currency: "USD" },
        cost: { subtotal: { amount: "28.00" }, discount_total: { amount: "0.00" }, total: { amount: "28.00" } },
      });
    }
  });

  it("writes a mismatch for another amount, another currency or a partial payment, whichever surface", async () => {
    const cases = [
      { surface: "operator", paid: { amount: "27.99", currency: "USD" } },
      { surface: "operator", paid: { amount: "28.00", currency: "EUR" } },
      { surface: "webhook", paid: { amount: "14.00", currency: "USD" } },
      { surface: "webhook", paid: { amount: "28.01", currency: "USD" } },
    ] as const;
    for (const { surface, paid } of cases) {
      const { checkout } = await checkoutOf(2800);
      let order: Awaited<ReturnType<typeof orderFrom>>;
      if (surface === "operator") order = await orderFrom(await operatorComplete(checkout, "pay_short", paid));
      else {
        const signed = await signedCompletion(checkout, "pay_short", Date.now(), paid);
        const receipt = (await (await postWebhook(signed.body, signed.headers)).json()) as { order_id: string };
        order = await orderFrom(await operator(`/orders/${receipt.order_id}`));
      }
      expect(order.payment_status, JSON.stringify(paid)).toBe("mismatch");
      expect(order.amount_paid).toEqual(paid);
    }
  });

  it("keeps the first payment's check: a repeat with the right amount does not turn a mismatch into paid", async () => {
    const { checkout } = await checkoutOf(2800);
    const first = await orderFrom(await operatorComplete(checkout, "pay_low", { amount: "1.00", currency: "USD" }));
    const again = await orderFrom(await operatorComplete(checkout, "pay_right"));
    expect(again).toEqual(first);
    expect(again.payment_status).toBe("mismatch");
  });

  it("refuses a completion without amount or currency, or with more decimals than the currency has, changing nothing", async () => {
    const { token, checkout } = await checkoutOf(2800);
    const bodies = [
      [{ payment_reference: "p" }, "amount"],
      [{ payment_reference: "p", amount: "28.00" }, "currency"],
      [{ payment_reference: "p", amount: "28.001", currency: "USD" }, "amount"],
      [{ payment_reference: "p", amount: "28", currency: "usd" }, "currency"],
    ] as const;
    for (const [body, param] of bodies) {
      const res = await operator(`/checkouts/${checkout.id}/complete`, { method: "POST", body: JSON.stringify(body) });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(((await res.json()) as { error: { param: string } }).error.param).toBe(param);
    }
    const unsigned = await signedCompletion({ id: checkout.id, paid: { amount: "28.00", currency: "JPY" } });
    // 28.00 has decimals JPY does not have.
    expect((await postWebhook(unsigned.body, unsigned.headers)).status).toBe(400);
    const still = await checkoutFrom(await cartCall(token, `/checkouts/${checkout.id}`), 200);
    expect(still.status).toBe("open");
  });

  it("waits for async_payment_succeeded after an unpaid session, and cancels the checkout on async_payment_failed", async () => {
    const { token, checkout, ids } = await checkoutOf(3450);
    const total = { amount_total: 3450, currency: "usd" };
    const unpaid = await stripeEvent("checkout.session.completed", checkout.id, { ...total, payment_status: "unpaid" });
    expect(await (await postWebhook(unpaid.body, unpaid.headers)).json()).toMatchObject({ handled: false });
    expect((await stockOf(ids[0]!)).held).toBe(1);
    const failed = await stripeEvent("checkout.session.async_payment_failed", checkout.id, total);
    const receipt = await (await postWebhook(failed.body, failed.headers)).json();
    expect(receipt).toMatchObject({ handled: true, checkout_id: checkout.id, order_id: null });
    expect((await checkoutFrom(await cartCall(token, `/checkouts/${checkout.id}`), 200)).status).toBe("canceled");
    expect((await stockOf(ids[0]!)).held).toBe(0);

    const next = await checkoutOf(3450);
    const late = await stripeEvent("checkout.session.completed", next.checkout.id, {
      ...total,
      payment_status: "unpaid",
    });
    await postWebhook(late.body, late.headers);
    const succeeded = await stripeEvent("checkout.session.async_payment_succeeded", next.checkout.id, total);
    const done = (await (await postWebhook(succeeded.body, succeeded.headers)).json()) as { payment_status: string };
    expect(done).toMatchObject({ handled: true, payment_status: "paid" });
  });
});
