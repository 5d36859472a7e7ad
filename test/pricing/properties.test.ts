import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { inTarget } from "../../src/discounts/targets.ts";
import type { PricingLine } from "../../src/discounts/types.ts";
import { mulDivHalfUp } from "../../src/money-math.ts";
import { type Cost, type PricingInput, priceCart } from "../../src/pricing/index.ts";
import { codeKey, type Rules } from "../../src/rules/schema.ts";
import { fuzzRuns, printFigures, timeoutFor } from "../hardening/run-config.ts";
import { mustParse, scenarioArb, storeArb } from "./arbitraries.ts";
import { NOW } from "./build.ts";

/**
 * The cost's identities over random carts and rules (issue 43 part 2, issue 44 part 3): JPY, USD
 * and KWD; every discount kind with random conditions and combines_with; zero to three zones;
 * every tax mode; random destinations, codes and usage. FUZZ_RUNS scales the run counts.
 */

type S = ReturnType<typeof scenarioArb> extends fc.Arbitrary<infer T> ? T : never;

const inputOf = (s: S, rules: Rules): PricingInput => ({
  currency: s.currency,
  lines: s.lines,
  rules,
  buyer: s.buyer,
  shipping_option: s.shipping_option,
  discount_codes: s.codes,
  now: NOW,
  exhausted: s.exhausted,
  used_by_buyer: s.used,
});

/** What must hold of every cost (contract 10.2): the identity, nothing negative, allocations exact. */
function checkCost(cost: Cost, input: PricingInput, rules: Rules): void {
  const exclusiveTax = cost.tax !== null && !cost.tax_included ? cost.tax : 0;
  expect(cost.total).toBe(cost.subtotal - cost.discount_total + (cost.shipping ?? 0) + exclusiveTax);
  for (const amount of [cost.subtotal, cost.discount_total, cost.total, cost.shipping ?? 0, cost.tax ?? 0])
    expect(Number.isSafeInteger(amount) && amount >= 0).toBe(true);
  expect(cost.subtotal).toBe(input.lines.reduce((all, l) => all + l.quantity * l.unit_price, 0));

  const byId = new Map(rules.discounts.map((d) => [d.id, d]));
  const linesById = new Map(input.lines.map((l) => [l.id, l]));
  const allocated = new Map<string, number>();
  let shippingDiscount = 0;
  let lineDiscounts = 0;
  let lineTaxes = 0;
  for (const line of cost.lines) {
    const source = linesById.get(line.id)!;
    let sum = 0;
    for (const a of line.discount_allocations) {
      expect(a.amount).toBeGreaterThan(0);
      sum += a.amount;
      allocated.set(a.discount_id, (allocated.get(a.discount_id) ?? 0) + a.amount);
      const d = byId.get(a.discount_id)!;
      // A fixed amount off each unit never takes more than that amount per unit.
      if (d.kind === "fixed_amount" && d.per_item) expect(a.amount).toBeLessThanOrEqual(d.amount * source.quantity);
      // A percentage never takes more than its percentage of the line.
      if (d.kind === "percentage")
        expect(a.amount).toBeLessThanOrEqual(mulDivHalfUp(line.subtotal, d.percent.num, d.percent.den) + 1);
    }
    expect(sum).toBe(line.discount_total);
    expect(line.discount_total).toBeLessThanOrEqual(line.subtotal);
    lineDiscounts += sum;
    if (cost.tax === null) expect(line.tax).toBeNull();
    else {
      expect(line.tax).toBeGreaterThanOrEqual(0);
      lineTaxes += line.tax!;
    }
  }
  for (const d of cost.discounts) {
    expect(d.amount).toBeGreaterThanOrEqual(0);
    const rule = byId.get(d.id)!;
    if (d.class === "shipping") {
      expect(allocated.has(d.id)).toBe(false);
      shippingDiscount += d.amount;
      continue;
    }
    // The allocations of each product or order discount sum exactly to its amount.
    expect(allocated.get(d.id) ?? 0).toBe(d.amount);
    // A fixed amount never exceeds its value, nor what it applies to.
    if (rule.kind === "fixed_amount" && !rule.per_item) {
      const eligible = input.lines.filter((l) => inTarget(rule.applies_to, l));
      expect(d.amount).toBeLessThanOrEqual(rule.amount);
      expect(d.amount).toBeLessThanOrEqual(eligible.reduce((all, l) => all + l.quantity * l.unit_price, 0));
    }
  }
  expect([...allocated.keys()].every((id) => cost.discounts.some((d) => d.id === id))).toBe(true);
  expect(shippingDiscount).toBeLessThanOrEqual(cost.shipping ?? 0);
  expect(lineDiscounts + shippingDiscount).toBe(cost.discount_total);
  expect(cost.discount_total).toBe(cost.discounts.reduce((all, d) => all + d.amount, 0));
  if (cost.tax !== null) expect(lineTaxes + (cost.shipping_tax ?? 0)).toBe(cost.tax);

  // A discount with a code is applied exactly when an entered code for it answers applicable.
  for (const d of rules.discounts) {
    if (d.code === null) continue;
    const answers = cost.discount_codes.filter((c) => codeKey(c.code) === codeKey(d.code!));
    const taken = cost.discounts.some((a) => a.id === d.id);
    if (answers.length === 0) expect(taken).toBe(false);
    for (const c of answers) expect(c.applicable).toBe(taken);
  }
  for (const c of cost.discount_codes) {
    expect(c.applicable).toBe(c.reason === null);
    expect(c.message.length).toBeGreaterThan(0);
  }

  // Tax is null exactly where the contract says; shipping is the selected option's price.
  const mode = rules.tax?.mode;
  const taxNull = !mode || mode === "none" || mode === "stripe" || (mode === "exclusive" && input.buyer === null);
  expect(cost.tax === null).toBe(taxNull);
  expect(cost.shipping).toBe(cost.shipping_option?.price ?? null);
  expect(cost.shipping !== null).toBe(cost.shipping_status === "ready");
  const prices = cost.shipping_options.map((o) => o.price);
  expect(prices).toEqual([...prices].sort((a, b) => a - b));
}

