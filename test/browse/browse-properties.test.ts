import { env, exports } from "cloudflare:workers";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { generateCatalog } from "../../src/publish/generate.ts";
import { d1Target } from "../../src/publish/browse-index.ts";
import { publishCatalog } from "../../src/publish/publish.ts";
import { optionApiName, type SourceCatalog } from "../../src/catalog/schema.ts";
import { searchWords, valueKey } from "../../src/browse/text.ts";
import { facets, type ModelQuery, page, scopeOf } from "./browse-model.ts";
import { toMinor } from "../../src/money.ts";
import { browseSnapshotKey } from "../../src/browse/snapshot.ts";

/**
 * Properties: for random filter sets, sorts and cursors over generated catalogs, every page the
 * API answers is the model's filtered, sorted, paged list, and every facets answer is the
 * model's disjunctive counts (browse-model.ts), on the whole catalog and on a collection.
 */

const RUNS = Number((import.meta as unknown as { env: Record<string, string | undefined> }).env.FUZZ_RUNS ?? 120);
const SORTS = ["catalog", "price_asc", "price_desc", "title_asc", "title_desc", "newest"];
const ACCENTED = ["Café Crème", "Élan", "crème brûlée", "Ñandú", "ÜBER", "naïve"];
const TAG_VARIANTS = ["Sale", "SALE", "sale", "Été", "été", "Straße"];

/**
 * A generated catalog made harder: accented titles, tags in several cases, dates with ties, a
 * vendor in two cases; search settings with one-word and phrase synonyms (one of a word no
 * product has) and stop words (one of them a title word).
 */
function catalogFor(seed: number, products: number): SourceCatalog {
  const catalog = generateCatalog({ products, seed });
  catalog.search = {
    synonyms: [
      ["tee", "T-Shirt"],
      ["hoodie", "hooded sweatshirt", "hoody"],
      ["chino", "trousers"],
      ["sea salt", "ocean"],
    ],
    stop_words: ["the", "and", "with", "Washed"],
  };
  catalog.products.forEach((p, i) => {
    if (i % 5 === 0) p.title = `${ACCENTED[i % ACCENTED.length]} ${p.title}`;
    if (i % 3 === 0) p.tags = [...new Set([...p.tags, TAG_VARIANTS[i % TAG_VARIANTS.length] as string])];
    if (i % 7 === 0) p.vendor = p.vendor.toUpperCase();
    if (i % 4 === 0) delete p.created_at;
    else p.created_at = `2024-0${1 + (i % 9)}-1${i % 10}T00:00:00Z`;
  });
  return catalog;
}

function pools(catalog: SourceCatalog) {
  const words = new Set<string>();
  for (const p of catalog.products)
    for (const w of `${p.title} ${p.tags.join(" ")} ${p.vendor}`.split(/\s+/))
      if (searchWords(w).length === 1) words.add(w);
  // Hyphenated tags and types written together ("organiccotton", "TShirts"): matched by their joined form.
  for (const p of catalog.products)
    for (const w of [...p.tags, p.product_type]) if (/\w-\w/.test(w)) words.add(w.replaceAll("-", ""));
  const options = new Map<string, Set<string>>();
  for (const p of catalog.products)
    for (const o of p.options)
      o.values.forEach((v) =>
        options.set(optionApiName(o.name), (options.get(optionApiName(o.name)) ?? new Set()).add(v)),
      );
  return {
    words: [...words],
    vendors: [...new Set(catalog.products.map((p) => p.vendor))],
    types: [...new Set(catalog.products.map((p) => p.product_type).filter(Boolean))],
    tags: [...new Set(catalog.products.flatMap((p) => p.tags))],
    options: [...options].map(([name, values]) => [name, [...values]] as const),
    handles: catalog.products.map((p) => p.handle),
    skus: catalog.products
      .flatMap((p) => p.variants.map((v) => v.sku ?? ""))
      .filter((s) => s !== "")
      .slice(0, 200),
  };
}

