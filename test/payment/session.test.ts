import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { PaymentAmounts } from "../../src/payment/amounts.ts";
import { formBody } from "../../src/payment/form.ts";
import { planSession } from "../../src/payment/session.ts";
import { fromStripeAmount, toStripeAmount } from "../../src/payment/stripe-units.ts";
import { STAND_IN } from "./stand-in-client.ts";

const RUNS = Number((import.meta as unknown as { env: Record<string, string | undefined> }).env.FUZZ_RUNS ?? 40);

/** Any cost the pricing room could freeze: lines, a discount on them, a shipping line, tax on top. */
const amounts = fc
  .record({
    currency: fc.constantFrom("USD", "JPY", "KWD"),
    lines: fc.array(
      fc.record({ quantity: fc.integer({ min: 1, max: 999 }), unit: fc.integer({ min: 0, max: 99_999 }) }),
      {
        minLength: 1,
        maxLength: 20,
      },
    ),
    discountShare: fc.double({ min: 0, max: 1, noNaN: true }),
    shipping: fc.option(fc.integer({ min: 0, max: 50_000 }), { nil: null }),
    tax: fc.integer({ min: 0, max: 40_000 }),
  })
  .map(({ currency, lines, discountShare, shipping, tax }): PaymentAmounts => {
    // KWD at Stripe is counted in fils but must be a multiple of 10: the store's prices are in tens.
    const unit = (n: number) => (currency === "KWD" ? n * 10 : n);
    const priced = lines.map((l, i) => ({ name: `Line ${i}`, quantity: l.quantity, unit_minor: unit(l.unit) }));
    const subtotal = priced.reduce((s, l) => s + l.unit_minor * l.quantity, 0);
    const discount = unit(Math.floor((subtotal * discountShare) / unit(1)));
    const taxed = unit(tax);
    const ship = shipping === null ? null : { title: "Standard", amount: unit(shipping) };
    return {
      currency,
      lines: priced,
      subtotal,
      discount,
      shipping: ship,
      tax: taxed,
      total: subtotal - discount + (ship?.amount ?? 0) + taxed,
    };
  });

async function post(path: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
  const res = await fetch(`${STAND_IN}${path}`, {
    method: "POST",
    headers: {
      Authorization: "Bearer sk_test_standin0123456789",
      "Content-Type": "application/x-www-form-urlencoded",
      "Idempotency-Key": crypto.randomUUID(),
    },
    body: formBody(params as never),
  });
  const body = (await res.json()) as Record<string, unknown>;
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body;
}

describe("the Stripe session plan (contract 10.6)", () => {
  it("makes the session's amount_total equal the checkout's total for any discount, shipping and tax", async () => {
    await fc.assert(
      fc.asyncProperty(amounts, async (a) => {
        const plan = planSession({
          checkoutId: "chk_property",
          amounts: a,
          email: null,
          returnUrl: "https://shop.example/thanks",
          expiresAt: Math.floor(Date.now() / 1000) + 3600,
        });
        if (!plan.ok) throw new Error(plan.message);
        const coupon = plan.coupon ? ((await post("/v1/coupons", plan.coupon)).id as string) : null;
        const session = await post("/v1/checkout/sessions", plan.session(coupon));
        expect(session.amount_total).toBe(toStripeAmount(a.total, a.currency));
        expect(fromStripeAmount(session.amount_total as number, a.currency)).toBe(a.total);
        expect(plan.amountTotal).toBe(session.amount_total);
      }),
      { numRuns: RUNS },
    );
  });

  it("carries Stripe's own minor units: ISK in two decimals, MGA in none, KWD in three", () => {
    expect(toStripeAmount(1500, "ISK")).toBe(150_000);
    expect(fromStripeAmount(150_000, "ISK")).toBe(1500);
    expect(toStripeAmount(12_300, "MGA")).toBe(123);
    expect(toStripeAmount(12_345, "MGA")).toBeNull();
    expect(toStripeAmount(1_235, "KWD")).toBe(1_235);
    expect(toStripeAmount(2_800, "USD")).toBe(2_800);
  });

  it("refuses what Stripe cannot carry: more than 100 line items", () => {
    const lines = Array.from({ length: 100 }, (_, i) => ({ name: `L${i}`, quantity: 1, unit_minor: 100 }));
    const plan = planSession({
      checkoutId: "chk_x",
      amounts: { currency: "USD", lines, subtotal: 10_000, discount: 0, shipping: null, tax: 5, total: 10_005 },
      email: null,
      returnUrl: "https://shop.example",
      expiresAt: 0,
    });
    expect(plan).toEqual({ ok: false, message: "Stripe Checkout takes at most 100 line items." });
  });
});
