import { describe, expect, it } from "vitest";
import { frozenFrom, paymentAmounts } from "../../src/checkout/cost.ts";
import type { FrozenLine } from "../../src/checkout/cost.ts";
import { formBody } from "../../src/payment/form.ts";
import { planSession } from "../../src/payment/session.ts";
import { fromStripeAmount } from "../../src/payment/stripe-units.ts";
import { costOf } from "../pricing/build.ts";
import { WORKED_EXAMPLES } from "../pricing/worked-examples.ts";
import { STAND_IN } from "./stand-in-client.ts";

/**
 * The payment charges the frozen total (contract 10.6, issue 43 part 5, issue 44 part 5): every
 * worked example of the reference (each discount kind, free shipping, stacking, each tax mode,
 * JPY, USD and KWD) priced by the pricing room, frozen as a checkout freezes it, planned as a
 * Stripe session and sent to the stand-in, which checks each request against Stripe's OpenAPI
 * document and does Stripe's own arithmetic: its `amount_total` is the checkout's `cost.total`
 * to the minor unit; under tax mode `stripe` plus the tax Stripe Tax adds, and nothing else.
 */

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

describe("the Stripe session of a frozen cost", () => {
  for (const example of WORKED_EXAMPLES) {
    it(`charges exactly the checkout's total: ${example.title}`, async () => {
      const cost = costOf({ lines: example.lines, ...example.input });
      const frozen = frozenFrom(cost);
      const lines: FrozenLine[] = example.lines.map((line, i) => ({
        id: line.id,
        variant_id: line.variant_id,
        handle: line.handle,
        title: `Product ${line.variant_id}`,
        variant_title: "Default Title",
        quantity: line.quantity,
        unit_price_minor: line.unit_price,
        attributes: {},
        ...frozen.lines[i],
      }));
      const amounts = paymentAmounts({
        lines,
        currency: cost.currency,
        cost: frozen.cost,
        shipping_option: cost.shipping_option,
      });
      const plan = planSession({
        checkoutId: "chk_worked",
        amounts,
        email: null,
        returnUrl: "https://shop.example/thanks",
        expiresAt: Math.floor(Date.now() / 1000) + 3600,
      });
      if (!plan.ok) throw new Error(plan.message);
      const coupon = plan.coupon ? ((await post("/v1/coupons", plan.coupon)).id as string) : null;
      const session = await post("/v1/checkout/sessions", plan.session(coupon));
      const paid = fromStripeAmount(session.amount_total as number, cost.currency);
      const stripeTax = (session.total_details as { amount_tax: number }).amount_tax;
      if (cost.tax_calculated_at === "payment") {
        expect(session.automatic_tax).toMatchObject({ enabled: true });
        expect(stripeTax).toBeGreaterThan(0);
        expect(paid! - fromStripeAmount(stripeTax, cost.currency)!).toBe(cost.total);
      } else {
        expect(session.automatic_tax).toMatchObject({ enabled: false });
        expect(stripeTax).toBe(0);
        expect(paid).toBe(cost.total);
      }
      // What the worker checks on Stripe's answer before handing its page to the shopper.
      expect(plan.amountTotal).toBe((session.amount_total as number) - stripeTax);
    });
  }
});
