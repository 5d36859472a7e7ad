import fc from "fast-check";
import type { PricingLine } from "../../src/discounts/types.ts";
import { fromMinor, MAX_UNIT_MINOR } from "../../src/money.ts";
import type { Buyer } from "../../src/pricing/index.ts";
import type { Rules } from "../../src/rules/schema.ts";
import { parseRules } from "../../src/rules/parse.ts";

/**
 * Random carts and rules for the pricing properties, in JPY, USD and KWD (0, 2 and 3 minor
 * digits). Small pools of variants, handles, collections and countries, so discounts find
 * their lines, lines tie on price and variant, and destinations find zones.
 */
export const CURRENCIES = ["JPY", "USD", "KWD"] as const;
const VARIANTS = ["7", "30", "4", "200", "1001", "99"];
const ATTRIBUTES = ["{}", '{"Engraving":"A"}', '{"Engraving":"B"}'];
const HANDLES = ["tee", "hoodie", "mug", "cap"];
const COLLECTIONS = ["tees", "sale", "gifts"];
const COUNTRIES = ["US", "CA", "GB", "FR", "JP"];
const CLASSES = ["order", "product", "shipping"] as const;

/** A price in minor units: mostly small and often equal (ties), sometimes the catalog's highest. */
const minorPrice = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 20_000 }) },
  { weight: 2, arbitrary: fc.constantFrom(100, 500, 999, 1000, 1999) },
  // A few minor units, where every rounding is a large part of the amount.
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 3 }) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: MAX_UNIT_MINOR }) },
);
const quantity = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 1, max: 5 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 999 }) },
);

const lineShape = fc.record({
  variant: fc.constantFrom(...VARIANTS),
  attributes: fc.constantFrom(...ATTRIBUTES),
  handle: fc.constantFrom(...HANDLES),
  collections: fc.subarray(COLLECTIONS),
  quantity,
  unit_price: minorPrice,
  requires_shipping: fc.boolean(),
  weight_grams: fc.option(fc.integer({ min: 0, max: 5000 }), { nil: null }),
});

/** A cart's lines: at most one per variant and attributes, as a cart holds them. */
export function linesArb(maxLength: number): fc.Arbitrary<PricingLine[]> {
  return fc.uniqueArray(lineShape, { maxLength, selector: (l) => `${l.variant}|${l.attributes}` }).map((shapes) =>
    shapes.map((s, i) => ({
      id: `cl_${i}_${s.variant}`,
      variant_id: s.variant,
      attributes: s.attributes,
      handle: s.handle,
      collections: s.collections,
      quantity: s.quantity,
      unit_price: s.unit_price,
      requires_shipping: s.requires_shipping,
      weight_grams: s.weight_grams,
    })),
  );
}

const amount = (currency: string, max = 30_000) =>
  fc.integer({ min: 0, max }).map((m) => fromMinor(m, currency).amount);
const positiveAmount = (currency: string) =>
  fc.integer({ min: 1, max: 30_000 }).map((m) => fromMinor(m, currency).amount);
const percent = fc.oneof(
  fc.constantFrom("10", "12.5", "15", "20", "33.3333", "50", "100", "0.5"),
  fc.integer({ min: 1, max: 10_000 }).map((n) => (n / 100).toFixed(2)),
);
const target = fc
  .record(
    {
      products: fc.subarray(HANDLES, { minLength: 1 }),
      collections: fc.subarray(COLLECTIONS, { minLength: 1 }),
      variants: fc.subarray(VARIANTS, { minLength: 1 }),
    },
    { requiredKeys: [] },
  )
  .filter((t) => Object.keys(t).length > 0);

