import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { CollectionListSchema, CollectionSchema } from "../../src/catalog/api.ts";
import { publishSeedCatalog, seedCatalog } from "../helpers/catalog.ts";

import { API as BASE } from "../helpers/worker.ts";
const seed = seedCatalog();

async function get(path: string) {
  const res = await exports.default.fetch(`${BASE}${path}`);
  return { res, status: res.status, body: (await res.json()) as Record<string, unknown> };
}

type Entry = { handle: string; available: boolean; endpoint_status: number; url: string; price: { amount: string } };
type Page = { object: string; count: number; data: Entry[]; has_more: boolean };

beforeAll(async () => {
  await publishSeedCatalog();
});

describe("GET /collections", () => {
  it("lists every collection with exactly the contract's fields", async () => {
    const { status, body } = await get("/collections");
    expect(status).toBe(200);
    expect(CollectionListSchema.parse(body)).toBeTruthy();
    const data = body.data as Record<string, unknown>[];
    for (const item of data) expect(Object.keys(item)).toEqual(["object", "handle", "title", "products_count"]);
    expect(data.map((c) => c.handle)).toEqual(seed.collections.map((c) => c.handle));
    expect(data[0]).toEqual({ object: "collection", handle: "frontpage", title: "Home page", products_count: 12 });
  });

  it("pages collections with limit and starting_after", async () => {
    const { body } = await get("/collections?limit=2&starting_after=frontpage");
    expect((body.data as Entry[]).map((c) => c.handle)).toEqual(seed.collections.slice(1, 3).map((c) => c.handle));
    expect(body.has_more).toBe(true);
  });

  it("rejects a cursor that is not a collection with 400 parameter_invalid", async () => {
    const { status, body } = await get("/collections?starting_after=no-such-collection");
    expect(status).toBe(400);
    expect(body).toMatchObject({ error: { code: "parameter_invalid", param: "starting_after" } });
  });
});

describe("GET /collections/{handle}", () => {
  it("answers frontpage with its products, each with endpoint_status and url", async () => {
    const { status, body } = await get("/collections/frontpage");
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(["object", "handle", "title", "products_count", "products"]);
    expect(CollectionSchema.parse(body)).toBeTruthy();
    const products = body.products as Page;
    expect(body).toMatchObject({ object: "collection", handle: "frontpage", title: "Home page", products_count: 12 });
    expect(products.object).toBe("list");
    expect(products.count).toBe(12);
    const frontpage = seed.collections.find((c) => c.handle === "frontpage")?.products ?? [];
    expect(products.data.map((p) => p.handle)).toEqual(frontpage);
    for (const p of products.data) {
      expect(Object.keys(p)).toEqual(["id", "handle", "title", "price", "available", "endpoint_status", "url"]);
      expect(p.url).toBe(`/api/v1/products/${p.handle}`);
    }
  });

  it("reports endpoint_status as what GET url answers", async () => {
    const { body } = await get("/collections/frontpage");
    for (const p of (body.products as Page).data) {
      const res = await exports.default.fetch(`https://storefront.test${p.url}`);
      expect(res.status).toBe(p.endpoint_status);
      expect(p.endpoint_status).toBe(p.available ? 200 : 404);
    }
  });

  it("holds the four placeholders, all sold out at 100.00 with endpoint_status 404", async () => {
    const { body } = await get("/collections/sample-products");
    const products = body.products as Page;
    expect(body.products_count).toBe(4);
    expect(products.data.map((p) => [p.handle, p.price.amount, p.available, p.endpoint_status])).toEqual([
      ["example-t-shirt", "100.00", false, 404],
      ["example-pants", "100.00", false, 404],
      ["example-hat", "100.00", false, 404],
      ["example-hoodie", "100.00", false, 404],
    ]);
  });

  it("pages a collection's products in the collection's order, forward and back", async () => {
    const frontpage = seed.collections.find((c) => c.handle === "frontpage")?.products ?? [];
    const next = await get(`/collections/frontpage?limit=3&starting_after=${frontpage[4]}`);
    expect((next.body.products as Page).data.map((p) => p.handle)).toEqual(frontpage.slice(5, 8));
    expect((next.body.products as Page).has_more).toBe(true);
    const back = await get(`/collections/frontpage?limit=3&ending_before=${frontpage[2]}`);
    expect((back.body.products as Page).data.map((p) => p.handle)).toEqual(frontpage.slice(0, 2));
    expect((back.body.products as Page).has_more).toBe(false);
    const last = await get(`/collections/frontpage?starting_after=${frontpage.at(-1)}`);
    expect(last.body.products).toEqual({ object: "list", count: 12, data: [], has_more: false });
  });

  it("rejects a cursor product that is not in the collection with 400 parameter_invalid", async () => {
    const { status, body } = await get("/collections/sample-products?starting_after=essential-crew-tee-black");
    expect(status).toBe(400);
    expect(body).toMatchObject({ error: { code: "parameter_invalid", param: "starting_after" } });
  });

  it("answers 404 resource_missing for an unknown collection, with or without a cursor", async () => {
    for (const path of [
      "/collections/no-such-collection",
      "/collections/no-such-collection?starting_after=example-hat",
    ]) {
      const { status, body } = await get(path);
      expect(status).toBe(404);
      expect(body).toMatchObject({ error: { type: "not_found_error", code: "resource_missing", param: "handle" } });
    }
  });

  it("answers 404 for a malformed collection handle and 400 for an unknown parameter", async () => {
    expect((await get("/collections/Front_Page")).status).toBe(404);
    const unknown = await get("/collections/frontpage?colour=red");
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ error: { code: "parameter_unknown", param: "colour" } });
  });
});
