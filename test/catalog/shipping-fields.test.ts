import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { parseCatalog } from "../../src/catalog/schema.ts";
import { CatalogStore } from "../../src/catalog/store.ts";
import { publishCatalog } from "../../src/publish/publish.ts";
import { publishSeedCatalog, seedCatalog } from "../helpers/catalog.ts";
import { API } from "../helpers/worker.ts";

/**
 * Contract 10.4: per variant `requires_shipping` (default true) and `weight_grams` (optional), in
 * the catalog format, on variants, and in the variant record the cart prices from (with what a
 * cart line shows, issue 42 point 16).
 */

type Variant = { id: string; requires_shipping: boolean };

describe("the catalog's shipping fields", () => {
  let version = "";
  beforeAll(async () => {
    version = await publishSeedCatalog();
  });

  it("are optional: a variant without them requires shipping and has no weight", () => {
    const catalog = parseCatalog(seedCatalog());
    const tee = catalog.products.find((p) => p.handle === "essential-crew-tee-black")?.variants[0];
    expect(tee?.requires_shipping).toBeUndefined();
    expect(tee?.weight_grams).toBeUndefined();
  });

  it("refuses a weight that is not a whole number of grams, and a requires_shipping that is not a boolean", () => {
    const bad = seedCatalog() as unknown as { products: { variants: Record<string, unknown>[] }[] };
    const variant = bad.products[0]!.variants[0]!;
    variant.weight_grams = -1;
    expect(() => parseCatalog(bad)).toThrow(/products\[0\].*variants\[0\]\.weight_grams/);
    variant.weight_grams = 12.5;
    expect(() => parseCatalog(bad)).toThrow(/weight_grams/);
    variant.weight_grams = 200;
    variant.requires_shipping = "no";
    expect(() => parseCatalog(bad)).toThrow(/variants\[0\]\.requires_shipping/);
  });

  it("the seed's gift card does not require shipping; its clothes do", async () => {
    const gift = await exports.default.fetch(`${API}/products/gift-card-50/variants`);
    expect(((await gift.json()) as { data: Variant[] }).data.map((v) => v.requires_shipping)).toEqual([false]);
    const tee = await exports.default.fetch(`${API}/products/essential-crew-tee-black/variants`);
    const data = ((await tee.json()) as { data: Variant[] }).data;
    expect(data.length).toBeGreaterThan(1);
    expect(data.every((v) => v.requires_shipping)).toBe(true);
  });

  it("reach the cart's variant record with the product's collections", async () => {
    const store = new CatalogStore(env.CATALOG);
    const gift = await store.getVariant(version, "44102938475687");
    expect(gift).toMatchObject({ requires_shipping: false, weight_grams: null, sku: null, image: null });
    expect([...(gift?.collections ?? [])].sort()).toEqual(["frontpage"]);
  });

  it("the variant record carries what a cart line shows: SKU, compare-at price, the variant's or the featured image", async () => {
    const store = new CatalogStore(env.CATALOG);
    const found = await store.getVariants(version, ["44102938475602"]);
    // No image of its own: the product's featured image, with its alt text and size.
    expect(found.get("44102938475602")).toMatchObject({
      sku: "NW-ECT-BLK-M",
      compare_at_minor: null,
      image: {
        url: "https://images.northwind-threads.example/products/essential-crew-tee-black-front.jpg",
        alt: "Essential Crew Tee - Black, front",
        width: 1600,
        height: 2000,
      },
    });
    const jacket = parseCatalog(seedCatalog()).products.find((p) => p.handle === "field-chore-jacket-olive");
    const first = jacket?.variants[0];
    const record = await store.getVariant(version, first?.id ?? "");
    expect(record?.compare_at_minor).toBe(16800);
    expect(record?.image).toEqual({
      url: first?.image,
      alt: "Field Chore Jacket - Olive, front",
      width: 1600,
      height: 2000,
    });
  });

  it("a weight and requires_shipping: false published are read back; a variant image not among the product's images has no alt", async () => {
    const catalog = seedCatalog() as unknown as {
      products: { handle: string; variants: Record<string, unknown>[] }[];
    };
    const tee = catalog.products.find((p) => p.handle === "essential-crew-tee-black")!;
    Object.assign(tee.variants[0]!, {
      weight_grams: 180,
      requires_shipping: false,
      image: "https://images.example/other.jpg",
    });
    const { version: v2 } = await publishCatalog(env.CATALOG, catalog, { browse: null });
    const record = await new CatalogStore(env.CATALOG).getVariant(v2, String(tee.variants[0]!.id));
    expect(record).toMatchObject({
      weight_grams: 180,
      requires_shipping: false,
      image: { url: "https://images.example/other.jpg", alt: null, width: null, height: null },
    });
    const res = await exports.default.fetch(`${API}/products/essential-crew-tee-black/variants`);
    const data = ((await res.json()) as { data: Variant[] }).data;
    expect(data.map((v) => v.requires_shipping)).toEqual(data.map((_, i) => i !== 0));
  });
});
