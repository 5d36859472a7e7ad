import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Cost, type PricingInput, priceCart } from "../../src/pricing/index.ts";
import type { Rules } from "../../src/rules/schema.ts";
import { fuzzRuns, timeoutFor } from "../hardening/run-config.ts";
import { mustParse, storeArb } from "../pricing/arbitraries.ts";
import { costOf, line, NOW, rulesOf } from "../pricing/build.ts";

/**
 * Combining (contract 10.3): of the applicable discounts the cart takes the set whose members all
 * combine with each other that saves the shopper most, ties to the set whose earliest member
 * comes first in the document.
 */

type Store = ReturnType<typeof storeArb> extends fc.Arbitrary<infer T> ? T : never;

function inputOf(store: Store, k: number, rules: Rules): PricingInput {
  const cart = store.carts[k]!;
  return {
    currency: store.currency,
    lines: cart.lines,
    rules,
    buyer: cart.buyer,
    shipping_option: cart.shipping_option,
    discount_codes: cart.codes,
    now: NOW,
    exhausted: cart.exhausted,
    used_by_buyer: cart.used,
  };
}

/** The same rules with only some of the discounts (each keeps its place in the document). */
const only = (rules: Rules, keep: (i: number) => boolean): Rules => ({
  ...rules,
  discounts: rules.discounts.filter((_, i) => keep(i)),
});

const saving = (cost: Cost) => cost.discount_total;
const RUNS = fuzzRuns(300);

