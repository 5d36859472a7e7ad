import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import Stripe from "stripe";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Checkout } from "../../src/checkout/api.ts";
import { checkoutsFor } from "../../src/checkout/client.ts";
import { signature } from "../../src/checkout/signature.ts";
import type { VariantRecord } from "../../src/catalog/store.ts";
import { addLine, cartCall, issueToken, operator, readCart, seedVariants } from "../helpers/cart.ts";
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
  WEBHOOK_SECRET,
} from "../helpers/checkout.ts";
import { fetchAs } from "../helpers/worker.ts";

let variants: VariantRecord[];
const stripe = new Stripe("sk_test_unused");

beforeAll(async () => {
  variants = (await seedVariants()).available;
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** A new holder with an open checkout of `lines` (variant index → quantity), each variant stocked with `level`. */
async function openCheckout(
  lines: Record<number, number>,
  level = 10,
): Promise<{ token: string; holder: string; checkout: Checkout }> {
  await setStock(Object.fromEntries(Object.keys(lines).map((i) => [variants[Number(i)]!.id, level])));
  const issued = await issueToken();
  for (const [index, quantity] of Object.entries(lines)) {
    expect((await addLine(issued.token, variants[Number(index)]!.id, quantity)).status).toBe(200);
  }
  const checkout = await checkoutFrom(await postCheckout(issued.token));
  return { token: issued.token, holder: issued.holder, checkout };
}

async function ordersInD1(checkoutId: string): Promise<number> {
  const row = await env.ORDERS.prepare("SELECT COUNT(*) AS n FROM orders WHERE checkout_id = ?")
    .bind(checkoutId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

/** A Stripe checkout.session.completed event for `checkoutId`, as Stripe sends it, signed by the stripe package. */
async function stripeDelivery(
  checkout: Pick<Checkout, "id" | "cost">,
  options: { type?: string; paymentStatus?: string; timestamp?: number; amountTotal?: number; currency?: string } = {},
): Promise<{ body: string; headers: Record<string, string> }> {
  const checkoutId = checkout.id;
  const body = JSON.stringify({
    id: "evt_1QxTest",
    object: "event",
    type: options.type ?? "checkout.session.completed",
    data: {
      object: {
        id: "cs_test_a1B2c3",
        object: "checkout.session",
        client_reference_id: checkoutId,
        payment_intent: "pi_3QxTest",
        payment_status: options.paymentStatus ?? "paid",
        // Stripe's amounts are integers of the currency's minor unit; its currency codes are lower case.
        amount_total: options.amountTotal ?? Number(checkout.cost.total.amount.replace(".", "")),
        currency: options.currency ?? checkout.cost.total.currency.toLowerCase(),
      },
    },
  });
  const header = await stripe.webhooks.generateTestHeaderStringAsync({
    payload: body,
    secret: STRIPE_SECRET,
    ...(options.timestamp !== undefined ? { timestamp: options.timestamp } : {}),
    cryptoProvider: Stripe.createSubtleCryptoProvider(),
  });
  return { body, headers: { "Stripe-Signature": header } };
}

describe("completing a checkout", () => {
  it("writes one order to D1, turns the holds into decrements and clears the cart", async () => {
    const [a, b] = [variants[0]!, variants[1]!];
    const { token, checkout } = await openCheckout({ 0: 2, 1: 1 });
    const order = await orderFrom(await operatorComplete(checkout, "pay_42"));
    expect(order).toMatchObject({
      object: "order",
      checkout_id: checkout.id,
      payment_reference: "pay_42",
      completed_by: "operator",
      oversold: false,
      total_quantity: 3,
      subtotal: checkout.subtotal,
      currency: "USD",
      note: null,
      attributes: {},
    });
    expect(order.id).toMatch(/^ord_[0-9a-f]{32}$/);
    expect(order.lines.map((l) => [l.line_id, l.variant_id, l.quantity, l.unit_price.amount, l.oversold])).toEqual(
      checkout.lines.map((l) => [l.id, l.variant_id, l.quantity, l.unit_price.amount, false]),
    );
    expect(await ordersInD1(checkout.id)).toBe(1);
    expect(await stockOf(a.id)).toMatchObject({ quantity: 8, held: 0 });
    expect(await stockOf(b.id)).toMatchObject({ quantity: 9, held: 0 });
    expect((await readCart(token)).lines).toEqual([]);
    const shown = await checkoutFrom(await cartCall(token, `/checkouts/${checkout.id}`), 200);
    expect(shown).toMatchObject({ status: "completed", order_id: order.id, url: null });
    // The operator reads the same order back.
    expect(await orderFrom(await operator(`/orders/${order.id}`))).toEqual(order);
  });

  it("answers the same one order to repeated completions, whichever surface and reference", async () => {
    const a = variants[2]!;
    const { checkout } = await openCheckout({ 2: 3 });
    const first = await orderFrom(await operatorComplete(checkout, "pay_first"));
    const again = await orderFrom(await operatorComplete(checkout, "pay_other"));
    const signed = await signedCompletion(checkout, "pay_webhook");
    const hook = await postWebhook(signed.body, signed.headers);
    expect(hook.status).toBe(200);
    expect(await hook.json()).toMatchObject({ handled: true, checkout_id: checkout.id, order_id: first.id });
    expect(again).toEqual(first);
    expect(first.payment_reference).toBe("pay_first");
    expect(await ordersInD1(checkout.id)).toBe(1);
    expect(await stockOf(a.id)).toMatchObject({ quantity: 7, held: 0 });
  });

  it("completes through the Storefront-Signature webhook", async () => {
    const { checkout } = await openCheckout({ 3: 1 });
    const signed = await signedCompletion(checkout, "pay_hook");
    const res = await postWebhook(signed.body, signed.headers);
    expect(res.status).toBe(200);
    const receipt = (await res.json()) as { order_id: string };
    const order = await orderFrom(await operator(`/orders/${receipt.order_id}`));
    expect(order).toMatchObject({ checkout_id: checkout.id, payment_reference: "pay_hook", completed_by: "webhook" });
  });

  it("completes through Stripe's checkout.session.completed, signed by the stripe package", async () => {
    const { checkout } = await openCheckout({ 4: 1 });
    const delivery = await stripeDelivery(checkout);
    const res = await postWebhook(delivery.body, delivery.headers);
    expect(res.status).toBe(200);
    const receipt = (await res.json()) as { handled: boolean; order_id: string };
    expect(receipt.handled).toBe(true);
    const order = await orderFrom(await operator(`/orders/${receipt.order_id}`));
    expect(order).toMatchObject({ payment_reference: "pi_3QxTest", completed_by: "stripe" });
  });

  it("acknowledges and ignores events it does not act on", async () => {
    const { checkout } = await openCheckout({ 5: 1 });
    const unpaid = await stripeDelivery(checkout, { paymentStatus: "unpaid" });
    const other = await stripeDelivery(checkout, { type: "payment_intent.created" });
    const body = JSON.stringify({
      type: "checkout.viewed",
      data: { checkout_id: checkout.id, payment_reference: "x" },
    });
    const ours = {
      body,
      headers: {
        "Storefront-Signature": `t=${Math.floor(Date.now() / 1000)},v1=${await signature(WEBHOOK_SECRET, Math.floor(Date.now() / 1000), body)}`,
      },
    };
    for (const delivery of [unpaid, other, ours]) {
      const res = await postWebhook(delivery.body, delivery.headers);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ object: "webhook_receipt", handled: false, order_id: null });
    }
    expect(await ordersInD1(checkout.id)).toBe(0);
    // A delayed payment completes it when Stripe says it succeeded.
    const succeeded = await stripeDelivery(checkout, { type: "checkout.session.async_payment_succeeded" });
    expect(
      ((await (await postWebhook(succeeded.body, succeeded.headers)).json()) as { handled: boolean }).handled,
    ).toBe(true);
    expect(await ordersInD1(checkout.id)).toBe(1);
  });

  it("refuses a bad, missing or stale signature and a non-JSON body with 400, changing nothing", async () => {
    const a = variants[6]!;
    const { token, checkout } = await openCheckout({ 6: 2 });
    const log = vi.spyOn(console, "log");
    const errorLog = vi.spyOn(console, "error");
    const good = await signedCompletion(checkout);
    const now = Math.floor(Date.now() / 1000);
    const stale = await signedCompletion(checkout, "pay_webhook", Date.now() - 301_000);
    const future = await signedCompletion(checkout, "pay_webhook", Date.now() + 301_000);
    const notJson = "not json {";
    const stripeStale = await stripeDelivery(checkout, { timestamp: now - 600 });
    const cases: [string, Record<string, string>, string][] = [
      [good.body, {}, "signature_invalid"],
      [good.body, { "Storefront-Signature": `t=${now},v1=${"0".repeat(64)}` }, "signature_invalid"],
      [good.body, { "Storefront-Signature": "garbage" }, "signature_invalid"],
      [`${good.body} `, good.headers, "signature_invalid"],
      [good.body, { "Stripe-Signature": good.headers["Storefront-Signature"]! }, "signature_invalid"],
      [stale.body, stale.headers, "timestamp_out_of_range"],
      [future.body, future.headers, "timestamp_out_of_range"],
      [stripeStale.body, stripeStale.headers, "timestamp_out_of_range"],
      [
        notJson,
        { "Storefront-Signature": `t=${now},v1=${await signature(WEBHOOK_SECRET, now, notJson)}` },
        "invalid_json",
      ],
    ];
    for (const [body, headers, code] of cases) {
      const res = await postWebhook(body, headers);
      const text = await res.text();
      expect(res.status, `${code}: ${text}`).toBe(400);
      expect(JSON.parse(text)).toMatchObject({ error: { type: "invalid_request_error", code } });
      for (const value of [...Object.values(headers), WEBHOOK_SECRET, STRIPE_SECRET]) {
        const signatureOnly = value.split("v1=")[1] ?? value;
        expect(text).not.toContain(signatureOnly);
      }
    }
    // Nothing changed: no order, the hold still held, the checkout still open, the cart intact.
    expect(await ordersInD1(checkout.id)).toBe(0);
    expect((await stockOf(a.id)).held).toBe(2);
    expect((await checkoutFrom(await cartCall(token, `/checkouts/${checkout.id}`), 200)).status).toBe("open");
    expect((await readCart(token)).lines).toHaveLength(1);
    const logged = [...log.mock.calls, ...errorLog.mock.calls].flat().join("\n");
    expect(logged).not.toContain(WEBHOOK_SECRET);
    expect(logged).not.toContain(good.headers["Storefront-Signature"]!.split("v1=")[1]!);
  });

  it("answers 404 for an unknown checkout, whatever surface", async () => {
    const unknown = `chk_${"a".repeat(64)}AAAAAAAAAAAAAAAA`;
    const { checkout } = await openCheckout({ 7: 1 });
    // Another object's real id with a suffix it never made.
    const forged = `${checkout.id.slice(0, -16)}ZZZZZZZZZZZZZZZZ`;
    for (const id of [unknown, forged, "chk_short"]) {
      const payable = { id, paid: checkout.cost.total };
      const signed = await signedCompletion(payable);
      const hook = await postWebhook(signed.body, signed.headers);
      expect(hook.status).toBe(404);
      expect(await hook.json()).toMatchObject({ error: { code: "resource_missing" } });
      expect((await operatorComplete(payable)).status).toBe(404);
    }
  });

  it("refuses the development webhook secret outside development", async () => {
    const { checkout } = await openCheckout({ 8: 1 });
    const signed = await signedCompletion(checkout);
    const res = await fetchAs("production", "/api/v1/webhooks/checkouts", {
      method: "POST",
      headers: { "Content-Type": "application/json", ...signed.headers },
      body: signed.body,
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: "signature_invalid" } });
    expect(await ordersInD1(checkout.id)).toBe(0);
    // The test payment page does not exist there either.
    expect((await fetchAs("production", `/dev/pay/${checkout.id}`)).status).toBe(404);
  });

  it("still makes the order of a checkout paid after it expired, flagging oversold where stock ran out", async () => {
    const [a, b] = [variants[9]!, variants[10]!];
    const { holder, checkout } = await openCheckout({ 9: 2, 10: 1 }, 2);
    // It expires, its holds go back, and another shopper buys a's units meanwhile.
    const stub = checkoutsFor(env, holder);
    await runInDurableObject(stub, async (_i, state) => {
      state.storage.sql.exec("UPDATE checkouts SET expires_at = ? WHERE id = ?", Date.now() - 1, checkout.id);
      await state.storage.setAlarm(Date.now() - 1);
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const other = await openCheckout({ 9: 2 }, 2);
    expect((await checkoutFrom(await cartCall(other.token, `/checkouts/${other.checkout.id}`), 200)).status).toBe(
      "open",
    );
    const late = await orderFrom(await operatorComplete(checkout, "pay_late"));
    expect(late.oversold).toBe(true);
    expect(late.lines.map((l) => [l.variant_id, l.oversold])).toEqual([
      [a.id, true],
      [b.id, false],
    ]);
    // The paid units leave stock (the stock room's rule for a late commit); the other shopper's
    // hold is untouched and nothing more can be sold.
    expect(await stockOf(a.id)).toMatchObject({ quantity: 0, held: 2, available_quantity: 0 });
    expect(await stockOf(b.id)).toMatchObject({ quantity: 1, held: 0 });
  });

  it("finishes a completion a crash cut short (payment recorded, no order yet) from its alarm", async () => {
    const a = variants[11]!;
    const { token, holder, checkout } = await openCheckout({ 11: 2 }, 5);
    const stub = checkoutsFor(env, holder);
    // The state a crash right after recording the payment leaves: payment kept, nothing else done.
    await runInDurableObject(stub, async (_i, state) => {
      const payment = JSON.stringify({ reference: "pay_cut_short", by: "webhook", at: Date.now() });
      state.storage.sql.exec("UPDATE checkouts SET payment = ? WHERE id = ?", payment, checkout.id);
      await state.storage.setAlarm(Date.now() - 1);
    });
    expect(await ordersInD1(checkout.id)).toBe(0);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await ordersInD1(checkout.id)).toBe(1);
    const done = await checkoutFrom(await cartCall(token, `/checkouts/${checkout.id}`), 200);
    expect(done.status).toBe("completed");
    const order = await orderFrom(await operator(`/orders/${done.order_id}`));
    expect(order).toMatchObject({ payment_reference: "pay_cut_short", completed_by: "webhook", oversold: false });
    expect(await stockOf(a.id)).toMatchObject({ quantity: 3, held: 0 });
    expect((await readCart(token)).lines).toEqual([]);
  });

  it("never cancels a checkout whose payment is being completed: not by DELETE, not by a newer checkout", async () => {
    const a = variants[12]!;
    const { token, holder, checkout } = await openCheckout({ 12: 1 }, 5);
    const stub = checkoutsFor(env, holder);
    await runInDurableObject(stub, (_i, state) => {
      const payment = JSON.stringify({ reference: "pay_in_flight", by: "stripe", at: Date.now() });
      state.storage.sql.exec("UPDATE checkouts SET payment = ? WHERE id = ?", payment, checkout.id);
    });
    const cancel = await cartCall(token, `/checkouts/${checkout.id}`, { method: "DELETE" });
    expect(cancel.status).toBe(409);
    expect(await cancel.json()).toMatchObject({ error: { code: "checkout_not_open" } });
    expect((await postCheckout(token)).status).toBe(201);
    expect((await checkoutFrom(await cartCall(token, `/checkouts/${checkout.id}`), 200)).status).toBe("open");
    // Its units are still held for it (1 of 5), beside the newer checkout's.
    expect((await stockOf(a.id)).held).toBe(2);
    const order = await orderFrom(await operatorComplete(checkout, "pay_other"));
    expect(order.payment_reference).toBe("pay_in_flight");
  });

  it("carries a real cart's note, attributes and line attributes into the checkout and the order, then clears them", async () => {
    const variant = variants[13]!;
    await setStock({ [variant.id]: 10 });
    const { token } = await issueToken();
    // Contract 9.2 through the API: a note and attributes on the cart, line properties on an add.
    const patched = await cartCall(token, "/cart", {
      method: "PATCH",
      body: { note: "Leave at the door <b>please</b>", attributes: { "Gift wrap": "yes" } },
    });
    expect(patched.status).toBe(200);
    const engraved = await cartCall(token, "/cart/lines", {
      method: "POST",
      body: { variant_id: variant.id, quantity: 1, attributes: { Engraving: "A.B." } },
    });
    expect(engraved.status).toBe(200);
    expect((await addLine(token, variant.id, 2)).status).toBe(200);
    const checkout = await checkoutFrom(await postCheckout(token));
    expect(checkout).toMatchObject({ note: "Leave at the door <b>please</b>", attributes: { "Gift wrap": "yes" } });
    expect(checkout.lines.map((l) => [l.quantity, l.attributes])).toEqual([
      [1, { Engraving: "A.B." }],
      [2, {}],
    ]);
    // Both lines of the variant are held from its one level.
    expect((await stockOf(variant.id)).held).toBe(3);
    const order = await orderFrom(await operatorComplete(checkout));
    expect(order).toMatchObject({ note: "Leave at the door <b>please</b>", attributes: { "Gift wrap": "yes" } });
    expect(order.lines.map((l) => [l.quantity, l.attributes])).toEqual([
      [1, { Engraving: "A.B." }],
      [2, {}],
    ]);
    expect(await orderFrom(await operator(`/orders/${order.id}`))).toEqual(order);
    expect(await stockOf(variant.id)).toMatchObject({ quantity: 7, held: 0 });
    // The bought cart is empty again: lines, note and attributes.
    const cart = (await readCart(token)) as Awaited<ReturnType<typeof readCart>> & {
      note: unknown;
      attributes: unknown;
    };
    expect([cart.lines, cart.note, cart.attributes]).toEqual([[], null, {}]);
  });
});