/** One edit of `w` at `at` (modulo its length): 0 substitutes, 1 deletes, 2 inserts, 3 swaps neighbours. */
function misspell(w: string, [kind, at, letter]: [number, number, string]): string {
  const i = at % Math.max(1, w.length);
  if (kind === 0) return w.slice(0, i) + letter + w.slice(i + 1);
  if (kind === 1) return w.length > 1 ? w.slice(0, i) + w.slice(i + 1) : w;
  if (kind === 2) return w.slice(0, i) + letter + w.slice(i);
  return i + 1 < w.length ? w.slice(0, i) + (w[i + 1] ?? "") + (w[i] ?? "") + w.slice(i + 2) : w;
}

function queryArb(catalog: SourceCatalog, withPaging: boolean): fc.Arbitrary<ModelQuery> {
  const pool = pools(catalog);
  const casing = (v: string) => fc.constantFrom(v, v.toLowerCase(), v.toUpperCase());
  const some = (values: readonly string[]) =>
    fc.option(fc.array(fc.constantFrom(...values).chain(casing), { minLength: 1, maxLength: 3 }), { nil: undefined });
  // Words of the catalog, a last one cut short (a prefix), misspelled by up to two edits, in
  // another form (plural or singular, British or American: issue 37), quoted, synonyms and stop
  // words; or a SKU.
  const word = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...pool.words) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...pool.words), fc.nat({ max: 4 }))
        .map(([w, how]) =>
          how === 0
            ? `${w}s`
            : how === 1
              ? w.replace(/s$/i, "")
              : how === 2
                ? w.replace(/y$/i, "ies")
                : how === 3
                  ? w.replace(/our/i, "or").replace(/grey/i, "gray")
                  : `${w}es`,
        ),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          fc.constantFrom(...pool.words),
          fc.array(fc.tuple(fc.nat({ max: 3 }), fc.nat({ max: 20 }), fc.constantFrom(..."aeiostx")), {
            minLength: 1,
            maxLength: 2,
          }),
        )
        .map(([w, edits]) => edits.reduce(misspell, w)),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        "tee",
        "T-Shirt",
        "tshirt",
        "hoody",
        "hooded",
        "trousers",
        "ocean",
        "the",
        "with",
        "washed",
        '"tee"',
        '"hoodie"',
        '"classic"',
      ),
    },
  );
  const q = fc.option(
    fc.oneof(
      {
        weight: 5,
        // Up to three words: the second chance (issue 37) takes 2-3.
        arbitrary: fc.array(word, { minLength: 1, maxLength: 3 }).chain((ws) =>
          fc.nat({ max: 3 }).map((cut) => {
            const last = ws.at(-1) ?? "";
            return [...ws.slice(0, -1), last.endsWith('"') ? last : last.slice(0, Math.max(1, last.length - cut))].join(
              " ",
            );
          }),
        ),
      },
      { weight: 1, arbitrary: fc.constantFrom(...pool.skus) },
    ),
    { nil: undefined, freq: 2 },
  );
  const option = fc.option(
    fc
      .constantFrom(...pool.options)
      .chain(([name, values]) =>
        fc.array(fc.constantFrom(...values), { minLength: 1, maxLength: 2 }).map((v) => ({ [name]: v })),
      ),
    { nil: undefined },
  );
  const prices = fc.option(
    fc
      .tuple(fc.integer({ min: 0, max: 20000 }), fc.integer({ min: 0, max: 30000 }))
      .map(([a, b]) => [Math.min(a, b), Math.max(a, b)] as const),
    { nil: undefined },
  );
  return fc
    .record({
      q,
      available: fc.option(fc.boolean(), { nil: undefined }),
      vendor: some(pool.vendors),
      product_type: some(pool.types),
      tag: some(pool.tags),
      options: option,
      prices,
      sort: fc.constantFrom(...SORTS, "relevance", "default"),
      limit: fc.integer({ min: 1, max: 12 }),
      cursor: fc.option(
        fc.tuple(fc.constantFrom("starting_after", "ending_before"), fc.constantFrom(...pool.handles)),
        { nil: undefined, freq: 2 },
      ),
    })
    .map((r) => {
      const query: ModelQuery = {
        q: r.q,
        available: r.available,
        vendor: r.vendor,
        product_type: r.product_type,
        tag: r.tag,
        options: r.options,
      };
      if (r.prices) [query.price_min, query.price_max] = r.prices;
      if (withPaging) {
        query.sort = r.sort === "default" || (r.sort === "relevance" && r.q === undefined) ? undefined : r.sort;
        query.limit = r.limit;
        if (r.cursor) query[r.cursor[0] as "starting_after"] = r.cursor[1];
      }
      return query;
    });
}

