import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { generateCatalog } from "../../src/publish/generate.ts";
import {
  collectionDetail,
  collectionListPage,
  productDetail,
  productListPage,
  variantList,
} from "../../src/catalog/pages.ts";
import { publishCatalog } from "../../src/publish/publish.ts";
import type { VersionMeta } from "../../src/catalog/layout.ts";
import { optionApiName } from "../../src/catalog/schema.ts";
import { CatalogStore } from "../../src/catalog/store.ts";
import { countingKv } from "../helpers/counting-kv.ts";

/**
 * The contract's scale clause: any catalog request costs at most 3 KV reads and a bounded number
 * of bytes, whatever the catalog size, with every `include` too. The KV binding is wrapped so
 * every `get` is counted; the reads themselves go to the real test KV.
 */
const PRODUCTS = 20_000;
const catalog = generateCatalog({ products: PRODUCTS });
const MAX_READS = 3;
const MAX_BYTES = 256 * 1024;
/**
 * With includes a request reads the same number of entries, but larger ones: a content shard
 * (descriptions, images, SEO) beside the product shard, or list chunks whose items carry an image.
 */
const MAX_BYTES_WITH_INCLUDE = 320 * 1024;

/** Runs one request's worth of store work (the pointer, then the page) and reports what it read. */
async function measure(page: (store: CatalogStore, meta: VersionMeta) => Promise<string>) {
  const counting = countingKv(env.CATALOG);
  const store = new CatalogStore(counting.kv);
  const meta = await store.currentMeta();
  if (!meta) throw new Error("nothing published");
  const body = await page(store, meta);
  let bytes = 0;
  for (const key of counting.reads) bytes += (await env.CATALOG.get(key, "text"))?.length ?? 0;
  return {
    reads: counting.reads.length,
    keys: counting.reads,
    bytes,
    body: JSON.parse(body) as Record<string, unknown>,
    meta,
  };
}

