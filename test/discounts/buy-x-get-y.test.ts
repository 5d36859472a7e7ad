import { describe, expect, it } from "vitest";
import type { PricingLine } from "../../src/discounts/types.ts";
import { costOf, line, rulesOf } from "../pricing/build.ts";

/** buy_x_get_y (contract 10.3): the cheapest get units are discounted; a qualifying unit never is. */

const inSet = (variant: string, price: string, collections: string[], quantity = 1) =>
  line(variant, price, quantity, { collections, handle: `p-${variant}` });
const offer = (more: object = {}) =>
  rulesOf({
    discounts: [
      {
        id: "bogo",
        title: "Buy one, get one half off",
        kind: "buy_x_get_y",
        buy: { quantity: 1, applies_to: { collections: ["tees"] } },
        get: { quantity: 1, applies_to: { collections: ["tees"] }, percentage: "50" },
        ...more,
      },
    ],
  });

/** Each line's discount, by variant. */
function discountsOf(lines: readonly PricingLine[], rules = offer()): Record<string, number> {
  const cost = costOf({ lines, rules });
  return Object.fromEntries(cost.lines.map((c, i) => [lines[i]!.variant_id, c.discount_total]));
}

function* orders<T>(items: readonly T[]): Generator<T[]> {
  if (items.length <= 1) return yield [...items];
  for (let i = 0; i < items.length; i += 1)
    for (const rest of orders([...items.slice(0, i), ...items.slice(i + 1)])) yield [items[i]!, ...rest];
}

describe("buy_x_get_y", () => {
  it("discounts the cheapest units of the get set; the dearer ones qualify", () => {
    // 3 units: one use (1 to buy + 1 to get). The 10.00 tee is half off: 5.00.
    expect(
      discountsOf([inSet("1", "30.00", ["tees"]), inSet("2", "10.00", ["tees"]), inSet("3", "20.00", ["tees"])]),
    ).toEqual({
      "1": 0,
      "2": 500,
      "3": 0,
    });
  });

  // Medusa #16396: a buy-get applied in 2 of the 6 orders of the same three lines. Here every
  // order gives the same discount on the same line.
  it("gives the same discount on the same line in all 6 orders of 3 lines (regression: Medusa #16396)", () => {
    const lines = [inSet("1", "30.00", ["tees"]), inSet("2", "10.00", ["tees"]), inSet("3", "20.00", ["tees"])];
    const results = [...orders(lines)].map((order) => JSON.stringify(discountsOf(order)));
    expect(results).toHaveLength(6);
    expect(new Set(results)).toEqual(new Set([JSON.stringify({ "1": 0, "2": 500, "3": 0 })]));
  });

  it("never discounts a unit counted to qualify, even when it is the cheapest of the get set", () => {
    // Buy a tee, get a tee or socks: the only tee (10.00) must qualify, so the socks (12.00) are the ones discounted.
    const rules = offer({ get: { quantity: 1, applies_to: { collections: ["tees", "socks"] }, percentage: "100" } });
    expect(discountsOf([inSet("1", "10.00", ["tees"]), inSet("2", "12.00", ["socks"])], rules)).toEqual({
      "1": 0,
      "2": 1200,
    });
    // With a second tee to qualify, the cheapest unit (the 10.00 tee) is the free one; the socks stay full price.
    expect(
      discountsOf(
        [inSet("1", "10.00", ["tees"]), inSet("3", "15.00", ["tees"]), inSet("2", "12.00", ["socks"])],
        rules,
      ),
    ).toEqual({ "1": 1000, "2": 0, "3": 0 });
  });

  it("applies as many times as the cart allows without max_uses_per_order, and at most that many with it", () => {
    const lines = [inSet("1", "10.00", ["tees"], 5)];
    // 5 units: two uses (2 + 2), the fifth unit is neither.
    expect(discountsOf(lines)).toEqual({ "1": 1000 });
    expect(discountsOf(lines, offer({ max_uses_per_order: 1 }))).toEqual({ "1": 500 });
  });

  it("rounds half-up per line: 3 units at 0.99, 50 % off = 1.485 → 1.49", () => {
    const rules = offer({ buy: { quantity: 1, applies_to: { collections: ["buy"] } } });
    expect(discountsOf([inSet("1", "1.00", ["buy"], 3), inSet("2", "0.99", ["tees"], 3)], rules)).toEqual({
      "1": 0,
      "2": 149,
    });
  });

  it("takes units across lines, cheapest first, ties in variant order", () => {
    // Buy 2, get 2 free, on any line: 4 units make one use; the two cheapest units are free.
    const rules = rulesOf({
      discounts: [
        {
          id: "b2g2",
          title: "B2G2",
          kind: "buy_x_get_y",
          buy: { quantity: 2 },
          get: { quantity: 2, percentage: "100" },
        },
      ],
    });
    const lines = [line("30", "5.00"), line("4", "5.00"), line("200", "5.00"), line("9", "8.00")];
    // Three 5.00 units tie: the two of the lowest variant ids (4 and 30) are the discounted ones.
    expect(discountsOf(lines, rules)).toEqual({ "30": 500, "4": 500, "200": 0, "9": 0 });
  });
});
