import { exports } from "cloudflare:workers";
import fc from "fast-check";
import * as z from "zod/mini";
import { beforeAll, describe, expect, it } from "vitest";
import { ProductListSchema, ProductSchema, VariantListSchema } from "../../src/catalog/api.ts";
import { publishSeedCatalog, seedCatalog } from "../helpers/catalog.ts";

import { API as BASE } from "../helpers/worker.ts";
const seed = seedCatalog();

async function get(path: string, init?: RequestInit) {
  const res = await exports.default.fetch(`${BASE}${path}`, init);
  const text = await res.text();
  return { res, status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

type Item = { handle: string; price: { amount: string }; available: boolean };

beforeAll(async () => {
  await publishSeedCatalog();
});

describe("GET /products", () => {
  it("answers the list envelope with exactly the contract's fields", async () => {
    const { status, body } = await get("/products");
    expect(status).toBe(200);
    expect(Object.keys(body ?? {})).toEqual(["object", "count", "data", "has_more"]);
    expect(z.strictObject(ProductListSchema.shape).parse(body)).toBeTruthy();
    const items = body?.data as Record<string, unknown>[];
    for (const item of items) expect(Object.keys(item)).toEqual(["id", "handle", "title", "price", "available"]);
    expect(body).toMatchObject({ object: "list", count: seed.products.length, has_more: false });
  });

  it("lists every product in catalog order with the default limit of 50", async () => {
    const { body } = await get("/products");
    expect((body!.data as Item[]).map((p) => p.handle)).toEqual(seed.products.map((p) => p.handle));
  });

  it("prices each item at its lowest variant price, with two decimals", async () => {
    const { body } = await get("/products?limit=250");
    const items = body?.data as Item[];
    expect(items.find((p) => p.handle === "essential-crew-tee-white")?.price).toEqual({
      amount: "28.00",
      currency: "USD",
    });
    expect(items.find((p) => p.handle === "example-hat")?.price).toEqual({ amount: "100.00", currency: "USD" });
    expect(items.find((p) => p.handle === "harbor-pullover-hoodie-forest")?.price.amount).toBe("59.50");
    for (const item of items) expect(item.price.amount).toMatch(/^\d+\.\d{2}$/);
  });

  it("lists sold-out products with available false", async () => {
    const { body } = await get("/products?limit=250");
    const soldOut = (body!.data as Item[]).filter((p) => !p.available).map((p) => p.handle);
    expect(soldOut).toEqual(seed.products.filter((p) => !p.available).map((p) => p.handle));
    expect(soldOut).toContain("example-t-shirt");
  });

  it("walks forward with starting_after and visits every product exactly once", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let guard = 0; guard < 20; guard++) {
      const { body } = await get(`/products?limit=5${cursor ? `&starting_after=${cursor}` : ""}`);
      const handles = (body!.data as Item[]).map((p) => p.handle);
      seen.push(...handles);
      expect(body?.count).toBe(seed.products.length);
      if (!body?.has_more) break;
      cursor = handles.at(-1);
    }
    expect(seen).toEqual(seed.products.map((p) => p.handle));
  });

  it("walks backward with ending_before and visits every product exactly once", async () => {
    const handles = seed.products.map((p) => p.handle);
    const seen: string[] = [];
    let cursor = handles.at(-1);
    seen.unshift(cursor ?? "");
    for (let guard = 0; guard < 20; guard++) {
      const { body } = await get(`/products?limit=4&ending_before=${cursor}`);
      const page = (body!.data as Item[]).map((p) => p.handle);
      seen.unshift(...page);
      if (!body?.has_more) break;
      cursor = page[0];
    }
    expect(seen).toEqual(handles);
  });

  it.each([
    ["limit=0", "limit"],
    ["limit=251", "limit"],
    ["limit=ten", "limit"],
    ["limit=2.5", "limit"],
    ["starting_after=Not_A_Handle", "starting_after"],
    ["starting_after=no-such-product", "starting_after"],
    ["ending_before=no-such-product", "ending_before"],
    ["starting_after=example-hat&ending_before=example-pants", "ending_before"],
    ["limit=5&limit=6", "limit"],
  ])("rejects %s with 400 parameter_invalid naming %s", async (query, param) => {
    const { status, body } = await get(`/products?${query}`);
    expect(status).toBe(400);
    expect(body).toEqual({
      error: expect.objectContaining({ type: "invalid_request_error", code: "parameter_invalid", param }),
    });
  });

  it("rejects an unknown query parameter with 400 parameter_unknown", async () => {
    const { status, body } = await get("/products?cachebust=123");
    expect(status).toBe(400);
    expect(body).toMatchObject({ error: { code: "parameter_unknown", param: "cachebust" } });
  });
});

