import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { searchWords, valueKey } from "../../src/browse/text.ts";
import { d1Target, dropStaleBrowse, writeBrowseIndex } from "../../src/publish/browse-index.ts";
import { publishCatalog, rollbackCatalog } from "../../src/publish/publish.ts";
import { seedCatalog } from "../helpers/catalog.ts";

/** Browse on the seed catalog: examples, accents, empty results, every 400, caching. */

const BASE = "https://shop.example/api/v1";
type Json = Record<string, unknown> & { data: { handle: string }[]; count: number; has_more: boolean };

async function get(path: string, headers: Record<string, string> = {}) {
  const response = await exports.default.fetch(`${BASE}${path}`, { headers });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: (text ? JSON.parse(text) : null) as Json };
}
const handles = (body: Json) => body.data.map((p) => p.handle);

/** The seed with one accented product, so `q=cafe` has something to find. */
function catalog() {
  const seed = seedCatalog();
  const tee = seed.products[0];
  if (tee) {
    tee.title = "Café Crew Tee - Black";
    tee.tags = [...tee.tags, "Été"];
  }
  return seed;
}

beforeAll(async () => {
  await publishCatalog(env.CATALOG, catalog(), { browse: d1Target(env.BROWSE) });
});

describe("text folding", () => {
  it("cuts words case- and accent-insensitively, SKUs at their dashes", () => {
    expect(searchWords("Café CRÈME brûlée")).toEqual(["cafe", "creme", "brulee"]);
    expect(searchWords("NWT-TEE-BLK-M")).toEqual(["nwt", "tee", "blk", "m"]);
    expect(searchWords("ℌello İstanbul")).toEqual(["hello", "istanbul"]);
  });
  it("keys filter values by case only", () => {
    expect(valueKey("Été")).toBe("été");
    expect(valueKey("Été")).not.toBe(valueKey("Ete"));
  });
});

describe("GET /products with browse parameters", () => {
  it("finds accented titles without the accent, and the last word as a prefix", async () => {
    expect(handles((await get("/products?q=cafe")).body)).toEqual(["essential-crew-tee-black"]);
    expect(handles((await get("/products?q=CAF")).body)).toEqual(["essential-crew-tee-black"]);
    expect(handles((await get("/products?q=%C3%A9t%C3%A9")).body)).toEqual(["essential-crew-tee-black"]);
  });

  it("puts title matches above tag matches above description matches (relevance)", async () => {
    const { body } = await get("/products?q=tee");
    // "Six-Panel Cap"... has no tee; the four tees match by title; none only by tag here.
    // Among them BM25 orders by weight (title length, description), no longer catalog order.
    expect(handles(body).slice(0, 4).sort()).toEqual([
      "essential-crew-tee-black",
      "essential-crew-tee-white",
      "heavyweight-pocket-tee-navy",
      "washed-graphic-tee-sand",
    ]);
    const wool = await get("/products?q=wool");
    // Wool Blanket Scarf matches in its title; Merino Long Sleeve by its tag; Waffle Knit Beanie
    // only in its description ("acrylic-wool blend"): descriptions are searched, weighted lowest.
    expect(handles(wool.body)).toEqual([
      "wool-blanket-scarf-plaid",
      "merino-long-sleeve-charcoal",
      "waffle-knit-beanie",
    ]);
  });

  it("filters: repeatable values OR within, AND across, case-insensitive", async () => {
    const { body } = await get("/products?tag=LINEN&tag=denim&vendor=saltmarsh%20supply");
    expect(handles(body)).toEqual(["linen-camp-shirt-natural"]);
    expect(body.count).toBe(1);
  });

  it("option filters need an available variant with the value", async () => {
    const { body } = await get("/products?option.size=4XL");
    expect(handles(body)).toEqual(["essential-crew-tee-black"]);
    const vest = await get("/products?option.color=black&available=false");
    expect(handles(vest.body)).toEqual([]);
  });

  it("sorts by price with ties in catalog order, and pages stably both ways", async () => {
    const first = await get("/products?sort=price_asc&limit=3");
    expect(handles(first.body)).toEqual(["crew-sock-three-pack", "ribbed-tank-white", "waffle-knit-beanie"]);
    const next = await get(`/products?sort=price_asc&limit=3&starting_after=waffle-knit-beanie`);
    expect(handles(next.body)).toEqual([
      "essential-crew-tee-black",
      "essential-crew-tee-white",
      "insulated-bottle-750ml",
    ]);
    const back = await get(`/products?sort=price_asc&limit=3&ending_before=essential-crew-tee-black`);
    expect(handles(back.body)).toEqual(handles(first.body));
    expect(back.body.has_more).toBe(false);
  });

  it("answers an empty list for no matches, and the collection's products with endpoint_status", async () => {
    const none = await get("/products?q=zzzz");
    expect(none.body).toEqual({ object: "list", count: 0, data: [], has_more: false });
    const { body } = await get("/collections/sample-products?sort=title_desc&include=image");
    const products = body.products as unknown as Json;
    expect(handles(products)).toEqual(["example-t-shirt", "example-pants", "example-hoodie", "example-hat"]);
    expect(products.data[0]).toMatchObject({
      endpoint_status: 404,
      url: "/api/v1/products/example-t-shirt",
      image: null,
    });
    expect(body).toMatchObject({ object: "collection", handle: "sample-products", products_count: 4 });
  });

  it.each([
    ["/products?colour=red", "colour", "parameter_unknown"],
    ["/products?option.flavour=mint", "option.flavour", "parameter_unknown"],
    ["/products?sort=relevance", "sort", "parameter_invalid"],
    ["/products?sort=cheapest", "sort", "parameter_invalid"],
    ["/products?q=", "q", "parameter_invalid"],
    [`/products?q=${"a".repeat(101)}`, "q", "parameter_invalid"],
    ["/products?q=!!!", "q", "parameter_invalid"],
    ["/products?available=yes", "available", "parameter_invalid"],
    ["/products?price_min=ten", "price_min", "parameter_invalid"],
    ["/products?price_min=1.999", "price_min", "parameter_invalid"],
    ["/products?price_min=20&price_max=10", "price_max", "parameter_invalid"],
    ["/products?sort=price_asc&sort=price_desc", "sort", "parameter_invalid"],
    ["/products?tag=", "tag", "parameter_invalid"],
    ["/products?limit=0&q=tee", "limit", "parameter_invalid"],
    ["/products?q=tee&starting_after=canvas-market-tote", "starting_after", "parameter_invalid"],
    ["/products?vendor=Saltmarsh%20Supply&ending_before=gift-card-50", "ending_before", "parameter_invalid"],
    ["/products/facets?sort=price_asc", "sort", "parameter_unknown"],
    ["/products/facets?limit=5", "limit", "parameter_unknown"],
    ["/collections/frontpage/facets?starting_after=gift-card-50", "starting_after", "parameter_unknown"],
  ])("answers %s with 400 naming %s", async (path, param, code) => {
    const { status, body } = await get(path);
    expect(status).toBe(400);
    expect(body).toEqual({ error: { type: "invalid_request_error", code, message: expect.any(String), param } });
  });

  it("answers 404 for an unknown collection's products and facets", async () => {
    expect((await get("/collections/no-such-thing?q=tee")).status).toBe(404);
    expect((await get("/collections/no-such-thing/facets")).status).toBe(404);
  });
});