function search(q: ModelQuery): string {
  const params = new URLSearchParams();
  if (q.q !== undefined) params.append("q", q.q);
  if (q.available !== undefined) params.append("available", String(q.available));
  for (const name of ["vendor", "product_type", "tag"] as const) for (const v of q[name] ?? []) params.append(name, v);
  for (const [name, values] of Object.entries(q.options ?? {}))
    for (const v of values) params.append(`option.${name}`, v);
  if (q.price_min !== undefined) params.append("price_min", (q.price_min / 100).toFixed(2));
  if (q.price_max !== undefined) params.append("price_max", String(q.price_max / 100));
  if (q.sort !== undefined) params.append("sort", q.sort);
  if (q.limit !== undefined) params.append("limit", String(q.limit));
  if (q.starting_after !== undefined) params.append("starting_after", q.starting_after);
  if (q.ending_before !== undefined) params.append("ending_before", q.ending_before);
  return params.toString();
}

/** How many shard snapshots (manifests) a version has in R2: 0 for a whole index. */
async function shardSnapshots(version: string): Promise<number> {
  const listed = await env.BROWSE_SNAPSHOTS.list({ prefix: `${browseSnapshotKey(version)}/s` });
  return listed.objects.filter((o) => /\/s\d+$/.test(o.key)).length;
}

