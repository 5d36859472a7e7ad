import { describe, expect, it } from "vitest";
import { parseCatalog } from "../../src/catalog/schema.ts";
import { toMinor } from "../../src/money.ts";
import { generateCatalog, shopifyCsvChunks } from "../../src/publish/generate.ts";

/**
 * The generator's content is what scale tests, benchmarks and the 100,000-product import figure
 * measure, so it must look like a real store's: these pin that down.
 */
describe("a generated catalog's content", () => {
  const catalog = generateCatalog({ products: 5000 });
  const share = (count: number) => count / catalog.products.length;

  it("is valid and deterministic", () => {
    expect(parseCatalog(catalog).products).toHaveLength(5000);
    expect(JSON.stringify(generateCatalog({ products: 200 }))).toBe(JSON.stringify(generateCatalog({ products: 200 })));
  });

  it("has option names beyond size and colour, spelled as a store spells them, up to three per product", () => {
    const names = new Set(catalog.products.flatMap((p) => p.options.map((o) => o.name)));
    for (const name of ["Size", "Color", "Colour", "Frame style", "Material", "Metal", "Ring size", "Scent", "Finish"])
      expect(names).toContain(name);
    expect(catalog.products.some((p) => p.options.length === 3)).toBe(true);
    expect(catalog.products.some((p) => p.options.length === 0)).toBe(true);
  });

  it("has HTML descriptions of varying length (some products none), images with and without sizes, SKUs, SEO fields, creation dates", () => {
    const described = catalog.products.filter((p) => p.description_html);
    expect(share(described.length)).toBeGreaterThan(0.85);
    expect(share(described.length)).toBeLessThan(1);
    expect(described.some((p) => /<ul>[\s\S]*<li>/.test(p.description_html ?? ""))).toBe(true);
    const lengths = described.map((p) => p.description_html?.length ?? 0);
    expect(Math.max(...lengths)).toBeGreaterThan(2 * Math.min(...lengths));
    const images = catalog.products.flatMap((p) => p.images ?? []);
    expect(images.length).toBeGreaterThan(catalog.products.length);
    expect(images.some((i) => i.width === null)).toBe(true);
    expect(images.some((i) => i.width === 2048)).toBe(true);
    const variants = catalog.products.flatMap((p) => p.variants);
    expect(variants.filter((v) => v.sku).length / variants.length).toBeGreaterThan(0.8);
    expect(share(catalog.products.filter((p) => p.seo).length)).toBeGreaterThan(0.2);
    expect(catalog.products.every((p) => p.created_at && !Number.isNaN(Date.parse(p.created_at)))).toBe(true);
  });

  it("puts compare-at prices above the price on some products only", () => {
    const onSale = catalog.products.filter((p) => p.variants.some((v) => v.compare_at_price));
    expect(share(onSale.length)).toBeGreaterThan(0.1);
    expect(share(onSale.length)).toBeLessThan(0.25);
    for (const v of onSale.flatMap((p) => p.variants))
      expect(toMinor(v.compare_at_price ?? "0")).toBeGreaterThan(toMinor(v.price));
  });

  it("draws vendors, types and tags from skewed distributions", () => {
    const counts = (values: string[]) =>
      [...values.reduce((m, v) => m.set(v, (m.get(v) ?? 0) + 1), new Map<string, number>()).values()].sort(
        (a, b) => b - a,
      );
    const vendors = counts(catalog.products.map((p) => p.vendor));
    expect(vendors.length).toBeGreaterThanOrEqual(8);
    expect(share(vendors[0] ?? 0)).toBeGreaterThan(0.4);
    expect((vendors[0] ?? 0) / (vendors[vendors.length - 1] ?? 1)).toBeGreaterThan(10);
    const types = counts(catalog.products.map((p) => p.product_type));
    expect((types[0] ?? 0) / (types[types.length - 1] ?? 1)).toBeGreaterThan(10);
    const tags = counts(catalog.products.flatMap((p) => p.tags));
    expect((tags[0] ?? 0) / (tags[tags.length - 1] ?? 1)).toBeGreaterThan(10);
    expect(catalog.products.some((p) => p.tags.length > 4)).toBe(true);
  });
});

describe("the Shopify CSV the generator writes", () => {
  it("has the current export's headers and one block of rows per product", () => {
    const catalog = generateCatalog({ products: 30 });
    const [header, ...blocks] = [...shopifyCsvChunks(catalog)];
    expect(
      header?.startsWith(
        "Title,URL handle,Description,Vendor,Product category,Type,Tags,Published on online store,Status,SKU,Barcode,Option1 name,Option1 value",
      ),
    ).toBe(true);
    expect(blocks).toHaveLength(30);
    expect(blocks.join("")).toMatch(/\d\.\d\dE\+11/);
  });
});
