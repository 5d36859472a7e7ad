import fc from "fast-check";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import * as api from "../../src/catalog/api.ts";
import { generateCatalog } from "../../src/publish/generate.ts";
import { CHUNK_SPAN, CHUNK_STEP, chunkCount, MAX_PAGE } from "../../src/catalog/layout.ts";
import { pageWindow } from "../../src/catalog/pages.ts";
import { parseCatalog, SourceCatalogSchema } from "../../src/catalog/schema.ts";
import { seedCatalog } from "../helpers/catalog.ts";

const seed = parseCatalog(seedCatalog());
const SIZES = ["XS", "S", "M", "L", "XL", "2XL", "3XL", "4XL"];

describe("the seed catalog (contract section 5)", () => {
  it("is valid under the worker's own schema", () => {
    expect(SourceCatalogSchema.safeParse(seedCatalog()).success).toBe(true);
  });

  it("is a realistic store of at least 24 products, some priced with one decimal", () => {
    expect(seed.products.length).toBeGreaterThanOrEqual(24);
    expect(seed.products.some((p) => p.variants.some((v) => /^\d+\.\d$/.test(v.price)))).toBe(true);
  });

  it("has one product sized XS to 4XL in Black and one sized S to 3XL in White", () => {
    const sized = (values: string[], color: string) =>
      seed.products.filter(
        (p) => JSON.stringify(p.options) === JSON.stringify([{ name: "size", values }, { name: "color", values: [color] }]) && p.variants.length === values.length,
      );
    expect(sized(SIZES, "Black").length).toBeGreaterThanOrEqual(1);
    expect(sized(SIZES.slice(1, 7), "White").length).toBeGreaterThanOrEqual(1);
  });

  it("has several single-variant (Default Title) products", () => {
    expect(seed.products.filter((p) => p.options.length === 0 && p.variants.length === 1).length).toBeGreaterThanOrEqual(3);
  });

  it("has the four placeholders: store vendor, empty type, Sample Product, sold out, one variant at 100.0", () => {
    const placeholders = seed.products.filter((p) => p.tags.includes("Sample Product"));
    expect(placeholders).toHaveLength(4);
    for (const p of placeholders) {
      expect(p).toMatchObject({ vendor: seed.store.name, product_type: "", tags: ["Sample Product"], available: false });
      expect(p.variants).toEqual([expect.objectContaining({ price: "100.0", available: false })]);
    }
    const holder = seed.collections.find((c) => [...c.products].sort().join() === placeholders.map((p) => p.handle).sort().join());
    expect(holder).toBeDefined();
    expect(seed.collections.some((c) => c.handle === "frontpage")).toBe(true);
  });
});

describe("the generator", () => {
  it("makes catalogs valid under the same schema, of the size asked", () => {
    const catalog = generateCatalog({ products: 2000 });
    expect(parseCatalog(catalog).products).toHaveLength(2000);
    expect(catalog.products.some((p) => p.options.length === 0)).toBe(true);
    expect(catalog.products.some((p) => !p.available)).toBe(true);
  });

  it("is deterministic for a seed and different across seeds", () => {
    expect(JSON.stringify(generateCatalog({ products: 300 }))).toBe(JSON.stringify(generateCatalog({ products: 300 })));
    expect(JSON.stringify(generateCatalog({ products: 300, seed: 1 }))).not.toBe(JSON.stringify(generateCatalog({ products: 300 })));
  });
});

describe("paging windows", () => {
  it("always fit inside the one chunk they name, whatever the count, limit and cursor", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200_000 }), fc.integer({ min: 1, max: MAX_PAGE }), fc.nat(), fc.boolean(), (count, limit, seedPos, after) => {
        const pos = seedPos % count;
        const w = after ? pageWindow(count, limit, pos) : pageWindow(count, limit, undefined, pos);
        expect(w.chunk).toBeLessThan(chunkCount(count));
        expect(w.start).toBeGreaterThanOrEqual(w.chunk * CHUNK_STEP);
        expect(w.end).toBeLessThanOrEqual(w.chunk * CHUNK_STEP + CHUNK_SPAN);
        expect(w.end - w.start).toBeLessThanOrEqual(limit);
      }),
    );
  });
});

describe("the API schemas", () => {
  it("all convert to JSON Schema for the OpenAPI document", () => {
    for (const [name, schema] of Object.entries(api)) {
      if (!(schema instanceof z.ZodType)) continue;
      expect(() => z.toJSONSchema(schema, { io: "input" }), name).not.toThrow();
      expect(() => z.toJSONSchema(schema), name).not.toThrow();
    }
  });
});
