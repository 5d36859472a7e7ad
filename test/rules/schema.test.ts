import { describe, expect, it } from "vitest";
import { codeKey, issueParam, issueWhere, type Rules } from "../../src/rules/schema.ts";
import { parseRules } from "../../src/rules/parse.ts";
import { CONTRACT_EXAMPLE } from "./example.ts";

type Json = Record<string, unknown>;
const clone = (): Json => structuredClone(CONTRACT_EXAMPLE) as Json;

function rulesOf(doc: unknown, currency = "USD"): Rules {
  const parsed = parseRules(doc, currency);
  if (!parsed.ok) throw new Error(parsed.issues.map((i) => `${issueWhere(i.path)}: ${i.message}`).join("\n"));
  return parsed.rules;
}

/** Each issue as the CLI prints it. */
function issuesOf(doc: unknown, currency = "USD"): string[] {
  const parsed = parseRules(doc, currency);
  if (parsed.ok) return [];
  return parsed.issues.map((i) => `${issueWhere(i.path)}: ${i.message}`);
}

/** The example with one change made by `edit` to a copy. */
function edited(edit: (doc: Json & { discounts: Json[]; shipping: { zones: Json[] }; tax: Json }) => void): Json {
  const doc = clone();
  edit(doc as Parameters<typeof edit>[0]);
  return doc;
}

