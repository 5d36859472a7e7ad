import { describe, expect, it } from "vitest";
import { MAX_LINE_QUANTITY, MAX_LINES } from "../../src/cart/api.ts";
import { MAX_UNIT_MINOR } from "../../src/money.ts";
import { costOf, line, rulesOf } from "./build.ts";

/** Tax (contract 10.5): modes, the destination's rate, shipping taxable or not, exact integers. */

const rates = [
  { country: "US", region: "CA", rate: "0.0725", name: "Sales tax" },
  { country: "US", rate: "0.05", name: "Federal" },
  { country: "CA", rate: "0.05", name: "GST" },
];
const zones = [
  { name: "All", countries: ["US", "CA", "GB"], rates: [{ id: "std", title: "Standard", price: "10.00" }] },
];
const taxed = (mode: string, more: object = {}) =>
  rulesOf({
    discounts: [{ id: "ship-free", title: "Free", code: "SHIPFREE", kind: "free_shipping" }],
    shipping: { zones },
    tax: { mode, rates, ...more },
  });
const lines = [line("1", "100.00")];

describe("tax", () => {
  it("exclusive: null until a destination is known, then the region's rate, else the country's, else 0", () => {
    const rules = taxed("exclusive");
    expect(costOf({ lines, rules }).tax).toBeNull();
    const california = costOf({ lines, rules, buyer: { country: "US", region: "CA" } });
    expect([california.tax, california.total, california.tax_rate?.name]).toEqual([
      725,
      10000 + 1000 + 725,
      "Sales tax",
    ]);
    expect(costOf({ lines, rules, buyer: { country: "US", region: "NY" } }).tax).toBe(500);
    const britain = costOf({ lines, rules, buyer: { country: "GB" } });
    expect([britain.tax, britain.tax_rate, britain.tax_included]).toEqual([0, null, false]);
  });

  it("taxes shipping after its discount, only when shipping_taxable", () => {
    const buyer = { country: "CA" };
    expect(costOf({ lines, rules: taxed("exclusive"), buyer }).shipping_tax).toBe(0);
    const shipped = costOf({ lines, rules: taxed("exclusive", { shipping_taxable: true }), buyer });
    expect([shipped.shipping_tax, shipped.tax, shipped.total]).toEqual([50, 550, 10000 + 1000 + 550]);
    const free = costOf({
      lines,
      rules: taxed("exclusive", { shipping_taxable: true }),
      buyer,
      discount_codes: ["SHIPFREE"],
    });
    expect([free.shipping_tax, free.tax, free.total]).toEqual([0, 500, 10500]);
  });

  it("exclusive: taxes each line after its discounts, rounded per line", () => {
    const rules = rulesOf({
      discounts: [{ id: "third", title: "Third off", kind: "percentage", value: "33.3333" }],
      shipping: { zones },
      tax: { mode: "exclusive", rates },
    });
    // 100.00 − 33.33 = 66.67; 7.25 % = 4.833575 → 4.83.
    const cost = costOf({ lines, rules, buyer: { country: "US", region: "CA" } });
    expect([cost.discount_total, cost.lines[0]!.tax, cost.tax]).toEqual([3333, 483, 483]);
  });

  it("inclusive: the part of each price that is tax, the total unchanged; the first rate before a destination", () => {
    const rules = taxed("inclusive", { shipping_taxable: true });
    const home = costOf({ lines, rules });
    // No destination: the first rate (US-CA 7.25 %): 100.00 × 0.0725 / 1.0725 = 6.76.
    expect([home.tax, home.tax_included, home.total, home.shipping]).toEqual([676, true, 10000, null]);
    const canada = costOf({ lines, rules, buyer: { country: "CA" } });
    // 100.00 × 0.05 / 1.05 = 4.7619 → 4.76, shipping 10.00 → 0.4761 → 0.48.
    expect([canada.tax, canada.shipping_tax, canada.total]).toEqual([524, 48, 11000]);
  });

  it("none and stripe: tax null; stripe says the payment computes it", () => {
    const none = costOf({ lines, rules: taxed("none"), buyer: { country: "CA" } });
    expect([none.tax, none.tax_calculated_at, none.lines[0]!.tax, none.total]).toEqual([null, null, null, 11000]);
    const stripe = costOf({ lines, rules: taxed("stripe"), buyer: { country: "CA" } });
    expect([stripe.tax, stripe.tax_calculated_at, stripe.total]).toEqual([null, "payment", 11000]);
    const noTax = costOf({ lines, rules: rulesOf({ shipping: { zones } }), buyer: { country: "CA" } });
    expect([noTax.tax, noTax.tax_calculated_at]).toEqual([null, null]);
  });

  it("is exact at the largest cart the limits allow (250 lines × 999 units at the highest price, a 0.999999 rate)", () => {
    const full = Array.from({ length: MAX_LINES }, (_, i) => ({
      ...line(String(i + 1), "1.00"),
      unit_price: MAX_UNIT_MINOR,
      quantity: MAX_LINE_QUANTITY,
    }));
    const rules = rulesOf({
      shipping: { zones },
      tax: { mode: "exclusive", rates: [{ country: "US", rate: "0.999999", name: "Max" }] },
    });
    const cost = costOf({ lines: full, rules, buyer: { country: "US" } });
    const lineTotal = BigInt(MAX_UNIT_MINOR) * BigInt(MAX_LINE_QUANTITY);
    const lineTax = (2n * lineTotal * 999_999n + 1_000_000n) / 2_000_000n;
    expect(BigInt(cost.tax!)).toBe(lineTax * BigInt(MAX_LINES));
    expect(Number.isSafeInteger(cost.total)).toBe(true);
    expect(BigInt(cost.total)).toBe(lineTotal * BigInt(MAX_LINES) + 1000n + lineTax * BigInt(MAX_LINES));
  });
});