describe("facets", () => {
  it("counts disjunctively, shows selected values, orders by count then value", async () => {
    const { body } = await get("/products/facets?vendor=Saltmarsh%20Supply&tag=cotton&tag=nothing-here");
    expect(body.count).toBe(1);
    const facets = body.facets as unknown as {
      name: string;
      values?: { value: string; count: number; selected: boolean }[];
    }[];
    const vendor = facets.find((f) => f.name === "vendor");
    // Vendor counts ignore the vendor filter: every vendor among cotton-tagged products.
    expect(vendor?.values).toEqual([
      { value: "Northwind Threads", count: 5, selected: false },
      { value: "Saltmarsh Supply", count: 1, selected: true },
    ]);
    const tag = facets.find((f) => f.name === "tag");
    expect(tag?.values?.filter((v) => v.selected)).toEqual([
      { value: "cotton", count: 1, selected: true },
      { value: "nothing-here", count: 0, selected: true },
    ]);
    expect(facets.map((f) => f.name)).toEqual([
      "vendor",
      "product_type",
      "tag",
      "available",
      "option.size",
      "option.color",
      "price",
    ]);
  });

  it("answers the landing facets of a collection from the index", async () => {
    const { status, body } = await get("/collections/sample-products/facets");
    expect(status).toBe(200);
    expect(body).toMatchObject({ object: "facets", count: 4 });
    const facets = body.facets as unknown as Record<string, unknown>[];
    expect(facets.at(-1)).toEqual({
      name: "price",
      type: "range",
      min: { amount: "100.00", currency: "USD" },
      max: { amount: "100.00", currency: "USD" },
    });
    expect(facets.find((f) => f.name === "available")).toEqual({
      name: "available",
      type: "values",
      values: [{ value: "false", count: 4, selected: false }],
    });
  });
});

