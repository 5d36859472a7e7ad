import { describe, expect, it } from "vitest";
import { ProductListSchema, ProductSchema, VariantListSchema, CollectionSchema } from "../../src/catalog/api.ts";
import { ErrorResponseSchema } from "../../src/http/errors.ts";
import { api } from "./http.ts";

describe("catalog over real HTTP against npm run dev", () => {
  it("lists the seed catalog, sold-out products included, with public caching headers", async () => {
    const res = await api("/api/v1/products?limit=250");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=60, stale-while-revalidate=300");
    expect(res.headers.get("x-catalog-version")).toBeTruthy();
    expect(res.headers.get("etag")).toMatch(/^"/);
    const page = ProductListSchema.parse(await res.json());
    expect(page.count).toBe(page.data.length);
    expect(page.data.length).toBeGreaterThanOrEqual(24);
    expect(page.data.find((p) => p.handle === "example-t-shirt")).toMatchObject({
      available: false,
      price: { amount: "100.00", currency: "USD" },
    });
  });

  it("pages with limit and starting_after", async () => {
    const first = ProductListSchema.parse(await (await api("/api/v1/products?limit=2")).json());
    expect(first.has_more).toBe(true);
    const next = ProductListSchema.parse(
      await (await api(`/api/v1/products?limit=2&starting_after=${first.data[1]?.handle}`)).json(),
    );
    expect(next.data[0]?.handle).not.toBe(first.data[1]?.handle);
    expect(next.count).toBe(first.count);
  });

  it("answers a product by handle, 404 Sold out for a sold-out one and 404 resource_missing for an unknown one", async () => {
    const ok = await api("/api/v1/products/essential-crew-tee-black");
    expect(ok.status).toBe(200);
    expect(ProductSchema.parse(await ok.json()).options[0]?.values).toEqual([
      "XS",
      "S",
      "M",
      "L",
      "XL",
      "2XL",
      "3XL",
      "4XL",
    ]);
    const sold = await api("/api/v1/products/example-hoodie");
    expect(sold.status).toBe(404);
    expect(ErrorResponseSchema.parse(await sold.json()).error).toMatchObject({
      type: "not_found_error",
      code: "sold_out",
      message: "Sold out",
    });
    const unknown = await api("/api/v1/products/no-such-shirt");
    expect(unknown.status).toBe(404);
    expect(ErrorResponseSchema.parse(await unknown.json()).error.code).toBe("resource_missing");
  });

  it("selects variants by size and color", async () => {
    const res = await api("/api/v1/products/essential-crew-tee-white/variants?size=M&color=White");
    const list = VariantListSchema.parse(await res.json());
    expect(list.data.map((v) => v.title)).toEqual(["M / White"]);
  });

  it("shows a collection with each product's endpoint status", async () => {
    const res = await api("/api/v1/collections/sample-products");
    const collection = CollectionSchema.parse(await res.json());
    expect(collection.products.data.map((p) => p.endpoint_status)).toEqual([404, 404, 404, 404]);
  });

  it("answers If-None-Match with 304 and no body", async () => {
    const first = await api("/api/v1/products/essential-crew-tee-black");
    await first.body?.cancel();
    const etag = first.headers.get("etag") ?? "";
    const again = await api("/api/v1/products/essential-crew-tee-black", { headers: { "If-None-Match": etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
    expect(await again.text()).toBe("");
  });

  it("lets any origin read the catalog", async () => {
    const res = await api("/api/v1/products?limit=1", { headers: { Origin: "https://anywhere.example" } });
    await res.body?.cancel();
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("refuses an unknown query parameter so the cache cannot be bypassed", async () => {
    const res = await api("/api/v1/products?cachebuster=1");
    expect(res.status).toBe(400);
    expect(ErrorResponseSchema.parse(await res.json()).error).toMatchObject({
      code: "parameter_unknown",
      param: "cachebuster",
    });
  });
});
