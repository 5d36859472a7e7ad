import { type Currency, sourceAmountIssue, toMinor } from "../money.ts";
import { decimalRatio, percentRatio, type Ratio } from "../money-math.ts";
import { codeKey } from "./codes.ts";
import type {
  Discount,
  DiscountClass,
  DiscountDocument,
  DiscountKind,
  ParsedRules,
  RulesDocument,
  RulesIssue,
  ShippingZone,
  Target,
  Tax,
} from "./schema.ts";

/** Most automatic discounts a document may hold: each is evaluated on every cart (Shopify allows 25 active). */
export const MAX_AUTOMATIC_DISCOUNTS = 25;

type Path = (string | number)[];

/** The fields only some kinds take, and which. */
const KIND_FIELDS = {
  value: ["percentage", "fixed_amount"],
  per_item: ["fixed_amount"],
  applies_to: ["percentage", "fixed_amount"],
  buy: ["buy_x_get_y"],
  get: ["buy_x_get_y"],
  max_uses_per_order: ["buy_x_get_y"],
} as const satisfies Partial<Record<keyof DiscountDocument, readonly DiscountKind[]>>;

/** Why a field a kind does not take is refused, where a plain "not used" would not say what to do. */
const MISPLACED: Partial<Record<`${DiscountKind}.${keyof typeof KIND_FIELDS}`, string>> = {
  "free_shipping.applies_to": "a free_shipping discount takes the shipping off, not lines: remove applies_to",
  "free_shipping.value": "a free_shipping discount takes the selected rate's whole price: remove value",
  "buy_x_get_y.applies_to": "a buy_x_get_y discount names its lines in buy.applies_to and get.applies_to",
  "buy_x_get_y.value": "a buy_x_get_y discount takes get.percentage (default 100, free), not value",
};

const REQUIRED: Partial<Record<DiscountKind, readonly (keyof DiscountDocument)[]>> = {
  percentage: ["value"],
  fixed_amount: ["value"],
  buy_x_get_y: ["buy", "get"],
};

const PERCENT_MESSAGE = 'a percentage above 0 and at most 100, such as "10" or "12.5"';

/**
 * The rules a document's shape cannot say (an amount in the catalog's currency, a field the kind
 * does not take, unique ids and codes, one zone per country), then the compiled rules. Every
 * mistake is collected, each with its path, so one publish attempt shows them all.
 */
export function checkRules(doc: RulesDocument, currency: Currency): ParsedRules {
  const issues: RulesIssue[] = [];
  const add = (path: Path, message: string) => void issues.push({ path, message });

  const amount = (text: string | undefined, path: Path, positive = false): number | null => {
    if (text === undefined) return null;
    const issue = sourceAmountIssue(text, currency);
    if (issue) {
      add(path, issue);
      return null;
    }
    const minor = toMinor(text, currency);
    if (positive && minor === 0) add(path, "an amount above 0");
    return minor;
  };
  const percent = (text: string | undefined, path: Path): Ratio => {
    const ratio = percentRatio(text ?? "100");
    if (ratio.num === 0 || ratio.num > ratio.den) add(path, PERCENT_MESSAGE);
    return ratio;
  };
  const target = (t: RulesDocumentTarget | undefined, path: Path, whole: string): Target | null => {
    if (t === undefined) return null;
    const compiled = {
      products: [...new Set(t.products ?? [])],
      collections: [...new Set(t.collections ?? [])],
      variants: [...new Set(t.variants ?? [])],
    };
    if (compiled.products.length + compiled.collections.length + compiled.variants.length === 0)
      add(path, `name at least one product, collection or variant (leave applies_to out for ${whole})`);
    return compiled;
  };

  const discounts: Discount[] = [];
  const ids = new Map<string, number>();
  const codes = new Map<string, number>();
  let automatic = 0;
  const hasZones = (doc.shipping?.zones?.length ?? 0) > 0;
  (doc.discounts ?? []).forEach((d, i) => {
    const at = (...path: Path): Path => ["discounts", i, ...path];
    const before = issues.length;
    const twin = ids.get(d.id);
    if (twin !== undefined) add(at("id"), `"${d.id}" is already the id of discounts[${twin}]`);
    else ids.set(d.id, i);
    if (d.code !== undefined) {
      const key = codeKey(d.code);
      const same = codes.get(key);
      if (same !== undefined)
        add(at("code"), `"${d.code}" is already the code of discounts[${same}] (codes ignore case)`);
      else codes.set(key, i);
    } else if (++automatic > MAX_AUTOMATIC_DISCOUNTS)
      add(at(), `at most ${MAX_AUTOMATIC_DISCOUNTS} automatic discounts (without a code): give this one a code`);
    for (const [field, kinds] of Object.entries(KIND_FIELDS) as [keyof typeof KIND_FIELDS, readonly DiscountKind[]][]) {
      if (d[field] !== undefined && !kinds.includes(d.kind))
        add(
          at(field),
          MISPLACED[`${d.kind}.${field}`] ?? `not used by a ${d.kind} discount (only ${kinds.join(", ")})`,
        );
    }
    for (const field of REQUIRED[d.kind] ?? [])
      if (d[field] === undefined) add(at(field), `required for a ${d.kind} discount`);
    if (d.kind === "free_shipping" && !hasZones)
      add(at("kind"), "a free_shipping discount needs shipping.zones (a rate to take off)");
    const startsAt = d.starts_at === undefined ? null : Date.parse(d.starts_at);
    const endsAt = d.ends_at === undefined ? null : Date.parse(d.ends_at);
    if (startsAt !== null && endsAt !== null && endsAt <= startsAt) add(at("ends_at"), "a time after starts_at");
    const common = {
      index: i,
      id: d.id,
      title: d.title,
      code: d.code ?? null,
      combines_with: [...new Set(d.combines_with ?? [])],
      minimum_subtotal: amount(d.minimum_subtotal, at("minimum_subtotal")),
      minimum_quantity: d.minimum_quantity ?? null,
      starts_at: startsAt,
      ends_at: endsAt,
      usage_limit: d.usage_limit ?? null,
      once_per_buyer: d.once_per_buyer ?? false,
    };
    const compiled = compileKind(d, common, { amount, percent, target, at });
    if (issues.length === before && compiled) discounts.push(compiled);
  });

  const zones = checkZones(doc, add, amount);
  const tax = checkTax(doc, add);
  if (issues.length > 0) return { ok: false, issues };
  return { ok: true, rules: { currency, discounts, zones, tax } };
}

