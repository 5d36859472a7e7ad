/**
 * Browse in memory, measured: `npm exec -- node test/browse/browse-measure.ts [products]`
 * (default 100,000). Publishes a generated catalog (KV entries and the D1 browse index) into a
 * throwaway local state, reports publish time and peak memory, builds the version's
 * VersionIndex from D1 (time, bytes held in typed arrays), then p50 latencies of browse answers
 * from it (Node's V8, no Worker or RPC around them) against a plain list first page through
 * the same local KV binding. The bench's browse reads (browseWorkloads) are timed too.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openLocalEnv } from "../../src/cli/local-env.ts";
import { browseFacets, browsePage, BrowseService } from "../../src/browse/service.ts";
import { BrowseStore } from "../../src/browse/source.ts";
import { parseBrowseFacets, parseBrowsePage } from "../../src/browse/query.ts";
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
  await publishCatalog(local.env.CATALOG, catalog, { browse: d1Target(local.env.BROWSE, local.env.BROWSE_SNAPSHOTS) });
  const bothSeconds = (performance.now() - t) / 1000;
  console.log(
    `publish ${products}: KV only ${kvSeconds.toFixed(1)} s; KV + browse index ${bothSeconds.toFixed(1)} s; node peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB; workerd peak RSS ${workerdPeak.toFixed(0)} MiB`,
  );

  const kv = new CatalogStore(local.env.CATALOG);
  const meta = await kv.currentMeta();
  if (!meta) throw new Error("nothing published");
  const engine = new BrowseService(new BrowseStore(local.env.BROWSE));
  const deep = catalog.products[Math.floor(products * 0.6)]?.handle ?? "";
  // The bench's exact browse reads (test/bench/workloads.ts), answered here without HTTP.
  const bench = browseWorkloads(catalog).map((w): [string, () => Promise<string>] => {
    const url = new URL(w.requests[0]?.path ?? "/", "https://bench.invalid");
    const name = `bench ${w.name}: ${url.pathname.replace("/api/v1", "")}${url.search}`;
    const collection = /\/collections\/([^/]+)$/.exec(url.pathname)?.[1];
    if (url.pathname.endsWith("/facets"))
      return [name, () => browseFacets(engine, meta, {}, parseBrowseFacets(url.searchParams))];
    return [name, () => browsePage(engine, meta, collection ? { collection } : {}, parseBrowsePage(url.searchParams))];
  });
  const pairs = (s: string) => new URLSearchParams(s);
  const built = performance.now();
  const index = await engine.index(meta.version);
  console.log(
    `version index build: ${(performance.now() - built).toFixed(0)} ms, ${(index.bytes / 2 ** 20).toFixed(1)} MiB in typed arrays`,
  );
  const cases: [string, () => Promise<string>][] = [
    ["plain list first page (KV)", () => productListPage(kv, meta, { limit: 50 })],
    [
      "filtered+sorted: vendor, tag, option.size, sort=price_asc",
      () =>
        browsePage(
          engine,
          meta,
          {},
          parseBrowsePage(pairs("vendor=Saltmarsh Supply&tag=new&option.size=M&sort=price_asc")),
        ),
    ],
    ["sorted only: sort=price_desc", () => browsePage(engine, meta, {}, parseBrowsePage(pairs("sort=price_desc")))],
    [
      `deep page: sort=title_asc after ${deep}`,
      () => browsePage(engine, meta, {}, parseBrowsePage(pairs(`sort=title_asc&starting_after=${deep}`))),
    ],
    ["q search: q=washed tee", () => browsePage(engine, meta, {}, parseBrowsePage(pairs("q=washed tee")))],
    ["q search, one short prefix: q=ho", () => browsePage(engine, meta, {}, parseBrowsePage(pairs("q=ho")))],
    [
      "q search, one digit: q=1 (every SKU number starting with 1)",
      () => browsePage(engine, meta, {}, parseBrowsePage(pairs("q=1"))),
    ],
    ["facets, landing", () => browseFacets(engine, meta, {}, parseBrowseFacets(pairs("")))],
    [
      "facets: tag=new&option.size=M",
      () => browseFacets(engine, meta, {}, parseBrowseFacets(pairs("tag=new&option.size=M"))),
    ],
    [
      "facets: tag=new&option.size=M&q=tee",
      () => browseFacets(engine, meta, {}, parseBrowseFacets(pairs("tag=new&option.size=M&q=tee"))),
    ],
    [
      "facets, one filter value: option.size=XL",
      () => browseFacets(engine, meta, {}, parseBrowseFacets(pairs("option.size=XL"))),
    ],
    [
      "facets: price_min=20&price_max=60&available=true",
      () => browseFacets(engine, meta, {}, parseBrowseFacets(pairs("price_min=20&price_max=60&available=true"))),
    ],
    // Broad filters: most of the catalog matches, so its counts are the catalog's (or the value's) minus the rest.
    [
      "facets, one broad filter: available=true",
      () => browseFacets(engine, meta, {}, parseBrowseFacets(pairs("available=true"))),
    ],
    ["facets, one common tag: tag=new", () => browseFacets(engine, meta, {}, parseBrowseFacets(pairs("tag=new")))],
    [
      "facets, a collection without filters",
      () =>
        browseFacets(engine, meta, { collection: catalog.collections[1]?.handle ?? "" }, parseBrowseFacets(pairs(""))),
    ],
    // The bench's shapes (test/bench/workloads.ts): the commonest vendor, tag and option value.
    ...bench,
    [
      "one D1 round trip (SELECT 1)",
      async () => String((await local.env.BROWSE.prepare("SELECT 1").all()).results.length),
    ],
    [
      "collection browse: t-shirts, available, sort=price_asc",
      () =>
        browsePage(
          engine,
          meta,
          { collection: catalog.collections[1]?.handle ?? "" },
          parseBrowsePage(pairs("available=true&sort=price_asc")),
        ),
    ],
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
} finally {
  clearInterval(sample);
  await local.dispose();
  rmSync(dir, { recursive: true, force: true });
}
