import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import * as z from "zod/mini";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ProductSchema, VariantListSchema } from "../../src/catalog/api.ts";
import app from "../../src/index.ts";
import { publishSeedCatalog, seedCatalog } from "../helpers/catalog.ts";
import { SEED_EXAMPLES } from "../../src/openapi/seed-examples.ts";
import { API as BASE } from "../helpers/worker.ts";

/** `?include=` on the shipped seed, published into workerd KV and read through the worker. */
const seed = seedCatalog();
const DEFAULT_KEYS = [
  "object",
  "id",
  "handle",
  "title",
  "vendor",
  "product_type",
  "tags",
  "available",
  "price",
  "variants_count",
  "options",
];
const IMAGES = "https://images.northwind-threads.example/products";

async function get(path: string) {
  const res = await exports.default.fetch(`${BASE}${path}`);
  const text = await res.text();
  return { res, status: res.status, text, body: JSON.parse(text) as Record<string, unknown> };
}

beforeAll(async () => {
  await publishSeedCatalog();
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe("GET /products/{handle}?include=", () => {
  it("adds the sanitised description and its plain text, after the default fields", async () => {
    const { status, body } = await get("/products/essential-crew-tee-black?include=description");
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual([...DEFAULT_KEYS, "description_html", "description_text"]);
    expect(z.strictObject(ProductSchema.shape).parse(body)).toBeTruthy();
    expect(body.description_html).toBe(seed.products[0]?.description_html);
    expect(body.description_text).toBe(
      "Our everyday crew neck in a midweight 180 g/m² combed cotton jersey that softens with every wash. Regular fit, side-seamed Taped shoulders and a ribbed collar that keeps its shape Machine wash cold",
    );
  });

  it("answers the default fields exactly as without include", async () => {
    const plain = await get("/products/field-chore-jacket-olive");
    const full = await get("/products/field-chore-jacket-olive?include=description,images,seo,variants");
    expect(Object.keys(plain.body)).toEqual(DEFAULT_KEYS);
    const { description_html, description_text, images, seo, variants, ...rest } = full.body;
    expect(rest).toEqual(plain.body);
    expect(Object.keys(full.body)).toEqual([
      ...DEFAULT_KEYS,
      "description_html",
      "description_text",
      "images",
      "seo",
      "variants",
    ]);
  });

  it("adds the images in display order, with null for what the catalog does not know", async () => {
    const { body } = await get("/products/essential-crew-tee-black?include=images");
    expect(Object.keys(body)).toEqual([...DEFAULT_KEYS, "images"]);
    expect(body.images).toEqual(
      ["front", "back", "detail"].map((view) => ({
        url: `${IMAGES}/essential-crew-tee-black-${view}.jpg`,
        alt: `Essential Crew Tee - Black, ${view}`,
        width: 1600,
        height: 2000,
      })),
    );
    const beanie = await get("/products/waffle-knit-beanie?include=images");
    expect(beanie.body.images).toEqual([
      { url: `${IMAGES}/waffle-knit-beanie-front.jpg`, alt: null, width: null, height: null },
    ]);
    const card = await get("/products/gift-card-50?include=images");
    expect(card.body.images).toEqual([]);
  });

  it("answers the catalog's SEO fields when it has them", async () => {
    const { body } = await get("/products/essential-crew-tee-black?include=seo");
    expect(body.seo).toEqual({
      title: "Essential Crew Tee in Black | Northwind Threads",
      description: "A midweight cotton crew neck tee in black, sizes XS to 4XL.",
    });
  });

  it("falls back to the title and the whole description text when it is short", async () => {
    const { body } = await get("/products/heavyweight-pocket-tee-navy?include=seo,description");
    expect(body.seo).toEqual({ title: "Heavyweight Pocket Tee - Navy", description: body.description_text });
    const white = await get("/products/essential-crew-tee-white?include=seo");
    expect(white.body.seo).toEqual({
      title: "Essential Crew Tee in White | Northwind Threads",
      description:
        "The same crew neck tee in optic white: opaque enough to wear on its own. Regular fit 100% combed cotton",
    });
  });

  it("cuts a long description text at a word boundary, within 320 characters, for the SEO description", async () => {
    const { body } = await get("/products/field-chore-jacket-olive?include=seo,description");
    const text = body.description_text as string;
    const seo = body.seo as { title: string; description: string };
    expect(text.length).toBeGreaterThan(320);
    expect(seo.title).toBe("Field Chore Jacket - Olive");
    expect([...seo.description].length).toBeLessThanOrEqual(320);
    expect(seo.description.endsWith("…")).toBe(true);
    const kept = seo.description.slice(0, -1);
    expect(text.startsWith(kept)).toBe(true);
    // The cut falls between words: the next character of the text is a space.
    expect(text[kept.length]).toBe(" ");
    expect(kept.length).toBeGreaterThan(280);
  });

  it("adds every variant, as the variants endpoint renders them", async () => {
    const { body } = await get("/products/essential-crew-tee-black?include=variants");
    const list = await get("/products/essential-crew-tee-black/variants?limit=250");
    expect(Object.keys(body)).toEqual([...DEFAULT_KEYS, "variants"]);
    expect(body.variants).toEqual(list.body.data);
    expect((body.variants as unknown[]).length).toBe(8);
  });

  it("gives equivalent include lists one body, one ETag and one cache entry", async () => {
    const ctx = createExecutionContext();
    const first = await app.fetch(
      new Request(`${BASE}/products/harbor-zip-hoodie-heather-grey?include=images,seo`),
      env,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    const log = vi.spyOn(console, "log");
    for (const include of ["seo,images", "seo,images,seo", "images,%20seo"]) {
      const again = await get(`/products/harbor-zip-hoodie-heather-grey?include=${include}`);
      expect(again.text).toBe(await first.clone().text());
      expect(again.res.headers.get("etag")).toBe(first.headers.get("etag"));
      const line = JSON.parse(String(log.mock.calls.at(-1)?.[0])) as Record<string, unknown>;
      expect(line).toMatchObject({ status: 200, cache: "hit" });
    }
  });

  it("keeps each include apart in the cache", async () => {
    const seo = await get("/products/harbor-pullover-hoodie-forest?include=seo");
    const images = await get("/products/harbor-pullover-hoodie-forest?include=images");
    const plain = await get("/products/harbor-pullover-hoodie-forest");
    expect(Object.keys(seo.body).at(-1)).toBe("seo");
    expect(Object.keys(images.body).at(-1)).toBe("images");
    expect(Object.keys(plain.body)).toEqual(DEFAULT_KEYS);
    expect(new Set([seo, images, plain].map((r) => r.res.headers.get("etag"))).size).toBe(3);
  });

  it.each([
    ["/products/essential-crew-tee-black?include=reviews", "parameter_invalid", "include"],
    ["/products/essential-crew-tee-black?include=images,reviews", "parameter_invalid", "include"],
    ["/products/essential-crew-tee-black?include=", "parameter_invalid", "include"],
    ["/products/essential-crew-tee-black?include=image", "parameter_invalid", "include"],
    ["/products/essential-crew-tee-black?include=seo&include=images", "parameter_invalid", "include"],
    ["/products/essential-crew-tee-black?expand=seo", "parameter_unknown", "expand"],
    ["/products/essential-crew-tee-black/variants?include=variants", "parameter_unknown", "include"],
  ])("answers %s with 400 %s naming %s", async (path, code, param) => {
    const { status, body } = await get(path);
    expect(status).toBe(400);
    expect(body).toEqual({ error: expect.objectContaining({ type: "invalid_request_error", code, param }) });
  });

  it("still answers 404 sold_out for a sold-out product with include", async () => {
    const { status, body } = await get("/products/ridge-puffer-vest-black?include=description,images");
    expect(status).toBe(404);
    expect(body).toMatchObject({ error: { code: "sold_out" } });
  });
});

describe("the variants endpoint's sku, compare_at_price and image", () => {
  type V = { title: string; sku: string | null; compare_at_price: { amount: string } | null; image: string | null };

  it("carries all three on every variant, null when the catalog has none", async () => {
    const { body } = await get("/products/essential-crew-tee-black/variants?size=M");
    expect(z.strictObject(VariantListSchema.shape).parse(body)).toBeTruthy();
    expect(body.data).toEqual([
      expect.objectContaining({ title: "M / Black", sku: "NW-ECT-BLK-M", compare_at_price: null, image: null }),
    ]);
    const tote = await get("/products/canvas-market-tote/variants");
    expect(tote.body.data).toEqual([expect.objectContaining({ sku: "NW-CMT", compare_at_price: null, image: null })]);
    const beanie = await get("/products/waffle-knit-beanie/variants");
    expect(beanie.body.data).toEqual([expect.objectContaining({ sku: null, compare_at_price: null, image: null })]);
  });

  it("answers compare-at prices above the price, with two decimals, and drops one that is not above it", async () => {
    const hoodie = await get("/products/harbor-zip-hoodie-heather-grey/variants");
    for (const v of hoodie.body.data as V[]) expect(v.compare_at_price).toEqual({ amount: "79.00", currency: "USD" });
    const jacket = await get("/products/field-chore-jacket-olive/variants");
    const byTitle = Object.fromEntries((jacket.body.data as V[]).map((v) => [v.title, v]));
    expect(byTitle["M / Olive"]?.compare_at_price).toEqual({ amount: "168.00", currency: "USD" });
    // The seed gives XL a compare-at price equal to its price: no saving, so none is shown.
    expect(byTitle["XL / Olive"]?.compare_at_price).toBeNull();
    expect(byTitle["XL / Olive"]?.image).toBe(`${IMAGES}/field-chore-jacket-olive-front.jpg`);
  });
});

describe("the OpenAPI example of include", () => {
  it("is what the seed answers", async () => {
    const { body } = await get("/products/canvas-market-tote?include=description,images,seo");
    expect(body).toEqual(SEED_EXAMPLES.productWithContent);
  });
});