describe(`a generated catalog of ${PRODUCTS} products`, () => {
  beforeAll(async () => {
    await publishCatalog(env.CATALOG, catalog, { browse: null });
  }, 300_000);

  const handles = catalog.products.map((p) => p.handle);
  const deep = handles[15_321] ?? "";
  const sized = catalog.products.find((p) => p.options.length > 0 && p.available);
  const tees = catalog.collections.find((c) => c.handle === "t-shirts");
  // The longest description among available products from the last tenth: the costliest detail to include.
  const described = catalog.products
    .slice(-PRODUCTS / 10)
    .filter((p) => p.available && p.images?.length)
    .reduce((a, b) => ((b.description_html?.length ?? 0) > (a.description_html?.length ?? 0) ? b : a));
  const optioned = catalog.products.find(
    (p) => p.available && p.options.length >= 2 && p.options.every((o) => o.name !== "Size" && o.name !== "Color"),
  );

  it("serves the first page in at most 3 KV reads", async () => {
    const r = await measure((s, m) => productListPage(s, m, { limit: 250 }));
    expect(r.reads).toBeLessThanOrEqual(MAX_READS);
    expect(r.bytes).toBeLessThan(MAX_BYTES);
    expect((r.body.data as { handle: string }[]).map((p) => p.handle)).toEqual(handles.slice(0, 250));
    expect(r.body.count).toBe(PRODUCTS);
  });

  it("serves a deep page after a cursor in at most 3 KV reads, with the right products", async () => {
    const r = await measure((s, m) => productListPage(s, m, { limit: 250, starting_after: deep }));
    expect(r.reads).toBeLessThanOrEqual(MAX_READS);
    expect(r.bytes).toBeLessThan(MAX_BYTES);
    expect((r.body.data as { handle: string }[]).map((p) => p.handle)).toEqual(handles.slice(15_322, 15_572));
  });

  it("serves a deep page before a cursor in at most 3 KV reads", async () => {
    const r = await measure((s, m) => productListPage(s, m, { limit: 100, ending_before: deep }));
    expect(r.reads).toBeLessThanOrEqual(MAX_READS);
    expect((r.body.data as { handle: string }[]).map((p) => p.handle)).toEqual(handles.slice(15_221, 15_321));
    expect(r.body.has_more).toBe(true);
  });

  it("serves the last page in at most 3 KV reads and says there is no more", async () => {
    const r = await measure((s, m) => productListPage(s, m, { limit: 50, starting_after: handles[PRODUCTS - 11] }));
    expect(r.reads).toBeLessThanOrEqual(MAX_READS);
    expect((r.body.data as unknown[]).length).toBe(10);
    expect(r.body.has_more).toBe(false);
  });

  it("serves a product detail in at most 3 KV reads", async () => {
    const r = await measure((s, m) => productDetail(s, m, sized?.handle ?? ""));
    expect(r.reads).toBeLessThanOrEqual(MAX_READS);
    expect(r.bytes).toBeLessThan(MAX_BYTES);
    expect(r.body).toMatchObject({ object: "product", handle: sized?.handle, variants_count: sized?.variants.length });
  });

  it("serves a variants call in at most 3 KV reads", async () => {
    const size = sized?.options[0]?.values[0] ?? "";
    const r = await measure((s, m) => variantList(s, m, sized?.handle ?? "", { size }));
    expect(r.reads).toBeLessThanOrEqual(MAX_READS);
    expect(r.bytes).toBeLessThan(MAX_BYTES);
    expect((r.body.data as { options: { size: string } }[])[0]?.options.size).toBe(size);
  });

  it("serves a deep collection page in at most 3 KV reads, with the collection's own order", async () => {
    const members = tees?.products ?? [];
    expect(members.length).toBeGreaterThan(1000);
    const cursor = members[1000] ?? "";
    const r = await measure((s, m) => collectionDetail(s, m, "t-shirts", { limit: 250, starting_after: cursor }));
    expect(r.reads).toBeLessThanOrEqual(MAX_READS);
    expect(r.bytes).toBeLessThan(MAX_BYTES);
    const products = r.body.products as { data: { handle: string }[]; count: number };
    expect(products.count).toBe(members.length);
    expect(products.data.map((p) => p.handle)).toEqual(members.slice(1001, 1251));
  });

  it("serves the collection list in at most 3 KV reads", async () => {
    const r = await measure((s, m) => collectionListPage(s, m, { starting_after: "frontpage" }));
    expect(r.reads).toBeLessThanOrEqual(MAX_READS);
    expect(r.body.count).toBe(catalog.collections.length);
  });

  it("has content to include: descriptions, images and options beyond size and color", () => {
    expect(catalog.products.filter((p) => p.description_html).length).toBeGreaterThan(PRODUCTS / 2);
    expect(catalog.products.filter((p) => p.images?.length).length).toBeGreaterThan(PRODUCTS / 2);
    expect(described.description_html?.length).toBeGreaterThan(200);
    expect(optioned).toBeDefined();
  });

  // First of the include tests, so that no content shard is kept in this isolate yet.
  it("serves a detail with include=variants from the product shard alone", async () => {
    const r = await measure((s, m) => productDetail(s, m, described.handle, ["variants"]));
    expect(r.reads).toBeLessThanOrEqual(2);
    expect(r.keys.some((key) => key.includes("/cs/"))).toBe(false);
    expect((r.body.variants as unknown[]).length).toBe(described.variants.length);
  });

  it("serves a product detail with every include in at most 3 KV reads", async () => {
    const r = await measure((s, m) =>
      productDetail(s, m, described.handle, ["description", "images", "seo", "variants"]),
    );
    expect(r.reads).toBeLessThanOrEqual(MAX_READS);
    expect(r.keys.filter((key) => key.includes("/cs/"))).toHaveLength(1);
    expect(r.bytes).toBeLessThan(MAX_BYTES_WITH_INCLUDE);
    expect(r.body).toMatchObject({
      handle: described.handle,
      images: expect.any(Array),
      seo: { title: expect.any(String) },
    });
    expect((r.body.description_text as string).length).toBeGreaterThan(100);
    expect((r.body.variants as unknown[]).length).toBe(described.variants.length);
  });

  it.each([["description"], ["images"], ["seo"]] as const)(
    "serves a detail with include=%s in at most 3 KV reads",
    async (name) => {
      const r = await measure((s, m) => productDetail(s, m, described.handle, [name]));
      expect(r.reads).toBeLessThanOrEqual(MAX_READS);
      expect(r.bytes).toBeLessThan(MAX_BYTES_WITH_INCLUDE);
      expect(Object.keys(r.body).at(-1)).toBe(name === "description" ? "description_text" : name);
    },
  );

  it("serves first and deep pages with include=image in at most 3 KV reads", async () => {
    const first = await measure((s, m) => productListPage(s, m, { limit: 250, include: ["image"] }));
    const after = await measure((s, m) =>
      productListPage(s, m, { limit: 250, starting_after: deep, include: ["image"] }),
    );
    for (const r of [first, after]) {
      expect(r.reads).toBeLessThanOrEqual(MAX_READS);
      expect(r.bytes).toBeLessThan(MAX_BYTES_WITH_INCLUDE);
    }
    const items = after.body.data as { handle: string; image: { url: string } | null }[];
    expect(items.map((p) => p.handle)).toEqual(handles.slice(15_322, 15_572));
    expect(items.map((p) => p.image?.url ?? null)).toEqual(
      catalog.products.slice(15_322, 15_572).map((p) => p.images?.[0]?.url ?? null),
    );
  });

  it("serves a deep collection page with include=image in at most 3 KV reads", async () => {
    const members = tees?.products ?? [];
    const r = await measure((s, m) =>
      collectionDetail(s, m, "t-shirts", { limit: 250, starting_after: members[1000] ?? "", include: ["image"] }),
    );
    expect(r.reads).toBeLessThanOrEqual(MAX_READS);
    expect(r.bytes).toBeLessThan(MAX_BYTES_WITH_INCLUDE);
    const products = r.body.products as { data: { handle: string; image: unknown }[] };
    expect(products.data.map((p) => p.handle)).toEqual(members.slice(1001, 1251));
    expect(products.data.every((p) => "image" in p)).toBe(true);
  });

  it("serves a variants call selected by other option names in at most 3 KV reads", async () => {
    const [first, second] = optioned?.options ?? [];
    const query = {
      [optionApiName(first?.name ?? "")]: first?.values[0] ?? "",
      [optionApiName(second?.name ?? "")]: second?.values[0] ?? "",
    };
    const r = await measure((s, m) => variantList(s, m, optioned?.handle ?? "", query));
    expect(r.reads).toBeLessThanOrEqual(MAX_READS);
    expect(r.bytes).toBeLessThan(MAX_BYTES);
    const data = r.body.data as { options: Record<string, string> }[];
    expect(data.length).toBeGreaterThan(0);
    for (const v of data) expect(v.options).toMatchObject(query);
  });

  it("answers the same deep page over HTTP", async () => {
    const res = await exports.default.fetch(`https://storefront.test/api/v1/products?limit=3&starting_after=${deep}`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { handle: string }[] };
    expect(body.data.map((p) => p.handle)).toEqual(handles.slice(15_322, 15_325));
  });
});
