import { describe, expect, it } from "vitest";
import type { PricingLine } from "../../src/discounts/types.ts";
import { type PricingInput, priceCart } from "../../src/pricing/index.ts";
import type { Rules } from "../../src/rules/schema.ts";
import { parseRules } from "../../src/rules/parse.ts";
import { NOW } from "./build.ts";

/**
 * How long pricing takes in workerd, printed (test-results/cost.json, `pricing-speed`), never
 * asserted: the machine is shared. The store of the bench target (issue 44): 20 automatic
 * discounts of every kind, 200 codes (5 entered), 3 zones and exclusive tax with a rate per US
 * state; a 250-line cart, a 20-line one (the bench's hot cart) and a 1-line one (what pricing
 * adds to a cart add).
 */

const STATES =
  "AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC".split(
    " ",
  );

function benchRulesDocument() {
  const collection = (i: number) => `c${i % 10}`;
  const automatic = [
    ...Array.from({ length: 8 }, (_, i) => ({
      id: `auto-pct-${i}`,
      title: `${5 + i}% off ${collection(i)}`,
      kind: "percentage",
      value: String(5 + i),
      applies_to: { collections: [collection(i)] },
      combines_with: ["product", "order", "shipping"],
    })),
    ...Array.from({ length: 4 }, (_, i) => ({
      id: `auto-each-${i}`,
      title: "1 off each",
      kind: "fixed_amount",
      value: "1.00",
      per_item: true,
      applies_to: { variants: Array.from({ length: 20 }, (_, k) => String(1000 + i * 20 + k)) },
      combines_with: ["product", "order"],
    })),
    ...Array.from({ length: 2 }, (_, i) => ({
      id: `auto-b2g1-${i}`,
      title: "Buy 2 get 1",
      kind: "buy_x_get_y",
      buy: { quantity: 2, applies_to: { collections: [collection(8 + i)] } },
      get: { quantity: 1, applies_to: { collections: [collection(8 + i)] }, percentage: "50" },
      max_uses_per_order: 3,
      combines_with: ["shipping"],
    })),
    ...Array.from({ length: 4 }, (_, i) => ({
      id: `auto-order-${i}`,
      title: `Spend ${100 * (i + 1)}, save ${5 * (i + 1)}`,
      kind: "fixed_amount",
      value: `${5 * (i + 1)}.00`,
      minimum_subtotal: `${100 * (i + 1)}.00`,
      combines_with: ["product", "shipping"],
    })),
    ...Array.from({ length: 2 }, (_, i) => ({
      id: `auto-ship-${i}`,
      title: "Free shipping",
      kind: "free_shipping",
      minimum_subtotal: `${50 + 50 * i}.00`,
      combines_with: ["product", "order"],
    })),
  ];
  const codes = Array.from({ length: 200 }, (_, i) => ({
    id: `code-${i}`,
    title: `Code ${i}`,
    code: `CODE${i}`,
    kind: i % 2 ? "percentage" : "fixed_amount",
    value: i % 2 ? String(1 + (i % 30)) : `${1 + (i % 20)}.00`,
    ...(i % 3 === 0 ? { applies_to: { collections: [collection(i)] } } : {}),
    ...(i % 7 === 0 ? { minimum_subtotal: "10000.00" } : {}),
    combines_with: i % 4 === 0 ? ["product", "shipping"] : ["shipping"],
  }));
  const zone = (name: string, countries: string[], base: number) => ({
    name,
    countries,
    rates: [
      { id: `${name}-std`, title: "Standard", price: `${base}.00`, max_weight_grams: 20_000 },
      { id: `${name}-exp`, title: "Express", price: `${base * 3}.00`, min_subtotal: "20.00" },
      { id: `${name}-freight`, title: "Freight", price: `${base * 8}.00`, min_weight_grams: 20_001 },
    ],
  });
  return {
    discounts: [...automatic, ...codes],
    shipping: {
      zones: [zone("us", ["US"], 5), zone("canada", ["CA"], 12), zone("europe", ["FR", "DE", "GB", "IT", "ES"], 20)],
    },
    tax: {
      mode: "exclusive",
      shipping_taxable: true,
      rates: STATES.map((region, i) => ({ country: "US", region, rate: `0.0${(40 + i) % 100}`, name: "Sales tax" })),
    },
  };
}

