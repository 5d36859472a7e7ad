import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { SourceCatalog } from "../../src/catalog/schema.ts";
import { importCatalog } from "../../src/publish/import/index.ts";
import { publishCatalog } from "../../src/publish/publish.ts";
import { API } from "../helpers/worker.ts";
import classicCsv from "./fixtures/shopify-classic.csv?raw";
import currentCsv from "./fixtures/shopify-current.csv?raw";
import arrayJson from "./fixtures/products-array.json?raw";
import productsJson from "./fixtures/products.json?raw";

/**
 * Each fixture imported, published into the workerd KV binding with the real publish, and read
 * back through the API: what a store gets after `catalog:import --publish`.
 */

type Json = Record<string, unknown>;

async function get(path: string): Promise<{ status: number; body: Json }> {
  const res = await exports.default.fetch(`${API}${path}`);
  return { status: res.status, body: (await res.json()) as Json };
}

async function importAndPublish(text: string, file: string): Promise<SourceCatalog> {
  const { catalog } = await importCatalog(text, { file, store: "Harbor & Pine" });
  await publishCatalog(env.CATALOG, catalog, { browse: null });
  return catalog;
}

describe("a classic-header CSV, published", () => {
  let catalog: SourceCatalog;
  beforeAll(async () => {
    catalog = await importAndPublish(classicCsv, "shopify-classic.csv");
  });

  it("lists the imported products in file order, sold-out ones included, and nothing skipped", async () => {
    const { body } = await get("/products");
    expect((body.data as Json[]).map((p) => [p.handle, p.available])).toEqual([
      ["oxford-shirt", true],
      ["canvas-tote", true],
      ["walnut-frame", true],
      ["enamel-camp-mug", true],
      ["sold-out-cap", false],
    ]);
    expect((await get("/products/draft-beanie")).status).toBe(404);
    expect((await get("/products/gift-card")).body).toMatchObject({ error: { code: "resource_missing" } });
  });

  it("answers a product with its options under API names and the store's labels", async () => {
    const { status, body } = await get("/products/oxford-shirt");
    expect(status).toBe(200);
    expect(body).toMatchObject({
      id: catalog.products[0]?.id,
      vendor: "Harbor & Pine",
      price: { min: { amount: "68.00", currency: "USD" }, max: { amount: "68.50", currency: "USD" } },
      variants_count: 4,
      options: [
        { name: "size", label: "Size", values: ["S", "M"] },
        { name: "colour", label: "Colour", values: ["Blue", "White"] },
      ],
    });
    const frame = await get("/products/walnut-frame");
    expect((frame.body.options as Json[]).map((o) => [o.name, o.label])).toEqual([
      ["frame-style", "Frame style"],
      ["size", "Size"],
      ["material", "Material"],
    ]);
  });

  it("selects variants by the store's own option names and carries sku, compare-at price and image", async () => {
    const { status, body } = await get("/products/oxford-shirt/variants?colour=White&size=S");
    expect(status).toBe(200);
    const [variant] = body.data as Json[];
    expect(variant).toMatchObject({
      id: catalog.products[0]?.variants[2]?.id,
      title: "S / White",
      options: { size: "S", colour: "White" },
      price: { amount: "68.50", currency: "USD" },
      available: true,
      sku: "OX-S-WHT",
      compare_at_price: null,
      image: expect.stringMatching(/oxford-white\.jpg/),
    });
    const blue = await get("/products/oxford-shirt/variants?colour=Blue&size=S");
    expect((blue.body.data as Json[])[0]).toMatchObject({ compare_at_price: { amount: "85.00", currency: "USD" } });
    const frame = await get("/products/walnut-frame/variants?frame-style=Square&size=8x10");
    expect((frame.body.data as Json[]).map((v) => v.title)).toEqual(["Square / 8x10 / Walnut"]);
    expect((await get("/products/walnut-frame/variants?color=Black")).body).toMatchObject({
      error: { code: "parameter_unknown", param: "color" },
    });
  });

  it("answers the sold-out product 404 sold_out and a Default Title product by title", async () => {
    expect((await get("/products/sold-out-cap")).body).toMatchObject({
      error: { code: "sold_out", message: "Sold out" },
    });
    const tote = await get("/products/canvas-tote/variants?title=Default%20Title");
    expect((tote.body.data as Json[])[0]).toMatchObject({
      title: "Default Title",
      price: { amount: "25.00" },
      compare_at_price: { amount: "30.00" },
    });
  });

  it("serves descriptions sanitised, with the hostile one stripped of script, handlers, styles, frames and javascript:/data: URLs", async () => {
    const { body } = await get("/products/enamel-camp-mug?include=description,images,seo");
    const html = String(body.description_html);
    expect(html).toContain("<p>Enamel mug for the trail.</p>");
    expect(html).toContain('<a href="https://harborpine.example/care">real care guide</a>');
    for (const bad of [/<script/i, /onerror/i, /onclick/i, /javascript:/i, /<style/i, /<iframe/i, /style=/i, /data:/i])
      expect(html).not.toMatch(bad);
    expect(body.description_text).toBe(
      "Enamel mug for the trail. Care guide and real care guide Holds 12 oz & keeps coffee hot. data link",
    );
    const shirt = await get("/products/oxford-shirt?include=description,images,seo");
    expect(shirt.body.description_html).toContain("<li>Button-down collar</li>");
    expect((shirt.body.images as Json[]).map((i) => i.alt)).toEqual([
      "Oxford shirt in blue",
      "Oxford shirt in white",
      "Collar detail",
    ]);
    expect(shirt.body.images as Json[]).toContainEqual({
      url: expect.stringMatching(/oxford-collar/),
      alt: "Collar detail",
      width: null,
      height: null,
    });
    expect(shirt.body.seo).toEqual({
      title: "Oxford Shirt | Harbor & Pine",
      description: "A garment-washed cotton Oxford, made to last.",
    });
  });

  it("puts every product in the frontpage collection, and lists featured images on request", async () => {
    const { body } = await get("/collections/frontpage");
    expect(body).toMatchObject({ title: "Home page", products_count: 5 });
    const list = await get("/products?include=image");
    expect((list.body.data as Json[]).map((p) => (p.image as Json | null)?.alt ?? null)).toEqual([
      "Oxford shirt in blue",
      null,
      "Round walnut frame",
      null,
      null,
    ]);
    const detail = await get("/products/canvas-tote?include=variants");
    expect(detail.body.variants).toEqual([
      expect.objectContaining({
        title: "Default Title",
        sku: null,
        compare_at_price: { amount: "30.00", currency: "USD" },
        image: null,
      }),
    ]);
  });
});