type RulesDocumentTarget = NonNullable<DiscountDocument["applies_to"]>;
interface Helpers {
  amount: (text: string | undefined, path: Path, positive?: boolean) => number | null;
  percent: (text: string | undefined, path: Path) => Ratio;
  target: (t: RulesDocumentTarget | undefined, path: Path, whole: string) => Target | null;
  at: (...path: Path) => Path;
}
type Common = Omit<Discount, "kind" | "class" | "applies_to">;

/** A discount of its kind, with its class (contract 10.1): null when a required field is missing (already reported). */
function compileKind(d: DiscountDocument, common: Common, h: Helpers): Discount | null {
  const classOf = (appliesTo: Target | null): DiscountClass => (appliesTo ? "product" : "order");
  switch (d.kind) {
    case "percentage": {
      const applies_to = h.target(d.applies_to, h.at("applies_to"), "the whole order");
      if (d.value === undefined) return null;
      const percent = h.percent(d.value, h.at("value"));
      return { ...common, kind: "percentage", class: classOf(applies_to), applies_to, percent };
    }
    case "fixed_amount": {
      const applies_to = h.target(d.applies_to, h.at("applies_to"), "the whole order");
      const amount = h.amount(d.value, h.at("value"), true);
      if (amount === null) return null;
      return {
        ...common,
        kind: "fixed_amount",
        class: classOf(applies_to),
        applies_to,
        amount,
        per_item: d.per_item ?? false,
      };
    }
    case "free_shipping":
      return { ...common, kind: "free_shipping", class: "shipping", applies_to: null };
    case "buy_x_get_y": {
      if (!d.buy || !d.get) return null;
      return {
        ...common,
        kind: "buy_x_get_y",
        class: "product",
        applies_to: null,
        buy: {
          quantity: d.buy.quantity,
          applies_to: h.target(d.buy.applies_to, h.at("buy", "applies_to"), "any line"),
        },
        get: {
          quantity: d.get.quantity,
          applies_to: h.target(d.get.applies_to, h.at("get", "applies_to"), "any line"),
          percent: h.percent(d.get.percentage, h.at("get", "percentage")),
        },
        max_uses_per_order: d.max_uses_per_order ?? null,
      };
    }
  }
}

function checkZones(
  doc: RulesDocument,
  add: (path: Path, message: string) => void,
  amount: Helpers["amount"],
): ShippingZone[] {
  const countries = new Map<string, number>();
  const rateIds = new Map<string, string>();
  let index = 0;
  return (doc.shipping?.zones ?? []).map((zone, z) => {
    const at = (...path: Path): Path => ["shipping", "zones", z, ...path];
    zone.countries.forEach((country, c) => {
      const other = countries.get(country);
      if (other !== undefined)
        add(at("countries", c), `${country} is already in shipping.zones[${other}]: a country belongs to one zone`);
      else countries.set(country, z);
    });
    const rates = zone.rates.map((rate, r) => {
      const where = `shipping.zones[${z}].rates[${r}]`;
      const twin = rateIds.get(rate.id);
      if (twin !== undefined) add(at("rates", r, "id"), `"${rate.id}" is already the id of ${twin}`);
      else rateIds.set(rate.id, where);
      const bounds = {
        min_subtotal: amount(rate.min_subtotal, at("rates", r, "min_subtotal")),
        max_subtotal: amount(rate.max_subtotal, at("rates", r, "max_subtotal")),
        min_weight_grams: rate.min_weight_grams ?? null,
        max_weight_grams: rate.max_weight_grams ?? null,
      };
      for (const what of ["subtotal", "weight_grams"] as const) {
        const low = bounds[`min_${what}`];
        const high = bounds[`max_${what}`];
        if (low !== null && high !== null && high < low) add(at("rates", r, `max_${what}`), `at least min_${what}`);
      }
      const price = amount(rate.price, at("rates", r, "price")) ?? 0;
      return { index: index++, id: rate.id, title: rate.title, price, ...bounds };
    });
    return { name: zone.name, countries: [...new Set(zone.countries)], rates };
  });
}

function checkTax(doc: RulesDocument, add: (path: Path, message: string) => void): Tax | null {
  if (!doc.tax) return null;
  const seen = new Map<string, number>();
  const rates = (doc.tax.rates ?? []).map((rate, r) => {
    const place = rate.region === undefined ? rate.country : `${rate.country}-${rate.region}`;
    const twin = seen.get(place);
    if (twin !== undefined) add(["tax", "rates", r], `a rate for ${place} is already tax.rates[${twin}]`);
    else seen.set(place, r);
    return { country: rate.country, region: rate.region ?? null, rate: decimalRatio(rate.rate), name: rate.name };
  });
  return { mode: doc.tax.mode, rates, shipping_taxable: doc.tax.shipping_taxable ?? false };
}