/** Dates around NOW (2026-12-15 12:00): started, starting later, ended, ending later, and both bounds exactly now (inclusive). */
const window = fc.oneof(
  { weight: 3, arbitrary: fc.constant({}) },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      { starts_at: "2026-12-01T00:00:00Z" },
      { starts_at: "2026-12-20T00:00:00Z" },
      { ends_at: "2026-12-10T00:00:00Z" },
      { starts_at: "2026-12-01T00:00:00Z", ends_at: "2026-12-31T23:59:59Z" },
      { starts_at: "2026-12-15T12:00:00Z", ends_at: "2026-12-15T12:00:00.001Z" },
      { starts_at: "2026-12-01T00:00:00Z", ends_at: "2026-12-15T12:00:00Z" },
    ),
  },
);

function discountArb(currency: string, zones: boolean) {
  const kinds = zones
    ? (["percentage", "fixed_amount", "free_shipping", "buy_x_get_y"] as const)
    : (["percentage", "fixed_amount", "buy_x_get_y"] as const);
  const common = fc.record(
    {
      code: fc.constant(true),
      minimum_subtotal: amount(currency, 20_000),
      minimum_quantity: fc.integer({ min: 1, max: 6 }),
      usage_limit: fc.integer({ min: 1, max: 10 }),
      once_per_buyer: fc.boolean(),
      combines_with: fc.subarray([...CLASSES]),
    },
    { requiredKeys: [] },
  );
  const kind = fc.constantFrom(...kinds).chain((k): fc.Arbitrary<Record<string, unknown>> => {
    switch (k) {
      case "percentage":
        return fc.record({ kind: fc.constant(k), value: percent, applies_to: fc.option(target, { nil: undefined }) });
      case "fixed_amount":
        return fc.record({
          kind: fc.constant(k),
          value: positiveAmount(currency),
          per_item: fc.boolean(),
          applies_to: fc.option(target, { nil: undefined }),
        });
      case "free_shipping":
        return fc.record({ kind: fc.constant(k) });
      case "buy_x_get_y":
        return fc.record({
          kind: fc.constant(k),
          buy: fc.record({
            quantity: fc.integer({ min: 1, max: 3 }),
            applies_to: fc.option(target, { nil: undefined }),
          }),
          get: fc.record({
            quantity: fc.integer({ min: 1, max: 2 }),
            applies_to: fc.option(target, { nil: undefined }),
            percentage: fc.option(percent, { nil: undefined }),
          }),
          max_uses_per_order: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
        });
    }
  });
  return fc.tuple(common, kind, window);
}

function zonesArb(currency: string) {
  const rate = fc.record(
    {
      price: amount(currency, 3000),
      min_subtotal: amount(currency, 10_000),
      max_weight_grams: fc.integer({ min: 0, max: 8000 }),
    },
    { requiredKeys: ["price"] },
  );
  return fc
    .uniqueArray(fc.subarray(COUNTRIES, { minLength: 1, maxLength: 2 }), {
      maxLength: 3,
      selector: (c) => c[0],
    })
    .chain((groups) => {
      // A country belongs to one zone: drop those an earlier zone took.
      const seen = new Set<string>();
      const countries = groups
        .map((g) => g.filter((c) => !seen.has(c) && (seen.add(c), true)))
        .filter((g) => g.length > 0);
      return fc.tuple(
        ...countries.map((c) => fc.tuple(fc.constant(c), fc.array(rate, { minLength: 1, maxLength: 3 }))),
      );
    });
}

const taxArb = fc.record(
  {
    mode: fc.constantFrom("exclusive", "inclusive", "none", "stripe"),
    shipping_taxable: fc.boolean(),
    rates: fc.uniqueArray(
      fc.record(
        {
          country: fc.constantFrom(...COUNTRIES),
          region: fc.constantFrom("CA", "ON"),
          name: fc.constant("Tax"),
          rate: fc.oneof(
            fc.constantFrom("0.2", "0.0725", "0.1", "0.19", "0", "0.08875"),
            fc.integer({ min: 0, max: 999_999 }).map((n) => `0.${String(n).padStart(6, "0")}`),
          ),
        },
        { requiredKeys: ["country", "rate", "name"] },
      ),
      { maxLength: 4, selector: (r) => `${r.country}-${r.region ?? ""}` },
    ),
  },
  { requiredKeys: ["mode"] },
);

