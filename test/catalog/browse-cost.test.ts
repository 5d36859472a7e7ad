import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { BrowseStore, browsePage, type Scope } from "../../src/catalog/browse.ts";
import { browseFacets, FacetService } from "../../src/catalog/facet-service.ts";
import { parseBrowseFacets, parseBrowsePage } from "../../src/catalog/browse-query.ts";
import { CatalogStore } from "../../src/catalog/store.ts";
import { d1Target } from "../../src/publish/browse-index.ts";
import { generateCatalog } from "../../src/publish/generate.ts";
import { publishCatalog } from "../../src/publish/publish.ts";
import { countingKv } from "../helpers/counting-kv.ts";

/**
 * The browse cost bound (src/catalog/browse.ts), counted on a generated catalog of 20,000
 * products with the real bindings: KV reads (the pointer only), D1 batches (one per answer),
 * statements per batch, rows returned and bytes returned. rows_read (what D1 visits, and bills)
 * is printed: it follows the number of matches, which is what counting costs.
 */
const PRODUCTS = 20_000;
const catalog = generateCatalog({ products: PRODUCTS });

function countingD1(db: D1Database) {
  const seen = { batches: 0, statements: 0, maxRows: 0, rows: 0, bytes: 0, rowsRead: 0 };
  const proxy = new Proxy(db, {
    get(target, prop) {
      if (prop === "batch") {
        return async (statements: D1PreparedStatement[]) => {
          seen.batches++;
          seen.statements += statements.length;
          const results = await target.batch(statements);
          for (const r of results) {
            seen.maxRows = Math.max(seen.maxRows, r.results.length);
            seen.rows += r.results.length;
            seen.bytes += JSON.stringify(r.results).length;
            seen.rowsRead += r.meta.rows_read ?? 0;
          }
          return results;
        };
      }
      const value: unknown = Reflect.get(target, prop);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { db: proxy, seen };
}

async function measure(answer: (store: BrowseStore, meta: NonNullable<Awaited<ReturnType<CatalogStore["currentMeta"]>>>) => Promise<string>) {
  const kv = countingKv(env.CATALOG);
  const meta = await new CatalogStore(kv.kv).currentMeta();
  if (!meta) throw new Error("nothing published");
  const d1 = countingD1(env.BROWSE);
  const body = JSON.parse(await answer(new BrowseStore(d1.db), meta)) as Record<string, unknown>;
  return { kvReads: kv.reads.length, ...d1.seen, body };
}

const page = (query: string, scope: Scope = {}) => (store: BrowseStore, meta: Parameters<typeof browsePage>[1]) => browsePage(store, meta, scope, parseBrowsePage(new URLSearchParams(query)));

describe(`browse on a generated catalog of ${PRODUCTS} products`, () => {
  beforeAll(async () => {
    await publishCatalog(env.CATALOG, catalog, { browse: d1Target(env.BROWSE) });
  }, 600_000);

  const deep = catalog.products[15_321]?.handle ?? "";
  const deepAvailable = catalog.products.find((p, i) => i >= 15_321 && p.available)?.handle ?? "";
  const cases: [string, ReturnType<typeof page>, number, number][] = [
    ["a first sorted page", page("sort=price_desc&limit=250"), 3, 253],
    ["a deep page after a cursor", page(`sort=title_asc&limit=250&starting_after=${deep}`), 3, 253],
    ["a three-filter sorted page", page("vendor=Saltmarsh Supply&tag=new&option.size=M&sort=price_asc&limit=100"), 3, 103],
    ["a filtered page after a cursor", page(`available=true&sort=price_asc&limit=100&starting_after=${deepAvailable}`), 3, 103],
    ["a q search", page("q=washed tee&limit=50"), 3, 53],
    ["a collection browse", page("available=true&sort=newest&limit=50", { collection: catalog.collections[1]?.handle ?? "" }), 3, 53],
  ];
  for (const [name, answer, statements, rows] of cases) {
    it(`answers ${name} with the pointer, one D1 batch of at most ${statements} statements and at most ${rows} rows each`, async () => {
      const r = await measure(answer);
      console.log(`[cost] ${name.replaceAll(" ", "_")} kv_reads=${r.kvReads} d1_batches=${r.batches} statements=${r.statements} rows=${r.rows} max_rows=${r.maxRows} bytes=${r.bytes} rows_read=${r.rowsRead}`);
      expect(r.kvReads).toBe(1);
      expect(r.batches).toBe(1);
      expect(r.statements).toBeLessThanOrEqual(statements);
      expect(r.maxRows).toBeLessThanOrEqual(rows);
      expect(r.bytes).toBeLessThan(256 * 1024);
    });
  }

  // Facets (src/catalog/facet-service.ts): the version's counting index is built once, with one
  // batch, then every answer is counted in memory; q adds one statement of bitmap words.
  it("builds a version's facet index with one D1 batch of 9 statements, each row at most 4,096 ids", async () => {
    const kv = countingKv(env.CATALOG);
    const meta = await new CatalogStore(kv.kv).currentMeta();
    if (!meta) throw new Error("nothing published");
    const d1 = countingD1(env.BROWSE);
    const index = await new FacetService(new BrowseStore(d1.db)).index(meta.version);
    console.log(`[cost] facet_index_build d1_batches=${d1.seen.batches} statements=${d1.seen.statements} rows=${d1.seen.rows} bytes=${d1.seen.bytes} held_bytes=${index.bytes}`);
    expect(d1.seen).toMatchObject({ batches: 1, statements: 9 });
    // Rows: the values, option names, one per 4,096 products per value list, the collections.
    expect(d1.seen.bytes / d1.seen.rows).toBeLessThan(4_096 * 8);
    expect(index.size).toBe(PRODUCTS);
  });

  const facetCases: [string, string, number][] = [
    ["the landing facets", "", 0],
    ["the facets of one filter value", "vendor=Saltmarsh Supply", 0],
    ["a three-filter facets answer", "vendor=Saltmarsh Supply&tag=new&option.size=M", 0],
    ["a facets answer with q and filters", "tag=new&option.size=M&q=tee", 1],
  ];
  for (const [name, query, statements] of facetCases) {
    it(`answers ${name} from the built index with ${statements} D1 statements${statements ? ", one row of at most 4,096 bitmap words" : ""}`, async () => {
      const kv = countingKv(env.CATALOG);
      const meta = await new CatalogStore(kv.kv).currentMeta();
      if (!meta) throw new Error("nothing published");
      const d1 = countingD1(env.BROWSE);
      const service = new FacetService(new BrowseStore(d1.db));
      await service.index(meta.version);
      const built = { ...d1.seen };
      const body = JSON.parse(await browseFacets(service, meta, {}, parseBrowseFacets(new URLSearchParams(query)))) as { object: string; count: number };
      const statementsRun = d1.seen.statements - built.statements;
      console.log(`[cost] facets_${name.replaceAll(" ", "_")} kv_reads=${kv.reads.length} d1_statements=${statementsRun} rows=${d1.seen.rows - built.rows} bytes=${d1.seen.bytes - built.bytes}`);
      expect(body.object).toBe("facets");
      expect(kv.reads.length).toBe(1);
      expect(statementsRun).toBe(statements);
      expect(d1.seen.rows - built.rows).toBeLessThanOrEqual(statements);
      // A word is at most "4095:4294967295," (16 characters).
      expect(d1.seen.bytes - built.bytes).toBeLessThan(statements * 4_096 * 16 + 100);
    });
  }

  it("returns the right deep page (the cursor's successors in title order)", async () => {
    const r = await measure(page(`sort=title_asc&limit=3&starting_after=${deep}`));
    expect((r.body.data as unknown[]).length).toBe(3);
    expect(r.body.count).toBe(PRODUCTS);
  });
});
