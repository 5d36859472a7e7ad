/**
 * The browse storage decision, measured: `npm exec -- node test/catalog/browse-measure.ts [products]`
 * (default 100,000). Publishes a generated catalog (KV entries and the D1 browse index) into a
 * throwaway local state, reports publish time and peak memory, then p50 latencies of browse
 * answers against a plain list first page (both through the same local bindings, no edge
 * cache), and what the precomputed-KV alternative would have to read for the same queries. The
 * bench's three browse reads (browseWorkloads) are timed too, and shown statement by statement
 * with D1's own duration, rows read and EXPLAIN QUERY PLAN.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openLocalEnv } from "../../src/cli/local-env.ts";
import { BrowseStore, browsePage } from "../../src/catalog/browse.ts";
import { browseFacets, FacetService } from "../../src/catalog/facet-service.ts";
import { parseBrowseFacets, parseBrowsePage } from "../../src/catalog/browse-query.ts";
import { searchWords, valueKey } from "../../src/catalog/browse-text.ts";
import { productListPage } from "../../src/catalog/pages.ts";
import { CatalogStore } from "../../src/catalog/store.ts";
import { d1Target } from "../../src/publish/browse-index.ts";
import { generateCatalog } from "../../src/publish/generate.ts";
import { publishCatalog } from "../../src/publish/publish.ts";
import { browseWorkloads } from "../bench/workloads.ts";

const products = Number(process.argv[2] ?? 100_000);
const dir = mkdtempSync(join(tmpdir(), "browse-measure-"));
let workerdPeak = 0;
const sample = setInterval(() => {
  for (const pid of readdirSync("/proc").filter((n) => /^\d+$/.test(n))) {
    try {
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      if (!/Name:\s*workerd/.test(status)) continue;
      const rss = Number(/VmRSS:\s*(\d+)/.exec(status)?.[1] ?? 0) / 1024;
      workerdPeak = Math.max(workerdPeak, rss);
    } catch {}
  }
}, 200);

const local = await openLocalEnv(dir);
try {
  const catalog = generateCatalog({ products });
  let t = performance.now();
  await publishCatalog(local.env.CATALOG, catalog, { browse: null });
  const kvSeconds = (performance.now() - t) / 1000;
  t = performance.now();
  // The same publish with the browse index: a second version (KV again + D1).
  await publishCatalog(local.env.CATALOG, catalog, { browse: d1Target(local.env.BROWSE) });
  const bothSeconds = (performance.now() - t) / 1000;
  console.log(`publish ${products}: KV only ${kvSeconds.toFixed(1)} s; KV + browse index ${bothSeconds.toFixed(1)} s; node peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB; workerd peak RSS ${workerdPeak.toFixed(0)} MiB`);

  const kv = new CatalogStore(local.env.CATALOG);
  const meta = await kv.currentMeta();
  if (!meta) throw new Error("nothing published");
  const d1 = new BrowseStore(local.env.BROWSE);
  const deep = catalog.products[Math.floor(products * 0.6)]?.handle ?? "";
  // The bench's exact browse reads (test/bench/workloads.ts), answered here without HTTP.
  const bench = browseWorkloads(catalog).flatMap((w): [string, (store: BrowseStore) => Promise<string>][] => {
    const url = new URL(w.requests[0]?.path ?? "/", "https://bench.invalid");
    if (url.pathname.endsWith("/products")) return [[`bench ${w.name}: ${url.search}`, (store) => browsePage(store, meta, {}, parseBrowsePage(url.searchParams))]];
    if (url.pathname.endsWith("/products/facets")) return [[`bench ${w.name}: ${url.search}`, (store) => browseFacets(new FacetService(store), meta, {}, parseBrowseFacets(url.searchParams))]];
    return [];
  });
  // Each bench read once more, statement by statement: D1's own duration, rows, and the plan.
  for (const [name, run] of bench) {
    const seen: { sql: string; params: unknown[] }[] = [];
    const db = local.env.BROWSE;
    const spy = {
      prepare: (sql: string) => ({ bind: (...params: unknown[]) => (seen.push({ sql, params }), db.prepare(sql).bind(...params)) }),
      batch: async (statements: D1PreparedStatement[]) => {
        const results = await db.batch(statements);
        console.log(`${name}: one batch of ${results.length} statements`);
        for (const [i, r] of results.entries()) {
          const s = seen[i];
          console.log(`  #${i + 1} ${r.meta.duration.toFixed(2)} ms, ${r.results.length} rows, rows_read ${r.meta.rows_read}: ${s?.sql.slice(0, 160)}${(s?.sql.length ?? 0) > 160 ? "..." : ""}`);
          if (!s) continue;
          const plan = await db.prepare(`EXPLAIN QUERY PLAN ${s.sql}`).bind(...s.params).all<{ id: number; parent: number; detail: string }>().catch((error: unknown) => ({ results: [{ id: 0, parent: 0, detail: String(error) }] }));
          for (const row of plan.results) console.log(`      ${row.parent}/${row.id} ${row.detail}`);
        }
        return results;
      },
    } as unknown as D1Database;
    await run(new BrowseStore(spy));
  }
  const pairs = (s: string) => new URLSearchParams(s);
  // Facets: the version's counting index is built once (timed here), then answered from memory.
  const facets = new FacetService(d1);
  const built = performance.now();
  const index = await facets.index(meta.version);
  console.log(`facet index build: ${(performance.now() - built).toFixed(0)} ms, ${(index.bytes / 2 ** 20).toFixed(1)} MiB held`);
  const cases: [string, () => Promise<string>][] = [
    ["plain list first page (KV)", () => productListPage(kv, meta, { limit: 50 })],
    ["filtered+sorted: vendor, tag, option.size, sort=price_asc", () => browsePage(d1, meta, {}, parseBrowsePage(pairs("vendor=Saltmarsh Supply&tag=new&option.size=M&sort=price_asc")))],
    ["sorted only: sort=price_desc", () => browsePage(d1, meta, {}, parseBrowsePage(pairs("sort=price_desc")))],
    [`deep page: sort=title_asc after ${deep}`, () => browsePage(d1, meta, {}, parseBrowsePage(pairs(`sort=title_asc&starting_after=${deep}`)))],
    ["q search: q=washed tee", () => browsePage(d1, meta, {}, parseBrowsePage(pairs("q=washed tee")))],
    ["q search, one short prefix: q=ho", () => browsePage(d1, meta, {}, parseBrowsePage(pairs("q=ho")))],
    ["facets, landing", () => browseFacets(facets, meta, {}, parseBrowseFacets(pairs("")))],
    ["facets: tag=new&option.size=M", () => browseFacets(facets, meta, {}, parseBrowseFacets(pairs("tag=new&option.size=M")))],
    ["facets: tag=new&option.size=M&q=tee", () => browseFacets(facets, meta, {}, parseBrowseFacets(pairs("tag=new&option.size=M&q=tee")))],
    ["facets, one filter value: option.size=XL", () => browseFacets(facets, meta, {}, parseBrowseFacets(pairs("option.size=XL")))],
    // The bench's shapes (test/bench/workloads.ts): the commonest vendor, tag and option value.
    ...bench.map(([name, run]): [string, () => Promise<string>] => [name, () => run(d1)]),
    ["one D1 round trip (SELECT 1)", async () => String((await local.env.BROWSE.prepare("SELECT 1").all()).results.length)],
    ["collection browse: t-shirts, available, sort=price_asc", () => browsePage(d1, meta, { collection: catalog.collections[1]?.handle ?? "" }, parseBrowsePage(pairs("available=true&sort=price_asc")))],
  ];
  for (const [name, run] of cases) {
    const times: number[] = [];
    for (let i = 0; i < 25; i++) {
      const s = performance.now();
      await run();
      times.push(performance.now() - s);
    }
    times.sort((a, b) => a - b);
    console.log(`${name}: p50 ${times[12]?.toFixed(1)} ms, p90 ${times[22]?.toFixed(1)} ms`);
  }

  // The precomputed-KV alternative: per-value posting lists (4-byte positions) that a query
  // would have to read and intersect, whatever its page size.
  const posting = (has: (p: (typeof catalog.products)[number]) => boolean) => catalog.products.filter(has).length * 4;
  const three = posting((p) => valueKey(p.vendor) === "saltmarsh supply") + posting((p) => p.tags.includes("new")) + posting((p) => p.variants.some((v) => v.available && Object.values(v.options).includes("M")));
  const words = (p: (typeof catalog.products)[number]) => new Set([p.title, ...p.tags, p.vendor].flatMap(searchWords));
  const q = posting((p) => words(p).has("washed")) + posting((p) => [...words(p)].some((w) => w.startsWith("tee")));
  console.log(`KV posting lists to read: three-filter page ${(three / 1024).toFixed(0)} KiB, q=washed tee ${(q / 1024).toFixed(0)} KiB (plus the sort keys of every candidate); the D1 page returns limit + 2 rows`);
} finally {
  clearInterval(sample);
  await local.dispose();
  rmSync(dir, { recursive: true, force: true });
}
