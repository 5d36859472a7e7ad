import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_LINE_QUANTITY, MAX_LINES } from "../../src/cart/api.ts";
import { buildCart, EMPTY_HEAD, type LineRow } from "../../src/cart/view.ts";
import { renderedCostOf } from "../../src/cart/cost.ts";
import { CatalogValidationError, parseCatalog } from "../../src/catalog/schema.ts";
import { fromMinor, MAX_UNIT_MINOR, SourceAmountSchema, sourceAmountIssue, toMinor } from "../../src/money.ts";
import { seedCatalog } from "../helpers/catalog.ts";
import { fuzzRuns } from "./run-config.ts";

/**
 * Money properties: every price the catalog accepts converts to minor units exactly, and any
 * cart the limits allow (250 lines of at most 999 units) sums to an exact, formattable amount.
 */

/** Digits and up to two decimals, as the source format writes prices. */
const amountText = fc
  .tuple(fc.stringMatching(/^\d{1,12}$/), fc.option(fc.stringMatching(/^\d{1,2}$/), { nil: undefined }))
  .map(([whole, fraction]) => (fraction === undefined ? whole : `${whole}.${fraction}`));

/** The exact value of an amount string in minor units, by BigInt (no floating point). */
function exactMinor(amount: string): bigint {
  const [whole = "0", fraction = ""] = amount.split(".");
  return BigInt(whole) * 100n + BigInt(fraction.padEnd(2, "0") || "0");
}

const row = (i: number, unit: number, quantity: number): LineRow => ({
  id: `cl_${i}`,
  variant_id: String(i),
  attributes: "{}",
  position: i,
  quantity,
  handle: "h",
  title: "t",
  variant_title: "Default Title",
  unit_price_minor: unit,
  currency: "USD",
  available: 1,
  catalog_version: "v",
  tracked: 0,
  in_stock: 1,
  options: '{"title":"Default Title"}',
  sku: null,
  image: null,
  compare_at_minor: null,
  requires_shipping: 1,
  weight_grams: null,
  collections: "[]",
});

describe("money at the edges", () => {
  it("converts every amount the catalog accepts exactly, and refuses every other one", () => {
    fc.assert(
      fc.property(amountText, (amount) => {
        const exact = exactMinor(amount);
        // The format's shape, then the catalog's currency (USD here): digits and cap.
        const accepted = SourceAmountSchema.safeParse(amount).success && sourceAmountIssue(amount, "USD") === null;
        const fits = amount.split(".")[0]!.length <= 9 && exact <= BigInt(MAX_UNIT_MINOR);
        expect(accepted, amount).toBe(fits);
        if (accepted) {
          expect(BigInt(toMinor(amount))).toBe(exact);
          expect(exactMinor(fromMinor(toMinor(amount)).amount)).toBe(exact);
        }
      }),
      { numRuns: fuzzRuns(500) },
    );
  });

  // Bug: toMinor computed Number(whole) * 100 + fraction in floating point and returned a
  // rounded, wrong value for amounts beyond 2^53 minor units instead of refusing them.
  it("refuses, never rounds, an amount beyond 2^53 minor units", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[1-9]\d{14,30}$/), fc.stringMatching(/^\d{2}$/), (whole, fraction) => {
        const amount = `${whole}.${fraction}`;
        if (exactMinor(amount) <= BigInt(Number.MAX_SAFE_INTEGER))
          expect(BigInt(toMinor(amount))).toBe(exactMinor(amount));
        else expect(() => toMinor(amount)).toThrow(RangeError);
      }),
      { numRuns: fuzzRuns(300) },
    );
  });

  it("sums any cart the limits allow to an exact subtotal, the fullest and priciest included", () => {
    const line = fc.tuple(fc.integer({ min: 0, max: MAX_UNIT_MINOR }), fc.integer({ min: 1, max: MAX_LINE_QUANTITY }));
    const worst = Array.from({ length: MAX_LINES }, (): [number, number] => [MAX_UNIT_MINOR, MAX_LINE_QUANTITY]);
    fc.assert(
      fc.property(fc.oneof(fc.array(line, { maxLength: MAX_LINES }), fc.constant(worst)), (lines) => {
        const head = { ...EMPTY_HEAD, created_at: 0, updated_at: 0, expires_at: 1 };
        const rows = lines.map(([unit, quantity], i) => row(i, unit, quantity));
        const cart = buildCart(
          "cart_x",
          head,
          rows,
          renderedCostOf(head, rows, { rules: null, currency: "USD", now: 0 }),
        );
        expect(cart.cost.subtotal).toEqual(cart.subtotal);
        expect(cart.cost.total).toEqual(cart.subtotal);
        const exact = lines.reduce((sum, [unit, quantity]) => sum + BigInt(unit) * BigInt(quantity), 0n);
        expect(exactMinor(cart.subtotal.amount)).toBe(exact);
        for (const [i, [unit, quantity]] of lines.entries())
          expect(exactMinor(cart.lines[i]!.line_total.amount)).toBe(BigInt(unit) * BigInt(quantity));
      }),
      { numRuns: fuzzRuns(60) },
    );
  });

  // Bug: the catalog accepted prices up to 999,999,999.99; a full cart of such a variant summed
  // past 2^53 minor units, fromMinor threw, and every answer for that cart became a 500.
  it("refuses a catalog price above 9,999,999.99, naming the product and field", () => {
    const catalog = seedCatalog();
    catalog.products[0]!.variants[0]!.price = "999999999.99";
    const error = (() => {
      try {
        parseCatalog(catalog);
        return null;
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(CatalogValidationError);
    expect((error as CatalogValidationError).issues).toEqual([
      `products[0] (handle "${catalog.products[0]!.handle}").variants[0].price: at most 9999999.99, so a full cart's subtotal stays exact`,
    ]);
    catalog.products[0]!.variants[0]!.price = "9999999.99";
    expect(() => parseCatalog(catalog)).not.toThrow();
  });
});