describe("combining discounts", () => {
  it(
    "never saves less when a compatible discount is added (so only maximal sets need comparing)",
    () => {
      fc.assert(
        fc.property(storeArb(6, 2), fc.array(fc.boolean(), { minLength: 7, maxLength: 7 }), (store, keep) => {
          // Every discount combines with every class: the cart takes every applicable one.
          const doc = {
            ...store.doc,
            discounts: store.doc.discounts.map((d) => ({ ...d, combines_with: ["order", "product", "shipping"] })),
          };
          const rules = mustParse(doc, store.currency);
          for (let k = 0; k < store.carts.length; k += 1) {
            const all = priceCart(inputOf(store, k, rules));
            const some = priceCart(
              inputOf(
                store,
                k,
                only(rules, (i) => keep[i]!),
              ),
            );
            expect(saving(some)).toBeLessThanOrEqual(saving(all));
          }
        }),
        { numRuns: RUNS },
      );
    },
    timeoutFor(RUNS),
  );

  it(
    "takes the set that saves most of all compatible sets, checked against every subset of the rules",
    () => {
      fc.assert(
        fc.property(storeArb(5, 1), (store) => {
          const rules = mustParse(store.doc, store.currency);
          const n = rules.discounts.length;
          const chosen = priceCart(inputOf(store, 0, rules));
          let best = 0;
          for (let mask = 1; mask < 1 << n; mask += 1) {
            const members = rules.discounts.filter((_, i) => mask & (1 << i));
            const compatible = members.every((a) =>
              members.every((b) => a === b || (a.combines_with.includes(b.class) && b.combines_with.includes(a.class))),
            );
            // A compatible set alone in the rules is taken whole (what of it applies).
            if (compatible)
              best = Math.max(
                best,
                saving(
                  priceCart(
                    inputOf(
                      store,
                      0,
                      only(rules, (i) => !!(mask & (1 << i))),
                    ),
                  ),
                ),
              );
          }
          expect(saving(chosen)).toBe(best);
          // And what it took is itself compatible.
          const taken = rules.discounts.filter((d) => chosen.discounts.some((a) => a.id === d.id));
          for (const a of taken)
            for (const b of taken)
              if (a !== b) expect(a.combines_with.includes(b.class) && b.combines_with.includes(a.class)).toBe(true);
        }),
        { numRuns: RUNS },
      );
    },
    timeoutFor(RUNS, 200),
  );

  const lines = [line("1001", "100.00")];
  const tenPercent = { id: "ten-percent", title: "10% off", kind: "percentage", value: "10" };
  const tenOff = { id: "ten-off", title: "10 off", kind: "fixed_amount", value: "10.00" };

  it("breaks a tie in saving by the document: the set whose earliest member comes first", () => {
    // Both save 10.00 on 100.00 and do not combine: whichever the document lists first wins.
    const first = costOf({ lines, rules: rulesOf({ discounts: [tenPercent, tenOff] }) });
    expect(first.discounts.map((d) => d.id)).toEqual(["ten-percent"]);
    const second = costOf({ lines, rules: rulesOf({ discounts: [tenOff, tenPercent] }) });
    expect(second.discounts.map((d) => d.id)).toEqual(["ten-off"]);
    // Saving more beats coming first.
    const more = costOf({ lines, rules: rulesOf({ discounts: [tenOff, { ...tenPercent, value: "11" }] }) });
    expect(more.discounts.map((d) => [d.id, d.amount])).toEqual([["ten-percent", 1100]]);
  });

  it("breaks a tie between sets by their earliest members, then the next", () => {
    // {a, c} and {b, c}... here: {p1, o} vs {p2, o} both save 20.00; p1 is earlier, so its set wins.
    const p = (id: string) => ({
      id,
      title: id,
      kind: "fixed_amount",
      value: "10.00",
      applies_to: { variants: ["1001"] },
      combines_with: ["order"],
    });
    const o = { id: "o", title: "o", kind: "fixed_amount", value: "10.00", combines_with: ["product"] };
    const cost = costOf({ lines, rules: rulesOf({ discounts: [o, p("p1"), p("p2")] }) });
    expect(cost.discounts.map((d) => d.id)).toEqual(["o", "p1"]);
  });

  it("answers not_combinable for a code left out, naming what it clashes with", () => {
    const rules = rulesOf({
      discounts: [
        { id: "save15", title: "Save 15%", code: "SAVE15", kind: "percentage", value: "15" },
        { id: "ten", title: "10 off", code: "TEN", kind: "fixed_amount", value: "10.00" },
      ],
    });
    const cost = costOf({ lines: [line("1001", "80.00")], rules, discount_codes: ["TEN", "SAVE15"] });
    expect(cost.discounts.map((d) => [d.id, d.amount])).toEqual([["save15", 1200]]);
    expect(cost.discount_codes).toEqual([
      { code: "TEN", applicable: false, reason: "not_combinable", message: "TEN cannot be combined with Save 15%." },
      { code: "SAVE15", applicable: true, reason: null, message: "SAVE15 is applied." },
    ]);
  });

  it("combines only when each lists the other's class", () => {
    const product = {
      id: "tees",
      title: "Tees",
      kind: "percentage",
      value: "20",
      applies_to: { variants: ["1001"] },
      combines_with: ["order"],
    };
    const order = { id: "all", title: "All", kind: "percentage", value: "10" };
    // One-sided: the order discount does not list product, so they do not combine; 20.00 beats 10.00.
    const oneSided = costOf({ lines, rules: rulesOf({ discounts: [product, order] }) });
    expect(oneSided.discounts.map((d) => d.id)).toEqual(["tees"]);
    const both = costOf({ lines, rules: rulesOf({ discounts: [product, { ...order, combines_with: ["product"] }] }) });
    // 20.00 off the price, then 10 % of the 80.00 that remains.
    expect(both.discounts.map((d) => [d.id, d.amount])).toEqual([
      ["tees", 2000],
      ["all", 800],
    ]);
  });

  it("applies every one of several combinable codes (the bug: only the first of several codes reached checkout)", () => {
    const rules = rulesOf({
      discounts: [
        {
          id: "tees",
          title: "Tees 10%",
          code: "TEES",
          kind: "percentage",
          value: "10",
          applies_to: { variants: ["1001"] },
          combines_with: ["order", "shipping"],
        },
        {
          id: "five",
          title: "5 off",
          code: "FIVE",
          kind: "fixed_amount",
          value: "5.00",
          combines_with: ["product", "shipping"],
        },
        {
          id: "ship",
          title: "Free shipping",
          code: "SHIP",
          kind: "free_shipping",
          combines_with: ["product", "order"],
        },
      ],
      shipping: {
        zones: [{ name: "US", countries: ["US"], rates: [{ id: "std", title: "Standard", price: "7.00" }] }],
      },
    });
    const cost = costOf({ lines, rules, buyer: { country: "US" }, discount_codes: ["SHIP", "FIVE", "TEES"] });
    expect(cost.discounts.map((d) => [d.id, d.amount])).toEqual([
      ["tees", 1000],
      ["five", 500],
      ["ship", 700],
    ]);
    expect(cost.discount_codes.map((c) => c.applicable)).toEqual([true, true, true]);
    expect(cost.total).toBe(10000 - 1000 - 500);
  });

  it("stacks two product discounts on one line from its price, never below zero (the later takes what is left)", () => {
    const p = (id: string, value: string) => ({
      id,
      title: id,
      kind: "percentage",
      value,
      applies_to: { variants: ["1001"] },
      combines_with: ["product"],
    });
    const cost = costOf({ lines, rules: rulesOf({ discounts: [p("sixty", "60"), p("fifty", "50")] }) });
    expect(cost.lines[0]!.discount_allocations).toEqual([
      { discount_id: "sixty", amount: 6000 },
      { discount_id: "fifty", amount: 4000 },
    ]);
    expect(cost.total).toBe(0);
  });

  it("sums order percentages on one amount and rounds them once per line (so a set never saves less than its part)", () => {
    // 0.3 % + 0.3 % of 1.00: each alone rounds 0.003 to 0.00; together 0.006 rounds to 0.01.
    const o = (id: string) => ({ id, title: id, kind: "percentage", value: "0.3", combines_with: ["order"] });
    const cost = costOf({ lines: [line("1001", "1.00")], rules: rulesOf({ discounts: [o("a"), o("b")] }) });
    expect(cost.discount_total).toBe(1);
    expect(cost.lines[0]!.discount_allocations).toEqual([{ discount_id: "a", amount: 1 }]);
    expect(cost.discounts.map((d) => [d.id, d.amount])).toEqual([
      ["a", 1],
      ["b", 0],
    ]);
  });

  it("never saves less for a compatible product discount added, even where order percentages sum to 100 % of a few cents", () => {
    // Rounded one by one, 34 %, 33 % and 33 % of 0.02 take 0.01 each (0.02 in all, the whole line),
    // but of the 0.01 left by a product discount, 0.00 each: the set with the product discount would
    // save 0.01 less than the set without it. Summed and rounded once per line, both save 0.02.
    const o = (id: string, value: string) => ({
      id,
      title: id,
      kind: "percentage",
      value,
      combines_with: ["order", "product"],
    });
    const orders = [o("a", "34"), o("b", "33"), o("c", "33")];
    const product = {
      id: "cent",
      title: "cent",
      kind: "fixed_amount",
      value: "0.01",
      applies_to: { variants: ["1001"] },
      combines_with: ["order"],
    };
    const small = [line("1001", "0.02")];
    const without = costOf({ lines: small, rules: rulesOf({ discounts: orders }) });
    const withIt = costOf({ lines: small, rules: rulesOf({ discounts: [product, ...orders] }) });
    expect(without.discount_total).toBe(2);
    expect(withIt.discount_total).toBe(2);
    expect(withIt.discounts.map((d) => [d.id, d.amount])).toEqual([
      ["cent", 1],
      ["a", 1],
      ["b", 0],
      ["c", 0],
    ]);
  });

  it("stays within bounds with 25 automatic discounts that all apply and combine pairwise by class only", () => {
    // Three classes of non-self-combining discounts that combine across classes: 9 × 8 × 8 maximal sets.
    const discounts = Array.from({ length: 25 }, (_, i) => {
      const cls = i % 3;
      const base = { id: `d${i}`, title: `D${i}`, kind: "percentage", value: String(1 + (i % 7)) };
      if (cls === 0) return { ...base, applies_to: { variants: ["1001"] }, combines_with: ["order", "shipping"] };
      if (cls === 1) return { ...base, combines_with: ["product", "shipping"] };
      return { id: `d${i}`, title: `D${i}`, kind: "free_shipping", combines_with: ["product", "order"] };
    });
    const rules = rulesOf({
      discounts,
      shipping: {
        zones: [{ name: "US", countries: ["US"], rates: [{ id: "std", title: "Standard", price: "7.00" }] }],
      },
    });
    const cost = costOf({ lines, rules, buyer: { country: "US" } });
    // The best product discount (7 %: d6 is the earliest with 7), the best order one on what remains, the first shipping one.
    expect(cost.discounts.map((d) => d.id)).toEqual(["d2", "d6", "d13"]);
    expect(cost.discount_total).toBe(700 + 651 + 700);
  });
});