/** The cost with lines and codes compared by identity, not position: what must not change when they are reordered. */
function canonical(cost: Cost): string {
  return JSON.stringify({
    ...cost,
    lines: [...cost.lines].sort((a, b) => (a.id < b.id ? -1 : 1)),
    discount_codes: [...cost.discount_codes].sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0)),
  });
}

/** `items` reordered by sorting on `keys` (a random permutation from fast-check). */
function permuted<T>(items: readonly T[], keys: readonly number[]): T[] {
  return items
    .map((item, i) => ({ item, key: keys[i % keys.length]! * 64 + i }))
    .sort((a, b) => a.key - b.key)
    .map((x) => x.item);
}

function* permutations<T>(items: readonly T[]): Generator<T[]> {
  if (items.length <= 1) return yield [...items];
  for (let i = 0; i < items.length; i += 1) {
    const rest = [...items.slice(0, i), ...items.slice(i + 1)];
    for (const tail of permutations(rest)) yield [items[i]!, ...tail];
  }
}

/** FUZZ_RUNS sets the number of random carts; the every-order properties scale with it. */
const CARTS = fuzzRuns(10_000);
const ALL_ORDERS = Math.ceil(CARTS / 60);
const FULL_SEVEN = Math.ceil(CARTS / 2000);

describe("the cost of random carts (JPY, USD, KWD)", () => {
  it(
    `holds total = subtotal − discounts + shipping + tax, nothing negative, exact allocations, and one cost for reordered lines and codes, over ${CARTS} carts`,
    () => {
      const keys = fc.array(fc.array(fc.integer({ min: 0, max: 50 }), { minLength: 7, maxLength: 7 }), {
        minLength: 2,
        maxLength: 2,
      });
      let orders = 0;
      let applied = 0;
      let stacked = 0;
      const seen = { JPY: 0, USD: 0, KWD: 0 } as Record<string, number>;
      // Three carts per rules document: documents cost more to generate and parse than carts to price.
      fc.assert(
        fc.property(storeArb(7, 3), keys, (store, reorders) => {
          const rules = mustParse(store.doc, store.currency);
          for (const cart of store.carts) {
            const s = { currency: store.currency, doc: store.doc, ...cart };
            const input = inputOf(s, rules);
            const cost = priceCart(input);
            checkCost(cost, input, rules);
            const expected = canonical(cost);
            for (const order of reorders) {
              const lines = permuted(s.lines, order);
              const codes = permuted(s.codes, [...order].reverse());
              expect(canonical(priceCart({ ...input, lines, discount_codes: codes }))).toBe(expected);
              orders += 1;
            }
            seen[s.currency]! += 1;
            applied += cost.discounts.length;
            if (cost.discounts.length > 1) stacked += 1;
          }
        }),
        { numRuns: Math.ceil(CARTS / 3) },
      );
      const carts = seen.JPY! + seen.USD! + seen.KWD!;
      printFigures("pricing-properties", {
        carts,
        reorders: orders,
        discounts_applied: applied,
        carts_stacking: stacked,
        ...seen,
      });
      expect(carts).toBeGreaterThanOrEqual(CARTS);
      // The generator reaches discounts and every currency (a property that never applies one proves little).
      expect(applied).toBeGreaterThan(CARTS / 4);
      expect(stacked).toBeGreaterThan(CARTS / 50);
      expect(Math.min(seen.JPY!, seen.USD!, seen.KWD!)).toBeGreaterThan(CARTS / 10);
    },
    timeoutFor(CARTS, 5),
  );

  it(
    `gives one cost for every order of up to 5 lines and of the codes, over ${ALL_ORDERS} carts`,
    () => {
      fc.assert(
        fc.property(scenarioArb(5), (s) => {
          const rules = mustParse(s.doc, s.currency);
          const input = inputOf(s, rules);
          const expected = canonical(priceCart(input));
          let k = 0;
          for (const lines of permutations(s.lines)) {
            // Each line order with another order of the codes: rotated, and reversed every other time.
            const turn = k % Math.max(1, s.codes.length);
            const rotated = [...s.codes.slice(turn), ...s.codes.slice(0, turn)];
            const codes = k++ % 2 ? rotated.reverse() : rotated;
            expect(canonical(priceCart({ ...input, lines, discount_codes: codes }))).toBe(expected);
          }
        }),
        { numRuns: ALL_ORDERS },
      );
    },
    timeoutFor(ALL_ORDERS, 60),
  );

  it(
    "gives one cost for all 5,040 orders of 7 lines",
    () => {
      const seven = scenarioArb(7).filter((s) => s.lines.length === 7);
      fc.assert(
        fc.property(seven, (s) => {
          const rules = mustParse(s.doc, s.currency);
          const input = inputOf(s, rules);
          const expected = canonical(priceCart(input));
          let count = 0;
          for (const lines of permutations(s.lines as PricingLine[])) {
            expect(canonical(priceCart({ ...input, lines }))).toBe(expected);
            count += 1;
          }
          expect(count).toBe(5040);
        }),
        { numRuns: FULL_SEVEN },
      );
    },
    timeoutFor(FULL_SEVEN, 5000),
  );
});
