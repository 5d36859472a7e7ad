import { describe, expect, it } from "vitest";
import { parseCatalog } from "../../src/catalog/schema.ts";
import digitalJson from "./fixtures/products-digital.json?raw";
import productsJson from "./fixtures/products.json?raw";
import classicCsv from "./fixtures/shopify-classic.csv?raw";
import currentCsv from "./fixtures/shopify-current.csv?raw";
import stockCsv from "./fixtures/shopify-current-stock.csv?raw";
import digitalCsv from "./fixtures/shopify-digital.csv?raw";
import { issuesOf, product, run } from "./import-helpers.ts";

/**
 * Contract 10.4: the importer keeps Shopify's `Variant Requires Shipping` and `Variant Grams`
 * (the current header's `Requires shipping` and `Weight value (grams)`), and products.json's
 * `requires_shipping` and `grams`. A column the export does not have, or a blank cell, is unknown:
 * the catalog's default (shipped, no weight).
 */

const shipping = (catalog: Awaited<ReturnType<typeof run>>["catalog"], handle: string) =>
  product(catalog, handle).variants.map((v) => ({
    requires_shipping: v.requires_shipping,
    weight_grams: v.weight_grams,
  }));

describe("shipping fields from a classic-header CSV", () => {
  it("keeps the weight in grams (rounded to the gram) and FALSE, in any case; a blank cell is the default", async () => {
    expect(digitalCsv.charCodeAt(0)).toBe(0xfeff);
    const { catalog } = await run(digitalCsv, "shopify-digital.csv");
    parseCatalog(catalog);
    expect(shipping(catalog, "linen-apron")).toEqual([
      { requires_shipping: undefined, weight_grams: 310 },
      { requires_shipping: undefined, weight_grams: 310 },
    ]);
    expect(shipping(catalog, "apron-sewing-pattern")).toEqual([{ requires_shipping: false, weight_grams: 0 }]);
    expect(shipping(catalog, "workshop-ticket")).toEqual([{ requires_shipping: false, weight_grams: undefined }]);
    expect(shipping(catalog, "tea-towel-set")).toEqual([{ requires_shipping: undefined, weight_grams: undefined }]);
  });

  it("reads the classic fixture's Variant Grams of 0 as a known weight of 0", async () => {
    const { catalog } = await run(classicCsv, "shopify-classic.csv");
    expect(shipping(catalog, "canvas-tote")).toEqual([{ requires_shipping: undefined, weight_grams: 0 }]);
  });

  it("names the line and column of a weight or a requires-shipping cell it cannot read, and imports nothing", async () => {
    const broken = digitalCsv.replace(",APR-CHR,310.4,", ",APR-CHR,heavy,").replace(",9.00,,FALSE,", ",9.00,,no,");
    const issues = await issuesOf(broken, "shopify-digital.csv");
    expect(issues).toEqual([
      expect.objectContaining({
        line: 3,
        column: 16,
        header: "Variant Grams",
        message: '"heavy" is not a weight in grams (a number, 0 or more)',
      }),
      expect.objectContaining({
        line: 4,
        column: 23,
        header: "Variant Requires Shipping",
        message: '"no" is not TRUE or FALSE',
      }),
    ]);
  });
});

describe("shipping fields from a current-header CSV", () => {
  it("keeps Weight value (grams) and Requires shipping", async () => {
    const { catalog } = await run(currentCsv, "shopify-current.csv");
    expect(shipping(catalog, "oak-frame")).toEqual(
      Array.from({ length: 3 }, () => ({ requires_shipping: undefined, weight_grams: 200 })),
    );
  });

  it("an export without those columns leaves every variant at the default", async () => {
    expect(stockCsv.split("\n")[0]).not.toMatch(/grams|shipping/i);
    const { catalog } = await run(stockCsv, "shopify-current-stock.csv");
    const all = catalog.products.flatMap((p) => p.variants);
    expect(all.length).toBeGreaterThan(0);
    expect(all.every((v) => v.requires_shipping === undefined && v.weight_grams === undefined)).toBe(true);
  });
});

describe("shipping fields from products.json", () => {
  it("keeps grams and requires_shipping: false; a variant without them keeps the defaults", async () => {
    const { catalog } = await run(digitalJson, "products-digital.json");
    expect(shipping(catalog, "field-notebook-set")).toEqual([{ requires_shipping: undefined, weight_grams: 240 }]);
    expect(shipping(catalog, "lettering-course")).toEqual([{ requires_shipping: false, weight_grams: 0 }]);
    expect(shipping(catalog, "brass-pen-clip")).toEqual([{ requires_shipping: undefined, weight_grams: undefined }]);
  });

  it("reads the Admin export's grams (not its weight in weight_unit)", async () => {
    const { catalog } = await run(productsJson, "products.json");
    expect(shipping(catalog, "alpine-fleece").map((v) => v.weight_grams)).toEqual([450, 470, 470]);
  });

  it("names the JSON path of a grams it cannot read", async () => {
    const broken = digitalJson.replace('"grams": 240', '"grams": "a lot"');
    const issues = await issuesOf(broken, "products-digital.json");
    expect(issues).toEqual([
      expect.objectContaining({ message: expect.stringMatching(/"a lot" is not a weight in grams/) }),
    ]);
    expect(JSON.stringify(issues[0])).toMatch(/variants.*grams/);
  });
});