describe("GET /products/{handle}", () => {
  it("answers the Product with exactly the contract's fields", async () => {
    const { status, body } = await get("/products/essential-crew-tee-black");
    expect(status).toBe(200);
    expect(Object.keys(body ?? {}).sort()).toEqual(
      [
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
      ].sort(),
    );
    expect(z.strictObject(ProductSchema.shape).parse(body)).toBeTruthy();
    expect(body).toMatchObject({
      object: "product",
      id: expect.stringMatching(/^gid:\/\/shopify\/Product\/\d+$/),
      available: true,
      price: { min: { amount: "28.00", currency: "USD" }, max: { amount: "32.00", currency: "USD" } },
      variants_count: 8,
      options: [
        { name: "size", values: ["XS", "S", "M", "L", "XL", "2XL", "3XL", "4XL"] },
        { name: "color", values: ["Black"] },
      ],
    });
  });

  it("writes one-decimal source prices with two decimals", async () => {
    const { body } = await get("/products/essential-crew-tee-white");
    expect(body?.price).toEqual({
      min: { amount: "28.00", currency: "USD" },
      max: { amount: "32.00", currency: "USD" },
    });
    expect(body?.options).toEqual([
      { name: "size", label: "Size", values: ["S", "M", "L", "XL", "2XL", "3XL"] },
      { name: "color", label: "Color", values: ["White"] },
    ]);
  });

  it("gives single-variant products an empty options list", async () => {
    const { body } = await get("/products/canvas-market-tote");
    expect(body).toMatchObject({
      variants_count: 1,
      options: [],
      price: { min: { amount: "36.00" }, max: { amount: "36.00" } },
    });
  });

  it.each(["example-t-shirt", "example-pants", "example-hat", "example-hoodie", "ridge-puffer-vest-black"])(
    "answers 404 sold_out for the sold-out product %s",
    async (handle) => {
      const { status, body } = await get(`/products/${handle}`);
      expect(status).toBe(404);
      expect(body).toEqual({
        error: { type: "not_found_error", code: "sold_out", message: "Sold out", param: "handle" },
      });
    },
  );

  it("answers 404 resource_missing for an unknown handle", async () => {
    const { status, body } = await get("/products/no-such-thing");
    expect(status).toBe(404);
    expect(body).toMatchObject({ error: { type: "not_found_error", code: "resource_missing", param: "handle" } });
  });

  it.each(["Black-Tee", "black_tee", "-tee", "tee-", "black--tee", "t%C3%A9e", "a".repeat(256)])(
    "answers 404 resource_missing for the malformed handle %s",
    async (handle) => {
      const { status, body, res } = await get(`/products/${handle}`);
      expect(status).toBe(404);
      expect(body).toMatchObject({ error: { code: "resource_missing" } });
      // No X-Catalog-Version: the version comes from storage, which a malformed handle never reaches.
      expect(res.headers.get("x-catalog-version")).toBeNull();
    },
  );

  it("rejects any query parameter on the detail with 400 parameter_unknown", async () => {
    const { status, body } = await get("/products/essential-crew-tee-black?fields=all");
    expect(status).toBe(400);
    expect(body).toMatchObject({ error: { code: "parameter_unknown", param: "fields" } });
  });

  it("answers HEAD like GET, without a body", async () => {
    const head = await exports.default.fetch(`${BASE}/products/essential-crew-tee-black`, { method: "HEAD" });
    const getRes = await exports.default.fetch(`${BASE}/products/essential-crew-tee-black`);
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    expect(head.headers.get("etag")).toBe(getRes.headers.get("etag"));
    expect(head.headers.get("x-catalog-version")).toBe(getRes.headers.get("x-catalog-version"));
  });

  it("lets any origin read the catalog", async () => {
    const { res } = await get("/products/essential-crew-tee-black", {
      headers: { Origin: "https://elsewhere.example" },
    });
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("answers 405 with Allow for a write to a product", async () => {
    const { status, res } = await get("/products/essential-crew-tee-black", { method: "POST" });
    expect(status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
  });
});

describe("GET /products/{handle}/variants", () => {
  type V = {
    id: string;
    title: string;
    options: Record<string, string>;
    available: boolean;
    price: { amount: string };
  };

  it("lists every variant with exactly the contract's fields", async () => {
    const { status, body } = await get("/products/essential-crew-tee-black/variants");
    expect(status).toBe(200);
    expect(VariantListSchema.parse(body)).toBeTruthy();
    const data = body?.data as V[];
    expect(body?.count).toBe(8);
    for (const v of data) {
      expect(Object.keys(v)).toEqual([
        "object",
        "id",
        "gid",
        "product_handle",
        "title",
        "options",
        "price",
        "available",
        "sku",
        "compare_at_price",
        "image",
        "requires_shipping",
      ]);
    }
    expect(data[0]).toEqual({
      object: "variant",
      id: "44102938475600",
      gid: "gid://shopify/ProductVariant/44102938475600",
      product_handle: "essential-crew-tee-black",
      title: "XS / Black",
      options: { size: "XS", color: "Black" },
      price: { amount: "28.00", currency: "USD" },
      available: true,
      sku: "NW-ECT-BLK-XS",
      compare_at_price: null,
      image: null,
      requires_shipping: true,
    });
  });

  it("filters by size and color", async () => {
    const { body } = await get("/products/essential-crew-tee-black/variants?size=M&color=Black");
    expect((body!.data as V[]).map((v) => v.title)).toEqual(["M / Black"]);
    const all = await get("/products/essential-crew-tee-black/variants?color=Black");
    expect(all.body?.count).toBe(8);
  });

  it("filters a single-variant product by title=Default Title", async () => {
    const { status, body } = await get("/products/canvas-market-tote/variants?title=Default%20Title");
    expect(status).toBe(200);
    expect(body?.data).toEqual([
      expect.objectContaining({ title: "Default Title", options: { title: "Default Title" } }),
    ]);
  });

  it.each([
    ["essential-crew-tee-white", "size=XS", "size"],
    ["essential-crew-tee-white", "size=4XL", "size"],
    ["essential-crew-tee-black", "color=White", "color"],
    ["essential-crew-tee-black", "title=Default%20Title", "title"],
  ])("answers 400 parameter_invalid for %s?%s (outside the product's values)", async (handle, query, param) => {
    const { status, body } = await get(`/products/${handle}/variants?${query}`);
    expect(status).toBe(400);
    expect(body).toMatchObject({ error: { type: "invalid_request_error", code: "parameter_invalid", param } });
  });

  it("answers 200 for a sold-out product, every variant unavailable", async () => {
    const { status, body } = await get("/products/example-hat/variants");
    expect(status).toBe(200);
    expect(body?.data).toEqual([
      expect.objectContaining({
        title: "Default Title",
        available: false,
        price: { amount: "100.00", currency: "USD" },
      }),
    ]);
    const vest = await get("/products/ridge-puffer-vest-black/variants");
    expect((vest.body!.data as V[]).every((v) => !v.available)).toBe(true);
  });

  it("marks a sold-out size unavailable while the product stays available", async () => {
    const { body } = await get("/products/heavyweight-pocket-tee-navy/variants?size=S");
    expect(body?.data).toEqual([expect.objectContaining({ title: "S / Navy", available: false })]);
    expect((await get("/products/heavyweight-pocket-tee-navy")).status).toBe(200);
  });

  it("pages variants by id", async () => {
    const first = await get("/products/essential-crew-tee-black/variants?limit=3");
    const ids = (first.body!.data as V[]).map((v) => v.id);
    expect(first.body?.has_more).toBe(true);
    const next = await get(`/products/essential-crew-tee-black/variants?limit=3&starting_after=${ids.at(-1)}`);
    expect((next.body!.data as V[]).map((v) => v.title)).toEqual(["L / Black", "XL / Black", "2XL / Black"]);
  });

  it("answers 404 resource_missing for an unknown product", async () => {
    const { status, body } = await get("/products/no-such-thing/variants");
    expect(status).toBe(404);
    expect(body).toMatchObject({ error: { code: "resource_missing" } });
  });

  it("rejects an unknown selector with 400 parameter_unknown", async () => {
    const { status, body } = await get("/products/essential-crew-tee-black/variants?fit=slim");
    expect(status).toBe(400);
    expect(body).toMatchObject({ error: { code: "parameter_unknown", param: "fit" } });
  });

  it("answers a selector the product has no option for with 400 parameter_unknown (size on a single-variant product)", async () => {
    const { status, body } = await get("/products/canvas-market-tote/variants?size=M");
    expect(status).toBe(400);
    expect(body).toMatchObject({ error: { code: "parameter_unknown", param: "size" } });
  });
});

describe("arbitrary input", () => {
  it("never answers a path handle with anything but 200 or a 404 envelope", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 300 }), async (raw) => {
        const res = await exports.default.fetch(`${BASE}/products/${encodeURIComponent(raw)}`);
        expect([200, 404]).toContain(res.status);
        if (res.status === 404) expect(Object.keys((await res.json()) as object)).toEqual(["error"]);
        else await res.body?.cancel();
      }),
      { numRuns: 60 },
    );
  });

  it("never answers a query string with anything but 200 or a 400 envelope", async () => {
    const key = fc.constantFrom("limit", "starting_after", "ending_before", "size", "x", "__proto__", "constructor");
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(key, fc.string({ maxLength: 40 })), { maxLength: 4 }), async (pairs) => {
        const query = new URLSearchParams(pairs).toString();
        const res = await exports.default.fetch(`${BASE}/products?${query}`);
        expect([200, 400]).toContain(res.status);
        if (res.status === 400)
          expect((await res.json()) as object).toMatchObject({ error: { type: "invalid_request_error" } });
        else await res.body?.cancel();
      }),
      { numRuns: 60 },
    );
  });
});
