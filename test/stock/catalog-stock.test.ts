import { createExecutionContext, runDurableObjectAlarm, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { parseCatalog, type SourceCatalog } from "../../src/catalog/schema.ts";
import { CatalogStore } from "../../src/catalog/store.ts";
import { publishCatalog } from "../../src/publish/publish.ts";
import { stockStore } from "../../src/stock/store.ts";
import app from "../../src/index.ts";
import { product, run, issuesOf, CLASSIC_HEAD } from "../publish/import-helpers.ts";
import { seedCatalog } from "../helpers/catalog.ts";

/** Section 9.3: quantities and policies kept from the store's export into the catalog format. */

const CURRENT_HEAD =
  "Title,URL handle,Description,Vendor,Type,Tags,Published on online store,Status,SKU,Option1 name,Option1 value,Price,Inventory tracker,Inventory quantity,Continue selling when out of stock";

describe("the catalog format's stock fields", () => {
  it("accepts inventory_quantity and inventory_policy and derives a tracked deny variant's availability", () => {
    const catalog = seedCatalog();
    const v = catalog.products[0]!.variants[0]!;
    Object.assign(v, { inventory_quantity: 0, available: true });
    const parsed = parseCatalog(catalog);
    expect(parsed.products[0]!.variants[0]).toMatchObject({ inventory_quantity: 0 });
  });

  it("names the product and field of a quantity that is not an integer or out of range", () => {
    for (const bad of [1.5, "3", 2_000_000_000]) {
      const catalog = seedCatalog() as unknown as { products: { variants: Record<string, unknown>[] }[] };
      catalog.products[1]!.variants[2]!.inventory_quantity = bad;
      expect(() => parseCatalog(catalog)).toThrow(
        /products\[1\] \(handle "essential-crew-tee-white"\)\.variants\[2\]\.inventory_quantity/,
      );
    }
    const policy = seedCatalog() as unknown as { products: { variants: Record<string, unknown>[] }[] };
    policy.products[0]!.variants[0]!.inventory_policy = "sometimes";
    expect(() => parseCatalog(policy)).toThrow(/variants\[0\]\.inventory_policy/);
  });

  it("publishes tracked levels beside the version and derives availability from them", async () => {
    const catalog: SourceCatalog = seedCatalog();
    const tee = catalog.products[0]!;
    // The file's flag says available, the quantity says 0 with deny: the quantity wins.
    Object.assign(tee.variants[0]!, { inventory_quantity: 0, available: true });
    Object.assign(tee.variants[1]!, { inventory_quantity: 0, inventory_policy: "continue" });
    Object.assign(tee.variants[2]!, { inventory_quantity: 7 });
    catalog.stock_display = "quantity";
    const result = await publishCatalog(env.CATALOG, catalog, { browse: null });
    const store = new CatalogStore(env.CATALOG);
    const meta = (await store.currentMeta())!;
    expect(meta).toMatchObject({
      version: result.version,
      stock_tracked: 3 + 2,
      stock_chunks: 1,
      stock_display: "quantity",
    });
    const lines = await store.stockChunk(meta, 0);
    expect(lines).toEqual(
      expect.arrayContaining([
        [tee.variants[0]!.id, 0, "deny"],
        [tee.variants[1]!.id, 0, "continue"],
        [tee.variants[2]!.id, 7, "deny"],
      ]),
    );
    const variants = await store.getVariants(meta.version, [
      tee.variants[0]!.id,
      tee.variants[1]!.id,
      tee.variants[3]!.id,
    ]);
    expect(variants.get(tee.variants[0]!.id)).toMatchObject({
      available: false,
      tracked: true,
      inventory_policy: "deny",
    });
    expect(variants.get(tee.variants[1]!.id)).toMatchObject({
      available: true,
      tracked: true,
      inventory_policy: "continue",
    });
    expect(variants.get(tee.variants[3]!.id)).toMatchObject({ available: true, tracked: false });
  });
});

describe("the importer keeps the export's stock", () => {
  it("keeps quantity and policy from a classic-header CSV; unknown stock stays untracked", async () => {
    const csv = [
      CLASSIC_HEAD,
      "tee,Tee,,Acme,Shirts,,TRUE,Size,S,,,SKU-S,shopify,3,deny,10.00,,,,,active",
      "tee,,,,,,,Size,M,,,SKU-M,shopify,0,continue,10.00,,,,,active",
      "tee,,,,,,,Size,L,,,SKU-L,shopify,0,deny,10.00,,,,,active",
      "tee,,,,,,,Size,XL,,,SKU-XL,,,deny,10.00,,,,,active",
      "tee,,,,,,,Size,2XL,,,SKU-2XL,shopify,,deny,10.00,,,,,active",
    ].join("\n");
    const { catalog } = await run(csv, "classic.csv");
    const variants = product(catalog, "tee").variants;
    expect(variants.map((v) => [v.options.Size, v.inventory_quantity, v.inventory_policy, v.available])).toEqual([
      ["S", 3, undefined, true],
      ["M", 0, "continue", true],
      ["L", 0, undefined, false],
      ["XL", undefined, undefined, true],
      ["2XL", undefined, undefined, true],
    ]);
  });

  it("keeps quantity and policy from a current-header CSV (Continue selling when out of stock)", async () => {
    const csv = [
      CURRENT_HEAD,
      "Cap,cap,,Acme,Hats,,TRUE,active,C-1,Color,Red,20.00,shopify,5,FALSE",
      ",cap,,,,,,,C-2,Color,Blue,20.00,shopify,0,TRUE",
    ].join("\n");
    const { catalog } = await run(csv, "current.csv");
    expect(product(catalog, "cap").variants.map((v) => [v.inventory_quantity, v.inventory_policy])).toEqual([
      [5, undefined],
      [0, "continue"],
    ]);
  });

  it("keeps Admin JSON's inventory_quantity and policy; inventory_management null is untracked", async () => {
    const json = JSON.stringify({
      products: [
        {
          id: 1001,
          title: "Mug",
          handle: "mug",
          vendor: "Acme",
          product_type: "Home",
          tags: "",
          options: [{ name: "Title", position: 1, values: ["Default Title"] }],
          variants: [
            {
              id: 5001,
              title: "Default Title",
              option1: "Default Title",
              price: "12.00",
              inventory_management: "shopify",
              inventory_quantity: 4,
              inventory_policy: "deny",
            },
          ],
        },
        {
          id: 1002,
          title: "Bowl",
          handle: "bowl",
          vendor: "Acme",
          product_type: "Home",
          tags: "",
          options: [{ name: "Title", position: 1, values: ["Default Title"] }],
          variants: [
            {
              id: 5002,
              title: "Default Title",
              option1: "Default Title",
              price: "12.00",
              inventory_management: null,
              inventory_quantity: 0,
              inventory_policy: "deny",
            },
          ],
        },
      ],
    });
    const { catalog } = await run(json, "products.json");
    expect(product(catalog, "mug").variants[0]).toMatchObject({ id: "5001", inventory_quantity: 4, available: true });
    expect(product(catalog, "bowl").variants[0]!.inventory_quantity).toBeUndefined();
  });

  it("names the line and column of a quantity out of range or not whole, and imports nothing", async () => {
    const csv = [
      CLASSIC_HEAD,
      "tee,Tee,,Acme,Shirts,,TRUE,Size,S,,,SKU-S,shopify,2000000000,deny,10.00,,,,,active",
      "tee,,,,,,,Size,M,,,SKU-M,shopify,2.5,deny,10.00,,,,,active",
    ].join("\n");
    const issues = await issuesOf(csv);
    expect(issues.map((i) => [i.line, i.column, i.message])).toEqual([
      [2, 14, expect.stringContaining("out of range")],
      [3, 14, expect.stringContaining("not a whole number")],
    ]);
  });
});

describe("a published version's levels", () => {
  /** A fresh version of the seed with `count` more tracked variants, each at a level no earlier test used. */
  async function publishTracked(count: number): Promise<{ id: string; quantity: number }[]> {
    const catalog: SourceCatalog = seedCatalog();
    const base = 100 + Math.floor(Math.random() * 100_000);
    const tracked = catalog.products.flatMap((p) => p.variants).slice(0, count);
    tracked.forEach((v, i) => Object.assign(v, { inventory_quantity: base + i, available: true }));
    await publishCatalog(env.CATALOG, catalog, { browse: null });
    return tracked.map((v, i) => ({ id: v.id, quantity: base + i }));
  }

  it("are written shard by shard: the first stock call for a variant waits for its own shard only", async () => {
    const stock = stockStore(env);
    const tracked = await publishTracked(12);
    const [first] = tracked;
    const elsewhere = tracked.find((t) => stock.shardOf(t.id) !== stock.shardOf(first!.id))!;
    const meta = (await new CatalogStore(env.CATALOG).currentMeta())!;
    await stock.ensureSynced(meta, [first!.id]);
    expect(await stock.level(first!.id)).toMatchObject({ tracked: true, quantity: first!.quantity });
    // Another shard has not written this version's levels yet.
    expect((await stock.level(elsewhere.id)).quantity).not.toBe(elsewhere.quantity);
    // The whole version (the operator's `stock show`): every shard, and the count of changed levels.
    const whole = await stock.coordinator().syncVersion(meta.version);
    expect(whole).toMatchObject({ version: meta.version, tracked: meta.stock_tracked });
    expect(whole!.changed).toBeGreaterThanOrEqual(tracked.length);
    expect(await stock.level(elsewhere.id)).toMatchObject({ tracked: true, quantity: elsewhere.quantity });
  });

  it("are written, in the shards the stock overlay names, by a catalog read after a publish", async () => {
    const stock = stockStore(env);
    const first = await publishTracked(12);
    const [changed] = first;
    await stock.ensureSynced((await new CatalogStore(env.CATALOG).currentMeta())!, [changed!.id]);
    // Live stock differs from the file: the operator sold one variant out, the overlay names it.
    await stock.apply(`op:${crypto.randomUUID()}`, "fp", "operator", [
      { index: 0, variantId: changed!.id, op: "set", value: 0 },
    ]);
    await new Promise((r) => setTimeout(r, 1100));
    await runDurableObjectAlarm(stock.coordinator());
    // A new version; no stock call since: the overlay's shard still holds the operator's 0.
    const second = await publishTracked(12);
    const republished = second.find((t) => t.id === changed!.id)!;
    const elsewhere = second.find((t) => stock.shardOf(t.id) !== stock.shardOf(changed!.id))!;
    expect((await stock.level(changed!.id)).quantity).toBe(0);
    await new Promise((r) => setTimeout(r, 1100)); // this isolate reads the overlay again
    const ctx = createExecutionContext();
    const res = await app.fetch(new Request("https://storefront.test/api/v1/products?limit=1"), env, ctx);
    expect(res.status).toBe(200);
    await waitOnExecutionContext(ctx);
    expect(await stock.level(changed!.id)).toMatchObject({ tracked: true, quantity: republished.quantity });
    // A shard the overlay does not name waits for its own first stock call.
    expect((await stock.level(elsewhere.id)).quantity).not.toBe(elsewhere.quantity);
  });
});