describe("a current-header CSV, published", () => {
  beforeAll(async () => {
    await importAndPublish(currentCsv, "shopify-current.csv");
  });

  it("serves Color and Colour as different options, and the normalised handle", async () => {
    expect(((await get("/products/linen-camp-shirt")).body.options as Json[]).map((o) => o.name)).toEqual([
      "size",
      "color",
    ]);
    expect(((await get("/products/merino-trail-sock")).body.options as Json[]).map((o) => o.name)).toEqual([
      "colour",
      "size",
    ]);
    expect((await get("/products/cafe-mug")).body).toMatchObject({
      title: "Café Mug",
      price: { min: { amount: "12.50" } },
    });
    const frames = await get("/products/oak-frame/variants?frame-style=Square");
    expect((frames.body.data as Json[]).map((v) => v.title)).toEqual(["Square / Oak", "Square / Ash"]);
  });
});

describe("products.json, published", () => {
  it("keeps the store's ids, so its carts' variant ids still resolve", async () => {
    await importAndPublish(productsJson, "products.json");
    const { body } = await get("/products/alpine-fleece");
    expect(body.id).toBe("gid://shopify/Product/7982301937893");
    const variants = await get("/products/alpine-fleece/variants?size=M");
    expect((variants.body.data as Json[]).map((v) => [v.id, v.title, v.available])).toEqual([
      ["43811201859749", "M / Forest", false],
      ["43811201892517", "M / Slate", true],
    ]);
    const images = await get("/products/alpine-fleece?include=images");
    expect((images.body.images as Json[])[0]).toEqual({
      url: expect.stringMatching(/fleece-main/),
      alt: null,
      width: 2048,
      height: 2048,
    });
  });

  it("takes the storefront's bare array too", async () => {
    await importAndPublish(arrayJson, "products-array.json");
    expect((await get("/products/round-frame")).body).toMatchObject({
      id: "gid://shopify/Product/8123456789012",
      options: [{ name: "frame-style", label: "Frame style" }, { name: "color" }],
    });
    expect((await get("/products/sold-out-print")).status).toBe(404);
  });
});