async function get(path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await exports.default.fetch(`https://shop.example/api/v1${path}`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The API's page of `q` over the whole catalog is the model's (a query the model answers with a page). */
async function sameCatalogPage(catalog: SourceCatalog, q: ModelQuery): Promise<void> {
  const { status, body } = await get(`/products?${search(q)}`);
  expect(status).toBe(200);
  expect({
    count: body.count,
    handles: (body.data as { handle: string }[]).map((p) => p.handle),
    has_more: body.has_more,
  }).toEqual(page(catalog.products, q, catalog));
}

/** The API's page of `q` over the catalog or a collection is the model's. */
async function samePage(catalog: SourceCatalog, scope: string | undefined, q: ModelQuery): Promise<void> {
  const expected = page(scopeOf(catalog, scope), q, catalog);
  const where = scope === undefined ? "/products" : `/collections/${scope}`;
  const { status, body } = await get(`${where}?${search(q)}`);
  if ("error" in expected) {
    expect(status).toBe(400);
    expect((body.error as { param: string }).param).toBe(expected.error);
    return;
  }
  expect(status).toBe(200);
  const list = (scope === undefined ? body : body.products) as {
    count: number;
    data: { handle: string }[];
    has_more: boolean;
  };
  expect({ count: list.count, handles: list.data.map((p) => p.handle), has_more: list.has_more }).toEqual(expected);
}

/**
 * Each catalog whole, and cut into shards (src/browse/shards.ts: one engine each, the Worker
 * merging their slices and summing their counts), which must answer as the whole index does.
 */
for (const [seed, size, shardProducts] of [
  [7, 150, undefined],
  [11, 60, undefined],
  [7, 150, 40],
  [11, 60, 9],
] as const) {
  const shards = shardProducts === undefined ? "" : ` in ${Math.ceil(size / shardProducts)} shards`;
  describe(`a generated catalog of ${size} products (seed ${seed})${shards}`, () => {
    const catalog = catalogFor(seed, size);
    const collection = catalog.collections.find((c) => c.products.length > 5) ?? catalog.collections[0];
    beforeAll(async () => {
      const { version } = await publishCatalog(env.CATALOG, catalog, {
        browse: d1Target(env.BROWSE, env.BROWSE_SNAPSHOTS),
        shardProducts,
      });
      expect(await shardSnapshots(version)).toBe(shardProducts === undefined ? 0 : Math.ceil(size / shardProducts));
    }, 60_000);

    for (const scope of [undefined, collection?.handle]) {
      const where = scope === undefined ? "/products" : `/collections/${scope}`;
      it(`answers every page of ${where} as the model's filtered, sorted, paged list`, async () => {
        await fc.assert(
          fc.asyncProperty(queryArb(catalog, true), (q) => samePage(catalog, scope, q)),
          { numRuns: RUNS },
        );
        // The model's q (every word of every product against every query word, typos by a full
        // table) costs tens of ms per new query: more than the default 5 s on a shared machine.
      }, 60_000);

      it(`finds hyphenated words written together (organiccotton, tshirts) on ${where} as the model does`, async () => {
        // The tags and types with a hyphen, joined; cut short (a prefix) or misspelled, alone or after another word.
        const joined = [
          ...new Set(
            catalog.products
              .flatMap((p) => [...p.tags, p.product_type])
              .filter((w) => /\w-\w/.test(w))
              .map((w) => w.replaceAll("-", "")),
          ),
        ];
        expect(joined.length).toBeGreaterThan(2);
        const edit = fc.tuple(fc.nat({ max: 3 }), fc.nat({ max: 20 }), fc.constantFrom(..."aeiostx"));
        const arb = fc.record({
          word: fc.constantFrom(...joined),
          edits: fc.array(edit, { maxLength: 2 }),
          cut: fc.nat({ max: 3 }),
          before: fc.option(fc.constantFrom(...pools(catalog).words), { nil: undefined, freq: 3 }),
          sort: fc.constantFrom("relevance", "catalog", "price_asc"),
          limit: fc.integer({ min: 1, max: 12 }),
        });
        await fc.assert(
          fc.asyncProperty(arb, ({ word, edits, cut, before, sort, limit }) => {
            const last = edits.reduce(misspell, word);
            const q = [before, last.slice(0, Math.max(1, last.length - cut))].filter(Boolean).join(" ");
            return samePage(catalog, scope, { q, sort, limit });
          }),
          { numRuns: Math.ceil(RUNS / 2) },
        );
      }, 60_000);

      it(`finds a hyphenated q (t-shirts) by its words and written together on ${where} as the model does`, async () => {
        // The tags and types with a hyphen as written, case varied, cut short (a prefix of the
        // joined form) or not: a q of letters joined by hyphens is SKU-shaped (its words exact)
        // and also matches its words written together.
        const hyphenated = [
          ...new Set(catalog.products.flatMap((p) => [...p.tags, p.product_type]).filter((w) => /\w-\w/.test(w))),
        ];
        expect(hyphenated.length).toBeGreaterThan(2);
        const arb = fc.record({
          word: fc.constantFrom(...hyphenated),
          upper: fc.boolean(),
          cut: fc.nat({ max: 3 }),
          sort: fc.constantFrom("relevance", "catalog", "title_asc"),
          limit: fc.integer({ min: 1, max: 12 }),
        });
        await fc.assert(
          fc.asyncProperty(arb, ({ word, upper, cut, sort, limit }) => {
            const cased = upper ? word.toUpperCase() : word;
            const q = cased.slice(0, Math.max(3, cased.length - cut)).replace(/-$/, "");
            return samePage(catalog, scope, { q, sort, limit });
          }),
          { numRuns: Math.ceil(RUNS / 2) },
        );
      }, 60_000);

      it(`answers ${where}/facets with one filter of one value (matching something or nothing) as the model does`, async () => {
        const pool = pools(catalog);
        // A selected value with no match in the scope shows as the request spelled it, and a facets
        // answer is cached per spelling, so every value varies case, in the catalog and in a collection.
        const casing = (v: string) => fc.constantFrom(v, v.toUpperCase());
        const spellings = (values: string[]) =>
          scope === undefined ? values : [...new Map(values.map((v) => [valueKey(v), v])).values()];
        const one = fc.oneof(
          fc
            .constantFrom(...spellings(pool.vendors))
            .chain(casing)
            .map((v): ModelQuery => ({ vendor: [v] })),
          fc
            .constantFrom(...spellings(pool.types))
            .chain(casing)
            .map((v): ModelQuery => ({ product_type: [v] })),
          fc
            .constantFrom(...spellings(pool.tags))
            .chain(casing)
            .map((v): ModelQuery => ({ tag: [v] })),
          // Values no product has, in either case.
          fc
            .constantFrom("No Such Vendor", "nothing-here", "Nothing Here")
            .chain(casing)
            .map(
              (v): ModelQuery => ({
                vendor: [v],
                ...(v === "nothing-here" ? { vendor: undefined, product_type: [v] } : {}),
              }),
            ),
          fc.boolean().map((v): ModelQuery => ({ available: v })),
          fc
            .constantFrom(...pool.options)
            .chain(([name, values]) =>
              fc.constantFrom(...values, "No Such Value").map((v): ModelQuery => ({ options: { [name]: [v] } })),
            ),
        );
        await fc.assert(
          fc.asyncProperty(one, async (q) => {
            const { status, body } = await get(
              `${where === "/products" ? "/products/facets" : `${where}/facets`}?${search(q)}`,
            );
            expect(status).toBe(200);
            expect(body).toEqual(facets(catalog, scopeOf(catalog, scope), q));
          }),
          { numRuns: Math.ceil(RUNS / 2) },
        );
        // The model's q is slow on a shared machine (see the pages above).
      }, 60_000);

      it(`answers ${where}/facets with the model's disjunctive counts`, async () => {
        await fc.assert(
          fc.asyncProperty(queryArb(catalog, false), async (q) => {
            const { status, body } = await get(
              `${where === "/products" ? "/products/facets" : `${where}/facets`}?${search(q)}`,
            );
            expect(status).toBe(200);
            expect(body).toEqual(facets(catalog, scopeOf(catalog, scope), q));
          }),
          { numRuns: Math.ceil(RUNS / 2) },
        );
        // As the pages: the model's q is slow on a shared machine.
      }, 60_000);
    }
  });
}

/**
 * Pages walk the sort's precomputed order testing each product against the matches' bitmap
 * (src/browse/index/version-index.ts), a segment of equal keys at a time. "Late" is on every other
 * product of the catalog's last 40%, so catalog order walks past 1,200 products without a match
 * before the first one, and every sort meets long runs of non-matches and of ties.
 */
for (const shardProducts of [undefined, 700])
  describe(`value-filter first pages of a 2,000-product catalog, from the bitmaps${shardProducts ? " of 3 shards" : ""}`, () => {
    const catalog = generateCatalog({ products: 2_000, seed: 5 });
    catalog.products.forEach((p, i) => {
      if (i >= 1_200 && i % 2 === 0) p.tags = [...p.tags, "Late"];
      if (i % 97 === 5) p.tags = [...p.tags, "Rare"];
    });
    const pool = pools(catalog);
    beforeAll(async () => {
      const { version } = await publishCatalog(env.CATALOG, catalog, {
        browse: d1Target(env.BROWSE, env.BROWSE_SNAPSHOTS),
        shardProducts,
      });
      expect(await shardSnapshots(version)).toBe(shardProducts ? 3 : 0);
    }, 60_000);

    const fixed: ModelQuery[] = [
      { tag: ["Late"], sort: "catalog", limit: 3 },
      { tag: ["late"], available: true, limit: 12 },
      { tag: ["Late"], sort: "price_desc", limit: 250 },
      { available: true, sort: "price_asc", limit: 7 },
      { available: false, sort: "title_desc", limit: 250 },
      { vendor: pool.vendors.slice(0, 3), sort: "newest", limit: 5 },
      { tag: [...pool.tags.slice(0, 3), "Late"], sort: "title_asc", limit: 9 },
      { options: { size: ["M", "L"] }, vendor: [pool.vendors[0] ?? ""], sort: "price_asc", limit: 4 },
    ];
    it("answers fixed dense, sparse and anti-correlated filter sets as the model does", async () => {
      for (const q of fixed) {
        await sameCatalogPage(catalog, q);
      }
    });

    // 21 "Rare" products of 2,000: under 1/64 of the catalog, so a keyed sort sorts the matches
    // instead of walking its order (version-index.ts, SPARSE); every page, both directions.
    it("pages few matches under every keyed sort, forwards and backwards, as the model does", async () => {
      for (const sort of ["price_asc", "price_desc", "title_asc", "title_desc", "newest"] as const) {
        const handles: string[] = [];
        let q: ModelQuery = { tag: ["Rare"], sort, limit: 4 };
        for (;;) {
          const { status, body } = await get(`/products?${search(q)}`);
          expect(status).toBe(200);
          const got = {
            count: body.count,
            handles: (body.data as { handle: string }[]).map((p) => p.handle),
            has_more: body.has_more,
          };
          expect(got).toEqual(page(catalog.products, q, catalog));
          handles.push(...got.handles);
          if (!got.has_more) break;
          q = { tag: ["Rare"], sort, limit: 4, starting_after: got.handles.at(-1) ?? "" };
        }
        expect(handles).toHaveLength(21);
        const back: ModelQuery = { tag: ["Rare"], sort, limit: 4, ending_before: handles[10] ?? "" };
        const { body } = await get(`/products?${search(back)}`);
        expect((body.data as { handle: string }[]).map((p) => p.handle)).toEqual(handles.slice(6, 10));
        expect({
          count: body.count,
          handles: (body.data as { handle: string }[]).map((p) => p.handle),
          has_more: body.has_more,
        }).toEqual(page(catalog.products, back, catalog));
      }
    });

    // q=rare matches the 21 "Rare" products by their tag: under 1/64 of the catalog, so the page
    // narrows q's matches as a list, product by product, instead of ANDing bitmaps
    // (version-index.ts, Resolved.few); every sort, both directions, with and without a filter,
    // in the catalog and in a collection.
    it("pages q's few matches (kept as a list) under every sort, forwards and backwards, as the model does", async () => {
      const collection = catalog.collections.find(
        (c) => c.products.filter((h) => catalog.products.find((p) => p.handle === h)?.tags.includes("Rare")).length > 3,
      );
      expect(collection).toBeDefined();
      const scopes = [undefined, collection?.handle];
      const sorts = ["relevance", "catalog", "price_asc", "price_desc", "title_asc", "title_desc", "newest"] as const;
      // A filter that keeps about half of them: the lowest variant prices of the Rare products, their median.
      const prices = catalog.products
        .filter((p) => p.tags.includes("Rare"))
        .map((p) => Math.min(...p.variants.map((v) => toMinor(v.price))))
        .sort((a, b) => a - b);
      const median = prices[prices.length >> 1] as number;
      for (const scope of scopes)
        for (const filter of [{}, { price_max: median }])
          for (const sort of sorts) {
            const base: ModelQuery = { q: "rare", sort, limit: 4, ...filter };
            const pages: string[][] = [];
            let q = base;
            for (;;) {
              await samePage(catalog, scope, q);
              const got = page(scopeOf(catalog, scope), q, catalog);
              if ("error" in got) throw new Error(got.error);
              pages.push(got.handles);
              if (!got.has_more) break;
              q = { ...base, starting_after: got.handles.at(-1) ?? "" };
            }
            const all = pages.flat();
            expect(all.length).toBeGreaterThan(3);
            await samePage(catalog, scope, { ...base, ending_before: all[all.length - 2] ?? "" });
          }
      // The model reads every word of 2,000 products for each new q: more than 5 s on a shared machine.
    }, 60_000);

    it("answers random value-filter first pages as the model does", async () => {
      const arb = queryArb(catalog, true).map(
        (q): ModelQuery => ({
          ...q,
          q: undefined,
          price_min: undefined,
          price_max: undefined,
          starting_after: undefined,
          ending_before: undefined,
          sort: q.sort === "relevance" ? undefined : q.sort,
        }),
      );
      await fc.assert(
        fc.asyncProperty(arb, async (q) => {
          await sameCatalogPage(catalog, q);
        }),
        { numRuns: RUNS },
      );
    });
  });
