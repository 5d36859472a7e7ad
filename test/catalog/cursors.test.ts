import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import app from "../../src/index.ts";
import { publishCatalog, rollbackCatalog } from "../../src/publish/publish.ts";
import { d1Target } from "../../src/publish/browse-index.ts";
import { generateCatalog } from "../../src/publish/generate.ts";
import { shiftedSeed } from "../helpers/catalog.ts";
import { API as BASE } from "../helpers/worker.ts";

/**
 * A cursor names the catalog version it belongs to
 * (`catalog_version`, the first page's X-Catalog-Version); once another version is live it
 * answers 409 cursor_stale instead of walking the new catalog. Regression: a page-2 cursor taken
 * before a publish was accepted after it and walked the new catalog (8 of 1,477 under load).
 */

interface Page {
  status: number;
  version: string | null;
  cacheControl: string | null;
  body: {
    error?: { type: string; code: string; message: string; param?: string };
    data?: { handle: string; price: { amount: string } }[];
    has_more?: boolean;
    products?: { data: { handle: string; price: { amount: string } }[]; has_more: boolean };
  };
}

/** One request through the worker, its Cache API put included. */
async function get(path: string): Promise<Page> {
  const ctx = createExecutionContext();
  const res = await app.fetch(new Request(`${BASE}${path}`), env, ctx);
  const body = (await res.json()) as Page["body"];
  await waitOnExecutionContext(ctx);
  return {
    status: res.status,
    version: res.headers.get("x-catalog-version"),
    cacheControl: res.headers.get("cache-control"),
    body,
  };
}

async function publish(catalog: unknown): Promise<string> {
  return (await publishCatalog(env.CATALOG, catalog, { browse: d1Target(env.BROWSE) })).version;
}

function items(page: Page) {
  return page.body.data ?? page.body.products?.data ?? [];
}
function more(page: Page): boolean {
  return page.body.has_more ?? page.body.products?.has_more ?? false;
}

/** Walks a list to its end, forwards with starting_after, naming the first page's version. */
async function walk(path: string, limit: number): Promise<{ version: string; handles: string[] }> {
  const sep = path.includes("?") ? "&" : "?";
  let page = await get(`${path}${sep}limit=${limit}`);
  expect(page.status).toBe(200);
  const version = page.version ?? "";
  const handles = items(page).map((p) => p.handle);
  while (more(page)) {
    page = await get(`${path}${sep}limit=${limit}&starting_after=${handles.at(-1)}&catalog_version=${version}`);
    expect(page.status).toBe(200);
    expect(page.version).toBe(version);
    handles.push(...items(page).map((p) => p.handle));
  }
  return { version, handles };
}

const STALE = { type: "invalid_request_error", code: "cursor_stale", param: "catalog_version" };

