import { describe, expect, it } from "vitest";
import arrayJson from "./fixtures/products-array.json?raw";
import productsJson from "./fixtures/products.json?raw";
import { product, run, STORE } from "./import-helpers.ts";

/** The importer on Shopify products.json, as the Admin API and a storefront serve it. */

describe("Shopify products.json", () => {
  it("keeps the ids, orders images by position and links variant images", async () => {
    const { catalog, report } = await run(productsJson, "products.json");
    expect(report).toMatchObject({
      format: "shopify-json",
      records: 5,
      products: 3,
      variants: 5,
      images: 2,
      skippedRecords: 2,
      compareAtDropped: 1,
    });
    expect(report.skipped).toEqual([
      { handle: "prototype-vest", lines: [135], reason: "status draft" },
      { handle: "gift-card", lines: [172], reason: "gift card" },
    ]);
    const fleece = product(catalog, "alpine-fleece");
    expect(fleece.id).toBe("gid://shopify/Product/7982301937893");
    expect(fleece.variants.map((v) => v.id)).toEqual(["43811201826981", "43811201859749", "43811201892517"]);
    expect(fleece).toMatchObject({
      vendor: "Ridgeline Goods",
      product_type: "Jackets",
      tags: ["fleece", "outdoor"],
      created_at: "2024-03-05T10:21:44-05:00",
    });
    expect(fleece.images).toEqual([
      {
        url: "https://cdn.shopify.com/s/files/1/0601/2345/products/fleece-main.jpg?v=1709652000",
        alt: null,
        width: 2048,
        height: 2048,
      },
      {
        url: "https://cdn.shopify.com/s/files/1/0601/2345/products/fleece-forest.jpg?v=1709652000",
        alt: "Fleece in forest green",
        width: 1600,
        height: 2000,
      },
    ]);
    expect(fleece.variants.map((v) => v.image ?? null)).toEqual([
      expect.stringMatching(/fleece-forest/),
      expect.stringMatching(/fleece-forest/),
      null,
    ]);
    expect(fleece.variants.map((v) => v.sku ?? null)).toEqual(["FLC-S-FOR", "FLC-M-FOR", null]);
  });

  it("derives availability from inventory fields when `available` is absent", async () => {
    const { catalog } = await run(productsJson, "products.json");
    // shopify-tracked 4 deny; 0 deny; 0 continue
    expect(product(catalog, "alpine-fleece").variants.map((v) => v.available)).toEqual([true, false, true]);
    // compare-at 120.00 over 98.00 kept; 98.00 over "98.0" dropped
    expect(product(catalog, "alpine-fleece").variants.map((v) => v.compare_at_price ?? null)).toEqual([
      "120.00",
      null,
      null,
    ]);
    // not tracked (inventory_management null): available at 0
    expect(product(catalog, "trail-bottle")).toMatchObject({
      available: true,
      vendor: STORE,
      product_type: "",
      tags: [],
      variants: [{ price: "0", available: true }],
    });
  });

  it("takes a bare array in the storefront's shape, with `available` and featured images", async () => {
    const { catalog, report } = await run(arrayJson, "products-array.json");
    expect(report).toMatchObject({
      format: "shopify-json",
      records: 2,
      products: 2,
      variants: 3,
      images: 1,
      skipped: [],
    });
    const frame = product(catalog, "round-frame");
    expect(frame).toMatchObject({
      id: "gid://shopify/Product/8123456789012",
      tags: ["frames", "steel"],
      created_at: "2024-01-30T10:00:00-05:00",
    });
    expect(frame.options).toEqual([
      { name: "Frame style", values: ["Round", "Oval"] },
      { name: "Color", values: ["Black"] },
    ]);
    expect(frame.variants.map((v) => [v.id, v.available, v.compare_at_price ?? null, v.image ?? null])).toEqual([
      ["44000000000001", true, "59.00", "https://cdn.shopify.com/s/files/1/0601/2345/files/round-black.jpg?v=1"],
      ["44000000000002", false, null, null],
    ]);
    expect(product(catalog, "sold-out-print")).toMatchObject({
      available: false,
      options: [],
      variants: [{ options: {}, available: false }],
    });
  });
});
