import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { publishSeedCatalog, seedCatalog } from "../helpers/catalog.ts";
import { API as BASE, ORIGIN } from "../helpers/worker.ts";

/**
 * Issue 33 point 9: paging needed the last handle plus `catalog_version` from a header. Every
 * list answers an RFC 8288 `Link` with `rel="next"`/`"prev"` URLs, cursor and version filled in,
 * so a client that only follows `next` walks the whole list, once per item.
 */

const seed = seedCatalog();

interface Page {
  res: Response;
  body: Record<string, unknown>;
  links: Map<string, string>;
}

/** `Link` parsed as RFC 8288 writes it: `<url>; rel="x"`, comma-separated. */
function parseLink(header: string | null): Map<string, string> {
  const links = new Map<string, string>();
  if (!header) return links;
  for (const part of header.split(/,\s*(?=<)/)) {
    const match = /^<([^>]+)>;\s*rel="([a-z]+)"$/.exec(part.trim());
    expect(match, `a link-value: ${part}`).not.toBeNull();
    links.set(match![2]!, match![1]!);
  }
  return links;
}

async function page(url: string, init?: RequestInit): Promise<Page> {
  const res = await exports.default.fetch(url, init);
  expect(res.status, url).toBe(200);
  expect(res.headers.get("x-page-edges")).toBeNull();
  return { res, body: (await res.json()) as Record<string, unknown>, links: parseLink(res.headers.get("link")) };
}

type Item = { handle?: string; id?: string };
const itemsOf = (body: Record<string, unknown>, at?: string) =>
  ((at ? (body[at] as { data: Item[] }) : (body as { data: Item[] })).data ?? []) as Item[];

/** Follows `rel` from `start` to the end, returning the cursor field of every item seen. */
async function walk(start: string, rel: "next" | "prev", field: "handle" | "id", at?: string): Promise<string[]> {
  const seen: string[] = [];
  let url: string | undefined = start;
  for (let hops = 0; url && hops < 100; hops++) {
    const current = await page(url);
    const items = itemsOf(current.body, at).map((item) => item[field]!);
    seen.push(...(rel === "prev" ? items.reverse() : items));
    url = current.links.get(rel);
  }
  return seen;
}

beforeAll(async () => {
  await publishSeedCatalog();
});

describe("Link header on every list", () => {
  it("links a first page to the next one only, with the cursor and catalog version filled in", async () => {
    const first = await page(`${BASE}/products?limit=2`);
    const version = first.res.headers.get("x-catalog-version")!;
    const handles = itemsOf(first.body).map((p) => p.handle);
    expect([...first.links.keys()]).toEqual(["next"]);
    const next = new URL(first.links.get("next")!);
    expect(`${next.origin}${next.pathname}`).toBe(`${BASE}/products`);
    expect(Object.fromEntries(next.searchParams)).toEqual({
      limit: "2",
      starting_after: handles[1],
      catalog_version: version,
    });
    const second = await page(next.href);
    expect(second.links.has("next")).toBe(true);
    expect(new URL(second.links.get("prev")!).searchParams.get("ending_before")).toBe(itemsOf(second.body)[0]!.handle);
  });

  it("walks GET /products by next, and back by prev, once per product in catalog order", async () => {
    const all = seed.products.map((p) => p.handle);
    const forward = await walk(`${BASE}/products?limit=3`, "next", "handle");
    expect(forward).toEqual(all);
    const lastPage = await page(`${BASE}/products?limit=3&ending_before=${all.at(-1)}`);
    expect(lastPage.links.has("next")).toBe(true);
    const backward = await walk(`${BASE}/products?limit=3&ending_before=${all.at(-1)}`, "prev", "handle");
    expect(backward.reverse()).toEqual(all.slice(0, -1));
  });

  it("ends: the last page has no next, a page that ends before the first item no prev", async () => {
    const all = seed.products.map((p) => p.handle);
    const last = await page(`${BASE}/products?limit=5&starting_after=${all.at(-3)}`);
    expect([...last.links.keys()]).toEqual(["prev"]);
    const head = await page(`${BASE}/products?limit=5&ending_before=${all[3]}`);
    expect([...head.links.keys()]).toEqual(["next"]);
    const whole = await page(`${BASE}/products?limit=250`);
    expect(whole.res.headers.get("link")).toBeNull();
  });

  it("keeps a browse query's own parameters in its links (q, filters, sort, include)", async () => {
    const start = `${BASE}/products?q=tee&sort=price_desc&include=image&limit=1`;
    const first = await page(start);
    const next = new URL(first.links.get("next")!);
    for (const [name, value] of [
      ["q", "tee"],
      ["sort", "price_desc"],
      ["include", "image"],
      ["limit", "1"],
    ] as const)
      expect(next.searchParams.get(name), name).toBe(value);
    const everything = await page(`${BASE}/products?q=tee&sort=price_desc&limit=250`);
    expect(await walk(start, "next", "handle")).toEqual(itemsOf(everything.body).map((p) => p.handle));
  });

  it("links a collection's products, the collection list and the variants list", async () => {
    const frontpage = await page(`${BASE}/collections/frontpage?limit=250`);
    expect(await walk(`${BASE}/collections/frontpage?limit=4`, "next", "handle", "products")).toEqual(
      itemsOf(frontpage.body, "products").map((p) => p.handle),
    );
    expect(await walk(`${BASE}/collections?limit=2`, "next", "handle")).toEqual(seed.collections.map((c) => c.handle));
    const variants = await page(`${BASE}/products/essential-crew-tee-black/variants?limit=250`);
    expect(await walk(`${BASE}/products/essential-crew-tee-black/variants?limit=3`, "next", "id")).toEqual(
      itemsOf(variants.body).map((v) => v.id),
    );
  });

  it("answers a cached page's Link from this request's parameters, not the first requester's", async () => {
    const a = await page(`${BASE}/products?limit=2&include=image`);
    const b = await page(`${BASE}/products?include=image,image&limit=2&utm_source=mail`);
    expect(b.res.headers.get("etag")).toBe(a.res.headers.get("etag"));
    const next = new URL(b.links.get("next")!);
    expect(next.searchParams.get("include")).toBe("image,image");
    expect(next.searchParams.get("utm_source")).toBe("mail");
  });

  it("sends neither Link nor the page's internal edges on a 304", async () => {
    const first = await page(`${BASE}/products?limit=2`);
    const res = await exports.default.fetch(`${BASE}/products?limit=2`, {
      headers: { "If-None-Match": first.res.headers.get("etag")! },
    });
    expect(res.status).toBe(304);
    expect(res.headers.get("x-page-edges")).toBeNull();
  });

  it("exposes Link to browsers and documents it on every list answer", async () => {
    const res = await exports.default.fetch(`${BASE}/products?limit=1`, { headers: { Origin: "https://shop.test" } });
    expect((res.headers.get("access-control-expose-headers") ?? "").split(",")).toContain("Link");
    const doc = (await (await exports.default.fetch(`${ORIGIN}/api/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>>;
      components: { headers: Record<string, { description: string }> };
    };
    for (const path of [
      "/api/v1/products",
      "/api/v1/collections",
      "/api/v1/collections/{handle}",
      "/api/v1/products/{handle}/variants",
    ])
      expect(Object.keys(doc.paths[path]!.get!.responses["200"]!.headers ?? {}), path).toContain("Link");
    expect(doc.components.headers.Link!.description).toContain('rel="next"');
  });
});