describe("cursors bound to a catalog version", () => {
  const cases = [
    ["the product list", "/products", "essential-crew-tee-black"],
    ["a collection's products", "/collections/frontpage", "essential-crew-tee-black"],
    ["a browse answer (sort)", "/products?sort=price_asc", "essential-crew-tee-black"],
    ["a browse answer (q)", "/products?q=tee", "essential-crew-tee-black"],
    ["the collection list", "/collections", "frontpage"],
    ["a product's variants", "/products/essential-crew-tee-black/variants", "44102938475600"],
  ] as const;

  it.each(cases)(
    "answers page 2 of %s while its version is live, and 409 cursor_stale after a publish",
    async (_name, path, cursor) => {
      const v1 = await publish(shiftedSeed(11));
      const sep = path.includes("?") ? "&" : "?";
      const first = await get(`${path}${sep}limit=2`);
      expect(first.version).toBe(v1);
      const page2 = `${path}${sep}limit=2&starting_after=${cursor}&catalog_version=${v1}`;
      const ok = await get(page2);
      expect(ok.status).toBe(200);
      expect(ok.version).toBe(v1);

      const v2 = await publish(shiftedSeed(12));
      // Asked twice: the page cached under v1 is not served, and the 409 itself is not cached.
      for (let i = 0; i < 2; i++) {
        const stale = await get(page2);
        expect(stale.status).toBe(409);
        expect(stale.body.error).toMatchObject(STALE);
        expect(stale.body.error?.message).toContain(v1);
        expect(stale.body.error?.message).toMatch(/first page/);
        expect(stale.version).toBe(v2);
        expect(stale.cacheControl).toBe("no-store");
      }
      // ending_before is bound the same way.
      expect((await get(`${path}${sep}limit=2&ending_before=${cursor}&catalog_version=${v1}`)).status).toBe(409);
      // A rollback makes v1 live again: its cursors are good again (the 409 was not kept).
      await rollbackCatalog(env.CATALOG);
      const back = await get(page2);
      expect(back.status).toBe(200);
      expect(back.version).toBe(v1);
      expect(back.body).toEqual(ok.body);
    },
  );

  it("keeps a bare starting_after (no catalog_version) working against the live version", async () => {
    await publish(shiftedSeed(21));
    const v2 = await publish(shiftedSeed(22));
    const page = await get("/products?limit=2&starting_after=essential-crew-tee-black");
    expect(page.status).toBe(200);
    expect(page.version).toBe(v2);
    expect(items(page)).toHaveLength(2);
  });

  it("refuses a malformed catalog_version with 400 and facets refuse it as unknown", async () => {
    await publish(shiftedSeed(31));
    for (const path of [
      "/products?catalog_version=a%20b",
      "/products?q=tee&catalog_version=a%2Fb",
      `/collections?catalog_version=${"x".repeat(65)}`,
    ]) {
      const res = await get(path);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: "parameter_invalid", param: "catalog_version" });
    }
    expect((await get("/products/facets?catalog_version=abc")).body.error).toMatchObject({
      code: "parameter_unknown",
      param: "catalog_version",
    });
  });

  it("pages within one version cover every product exactly once, forwards and backwards, across chunks", async () => {
    const catalog = generateCatalog({ products: 620, seed: 7 });
    await publish(catalog);
    const expected = catalog.products.map((p) => p.handle);
    for (const limit of [97, 250]) {
      const { handles } = await walk("/products", limit);
      expect(handles).toEqual(expected);
    }
    const sorted = await walk("/products?sort=title_desc", 83);
    expect(new Set(sorted.handles).size).toBe(expected.length);
    expect([...sorted.handles].sort()).toEqual([...expected].sort());
    // Backwards from the end with ending_before.
    const last = await get(`/products?limit=250&starting_after=${expected.at(-2)}`);
    const version = last.version ?? "";
    const back: string[] = [expected.at(-1) ?? ""];
    for (let page = await get(`/products?limit=97&ending_before=${back[0]}&catalog_version=${version}`); ; ) {
      back.unshift(...items(page).map((p) => p.handle));
      if (!more(page)) break;
      page = await get(`/products?limit=97&ending_before=${back[0]}&catalog_version=${version}`);
    }
    expect(back).toEqual(expected);
  }, 60_000);

  it("never lets a walk cross catalogs while publishes happen between and during its pages", async () => {
    // Each version has its own prices, so an item read from another version would show.
    const prices = new Map<string, Map<string, string>>();
    const priced = async (cents: number) => {
      const catalog = shiftedSeed(cents);
      // Known before the publish: a reader may see the version before the publish call returns.
      const version = `walk-${cents}`;
      const lowest = (p: (typeof catalog.products)[number]) =>
        Math.min(...p.variants.map((v) => Math.round(Number(v.price) * 100)));
      prices.set(version, new Map(catalog.products.map((p) => [p.handle, (lowest(p) / 100).toFixed(2)])));
      await publishCatalog(env.CATALOG, catalog, { browse: d1Target(env.BROWSE), version });
    };
    await priced(100);
    let publishes = 0;
    let stale = 0;
    let completed = 0;
    const publisher = (async () => {
      for (let i = 0; i < 6; i++) {
        await priced(200 + i);
        publishes++;
      }
    })();
    const reader = (async () => {
      while (publishes < 6 || completed === 0) {
        let page = await get("/products?limit=3");
        const version = page.version ?? "";
        const seen: string[] = [];
        for (;;) {
          expect(page.version).toBe(version);
          for (const item of items(page)) {
            expect(item.price.amount).toBe(prices.get(version)?.get(item.handle));
            seen.push(item.handle);
          }
          if (!more(page)) break;
          page = await get(`/products?limit=3&starting_after=${seen.at(-1)}&catalog_version=${version}`);
          if (page.status === 409) break;
          expect(page.status).toBe(200);
        }
        if (page.status === 409) {
          expect(page.body.error).toMatchObject(STALE);
          stale++;
          continue;
        }
        expect(new Set(seen).size).toBe(seen.length);
        expect(seen.length).toBe(28);
        completed++;
      }
    })();
    await Promise.all([publisher, reader]);
    expect(completed).toBeGreaterThan(0);
    expect(stale).toBeGreaterThan(0);
  }, 60_000);
});