describe("caching", () => {
  it("shares one cache entry between equivalent queries, with ETag, 304 and X-Catalog-Version", async () => {
    const a = await get("/products?tag=cotton&tag=Linen&vendor=Northwind%20Threads&sort=price_desc");
    const b = await get("/products?sort=price_desc&vendor=northwind%20threads&tag=linen&tag=COTTON&tag=cotton");
    expect(a.status).toBe(200);
    expect(b.text).toBe(a.text);
    expect(b.headers.get("ETag")).toBe(a.headers.get("ETag"));
    expect(a.headers.get("X-Catalog-Version")).toMatch(/.+/);
    const again = await get("/products?sort=price_desc&vendor=northwind%20threads&tag=linen&tag=cotton", {
      "If-None-Match": a.headers.get("ETag") ?? "",
    });
    expect(again.status).toBe(304);
    const facets = await get("/products/facets?q=tee");
    expect(facets.headers.get("Cache-Control")).toContain("max-age=60");
  });

  it("shows a selected value no product has as this request spelled it, whichever spelling was cached first", async () => {
    const selected = async (query: string) => {
      const body = JSON.parse((await get(`/products/facets?${query}`)).text) as {
        facets: { name: string; values: { value: string; selected: boolean }[] }[];
      };
      return body.facets
        .find((f) => f.name === "vendor")
        ?.values.filter((v) => v.selected)
        .map((v) => v.value);
    };
    expect(await selected("vendor=Acme%20Nowhere")).toEqual(["Acme Nowhere"]);
    expect(await selected("vendor=ACME%20NOWHERE")).toEqual(["ACME NOWHERE"]);
    expect(await selected("vendor=Acme%20Nowhere")).toEqual(["Acme Nowhere"]);
    // One value given twice in two spellings: the same answer in either order (the spelling first in code point order).
    const a = await get("/products/facets?vendor=acme%20elsewhere&vendor=Acme%20Elsewhere");
    const b = await get("/products/facets?vendor=Acme%20Elsewhere&vendor=acme%20elsewhere");
    expect(b.text).toBe(a.text);
    expect(await selected("vendor=acme%20elsewhere&vendor=Acme%20Elsewhere")).toEqual(["Acme Elsewhere"]);
  });
});

describe("versions", () => {
  it("keeps the previous version's index for a rollback and drops older ones", async () => {
    const target = d1Target(env.BROWSE);
    const first = await publishCatalog(env.CATALOG, catalog(), { browse: target });
    const changed = catalog();
    changed.products = changed.products.filter((p) => p.handle !== "canvas-market-tote");
    for (const c of changed.collections) c.products = c.products.filter((h) => h !== "canvas-market-tote");
    await publishCatalog(env.CATALOG, changed, { browse: target });
    expect((await get("/products?q=tote")).body.count).toBe(0);
    const accessories = (await get("/products/facets?tag=accessories")).body.count;
    await rollbackCatalog(env.CATALOG);
    expect(handles((await get("/products?q=tote")).body)).toEqual(["canvas-market-tote"]);
    // Facet counts follow the version too (each version has its own engine).
    expect((await get("/products/facets?q=tote")).body.count).toBe(1);
    expect((await get("/products/facets?tag=accessories")).body.count).toBe(accessories + 1);
    // Changed what is kept: the indexes of exactly the versions
    // whose KV entries cleanup kept (the last 5, the live one and the rollback target).
    const tables = (await target.tables()).filter((n) => /^bv_.*_p$/.test(n));
    const keptVersions = new Set((await env.CATALOG.list({ prefix: "v/" })).keys.map((k) => k.name.split("/")[1]));
    expect(new Set(tables.map((n) => n.slice("bv_".length, -"_p".length)))).toEqual(keptVersions);
    expect(tables.some((n) => n.includes(first.version))).toBe(true);
    expect(await dropStaleBrowse(target, [])).toBeGreaterThan(0);
    // The version's engine read its index once and holds it: dropping the tables under it does
    // not change its answers (a version without an index at all is 503, next test).
    expect(handles((await get("/products?q=market")).body)).toEqual(["canvas-market-tote"]);
  });

  it("answers pages and facets of a version without its index 503 browse_unavailable, then answers once the index is written (a failed build is not kept)", async () => {
    const { version } = await publishCatalog(env.CATALOG, catalog(), { browse: null });
    for (const path of ["/products/facets?tag=cotton", "/products?tag=cotton", "/collections/frontpage?q=tee"]) {
      const missing = await get(path);
      expect(missing.status).toBe(503);
      // Regression (issue 33 point 2): this said "No catalog has been published yet" (catalog_unavailable)
      // while the plain list of the same version answered.
      expect(missing.body).toEqual({
        error: { type: "api_error", code: "browse_unavailable", message: expect.any(String) },
      });
      expect(missing.body.error).not.toMatchObject({
        message: expect.stringContaining("No catalog has been published"),
      });
      expect(missing.headers.get("Retry-After")).toBe("30");
      expect(missing.headers.get("Cache-Control")).toBe("no-store");
      expect(missing.headers.get("X-Catalog-Version")).toBe(version);
      expect(missing.text).not.toMatch(/no such table|bv_/);
    }
    const plain = await get("/products");
    expect(plain.status).toBe(200);
    expect(plain.headers.get("X-Catalog-Version")).toBe(version);
    await writeBrowseIndex(d1Target(env.BROWSE), catalog() as Parameters<typeof writeBrowseIndex>[1], version);
    const counted = await get("/products/facets?tag=cotton");
    expect(counted.status).toBe(200);
    expect(counted.body.count).toBeGreaterThan(0);
    expect((await get("/products?tag=cotton")).body.count).toBe(counted.body.count);
  });
});
