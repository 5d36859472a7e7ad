import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { CollectionSchema, ProductListSchema } from "../../src/catalog/api.ts";
import { type Pointer, POINTER_KEY } from "../../src/catalog/layout.ts";
import { publishSeedCatalog, seedCatalog } from "../helpers/catalog.ts";
import { API as BASE } from "../helpers/worker.ts";

/** `?include=image` on product lists and collections, on the shipped seed published into workerd KV. */
const seed = seedCatalog();
const IMAGES = "https://images.northwind-threads.example/products";

async function get(path: string) {
  const res = await exports.default.fetch(`${BASE}${path}`);
  return { res, status: res.status, body: (await res.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  await publishSeedCatalog();
});

describe("?include=image on product lists", () => {
  type Item = Record<string, unknown> & { handle: string; image: unknown };
  const featured = (handle: string) => {
    const first: { url: string; alt?: string; width?: number; height?: number } | undefined = seed.products.find(
      (p) => p.handle === handle,
    )?.images?.[0];
    return first
      ? { url: first.url, alt: first.alt ?? null, width: first.width ?? null, height: first.height ?? null }
      : null;
  };

  it("adds each product's featured image to GET /products, and nothing else changes", async () => {
    const plain = await get("/products?limit=250");
    const { status, body } = await get("/products?limit=250&include=image");
    expect(status).toBe(200);
    expect(ProductListSchema.parse(body)).toBeTruthy();
    const items = body.data as Item[];
    expect(items.map(({ image, ...rest }) => rest)).toEqual(plain.body.data);
    for (const item of items)
      expect(Object.keys(item)).toEqual(["id", "handle", "title", "price", "available", "image"]);
    for (const item of items) expect(item.image).toEqual(featured(item.handle));
    expect(items.find((p) => p.handle === "essential-crew-tee-black")?.image).toMatchObject({
      url: `${IMAGES}/essential-crew-tee-black-front.jpg`,
    });
    expect(items.find((p) => p.handle === "gift-card-50")?.image).toBeNull();
  });

  it("pages the image list like the plain one", async () => {
    const { body } = await get("/products?limit=3&starting_after=canvas-market-tote&include=image");
    expect((body.data as Item[]).map((p) => p.handle)).toEqual([
      "waffle-knit-beanie",
      "six-panel-cap-washed-black",
      "crew-sock-three-pack",
    ]);
    expect((body.data as Item[])[0]?.image).toEqual(featured("waffle-knit-beanie"));
  });

  it("adds the featured image to a collection's products", async () => {
    const plain = await get("/collections/frontpage");
    const { status, body } = await get("/collections/frontpage?include=image");
    expect(status).toBe(200);
    expect(CollectionSchema.parse(body)).toBeTruthy();
    const products = body.products as { data: Item[] };
    const plainProducts = plain.body.products as { data: unknown[] };
    expect(products.data.map(({ image, ...rest }) => rest)).toEqual(plainProducts.data);
    for (const item of products.data) {
      expect(Object.keys(item)).toEqual([
        "id",
        "handle",
        "title",
        "price",
        "available",
        "endpoint_status",
        "url",
        "image",
      ]);
      expect(item.image).toEqual(featured(item.handle));
    }
    const { products: _p, ...header } = body;
    const { products: _q, ...plainHeader } = plain.body;
    expect(header).toEqual(plainHeader);
  });

  it("answers an unknown collection with include=image 404 resource_missing", async () => {
    const { status, body } = await get("/collections/no-such-collection?include=image");
    expect(status).toBe(404);
    expect(body).toMatchObject({ error: { code: "resource_missing" } });
  });
});

describe("include on lists that do not take it", () => {
  it.each([
    ["/products?include=images", "parameter_invalid", "include"],
    ["/products?include=", "parameter_invalid", "include"],
    ["/collections/frontpage?include=description", "parameter_invalid", "include"],
    ["/collections?include=image", "parameter_unknown", "include"],
  ])("answers %s with 400 %s naming %s", async (path, code, param) => {
    const { status, body } = await get(path);
    expect(status).toBe(400);
    expect(body).toEqual({ error: expect.objectContaining({ type: "invalid_request_error", code, param }) });
  });
});

describe("a version published before product content existed (what a rollback may return to)", () => {
  it("answers every include as if no product had content, instead of failing", async () => {
    const pointer = (await env.CATALOG.get<Pointer>(POINTER_KEY, "json")) as Pointer;
    const { content_shards: _dropped, ...old } = pointer.current;
    await env.CATALOG.put(POINTER_KEY, JSON.stringify({ ...pointer, current: old }));
    try {
      const detail = await get("/products/canvas-market-tote?include=description,images");
      expect(detail.status).toBe(200);
      expect(detail.body).toMatchObject({ description_html: "", description_text: "", images: [] });
      const list = await get("/products?limit=2&include=image");
      expect(list.body.data).toEqual([
        expect.objectContaining({ image: null }),
        expect.objectContaining({ image: null }),
      ]);
      const collection = await get("/collections/accessories?limit=1&include=image");
      expect((collection.body.products as { data: unknown[] }).data).toEqual([
        expect.objectContaining({ handle: "canvas-market-tote", image: null }),
      ]);
    } finally {
      await env.CATALOG.put(POINTER_KEY, JSON.stringify(pointer));
    }
  });
});
