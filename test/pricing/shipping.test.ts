import { describe, expect, it } from "vitest";
import { shippingFault } from "../../src/pricing/index.ts";
import { costOf, line, rulesOf } from "./build.ts";

/** Shipping (contract 10.4): options, the selection, and the states the checkout refuses. */

const rules = rulesOf({
  discounts: [
    {
      id: "ship-free",
      title: "Free shipping over 100",
      kind: "free_shipping",
      minimum_subtotal: "100.00",
      combines_with: ["order"],
    },
    { id: "half", title: "Half off", code: "HALF", kind: "percentage", value: "50", combines_with: ["shipping"] },
  ],
  shipping: {
    zones: [
      {
        name: "Domestic",
        countries: ["US"],
        rates: [
          { id: "express", title: "Express", price: "15.00", min_subtotal: "20.00" },
          { id: "standard", title: "Standard", price: "5.00", max_weight_grams: 2000 },
          { id: "economy", title: "Economy", price: "5.00" },
          { id: "freight", title: "Freight", price: "40.00", min_weight_grams: 2001 },
        ],
      },
      {
        name: "Canada",
        countries: ["CA"],
        rates: [{ id: "ca", title: "Canada Post", price: "12.00", max_subtotal: "500.00" }],
      },
    ],
  },
});
const US = { country: "US" } as const;
const giftCard = line("9", "50.00", 1, { requires_shipping: false });

describe("shipping", () => {
  it("offers the zone's rates the cart meets, cheapest first, equal prices in document order", () => {
    const cost = costOf({ lines: [line("1", "30.00", 1, { weight_grams: 500 })], rules, buyer: US });
    expect(cost.shipping_options.map((o) => [o.id, o.price])).toEqual([
      ["standard", 500],
      ["economy", 500],
      ["express", 1500],
    ]);
    expect(cost.shipping_option?.id).toBe("standard");
    expect([cost.shipping, cost.shipping_status, cost.shipping_required]).toEqual([500, "ready", true]);
  });

  it("keeps the shopper's selection while it is offered, and falls back to the cheapest when it stops", () => {
    const heavy = (grams: number) => [line("1", "30.00", 2, { weight_grams: grams })];
    expect(costOf({ lines: heavy(1000), rules, buyer: US, shipping_option: "express" }).shipping).toBe(1500);
    // 2 × 1,001 g: over Standard's 2,000 g, so Freight is offered; a selection of Standard falls back to the cheapest.
    const over = costOf({ lines: heavy(1001), rules, buyer: US, shipping_option: "standard" });
    expect(over.shipping_options.map((o) => o.id)).toEqual(["economy", "express", "freight"]);
    expect(over.shipping_option?.id).toBe("economy");
  });

  it("judges subtotal and weight on the lines that ship, before discounts, both bounds inclusive, unknown weight as 0", () => {
    const lines = [line("1", "19.99"), giftCard];
    // 19.99 of shipping lines (the gift card does not count): under Express's 20.00.
    expect(costOf({ lines, rules, buyer: US }).shipping_options.map((o) => o.id)).toEqual(["standard", "economy"]);
    // Exactly 20.00, even with 50 % off: Express is offered.
    const twenty = costOf({ lines: [line("1", "20.00")], rules, buyer: US, discount_codes: ["HALF"] });
    expect(twenty.shipping_options.map((o) => o.id)).toContain("express");
    expect(twenty.discount_total).toBe(1000);
    // Exactly 2,000 g is within Standard's max; weight null counts 0.
    const exact = costOf({
      lines: [line("1", "1.00", 2, { weight_grams: 1000 }), line("2", "1.00")],
      rules,
      buyer: US,
    });
    expect(exact.shipping_options.map((o) => o.id)).toContain("standard");
    expect(costOf({ lines: [line("3", "600.00")], rules, buyer: { country: "CA" } }).shipping_status).toBe(
      "unavailable",
    );
  });

  it("needs no destination when nothing ships or the store has no zones: shipping null, nothing to refuse", () => {
    const digital = costOf({ lines: [giftCard], rules });
    expect([digital.shipping, digital.shipping_status, digital.shipping_required]).toEqual([null, "not_needed", false]);
    expect(shippingFault(digital)).toBeNull();
    const noZones = costOf({ lines: [line("1", "10.00")], rules: rulesOf({ tax: { mode: "none" } }), buyer: US });
    expect([noZones.shipping, noZones.shipping_status, noZones.shipping_options]).toEqual([null, "not_needed", []]);
    const noRules = costOf({ lines: [line("1", "10.00")] });
    expect([noRules.shipping, noRules.shipping_status]).toEqual([null, "not_needed"]);
  });

  it("says shipping_required without a destination and shipping_unavailable where no zone or rate serves it", () => {
    const lines = [line("1", "10.00")];
    const unknown = costOf({ lines, rules });
    expect([unknown.shipping, unknown.shipping_status, unknown.shipping_options]).toEqual([
      null,
      "destination_required",
      [],
    ]);
    expect(shippingFault(unknown)).toBe("shipping_required");
    const nowhere = costOf({ lines, rules, buyer: { country: "JP" } });
    expect([nowhere.shipping, nowhere.shipping_status]).toEqual([null, "unavailable"]);
    expect(shippingFault(nowhere)).toBe("shipping_unavailable");
    expect(shippingFault(costOf({ lines, rules, buyer: US }))).toBeNull();
  });

  it("takes a free-shipping discount off the selected rate, with no line allocations, counted in discount_total", () => {
    const cost = costOf({ lines: [line("1", "100.00")], rules, buyer: US, shipping_option: "express" });
    expect(cost.discounts).toEqual([
      { id: "ship-free", title: "Free shipping over 100", code: null, class: "shipping", amount: 1500 },
    ]);
    expect(cost.lines[0]!.discount_allocations).toEqual([]);
    expect([cost.shipping, cost.discount_total, cost.total]).toEqual([1500, 1500, 10000]);
    // Before a destination is known it is taken, at 0, and applies once a rate is selected.
    const early = costOf({ lines: [line("1", "100.00")], rules });
    expect(early.discounts.map((d) => [d.id, d.amount])).toEqual([["ship-free", 0]]);
  });
});
