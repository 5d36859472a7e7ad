import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { CatalogStore } from "../../src/catalog/store.ts";
import { publishSeedCatalog } from "../helpers/catalog.ts";

describe("CatalogStore (the adapter the cart reads variants through)", () => {
  let version = "";
  beforeAll(async () => {
    version = await publishSeedCatalog();
  });

  it("reports the live version, and publishing the same seed twice keeps it", async () => {
    const store = new CatalogStore(env.CATALOG);
    expect(await store.currentVersion()).toBe(version);
    expect(await publishSeedCatalog()).toBe(version);
  });

  it("returns a sized variant with its product, title, options and integer price", async () => {
    const store = new CatalogStore(env.CATALOG);
    const variant = await store.getVariant(version, "44102938475602");
    expect(variant).toEqual({
      id: "44102938475602",
      gid: "gid://shopify/ProductVariant/44102938475602",
      product_handle: "essential-crew-tee-black",
      product_title: "Essential Crew Tee - Black",
      title: "M / Black",
      options: { size: "M", color: "Black" },
      price_minor: 2800,
      currency: "USD",
      available: true,
      tracked: false,
      inventory_policy: "deny",
      requires_shipping: true,
      weight_grams: null,
      collections: expect.arrayContaining(["frontpage", "tees-and-tops"]),
      sku: "NW-ECT-BLK-M",
      compare_at_minor: null,
      image: expect.objectContaining({ url: expect.stringMatching(/^https:\/\//) }),
    });
  });

  it("accepts the variant gid form and marks a placeholder's variant unavailable", async () => {
    const store = new CatalogStore(env.CATALOG);
    await store.currentVersion();
    const placeholder = (await store.getVariants(version, ["gid://shopify/ProductVariant/44102938475688"])).get(
      "44102938475688",
    );
    expect(placeholder).toMatchObject({
      product_handle: "example-t-shirt",
      title: "Default Title",
      options: { title: "Default Title" },
      price_minor: 10000,
      available: false,
    });
  });

  it("reads many variants at once and leaves unknown ids out", async () => {
    const store = new CatalogStore(env.CATALOG);
    const found = await store.getVariants(version, ["44102938475600", "44102938475606", "99999999", "not-digits"]);
    expect([...found.keys()].sort()).toEqual(["44102938475600", "44102938475606"]);
    expect(await store.getVariant(version, "99999999")).toBeNull();
  });

  it("answers null for the version when nothing was published", async () => {
    const empty = await env.TOKENS.get("catalog:pointer");
    expect(empty).toBeNull();
    const store = new CatalogStore(env.TOKENS);
    expect(await store.currentVersion()).toBeNull();
  });
});
