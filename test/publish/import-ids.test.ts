import { describe, expect, it } from "vitest";
import type { SourceCatalog, SourceProduct } from "../../src/catalog/schema.ts";
import { generateCatalog, shopifyCsvChunks } from "../../src/publish/generate.ts";
import { deriveIds, hashId } from "../../src/publish/import/ids.ts";
import classicCsv from "./fixtures/shopify-classic.csv?raw";
import currentCsv from "./fixtures/shopify-current.csv?raw";
import productsJson from "./fixtures/products.json?raw";
import { records, run } from "./import-helpers.ts";

/** Ids: kept from JSON, derived deterministically for CSV, stable across re-imports, never colliding; a generated catalog survives the round trip through a Shopify CSV. */

describe("ids", () => {
  it("are the same on a second import of the same file", async () => {
    for (const [text, file] of [
      [classicCsv, "a.csv"],
      [currentCsv, "b.csv"],
      [productsJson, "c.json"],
    ] as const) {
      const first = await run(text, file);
      const second = await run(text, file);
      expect(second.catalog).toEqual(first.catalog);
    }
  });

  it("are recorded as the store's own from JSON and as derived from a CSV (only the store's make a Shopify permalink)", async () => {
    expect((await run(productsJson, "c.json")).catalog.variant_ids).toBe("store");
    expect((await run(classicCsv, "a.csv")).catalog.variant_ids).toBe("derived");
    expect((await run(currentCsv, "b.csv")).catalog.variant_ids).toBe("derived");
  });

  it("are derived from the handle and option values, so reordered products and rows keep them", async () => {
    const catalog = generateCatalog({ products: 60, seed: 7 });
    const chunks = [...shopifyCsvChunks(catalog)];
    const [header, ...products] = chunks;
    // Products in reverse order, and each product's rows reversed (the title row last).
    const reordered = [header, ...products.reverse().map((chunk) => records(chunk).reverse().join(""))].join("");
    const idsOf = (c: SourceCatalog) =>
      Object.fromEntries(
        c.products.flatMap((p) => [
          [p.handle, p.id],
          ...p.variants.map((v) => [`${p.handle} ${Object.values(v.options).join("/")}`, v.id]),
        ]),
      );
    const a = await run(chunks.join(""), "a.csv");
    const b = await run(reordered, "b.csv");
    expect(b.catalog.products.map((p) => p.handle)).toEqual(a.catalog.products.map((p) => p.handle).reverse());
    expect(idsOf(b.catalog)).toEqual(idsOf(a.catalog));
    const all = Object.values(idsOf(a.catalog));
    expect(new Set(all).size).toBe(all.length);
    for (const p of a.catalog.products) expect(p.id).toMatch(/^gid:\/\/shopify\/Product\/[1-9]\d{15}$/);
  });

  it("never collide: a derived id that is taken is hashed again, whatever the order of the keys", () => {
    const keys = ["product\u0000a", "product\u0000b", "product\u0000c"];
    const taken = new Set([hashId("product\u0000b", 0)]);
    const { ids, collisions } = deriveIds(keys, taken);
    expect(collisions).toBe(1);
    expect(ids.get("product\u0000b")).toBe(hashId("product\u0000b", 1));
    expect(new Set(ids.values()).size).toBe(3);
    expect(deriveIds([...keys].reverse(), taken).ids).toEqual(ids);
  });

  it("derive only what products.json lacks, never equal to an id it has", async () => {
    const text = JSON.stringify([
      { id: 11, handle: "kept", title: "Kept", variants: [{ id: 12, price: "1.00" }] },
      { handle: "derived", title: "Derived", variants: [{ price: "2.00" }] },
    ]);
    const { catalog } = await run(text, "mixed.json");
    expect(catalog.products[0]).toMatchObject({ id: "gid://shopify/Product/11", variants: [{ id: "12" }] });
    expect(catalog.products[1]?.id).toMatch(/^gid:\/\/shopify\/Product\/\d{16}$/);
    expect(catalog.products[1]?.variants[0]?.id).toMatch(/^\d{16}$/);
  });
});

describe("a generated catalog written as a Shopify CSV", () => {
  it("imports back to the same products (ids, image sizes and collections aside)", async () => {
    const generated = generateCatalog({ products: 300, seed: 3 });
    const { catalog } = await run([...shopifyCsvChunks(generated)].join(""), "generated.csv", {
      store: generated.store.name,
    });
    const strip = (p: SourceProduct) => ({
      ...p,
      id: "",
      created_at: undefined,
      variants: p.variants.map((v) => ({ ...v, id: "" })),
      images: p.images?.map((i) => ({ url: i.url, alt: i.alt ?? null })),
    });
    expect(catalog.products.map(strip)).toEqual(generated.products.map(strip));
  });
});
