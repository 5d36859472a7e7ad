import { describe, expect, it } from "vitest";
import type { PricingInput } from "../../src/pricing/index.ts";
import { costOf, line, NOW, rulesOf } from "../pricing/build.ts";

/** Entered codes (contract 10.3): each answered with `applicable`, a machine reason and a message to show. */

const summer = {
  id: "summer10",
  title: "Summer sale",
  code: "SUMMER10",
  kind: "percentage",
  value: "10",
  applies_to: { collections: ["summer"] },
  minimum_subtotal: "50.00",
};
const rules = rulesOf({
  discounts: [
    summer,
    { id: "later", title: "Later", code: "LATER", kind: "percentage", value: "5", starts_at: "2026-12-20T09:30:00Z" },
    { id: "gone", title: "Gone", code: "GONE", kind: "percentage", value: "5", ends_at: "2026-12-10T00:00:00Z" },
    { id: "limited", title: "Limited", code: "LIMITED", kind: "percentage", value: "5", usage_limit: 10 },
    { id: "welcome", title: "Welcome", code: "WELCOME", kind: "percentage", value: "5", once_per_buyer: true },
    { id: "pair", title: "Pair", code: "PAIR", kind: "fixed_amount", value: "3.00", minimum_quantity: 3 },
    {
      id: "b2g1",
      title: "B2G1",
      code: "B2G1",
      kind: "buy_x_get_y",
      buy: { quantity: 2, applies_to: { collections: ["summer"] } },
      get: { quantity: 1, applies_to: { collections: ["summer"] } },
    },
  ],
});
const summerLine = (price: string, quantity = 1) =>
  line("1001", price, quantity, { collections: ["summer"], handle: "summer-tee" });

/** The answer to one code entered alone in a cart of `lines`. */
function answer(code: string, lines = [summerLine("37.50")], more: Partial<PricingInput> = {}) {
  const cost = costOf({ lines, rules, discount_codes: [code], ...more });
  expect(cost.discount_codes).toHaveLength(1);
  return cost.discount_codes[0]!;
}

describe("discount codes", () => {
  it.each([
    ["unknown", "NOPE", {}, "NOPE is not a valid discount code."],
    ["not_started", "LATER", {}, "LATER can be used from 2026-12-20 09:30 UTC."],
    ["expired", "GONE", {}, "GONE expired at 2026-12-10 00:00 UTC."],
    ["usage_limit_reached", "LIMITED", { exhausted: ["limited"] }, "LIMITED has reached its usage limit."],
    [
      "once_per_buyer",
      "WELCOME",
      { used_by_buyer: ["welcome"] },
      "WELCOME can be used once per customer, and this email has already used it.",
    ],
    ["minimum_not_met", "SUMMER10", {}, "Add 12.50 more to use SUMMER10."],
    ["minimum_not_met", "PAIR", {}, "Add 2 more eligible items to use PAIR."],
  ] as const)("answers %s for %s with a message a storefront can show", (reason, code, more, message) => {
    expect(answer(code, undefined, more)).toEqual({ code, applicable: false, reason, message });
  });

  it("answers no_eligible_lines when nothing in the cart is targeted", () => {
    expect(answer("SUMMER10", [line("2001", "80.00")])).toEqual({
      code: "SUMMER10",
      applicable: false,
      reason: "no_eligible_lines",
      message: "SUMMER10 does not apply to anything in your cart.",
    });
  });

  it("answers minimum_not_met for a buy_x_get_y the cart cannot use yet, with the units missing", () => {
    expect(answer("B2G1", [summerLine("10.00", 2)]).message).toBe("Add 1 more eligible item to use B2G1.");
    expect(answer("B2G1", [summerLine("10.00", 3)]).applicable).toBe(true);
  });

  it("answers applicable, reason null, once the conditions hold; minimum_subtotal counts its own lines before discounts, inclusive", () => {
    const ok = costOf({ lines: [summerLine("50.00"), line("2001", "100.00")], rules, discount_codes: ["SUMMER10"] });
    expect(ok.discount_codes).toEqual([
      { code: "SUMMER10", applicable: true, reason: null, message: "SUMMER10 is applied." },
    ]);
    expect(ok.discounts).toEqual([
      { id: "summer10", title: "Summer sale", code: "SUMMER10", class: "product", amount: 500 },
    ]);
    // 49.99 of summer lines plus 100.00 of others is not 50.00 of eligible lines.
    expect(answer("SUMMER10", [summerLine("49.99"), line("2001", "100.00")]).message).toBe(
      "Add 0.01 more to use SUMMER10.",
    );
  });

  it("reads codes trimmed and in any case (full-width letters too), answering them as entered", () => {
    const cost = costOf({ lines: [summerLine("60.00")], rules, discount_codes: ["  summer10 ", "ｓｕｍｍｅｒ１０"] });
    expect(cost.discount_codes.map((c) => [c.code, c.applicable, c.message])).toEqual([
      ["summer10", true, "SUMMER10 is applied."],
      ["ｓｕｍｍｅｒ１０", true, "SUMMER10 is applied."],
    ]);
    // Entered twice, it still applies once.
    expect(cost.discount_total).toBe(600);
  });

  it("judges starts_at and ends_at inclusive, against the moment given", () => {
    const at = (now: number) => costOf({ lines: [summerLine("60.00")], rules, discount_codes: ["LATER", "GONE"], now });
    expect(at(Date.UTC(2026, 11, 20, 9, 30)).discount_codes[0]!.applicable).toBe(true);
    expect(at(Date.UTC(2026, 11, 20, 9, 29, 59, 999)).discount_codes[0]!.reason).toBe("not_started");
    expect(at(Date.UTC(2026, 11, 10)).discount_codes[1]!.reason).not.toBe("expired");
    expect(at(Date.UTC(2026, 11, 10) + 1).discount_codes[1]!.reason).toBe("expired");
    expect(at(NOW).discount_codes[1]!.reason).toBe("expired");
  });

  it("applies no automatic discount that is exhausted, used by this buyer or out of its dates", () => {
    const auto = rulesOf({
      discounts: [
        { id: "limited", title: "L", kind: "percentage", value: "10", usage_limit: 5 },
        { id: "once", title: "O", kind: "percentage", value: "20", once_per_buyer: true },
      ],
    });
    const lines = [line("1001", "10.00")];
    expect(costOf({ lines, rules: auto }).discounts.map((d) => d.id)).toEqual(["once"]);
    expect(costOf({ lines, rules: auto, used_by_buyer: ["once"] }).discounts.map((d) => d.id)).toEqual(["limited"]);
    expect(costOf({ lines, rules: auto, used_by_buyer: ["once"], exhausted: ["limited"] }).discounts).toEqual([]);
  });

  it("answers every code unknown when the store has no rules, and never fails", () => {
    const cost = costOf({ lines: [line("1001", "10.00")], discount_codes: ["SUMMER10"] });
    expect(cost.discount_codes).toEqual([
      { code: "SUMMER10", applicable: false, reason: "unknown", message: "SUMMER10 is not a valid discount code." },
    ]);
    expect(cost.total).toBe(1000);
  });
});