function cartLines(count: number): PricingLine[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `cl_${i}`,
    variant_id: String(1000 + ((i * 37) % 250)),
    attributes: i % 5 === 0 ? `{"Engraving":"${i}"}` : "{}",
    handle: `product-${i % 90}`,
    collections: [`c${i % 10}`, `c${(i * 3) % 10}`],
    quantity: 1 + (i % 3),
    unit_price: 500 + ((i * 7919) % 20_000),
    requires_shipping: i % 11 !== 0,
    weight_grams: i % 4 === 0 ? null : 100 + (i % 900),
  }));
}

/** Microseconds per call, the median of `rounds` batches; the clock in workerd moves only across I/O, so each batch ends with one. */
async function timePerCall(run: () => void, calls: number, rounds = 7): Promise<number> {
  const samples: number[] = [];
  for (let r = 0; r < rounds; r += 1) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    const start = performance.now();
    for (let i = 0; i < calls; i += 1) run();
    await new Promise((resolve) => setTimeout(resolve, 0));
    samples.push(((performance.now() - start) * 1000) / calls);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(rounds / 2)]!;
}

describe("pricing speed (printed, not asserted)", () => {
  it("prices a 250-line cart under 20 automatic discounts, 200 codes (5 entered), 3 zones and exclusive tax", async () => {
    const doc = benchRulesDocument();
    const parseStart = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 0));
    const parsed = parseRules(doc, "USD");
    await new Promise((resolve) => setTimeout(resolve, 0));
    const parseMs = performance.now() - parseStart;
    expect(parsed.ok).toBe(true);
    const rules = (parsed as { rules: Rules }).rules;
    const input = (lines: PricingLine[], withRules = true): PricingInput => ({
      currency: "USD",
      lines,
      rules: withRules ? rules : null,
      buyer: withRules ? { country: "US", region: "CA" } : null,
      discount_codes: withRules ? ["CODE4", "code8", " CODE12 ", "NOPE", "CODE14"] : [],
      now: NOW,
    });
    const full = input(cartLines(250));
    const cost = priceCart(full);
    // The scenario prices something real: discounts of several kinds, shipping, tax.
    expect(cost.discounts.length).toBeGreaterThan(3);
    expect(cost.shipping).not.toBeNull();
    expect(cost.tax).toBeGreaterThan(0);
    expect(cost.total).toBe(cost.subtotal - cost.discount_total + cost.shipping! + cost.tax!);

    // Warm first, as a Worker's isolate is after a few hundred carts: the figures are steady-state ones.
    const one = input(cartLines(1));
    for (let i = 0; i < 3000; i += 1) priceCart(one);
    for (let i = 0; i < 40; i += 1) priceCart(full);
    const big = await timePerCall(() => priceCart(full), 20);
    const bare = await timePerCall(() => priceCart(input(cartLines(250), false)), 20);
    const twenty = input(cartLines(20));
    const hot = await timePerCall(() => priceCart(twenty), 100);
    const small = await timePerCall(() => priceCart(one), 500);
    const smallBare = await timePerCall(() => priceCart(input(cartLines(1), false)), 500);
    const warmParse = await timePerCall(() => parseRules(doc, "USD"), 5, 3);
    console.log(
      `[cost] pricing-speed lines250_us=${big.toFixed(0)} lines250_no_rules_us=${bare.toFixed(0)} ` +
        `lines20_us=${hot.toFixed(0)} lines1_us=${small.toFixed(1)} lines1_no_rules_us=${smallBare.toFixed(1)} ` +
        `parse_first_ms=${parseMs.toFixed(1)} parse_warm_ms=${(warmParse / 1000).toFixed(1)} discounts_applied=${cost.discounts.length}`,
    );
  }, 60_000);
});
