import { describe, expect, it } from "vitest";
import {
  BuyerSchema,
  CostSchema,
  DiscountAllocationsSchema,
  DiscountCodesInputSchema,
  DiscountCodesSchema,
  DiscountsSchema,
  renderCost,
  ShippingOptionSchema,
  ShippingOptionsSchema,
} from "../../src/pricing/index.ts";
import { costOf, line, rulesOf } from "./build.ts";

/** The wire shapes (defined once, in src/pricing/api.ts) and the one renderer every answer uses. */

function rendered(currency: string, price: string, shipping: string) {
  const rules = rulesOf(
    {
      discounts: [{ id: "tenth", title: "10% off", code: "TENTH", kind: "percentage", value: "10" }],
      shipping: {
        zones: [{ name: "Home", countries: ["JP", "KW", "US"], rates: [{ id: "std", title: "Std", price: shipping }] }],
      },
      tax: { mode: "exclusive", rates: [{ country: "KW", rate: "0.05", name: "VAT" }] },
    },
    currency,
  );
  const cost = costOf({
    lines: [line("1", price, 3, {}, currency)],
    rules,
    buyer: { country: "KW" },
    discount_codes: ["tenth", "NOPE"],
  });
  return renderCost(cost);
}

describe("renderCost", () => {
  it("writes every amount with the currency's digits, as the wire schemas define them", () => {
    const kwd = rendered("KWD", "2.500", "1.250");
    // 7.500 − 0.750 = 6.750; 5 % of it = 0.3375 → 0.338; + 1.250 shipping.
    expect(kwd.cost).toEqual({
      subtotal: { amount: "7.500", currency: "KWD" },
      discount_total: { amount: "0.750", currency: "KWD" },
      shipping: { amount: "1.250", currency: "KWD" },
      tax: { amount: "0.338", currency: "KWD" },
      total: { amount: "8.338", currency: "KWD" },
      tax_included: false,
      tax_calculated_at: null,
    });
    expect(kwd.discounts).toEqual([
      { id: "tenth", title: "10% off", code: "TENTH", amount: { amount: "0.750", currency: "KWD" } },
    ]);
    expect(kwd.lines).toEqual([
      {
        id: "cl_1",
        discount_allocations: [{ discount_id: "tenth", amount: { amount: "0.750", currency: "KWD" } }],
        tax: { amount: "0.338", currency: "KWD" },
      },
    ]);
    expect(kwd.shipping_option).toEqual({ id: "std", title: "Std", price: { amount: "1.250", currency: "KWD" } });
    // 4,500 − 450 + 800, and 5 % of 4,050 = 202.5 → 203.
    expect(rendered("JPY", "1500", "800").cost.total).toEqual({ amount: "5053", currency: "JPY" });
    for (const r of [kwd, rendered("JPY", "1500", "800"), rendered("USD", "19.99", "5.00")]) {
      CostSchema.parse(r.cost);
      DiscountsSchema.parse(r.discounts);
      DiscountCodesSchema.parse(r.discount_codes);
      ShippingOptionsSchema.parse(r.shipping_options);
      ShippingOptionSchema.parse(r.shipping_option);
      for (const l of r.lines) DiscountAllocationsSchema.parse(l.discount_allocations);
    }
    expect(kwd.discount_codes.map((c) => [c.code, c.reason])).toEqual([
      ["tenth", null],
      ["NOPE", "unknown"],
    ]);
  });

  it("renders nulls as null: no shipping, no tax", () => {
    const r = renderCost(costOf({ lines: [line("1", "5.00")] }));
    expect([r.cost.shipping, r.cost.tax, r.shipping_option, r.shipping_options, r.lines[0]!.tax]).toEqual([
      null,
      null,
      null,
      [],
      null,
    ]);
    expect(r.cost.total).toEqual({ amount: "5.00", currency: "USD" });
  });
});

describe("the buyer and the codes a shopper sends", () => {
  it.each([
    [{ country: "US", region: "CA", postal_code: "94107", email: "ada@example.com" }, true],
    [{ country: "GB", postal_code: "SW1A 1AA" }, true],
    [{ country: "UK" }, false],
    [{ country: "us" }, false],
    [{ country: "US", region: "US-CA" }, false],
    [{ country: "US", email: "not an email" }, false],
    // The document's format: email, as a standard validator reads it (Schemathesis found a
    // domain label ending in a hyphen accepted, and the cart then answering off its schema).
    [{ country: "US", email: "first.last+tag@mail.example.co.uk" }, true],
    [{ country: "US", email: "ada@exam-ple.com" }, true],
    [{ country: "US", email: "ada@example-.com" }, false],
    [{ country: "US", email: "ada@-example.com" }, false],
    [{ country: "US", email: `ada@${"a".repeat(63)}.com` }, true],
    [{ country: "US", email: `ada@${"a".repeat(64)}.com` }, false],
    [{ country: "US", email: `${"a".repeat(64)}@example.com` }, true],
    [{ country: "US", email: `${"a".repeat(65)}@example.com` }, false],
    [{ region: "CA" }, false],
    [{ country: "US", city: "SF" }, false],
  ])("takes %j: %s", (buyer, ok) => {
    expect(BuyerSchema.safeParse(buyer).success).toBe(ok);
  });

  it("takes at most 5 codes of 1 to 64 characters once trimmed", () => {
    expect(DiscountCodesInputSchema.safeParse(["A", "B", "C", "D", "E"]).success).toBe(true);
    expect(DiscountCodesInputSchema.safeParse(["A", "B", "C", "D", "E", "F"]).success).toBe(false);
    expect(DiscountCodesInputSchema.safeParse(["   "]).success).toBe(false);
    expect(DiscountCodesInputSchema.safeParse([` ${"X".repeat(64)} `]).success).toBe(true);
    expect(DiscountCodesInputSchema.safeParse(["X".repeat(65)]).success).toBe(false);
    expect(DiscountCodesInputSchema.safeParse([]).success).toBe(true);
  });
});