/** A valid rules document in `currency`: every kind, conditions, combines_with, zones, every tax mode. */
export function rulesDocArb(currency: string) {
  return zonesArb(currency).chain((zones) =>
    fc
      .record(
        {
          discounts: fc.array(discountArb(currency, zones.length > 0), { maxLength: 7 }),
          tax: fc.option(taxArb, { nil: undefined }),
        },
        { requiredKeys: ["discounts"] },
      )
      .map(({ discounts, tax }) => ({
        discounts: discounts.map(([common, kind, dates], i) => ({
          id: `d${i}`,
          title: `Discount ${i}`,
          ...(common.code ? { code: `CODE${i}` } : {}),
          ...kind,
          ...Object.fromEntries(Object.entries(common).filter(([key]) => key !== "code")),
          ...dates,
        })),
        ...(zones.length > 0
          ? {
              shipping: {
                zones: zones.map(([countries, rates], z) => ({
                  name: `Zone ${z}`,
                  countries,
                  rates: rates.map((r, k) => ({ id: `z${z}r${k}`, title: `Rate ${k}`, ...r })),
                })),
              },
            }
          : {}),
        ...(tax ? { tax } : {}),
      })),
  );
}

/** Parses a generated document; a generator that makes an invalid one is a broken test, said loudly. */
export function mustParse(doc: unknown, currency: string): Rules {
  const parsed = parseRules(doc, currency);
  if (!parsed.ok) throw new Error(`generated rules refused: ${JSON.stringify(parsed.issues)}`);
  return parsed.rules;
}

export const buyerArb: fc.Arbitrary<Buyer | null> = fc.option(
  fc.record(
    { country: fc.constantFrom(...COUNTRIES), region: fc.constantFrom("CA", "ON", "QC") },
    { requiredKeys: ["country"] },
  ),
  { nil: null },
);

type RulesDoc = ReturnType<typeof rulesDocArb> extends fc.Arbitrary<infer D> ? D : never;

/** A cart under a rules document: its lines, destination, entered codes, selected rate and usage. */
function cartArb(doc: RulesDoc, maxLines: number) {
  const ids = doc.discounts.map((d) => d.id);
  const codes = doc.discounts.flatMap((d) => ("code" in d ? [d.code as string] : []));
  // As shoppers type them: another case, spaces around, or a code the rules do not have.
  const typed = fc.constantFrom(...codes.map((c) => c.toLowerCase()), ...codes.map((c) => `  ${c} `), "NOPE");
  return fc.record({
    lines: linesArb(maxLines),
    buyer: buyerArb,
    codes: fc.uniqueArray(codes.length > 0 ? fc.oneof(fc.constantFrom(...codes), typed) : fc.constantFrom("NOPE"), {
      maxLength: 5,
      selector: (c) => c.trim().toUpperCase(),
    }),
    shipping_option: fc.option(fc.constantFrom("z0r0", "z0r1", "z1r0", "gone"), { nil: null }),
    exhausted: fc.subarray(ids, { maxLength: Math.min(1, ids.length) }),
    used: fc.subarray(ids, { maxLength: Math.min(2, ids.length) }),
  });
}

/** A store (a currency and a rules document) and `carts` carts priced under it: documents cost more to make than carts. */
export function storeArb(maxLines: number, carts: number) {
  return fc.constantFrom(...CURRENCIES).chain((currency) =>
    rulesDocArb(currency).chain((doc) =>
      fc.record({
        currency: fc.constant(currency),
        doc: fc.constant(doc),
        carts: fc.array(cartArb(doc, maxLines), { minLength: carts, maxLength: carts }),
      }),
    ),
  );
}

/** Everything one cart's cost depends on, in one currency. */
export function scenarioArb(maxLines: number) {
  return storeArb(maxLines, 1).map(({ currency, doc, carts }) => ({ currency, doc, ...carts[0]! }));
}
