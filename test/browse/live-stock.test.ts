import { env } from "cloudflare:workers";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import type { LiveStock } from "../../src/browse/live-stock.ts";
import { parseBrowseFacets, parseBrowsePage } from "../../src/browse/query.ts";
import { BrowseService } from "../../src/browse/service.ts";
import { BrowseStore } from "../../src/browse/source.ts";
import { optionApiName, type SourceCatalog } from "../../src/catalog/schema.ts";
import { d1Target } from "../../src/publish/browse-index.ts";
import { publishCatalog } from "../../src/publish/publish.ts";
import { seedCatalog } from "../helpers/catalog.ts";

/**
 * Issue 35 point 5: a version's engine given live stock (LiveStock: the products whose
 * availability changed, with their in-stock variants' option values) answers the `available` and
 * `option.*` filters and the facet counts exactly as an index published with that availability
 * would: the delta (VersionIndex's Live, FacetIndex's StockChange) against a rebuild, over random
 * availability changes (sold out and restocked) and random filters, in the catalog and a collection.
 */

const RUNS = Number((import.meta as unknown as { env: Record<string, string | undefined> }).env.FUZZ_RUNS ?? 40);
const service = () => new BrowseService(new BrowseStore(env.BROWSE), env.BROWSE_SNAPSHOTS);
const base = new BrowseService(new BrowseStore(env.BROWSE), env.BROWSE_SNAPSHOTS);
let baseVersion = "";
let fileAnswer: unknown;

beforeAll(async () => {
  baseVersion = (
    await publishCatalog(env.CATALOG, seedCatalog(), { browse: d1Target(env.BROWSE, env.BROWSE_SNAPSHOTS) })
  ).version;
  fileAnswer = await base.facets(baseVersion, {}, parseBrowseFacets([["available", "true"]]));
}, 60_000);

/** The seed with `flips` (variant indexes over every variant of the catalog) sold out or restocked, and the LiveStock saying so. */
function changed(flips: number[], gen: number): { catalog: SourceCatalog; stock: LiveStock } {
  const catalog: SourceCatalog = seedCatalog();
  const all = catalog.products.flatMap((p) => p.variants.map((v) => ({ p, v })));
  const touched = new Set<(typeof catalog.products)[number]>();
  for (const i of new Set(flips)) {
    const at = all[i % all.length]!;
    at.v.available = !at.v.available;
    touched.add(at.p);
  }
  const products: LiveStock["products"] = {};
  for (const p of touched) {
    p.available = p.variants.some((v) => v.available);
    const options: [string, string][] = [];
    for (const v of p.variants)
      if (v.available) for (const o of p.options) options.push([optionApiName(o.name), v.options[o.name] as string]);
    products[p.handle] = [p.available ? 1 : 0, options];
  }
  return { catalog, stock: { gen, products } };
}

const FILTERS = [
  ["available", "true"],
  ["available", "false"],
  ["option.size", "M"],
  ["option.size", "S"],
  ["option.size", "XL"],
  ["option.color", "Black"],
  ["option.color", "Navy"],
  ["option.color", "Forest"],
  ["tag", "tee"],
  ["vendor", "Northwind Threads"],
] as const;

describe("live stock in the browse engine agrees with a publish of the same availability", () => {
  for (const seed of [1, 2, 3, 4]) {
    it(`changes of seed ${seed}: filters, counts and pages`, async () => {
      const flips = fc.sample(fc.array(fc.nat(200), { minLength: 1, maxLength: 12 }), { numRuns: 1, seed })[0]!;
      const { catalog, stock } = changed(flips, seed);
      const { version } = await publishCatalog(env.CATALOG, catalog, {
        browse: d1Target(env.BROWSE, env.BROWSE_SNAPSHOTS),
      });
      const rebuilt = service();
      const queries = fc.sample(
        fc.tuple(fc.subarray([...FILTERS], { maxLength: 3 }), fc.constantFrom(undefined, "tees-and-tops", "outerwear")),
        { numRuns: RUNS, seed },
      );
      for (const [pairs, collection] of queries) {
        if (pairs.filter(([k]) => k === "available").length > 1) continue;
        const scope = collection === undefined ? {} : { collection };
        const filters = parseBrowseFacets(pairs.map(([k, v]) => [k, v]));
        const live = await base.facets(baseVersion, scope, { ...filters, stock });
        const model = await rebuilt.facets(version, scope, filters);
        expect(live, JSON.stringify([pairs, collection, flips])).toEqual(model);
        const page = parseBrowsePage([...pairs.map(([k, v]): [string, string] => [k, v]), ["limit", "250"]]);
        const livePage = await base.page(baseVersion, scope, { ...page, stock });
        const modelPage = await rebuilt.page(version, scope, page);
        expect(livePage.ok && modelPage.ok).toBe(true);
        const handles = (r: typeof livePage) =>
          r.ok
            ? (JSON.parse(r.body) as { data?: { handle: string }[]; products?: { data: { handle: string }[] } })
            : null;
        const list = (r: typeof livePage) => {
          const b = handles(r);
          return (b?.products?.data ?? b?.data ?? []).map((i) => i.handle);
        };
        expect(list(livePage), JSON.stringify([pairs, collection, flips])).toEqual(list(modelPage));
      }
      // Without live stock the engine answers the file, as before (the delta never touched it).
      expect(await base.facets(baseVersion, {}, parseBrowseFacets([["available", "true"]]))).toEqual(fileAnswer);
    }, 60_000);
  }
});