describe("the rules document (contract 10.1)", () => {
  it("compiles the contract's example: amounts in minor units, rates as exact ratios, classes by kind and target", () => {
    const rules = rulesOf(CONTRACT_EXAMPLE);
    expect(rules.discounts.map((d) => [d.id, d.kind, d.class, d.code])).toEqual([
      ["summer10", "percentage", "product", "SUMMER10"],
      ["five-off", "fixed_amount", "order", "FIVE"],
      ["ship-free", "free_shipping", "shipping", null],
      ["b2g1", "buy_x_get_y", "product", null],
    ]);
    const [summer, five, , b2g1] = rules.discounts;
    expect(summer).toMatchObject({
      percent: { num: 10, den: 100 },
      minimum_subtotal: 5000,
      minimum_quantity: 2,
      starts_at: Date.UTC(2026, 11, 1),
      ends_at: Date.UTC(2026, 11, 31, 23, 59, 59),
      usage_limit: 100,
      combines_with: ["shipping"],
    });
    expect(five).toMatchObject({ amount: 500, per_item: false, applies_to: null });
    expect(b2g1).toMatchObject({
      buy: { quantity: 2, applies_to: { collections: ["tees"], products: [], variants: [] } },
      get: { quantity: 1, percent: { num: 100, den: 100 } },
      max_uses_per_order: 1,
    });
    expect(rules.zones[0]!.rates.map((r) => [r.id, r.price, r.min_subtotal])).toEqual([
      ["standard", 500, null],
      ["express", 1500, 2000],
    ]);
    expect(rules.tax).toEqual({
      mode: "exclusive",
      shipping_taxable: false,
      rates: [{ country: "US", region: "CA", rate: { num: 725, den: 10000 }, name: "Sales tax" }],
    });
  });

  it("reads {} as a document with nothing in it: no discounts, no zones, no tax", () => {
    expect(rulesOf({})).toEqual({ currency: "USD", discounts: [], zones: [], tax: null });
    expect(rulesOf({ discounts: [], shipping: {}, tax: undefined })).toEqual(rulesOf({}));
  });

  it("reads amounts in the catalog's currency: whole yen, three-decimal dinars", () => {
    const jpy = edited((doc) => {
      doc.discounts[1]!.value = "500";
      doc.discounts[0]!.minimum_subtotal = "5000";
      doc.discounts[2]!.minimum_subtotal = "10000";
      doc.shipping.zones[0] = {
        name: "Japan",
        countries: ["JP"],
        rates: [{ id: "std", title: "Standard", price: "800" }],
      };
    });
    expect(rulesOf(jpy, "JPY").discounts[1]).toMatchObject({ amount: 500 });
    expect(issuesOf(CONTRACT_EXAMPLE, "JPY")).toContain("discounts[1].value: a whole number (JPY has no minor units)");
    const kwd = edited((doc) => {
      doc.discounts[1]!.value = "2.500";
    });
    expect(rulesOf(kwd, "KWD").discounts[1]).toMatchObject({ amount: 2500 });
    expect(rulesOf(kwd, "KWD").zones[0]!.rates[0]!.price).toBe(5000);
  });

  it("names each path twice: discounts[2].value for the CLI, discounts.2.value for the API's param", () => {
    const doc = edited((d) => {
      d.discounts[0]!.value = "0";
    });
    const parsed = parseRules(doc, "USD");
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.issues.map((i) => [issueWhere(i.path), issueParam(i.path)])).toEqual([
      ["discounts[0].value", "discounts.0.value"],
    ]);
    expect(issueWhere([])).toBe("(document)");
  });

  it("refuses an unknown key at every level, naming it by its path", () => {
    const doc = edited((d) => {
      d.extra = 1;
      d.discounts[0]!.colour = "red";
      (d.discounts[0]!.applies_to as Json).tags = ["x"];
      (d.discounts[3]!.buy as Json).price = "1";
      (d.discounts[3]!.get as Json).max = 1;
      (d.shipping as Json).default = "US";
      d.shipping.zones[0]!.currency = "USD";
      ((d.shipping.zones[0]!.rates as Json[])[0] as Json).eta = "2d";
      d.tax.inclusive = true;
      ((d.tax.rates as Json[])[0] as Json).compound = false;
    });
    expect(issuesOf(doc).sort()).toEqual(
      [
        "extra: unknown field",
        "discounts[0].colour: unknown field",
        "discounts[0].applies_to.tags: unknown field",
        "discounts[3].buy.price: unknown field",
        "discounts[3].get.max: unknown field",
        "shipping.default: unknown field",
        "shipping.zones[0].currency: unknown field",
        "shipping.zones[0].rates[0].eta: unknown field",
        "tax.inclusive: unknown field",
        "tax.rates[0].compound: unknown field",
      ].sort(),
    );
  });

  it("refuses __proto__ and constructor as keys, as JSON.parse makes them (never a prototype)", () => {
    const doc = JSON.parse(
      '{"__proto__": {"x": 1}, "discounts": [{"constructor": 1, "id": "a", "title": "A", "kind": "percentage", "value": "5"}]}',
    );
    expect(issuesOf(doc).sort()).toEqual(["__proto__: unknown field", "discounts[0].constructor: unknown field"]);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it("says a required field is required, and what a wrong one must be", () => {
    expect(issuesOf({ discounts: [{ kind: "percentage", value: "10" }] })).toEqual([
      "discounts[0].id: required",
      "discounts[0].title: required",
    ]);
    expect(issuesOf({ tax: {} })).toEqual(["tax.mode: required"]);
    expect(issuesOf([])).toEqual(["(document): a JSON object"]);
    expect(issuesOf({ discounts: {} })).toEqual(["discounts: a list of discounts"]);
    expect(
      issuesOf({ discounts: [{ id: "a b", title: "", kind: "half_off", minimum_quantity: 0, starts_at: "tomorrow" }] }),
    ).toEqual([
      "discounts[0].id: an id of 1 to 64 letters, digits, '.', '_' or '-'",
      "discounts[0].title: text of 1 to 255 characters",
      "discounts[0].kind: one of percentage, fixed_amount, free_shipping, buy_x_get_y",
      "discounts[0].minimum_quantity: an integer of at least 1 units",
      'discounts[0].starts_at: an ISO 8601 time with its offset, such as "2026-12-01T00:00:00Z"',
    ]);
  });

  // Each row: a change to the contract's example that makes it nonsense, and the one issue it must give.
  const NONSENSE: [string, (d: Parameters<Parameters<typeof edited>[0]>[0]) => void, string][] = [
    ["a percentage of 0", (d) => void (d.discounts[0]!.value = "0"), "discounts[0].value: a percentage above 0"],
    [
      "a percentage over 100",
      (d) => void (d.discounts[0]!.value = "100.01"),
      "discounts[0].value: a percentage above 0",
    ],
    ["a fixed amount of 0", (d) => void (d.discounts[1]!.value = "0.00"), "discounts[1].value: an amount above 0"],
    [
      "an amount with too many decimals",
      (d) => void (d.discounts[1]!.value = "5.001"),
      "discounts[1].value: a decimal string with at most two decimals",
    ],
    [
      "an amount above the catalog's cap",
      (d) => void (d.discounts[1]!.value = "99999999.00"),
      "discounts[1].value: at most 9999999.99",
    ],
    [
      "a percentage without value",
      (d) => void delete d.discounts[0]!.value,
      "discounts[0].value: required for a percentage",
    ],
    [
      "a buy_x_get_y without get",
      (d) => void delete d.discounts[3]!.get,
      "discounts[3].get: required for a buy_x_get_y",
    ],
    [
      "a buy_x_get_y without buy",
      (d) => void delete d.discounts[3]!.buy,
      "discounts[3].buy: required for a buy_x_get_y",
    ],
    [
      "a buy_x_get_y with value",
      (d) => void (d.discounts[3]!.value = "10"),
      "discounts[3].value: a buy_x_get_y discount takes get.percentage",
    ],
    [
      "a buy_x_get_y with applies_to",
      (d) => void (d.discounts[3]!.applies_to = { collections: ["tees"] }),
      "discounts[3].applies_to: a buy_x_get_y discount names its lines in buy.applies_to",
    ],
    [
      "a get percentage of 0",
      (d) => void ((d.discounts[3]!.get as Json).percentage = "0"),
      "discounts[3].get.percentage: a percentage above 0",
    ],
    [
      "a free_shipping with applies_to",
      (d) => void (d.discounts[2]!.applies_to = { products: ["tee"] }),
      "discounts[2].applies_to: a free_shipping discount takes the shipping off, not lines",
    ],
    [
      "a free_shipping with value",
      (d) => void (d.discounts[2]!.value = "5.00"),
      "discounts[2].value: a free_shipping discount takes the selected rate's whole price",
    ],
    [
      "a free_shipping with no zone to take a rate from",
      (d) => void (d.shipping.zones = []),
      "discounts[2].kind: a free_shipping discount needs shipping.zones",
    ],
    [
      "per_item on a percentage",
      (d) => void (d.discounts[0]!.per_item = true),
      "discounts[0].per_item: not used by a percentage discount (only fixed_amount)",
    ],
    [
      "max_uses_per_order on a fixed amount",
      (d) => void (d.discounts[1]!.max_uses_per_order = 2),
      "discounts[1].max_uses_per_order: not used by a fixed_amount discount (only buy_x_get_y)",
    ],
    [
      "an applies_to naming nothing",
      (d) => void (d.discounts[0]!.applies_to = { products: [] }),
      "discounts[0].applies_to: name at least one product, collection or variant (leave applies_to out for the whole order)",
    ],
    [
      "a buy set naming nothing",
      (d) => void ((d.discounts[3]!.buy as Json).applies_to = {}),
      "discounts[3].buy.applies_to: name at least one product, collection or variant (leave applies_to out for any line)",
    ],
    [
      "a target that is not a handle",
      (d) => void (d.discounts[0]!.applies_to = { products: ["Black Tee"] }),
      "discounts[0].applies_to.products[0]: a handle: lower case words joined by hyphens",
    ],
    [
      "an id used twice",
      (d) => void (d.discounts[1]!.id = "summer10"),
      'discounts[1].id: "summer10" is already the id of discounts[0]',
    ],
    [
      "a code used twice in another case",
      (d) => void (d.discounts[1]!.code = "summer10"),
      'discounts[1].code: "summer10" is already the code of discounts[0] (codes ignore case)',
    ],
    [
      "a code with spaces around it (a shopper's code is trimmed, so it could never match)",
      (d) => void (d.discounts[1]!.code = " FIVE"),
      "discounts[1].code: a code of 1 to 64 characters, without spaces around it",
    ],
    [
      "an end before the start",
      (d) => void (d.discounts[0]!.ends_at = "2026-11-30T00:00:00Z"),
      "discounts[0].ends_at: a time after starts_at",
    ],
    [
      "a combines_with class that does not exist",
      (d) => void (d.discounts[0]!.combines_with = ["shipping", "gift_card"]),
      "discounts[0].combines_with[1]: one of order, product, shipping",
    ],
    [
      "a country in two zones",
      (d) =>
        void d.shipping.zones.push({
          name: "Also US",
          countries: ["CA", "US"],
          rates: [{ id: "x", title: "X", price: "1" }],
        }),
      "shipping.zones[1].countries[1]: US is already in shipping.zones[0]: a country belongs to one zone",
    ],
    [
      "a rate id used twice",
      (d) => void (((d.shipping.zones[0]!.rates as Json[])[1] as Json).id = "standard"),
      'shipping.zones[0].rates[1].id: "standard" is already the id of shipping.zones[0].rates[0]',
    ],
    [
      "a zone without rates",
      (d) => void (d.shipping.zones[0]!.rates = []),
      "shipping.zones[0].rates: at least one rate",
    ],
    [
      "a country that is not ISO 3166-1 (Britain is GB)",
      (d) => void (d.shipping.zones[0]!.countries = ["UK"]),
      "shipping.zones[0].countries[0]: an ISO 3166-1 alpha-2 country code",
    ],
    [
      "a max_subtotal under min_subtotal",
      (d) => void (((d.shipping.zones[0]!.rates as Json[])[1] as Json).max_subtotal = "10.00"),
      "shipping.zones[0].rates[1].max_subtotal: at least min_subtotal",
    ],
    [
      "a max weight under min weight",
      (d) =>
        void Object.assign((d.shipping.zones[0]!.rates as Json[])[0]!, {
          min_weight_grams: 500,
          max_weight_grams: 100,
        }),
      "shipping.zones[0].rates[0].max_weight_grams: at least min_weight_grams",
    ],
    [
      "a tax rate of 1 or more",
      (d) => void (((d.tax.rates as Json[])[0] as Json).rate = "1.2"),
      'tax.rates[0].rate: a decimal from 0 to below 1 such as "0.2", at most 6 decimals',
    ],
    [
      "a tax rate with 7 decimals",
      (d) => void (((d.tax.rates as Json[])[0] as Json).rate = "0.0725001"),
      "tax.rates[0].rate: a decimal from 0 to below 1",
    ],
    [
      "a region with its country prefix",
      (d) => void (((d.tax.rates as Json[])[0] as Json).region = "US-CA"),
      "tax.rates[0].region: an ISO 3166-2 subdivision code without the country",
    ],
    [
      "two rates for one place",
      (d) => void (d.tax.rates as Json[]).push({ country: "US", region: "CA", rate: "0.08", name: "Sales tax" }),
      "tax.rates[1]: a rate for US-CA is already tax.rates[0]",
    ],
    ["an unknown tax mode", (d) => void (d.tax.mode = "vat"), "tax.mode: one of exclusive, inclusive, none, stripe"],
  ];

  it.each(NONSENSE)("refuses %s, naming where", (_, edit, expected) => {
    const issues = issuesOf(edited(edit));
    expect(issues).toHaveLength(1);
    expect(issues[0]).toContain(expected);
  });

  it("gathers every mistake of a document in one answer, the shape's first", () => {
    const broken = edited((d) => {
      d.discounts[0]!.value = "0";
      d.discounts[1]!.id = "summer10";
      (d.tax.rates as Json[]).push({ country: "US", region: "CA", rate: "0.08", name: "Sales tax" });
    });
    expect(issuesOf(broken)).toEqual([
      'discounts[0].value: a percentage above 0 and at most 100, such as "10" or "12.5"',
      'discounts[1].id: "summer10" is already the id of discounts[0]',
      "tax.rates[1]: a rate for US-CA is already tax.rates[0]",
    ]);
    // A shape mistake as well: the cross-field rules are told once the shape is right.
    broken.tax = { mode: "vat" };
    expect(issuesOf(broken)).toEqual(["tax.mode: one of exclusive, inclusive, none, stripe"]);
  });

  it("takes at most 25 automatic discounts (each is evaluated on every cart), any number with codes", () => {
    const auto = (i: number) => ({ id: `a${i}`, title: "A", kind: "percentage", value: "1" });
    expect(issuesOf({ discounts: Array.from({ length: 25 }, (_, i) => auto(i)) })).toEqual([]);
    expect(issuesOf({ discounts: Array.from({ length: 26 }, (_, i) => auto(i)) })).toEqual([
      "discounts[25]: at most 25 automatic discounts (without a code): give this one a code",
    ]);
    const coded = Array.from({ length: 500 }, (_, i) => ({ ...auto(i), code: `C${i}` }));
    expect(rulesOf({ discounts: coded }).discounts).toHaveLength(500);
  });

  it("compares codes trimmed, in any case, full-width letters as their ASCII", () => {
    expect(codeKey("  summer10 ")).toBe("SUMMER10");
    expect(codeKey("ＳＵＭＭＥＲ１０")).toBe("SUMMER10");
    expect(
      issuesOf({
        discounts: [
          { id: "a", title: "A", code: "Ｘ", kind: "percentage", value: "1" },
          { id: "b", title: "B", code: "x", kind: "percentage", value: "1" },
        ],
      }),
    ).toEqual(['discounts[1].code: "x" is already the code of discounts[0] (codes ignore case)']);
  });
});
