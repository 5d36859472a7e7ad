import type { PricingLine } from "../../src/discounts/types.ts";
import type { PricingInput } from "../../src/pricing/index.ts";
import { line, rulesOf } from "./build.ts";

/**
 * The reference's worked examples (src/openapi/cost-guide.ts): one per discount kind, per tax
 * mode and per currency's digits, each with the table it must print. The figures were worked
 * out by hand first (the comment under each says how); examples.test.ts prices each and
 * compares, and checks the reference shows the same table.
 */
export interface WorkedExample {
  readonly title: string;
  readonly lines: readonly PricingLine[];
  readonly input: Omit<PricingInput, "lines" | "now" | "currency">;
  readonly table: string;
}

const tee = (variant: string, price: string, quantity = 1) =>
  line(variant, price, quantity, { handle: `tee-${variant}`, collections: ["tees"] });
const US = { name: "Domestic", countries: ["US"], rates: [{ id: "standard", title: "Standard", price: "5.00" }] };

export const WORKED_EXAMPLES: readonly WorkedExample[] = [
  {
    // 59.97 × 10 % = 5.997 → 6.00; 24.95 × 10 % = 2.495 → 2.50 (half-up, per line); the mug is not a tee.
    title: "percentage: 10 % off the tees collection, rounded half-up per line",
    lines: [tee("1001", "19.99", 3), tee("1002", "24.95"), line("2001", "12.00")],
    input: {
      rules: rulesOf({
        discounts: [
          {
            id: "tees10",
            title: "10% off tees",
            kind: "percentage",
            value: "10",
            applies_to: { collections: ["tees"] },
          },
        ],
      }),
      buyer: null,
    },
    table: `| variant | units | line total | discounts | after discounts | tax |
|---|---|---|---|---|---|
| 1001 | 3 × 19.99 | 59.97 | tees10 −6.00 | 53.97 | — |
| 1002 | 1 × 24.95 | 24.95 | tees10 −2.50 | 22.45 | — |
| 2001 | 1 × 12.00 | 12.00 | — | 12.00 | — |

subtotal 96.92, discounts −8.50, shipping —, tax —: **total 88.42**`,
  },
  {
    // 10.00 over 30 : 20 : 10 = 5.00, 3.333…, 1.666…: floors 5.00, 3.33, 1.66 leave 0.01, which goes
    // to the largest remainder (1.666…'s), so 5.00 + 3.33 + 1.67.
    title: "fixed_amount: 10.00 off the order, spread in proportion by largest remainder",
    lines: [line("1001", "30.00"), line("1002", "20.00"), line("1003", "10.00")],
    input: {
      rules: rulesOf({
        discounts: [{ id: "ten", title: "10 off", code: "TEN", kind: "fixed_amount", value: "10.00" }],
      }),
      buyer: null,
      discount_codes: ["ten"],
    },
    table: `| variant | units | line total | discounts | after discounts | tax |
|---|---|---|---|---|---|
| 1001 | 1 × 30.00 | 30.00 | ten −5.00 | 25.00 | — |
| 1002 | 1 × 20.00 | 20.00 | ten −3.33 | 16.67 | — |
| 1003 | 1 × 10.00 | 10.00 | ten −1.67 | 8.33 | — |

subtotal 60.00, discounts −10.00, shipping —, tax —: **total 50.00**`,
  },
  {
    // 2.00 off each tee unit: 3 × 2.00 = 6.00; the 1.50 socks (in tees) go to 0, never below: 3.00.
    title: "fixed_amount per_item: 2.00 off each tee, never more than a unit's price",
    lines: [tee("1001", "19.99", 3), tee("3001", "1.50", 2), line("2001", "12.00")],
    input: {
      rules: rulesOf({
        discounts: [
          {
            id: "two-each",
            title: "2 off each tee",
            kind: "fixed_amount",
            value: "2.00",
            per_item: true,
            applies_to: { collections: ["tees"] },
          },
        ],
      }),
      buyer: null,
    },
    table: `| variant | units | line total | discounts | after discounts | tax |
|---|---|---|---|---|---|
| 1001 | 3 × 19.99 | 59.97 | two-each −6.00 | 53.97 | — |
| 3001 | 2 × 1.50 | 3.00 | two-each −3.00 | 0.00 | — |
| 2001 | 1 × 12.00 | 12.00 | — | 12.00 | — |

subtotal 74.97, discounts −9.00, shipping —, tax —: **total 65.97**`,
  },
  {
    // Subtotal 120.00 ≥ 100.00: the selected Express rate (15.00) is the discount; no line allocations.
    title: "free_shipping: over 100.00, the selected rate's price",
    lines: [line("1001", "60.00", 2)],
    input: {
      rules: rulesOf({
        discounts: [
          { id: "ship-free", title: "Free shipping over 100", kind: "free_shipping", minimum_subtotal: "100.00" },
        ],
        shipping: {
          zones: [
            { ...US, rates: [...US.rates, { id: "express", title: "Express", price: "15.00", min_subtotal: "20.00" }] },
          ],
        },
      }),
      buyer: { country: "US" },
      shipping_option: "express",
    },
    table: `| variant | units | line total | discounts | after discounts | tax |
|---|---|---|---|---|---|
| 1001 | 2 × 60.00 | 120.00 | — | 120.00 | — |

subtotal 120.00, discounts −15.00, shipping Express 15.00, ship-free −15.00, tax —: **total 120.00**`,
  },
  {
    // 6 tees give two uses of "buy 2, get 1": the two cheapest units (15.00 each) are free, the
    // four others qualify.
    title: "buy_x_get_y: buy 2 tees, get 1 free, as many times as the cart allows",
    lines: [tee("1001", "25.00", 2), tee("1002", "20.00"), tee("1003", "15.00", 3)],
    input: {
      rules: rulesOf({
        discounts: [
          {
            id: "b2g1",
            title: "Buy 2 tees, get 1 free",
            kind: "buy_x_get_y",
            buy: { quantity: 2, applies_to: { collections: ["tees"] } },
            get: { quantity: 1, applies_to: { collections: ["tees"] }, percentage: "100" },
          },
        ],
      }),
      buyer: null,
    },
    table: `| variant | units | line total | discounts | after discounts | tax |
|---|---|---|---|---|---|
| 1001 | 2 × 25.00 | 50.00 | — | 50.00 | — |
| 1002 | 1 × 20.00 | 20.00 | — | 20.00 | — |
| 1003 | 3 × 15.00 | 45.00 | b2g1 −30.00 | 15.00 | — |

subtotal 115.00, discounts −30.00, shipping —, tax —: **total 85.00**`,
  },
  {
    // Tees 20 % (product) on 50.00 = 10.00; then SAVE10 (order) on what remains: 40.00 → 4.00
    // and the mug's 20.00 → 2.00.
    title: "stacking: a product discount, then an order discount on what remains",
    lines: [tee("1001", "25.00", 2), line("2001", "20.00")],
    input: {
      rules: rulesOf({
        discounts: [
          {
            id: "tees20",
            title: "20% off tees",
            kind: "percentage",
            value: "20",
            applies_to: { collections: ["tees"] },
            combines_with: ["order"],
          },
          {
            id: "save10",
            title: "10% off",
            code: "SAVE10",
            kind: "percentage",
            value: "10",
            combines_with: ["product"],
          },
        ],
      }),
      buyer: null,
      discount_codes: ["SAVE10"],
    },
    table: `| variant | units | line total | discounts | after discounts | tax |
|---|---|---|---|---|---|
| 1001 | 2 × 25.00 | 50.00 | tees20 −10.00, save10 −4.00 | 36.00 | — |
| 2001 | 1 × 20.00 | 20.00 | save10 −2.00 | 18.00 | — |

subtotal 70.00, discounts −16.00, shipping —, tax —: **total 54.00**`,
  },
  {
    // 7.25 % of each 1.00 line is 0.0725 → 0.07, three times: 0.21 (on the sum 3.00 it would be
    // 0.2175 → 0.22). Shipping is not taxable here.
    title: "tax exclusive: added per line after discounts, rounded half-up per line",
    lines: [line("1", "1.00"), line("2", "1.00"), line("3", "1.00")],
    input: {
      rules: rulesOf({
        shipping: { zones: [US] },
        tax: { mode: "exclusive", rates: [{ country: "US", region: "CA", rate: "0.0725", name: "Sales tax" }] },
      }),
      buyer: { country: "US", region: "CA" },
    },
    table: `| variant | units | line total | discounts | after discounts | tax |
|---|---|---|---|---|---|
| 1 | 1 × 1.00 | 1.00 | — | 1.00 | 0.07 |
| 2 | 1 × 1.00 | 1.00 | — | 1.00 | 0.07 |
| 3 | 1 × 1.00 | 1.00 | — | 1.00 | 0.07 |

subtotal 3.00, discounts −0.00, shipping Standard 5.00, tax 0.21: **total 8.21**`,
  },
  {
    // 24.99 × 0.2 / 1.2 = 4.165 → 4.17; 25.00 → 4.1666… → 4.17; shipping 4.90 → 0.8166… → 0.82:
    // 9.16 of the 54.89 is VAT. The total is the prices' sum: nothing is added.
    title: "tax inclusive: prices include it; the tax is the part of each line (and of shipping) that is tax",
    lines: [line("1", "24.99", 1, {}, "EUR"), line("2", "12.50", 2, {}, "EUR")],
    input: {
      rules: rulesOf(
        {
          shipping: {
            zones: [
              { name: "EU", countries: ["FR", "DE"], rates: [{ id: "standard", title: "Standard", price: "4.90" }] },
            ],
          },
          tax: {
            mode: "inclusive",
            shipping_taxable: true,
            rates: [
              { country: "FR", rate: "0.2", name: "TVA" },
              { country: "DE", rate: "0.19", name: "MwSt" },
            ],
          },
        },
        "EUR",
      ),
      buyer: { country: "FR" },
    },
    table: `| variant | units | line total | discounts | after discounts | tax |
|---|---|---|---|---|---|
| 1 | 1 × 24.99 | 24.99 | — | 24.99 | 4.17 |
| 2 | 2 × 12.50 | 25.00 | — | 25.00 | 4.17 |

subtotal 49.99, discounts −0.00, shipping Standard 4.90, tax 9.16 (included) (0.82 on shipping): **total 54.89**`,
  },
  {
    title: "tax none: no tax, whatever the destination",
    lines: [line("1", "24.99")],
    input: {
      rules: rulesOf({ shipping: { zones: [US] }, tax: { mode: "none" } }),
      buyer: { country: "US", region: "CA" },
    },
    table: `| variant | units | line total | discounts | after discounts | tax |
|---|---|---|---|---|---|
| 1 | 1 × 24.99 | 24.99 | — | 24.99 | — |

subtotal 24.99, discounts −0.00, shipping Standard 5.00, tax —: **total 29.99**`,
  },
  {
    // The cart shows no tax (`tax_calculated_at: "payment"`): the payment session computes it.
    title: "tax stripe: computed by the payment session, null in the cart",
    lines: [line("1", "24.99")],
    input: {
      rules: rulesOf({ shipping: { zones: [US] }, tax: { mode: "stripe" } }),
      buyer: { country: "US", region: "CA" },
    },
    table: `| variant | units | line total | discounts | after discounts | tax |
|---|---|---|---|---|---|
| 1 | 1 × 24.99 | 24.99 | — | 24.99 | — |

subtotal 24.99, discounts −0.00, shipping Standard 5.00, tax —: **total 29.99**`,
  },
  {
    // Whole yen: 10 % of 1,995 = 199.5 → 200, of 1,700 = 170; tax 10 % of 1,795 = 179.5 → 180 and
    // of 1,530 = 153; shipping 800 untaxed. 3,695 − 370 + 800 + 333 = 4,458.
    title: "JPY: no minor digits, the same rules in whole yen",
    lines: [line("1", "1995", 1, {}, "JPY"), line("2", "850", 2, {}, "JPY")],
    input: {
      rules: rulesOf(
        {
          discounts: [{ id: "ten-percent", title: "10% off", kind: "percentage", value: "10" }],
          shipping: {
            zones: [{ name: "Japan", countries: ["JP"], rates: [{ id: "std", title: "Standard", price: "800" }] }],
          },
          tax: { mode: "exclusive", rates: [{ country: "JP", rate: "0.1", name: "Consumption tax" }] },
        },
        "JPY",
      ),
      buyer: { country: "JP" },
    },
    table: `| variant | units | line total | discounts | after discounts | tax |
|---|---|---|---|---|---|
| 1 | 1 × 1995 | 1995 | ten-percent −200 | 1795 | 180 |
| 2 | 2 × 850 | 1700 | ten-percent −170 | 1530 | 153 |

subtotal 3695, discounts −370, shipping Standard 800, tax 333: **total 4458**`,
  },
  {
    // 1.000 over 2.500 : 0.750 = 0.76923… and 0.23076…: floors 0.769 and 0.230 leave 0.001 for the
    // larger remainder (0.23076…'s): 0.769 + 0.231.
    title: "KWD: three minor digits, a fixed amount spread by largest remainder",
    lines: [line("1", "2.500", 1, {}, "KWD"), line("2", "0.750", 1, {}, "KWD")],
    input: {
      rules: rulesOf(
        { discounts: [{ id: "one-off", title: "1 KWD off", kind: "fixed_amount", value: "1.000" }] },
        "KWD",
      ),
      buyer: null,
    },
    table: `| variant | units | line total | discounts | after discounts | tax |
|---|---|---|---|---|---|
| 1 | 1 × 2.500 | 2.500 | one-off −0.769 | 1.731 | — |
| 2 | 1 × 0.750 | 0.750 | one-off −0.231 | 0.519 | — |

subtotal 3.250, discounts −1.000, shipping —, tax —: **total 2.250**`,
  },
];
