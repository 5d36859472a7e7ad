import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { CheckoutSchema, OrderListSchema, OrderSchema } from "../../src/checkout/api.ts";
import { api, AVAILABLE_VARIANT, withToken } from "./http.ts";

const OPERATOR = { Authorization: "Bearer dev-operator-secret" };

/** A fresh holder: a token issued through the operator surface, so no other test shares its cart. */
async function freshToken(): Promise<string> {
  const res = await api("/api/v1/operator/tokens", {
    method: "POST",
    headers: { ...OPERATOR, "Content-Type": "application/json" },
    body: JSON.stringify({ label: "e2e checkout" }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { token: string }).token;
}

describe("checkout over HTTP against npm run dev", () => {
  it("walks add -> checkout -> the local test payment page -> order, with the orders in D1", async () => {
    const token = await freshToken();
    expect(
      (
        await withToken(token, "/api/v1/cart/lines", {
          method: "POST",
          body: { variant_id: AVAILABLE_VARIANT, quantity: 2 },
        })
      ).status,
    ).toBe(200);
    const created = await withToken(token, "/api/v1/checkouts", {
      method: "POST",
      body: { return_url: "https://shop.example/thanks" },
    });
    expect(created.status).toBe(201);
    const checkout = CheckoutSchema.parse(await created.json());
    expect(checkout.url).toMatch(/^http:\/\/(localhost|127\.0\.0\.1):\d+\/dev\/pay\/chk_/);
    const url = new URL(checkout.url!);
    const page = await api(url.pathname);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(await page.text()).toContain("Pay");
    const paid = await api(url.pathname, { method: "POST" });
    expect(paid.status).toBe(200);
    const html = await paid.text();
    const orderId = /ord_[0-9a-f]{32}/.exec(html)?.[0];
    expect(orderId).toBeDefined();
    const after = CheckoutSchema.parse(await (await withToken(token, `/api/v1/checkouts/${checkout.id}`)).json());
    expect(after).toMatchObject({ status: "completed", order_id: orderId });
    const order = OrderSchema.parse(
      await (await api(`/api/v1/operator/orders/${orderId}`, { headers: OPERATOR })).json(),
    );
    // The Pay button pays the total the page showed: a normal paid order.
    expect(order).toMatchObject({
      checkout_id: checkout.id,
      completed_by: "webhook",
      total_quantity: 2,
      payment_status: "paid",
      amount_paid: checkout.cost.total,
    });
    const list = OrderListSchema.parse(
      await (await api("/api/v1/operator/orders?limit=250", { headers: OPERATOR })).json(),
    );
    expect(list.data.map((o) => o.id)).toContain(orderId);
    const cart = (await (await withToken(token, "/api/v1/cart")).json()) as { lines: unknown[] };
    expect(cart.lines).toEqual([]);
  });

  it("completes through a webhook signed in Node, and refuses a forged one with 400", async () => {
    const token = await freshToken();
    await withToken(token, "/api/v1/cart/lines", {
      method: "POST",
      body: { variant_id: AVAILABLE_VARIANT, quantity: 1 },
    });
    const checkout = CheckoutSchema.parse(
      await (await withToken(token, "/api/v1/checkouts", { method: "POST" })).json(),
    );
    const body = JSON.stringify({
      type: "checkout.completed",
      data: { checkout_id: checkout.id, payment_reference: "pay_e2e", ...checkout.cost.total },
    });
    const t = Math.floor(Date.now() / 1000);
    const sign = (secret: string) => createHmac("sha256", secret).update(`${t}.${body}`).digest("hex");
    const send = (v1: string) =>
      api("/api/v1/webhooks/checkouts", {
        method: "POST",
        headers: { "Content-Type": "application/json", "Storefront-Signature": `t=${t},v1=${v1}` },
        body,
      });
    const forged = await send(sign("not-the-secret-at-all"));
    expect(forged.status).toBe(400);
    expect(await forged.json()).toMatchObject({ error: { code: "signature_invalid" } });
    const [first, second] = await Promise.all([
      send(sign("dev-checkout-webhook-secret")),
      send(sign("dev-checkout-webhook-secret")),
    ]);
    expect([first.status, second.status]).toEqual([200, 200]);
    const [a, b] = (await Promise.all([first.json(), second.json()])) as { order_id: string }[];
    expect(a!.order_id).toBe(b!.order_id);
  });
});
