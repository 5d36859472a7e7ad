import { type Currency, fromMinor } from "../../src/money.ts";
import type { RulesDocument } from "../../src/rules/schema.ts";
import type { BenchRequest, Workload } from "./load.ts";
import { RULES_ROWS } from "./report.ts";

/**
 * The cart add with a rules document (issue 43: 3 shipping zones and tax; issue 44: 20 automatic
 * discounts and 200 codes), judged by workerd CPU per request against the plain add of the same
 * run ("add to cart, distinct carts"): the same adds to the same existing carts, whose buyer is
 * set first (a destination in the first zone, with a tax rate), so every answer prices shipping
 * options and tax, not just a subtotal.
 */

const API = "/api/v1";

/** The destination every bench cart gets before the rules rows: the first zone, with a state rate. */
export const BENCH_BUYER = { country: "US", region: "CA", postal_code: "94107" };

/** An amount of `minor` minor units in the catalog's currency, as the document writes it. */
const amount = (minor: number, currency: Currency) => fromMinor(minor, currency).amount;

/** 3 zones (2, 2 and 1 rates, by subtotal and weight) and exclusive tax with US state and EU country rates. */
export function zonesAndTax(currency: Currency): RulesDocument {
  return {
    shipping: {
      zones: [
        {
          name: "United States",
          countries: ["US"],
          rates: [
            { id: "us-standard", title: "Standard", price: amount(500, currency) },
            { id: "us-express", title: "Express", price: amount(1500, currency), min_subtotal: amount(2000, currency) },
          ],
        },
        {
          name: "Europe",
          countries: ["DE", "FR", "IE", "NL", "ES", "IT", "BE", "AT"],
          rates: [
            { id: "eu-light", title: "Europe, up to 2 kg", price: amount(900, currency), max_weight_grams: 2000 },
            { id: "eu-heavy", title: "Europe, heavy", price: amount(2400, currency), min_weight_grams: 2001 },
          ],
        },
        {
          name: "World",
          countries: ["CA", "AU", "JP", "GB"],
          rates: [{ id: "world", title: "World", price: amount(3000, currency) }],
        },
      ],
    },
    tax: {
      mode: "exclusive",
      shipping_taxable: true,
      rates: [
        { country: "US", region: "CA", rate: "0.0725", name: "Sales tax" },
        { country: "US", region: "NY", rate: "0.04", name: "Sales tax" },
        { country: "US", region: "TX", rate: "0.0625", name: "Sales tax" },
        { country: "DE", rate: "0.19", name: "MwSt" },
        { country: "FR", rate: "0.2", name: "TVA" },
      ],
    },
  };
}

/**
 * 20 automatic discounts (percentage, fixed amount and buy-x-get-y, whole-order and targeted, most
 * with a condition the bench carts do not meet, some that apply, several combining) and 200 codes (none entered: the cart
 * evaluates its automatic discounts and indexes the codes once per rules version).
 */
export function manyDiscounts(currency: Currency): RulesDocument {
  const automatic: NonNullable<RulesDocument["discounts"]> = Array.from({ length: 20 }, (_, i) => {
    const id = `auto-${i}`;
    const combines = (["order", "product", "shipping"] as const).filter((_, k) => (i + k) % 2 === 0);
    switch (i % 4) {
      case 0:
        return {
          id,
          title: `Order ${i}% off over ${i * 10}`,
          kind: "percentage",
          value: String(1 + (i % 9)),
          minimum_subtotal: amount(1000 * i, currency),
          combines_with: combines,
        };
      case 1:
        return {
          id,
          title: `Collection offer ${i}`,
          kind: "fixed_amount",
          value: amount(100 * i, currency),
          per_item: i % 3 === 0,
          applies_to: { collections: [`collection-${i}`, "frontpage"] },
          minimum_quantity: 1 + (i % 3),
          combines_with: combines,
        };
      case 2:
        return {
          id,
          title: `Buy ${2 + (i % 2)} get 1 (${i})`,
          kind: "buy_x_get_y",
          buy: { quantity: 2 + (i % 2), applies_to: { collections: ["frontpage"] } },
          get: { quantity: 1, applies_to: { collections: ["frontpage"] }, percentage: "50" },
          max_uses_per_order: 1,
          combines_with: combines,
        };
      default:
        // No free_shipping: it needs zones, and this document measures discounts alone.
        return {
          id,
          title: `Product offer ${i}`,
          kind: "percentage",
          value: "15",
          applies_to: { products: [`product-${i}`, `product-${i + 1}`], variants: [String(44102938475600 + i)] },
          starts_at: "2020-01-01T00:00:00Z",
          combines_with: combines,
        };
    }
  });
  const codes: NonNullable<RulesDocument["discounts"]> = Array.from({ length: 200 }, (_, i) => ({
    id: `code-${i}`,
    title: `Code ${i}`,
    code: `SAVE${String(i).padStart(3, "0")}`,
    kind: i % 2 === 0 ? "percentage" : "fixed_amount",
    value: i % 2 === 0 ? String(5 + (i % 20)) : amount(200 + i * 10, currency),
    ...(i % 5 === 0 ? { minimum_subtotal: amount(5000, currency) } : {}),
    ...(i % 7 === 0 ? { ends_at: "2099-12-31T23:59:59Z" } : {}),
  }));
  return { discounts: [...automatic, ...codes] };
}

/**
 * Publishes `document` as the live rules through the operator surface (`PUT /operator/rules`):
 * `If-Match: *` over whatever is live, none before the first. Throws unless it answers 200.
 */
export async function publishRules(origin: URL, operatorSecret: string, document: RulesDocument): Promise<void> {
  const url = new URL(`${API}/operator/rules`, origin);
  const headers = { authorization: `Bearer ${operatorSecret}`, "content-type": "application/json" };
  const live = await fetch(url, { headers });
  await live.arrayBuffer();
  const res = await fetch(url, {
    method: "PUT",
    headers: { ...headers, ...(live.status === 200 ? { "if-match": "*" } : {}) },
    body: JSON.stringify(document),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`PUT ${API}/operator/rules answered ${res.status}: ${text}`);
}

/** Sets every token's cart buyer (unmeasured), `width` at a time. */
export async function setBuyers(origin: URL, tokens: readonly string[], width = 16): Promise<void> {
  for (let at = 0; at < tokens.length; at += width) {
    await Promise.all(
      tokens.slice(at, at + width).map(async (token) => {
        const res = await fetch(new URL(`${API}/cart`, origin), {
          method: "PATCH",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ buyer: BENCH_BUYER }),
        });
        const text = await res.text();
        if (res.status !== 200) throw new Error(`PATCH ${API}/cart answered ${res.status}: ${text}`);
      }),
    );
  }
}

/** The rules rows: the plain distinct-carts adds (`adds`), renamed, run once each document is live. */
export function rulesAddWorkloads(adds: readonly BenchRequest[]): Workload[] {
  return RULES_ROWS.map(({ workload }) => ({ name: workload, requests: [...adds], ok: [200], objectPerRequest: true }));
}
