import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import app from "../../src/index.ts";
import type { ChangeBatch } from "../../src/catalog/changes.ts";
import type { SourceCatalog, SourceCollection, SourceProduct } from "../../src/catalog/schema.ts";
import { CatalogStore } from "../../src/catalog/store.ts";
import { applyBatch } from "../../src/publish/batch/apply.ts";
import { d1Target } from "../../src/publish/browse-index.ts";
import { generateCatalog } from "../../src/publish/generate.ts";
import { bindingTarget, publishCatalog } from "../../src/publish/publish.ts";
import { API } from "../helpers/worker.ts";

/**
 * Issue 45 point 3, contract section 11: after any sequence of change batches, every catalog and
 * browse answer equals the answer of a full publish of the resulting catalog (bodies, counts,
 * facet counts, search order with its BM25 statistics, ETags; the version apart). Random batches
 * (prices that move the sort orders, new titles and tags in other spellings, new option names
 * and values, new products, deletions, collections upserted, reordered, added and deleted) are
 * applied to a published catalog, a fixed corpus of requests is answered, the resulting catalog
 * is published in full and the corpus answered again. Once with the whole index, once cut into
 * shards.
 */

const RUNS = Number((import.meta as unknown as { env: Record<string, string | undefined> }).env.FUZZ_RUNS ?? 12);

/** A small catalog made harder as browse-properties.test.ts makes it: accents, cases, synonyms and stop words. */
function baseCatalog(seed: number): SourceCatalog {
  const catalog = generateCatalog({ products: 70, seed });
  catalog.search = {
    synonyms: [
      ["tee", "T-Shirt"],
      ["chino", "trousers"],
    ],
    stop_words: ["the", "and", "Washed"],
  };
  catalog.products.forEach((p, i) => {
    if (i % 5 === 0) p.title = `Élan ${p.title}`;
    if (i % 3 === 0) p.tags = [...new Set([...p.tags, i % 2 ? "Sale" : "SALE"])];
    if (i % 7 === 0) p.vendor = p.vendor.toUpperCase();
    if (i % 4 === 0) delete p.created_at;
  });
  catalog.collections.push({
    handle: "picks",
    title: "Picks",
    products: catalog.products.filter((_, i) => i % 4 === 1).map((p) => p.handle),
  });
  return catalog;
}

/** One edit of a batch, as the model applies it and as the batch carries it. */
type Edit =
  | { kind: "price"; at: number; factor: number }
  | { kind: "title"; at: number; title: string }
  | { kind: "tag"; at: number; tag: string }
  | { kind: "vendor"; at: number; vendor: string }
  | { kind: "option"; at: number; value: string }
  | { kind: "material"; at: number; value: string }
  | { kind: "sold"; at: number }
  | { kind: "new"; from: number; title: string }
  | { kind: "delete"; at: number }
  | { kind: "collection"; handle: string; picks: number[]; title: string }
  | { kind: "uncollect"; at: number };

const editArb: fc.Arbitrary<Edit> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("price" as const),
      at: fc.nat(),
      factor: fc.double({ min: 0.2, max: 3, noNaN: true }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("title" as const),
      at: fc.nat(),
      title: fc.constantFrom(
        "Zephyr tee",
        "ÉCRU linen shirt",
        "Alpine candle",
        "aaa first",
        "zzz last",
        "Washed chino",
      ),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("tag" as const),
      at: fc.nat(),
      tag: fc.constantFrom("sale", "Sale", "Brand New", "brand new", "Été"),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("vendor" as const),
      at: fc.nat(),
      vendor: fc.constantFrom("New Maker", "new maker", "Saltmarsh Supply"),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("option" as const),
      at: fc.nat(),
      value: fc.constantFrom("Huge", "xs", "XS"),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("material" as const),
      at: fc.nat(),
      value: fc.constantFrom("Wool", "wool", "Silk"),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("sold" as const), at: fc.nat() }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("new" as const),
      from: fc.nat(),
      title: fc.constantFrom("Zephyr tee", "Added hoodie", "aaa first", "Organic chino"),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("delete" as const), at: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("collection" as const),
      handle: fc.constantFrom("picks", "frontpage", "fresh"),
      picks: fc.array(fc.nat(), { maxLength: 8 }),
      title: fc.constantFrom("Picks", "Fresh picks", "Frontpage"),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("uncollect" as const), at: fc.nat() }) },
);

let added = 0;

/** Applies `edits` to the model catalog and returns the batch that does the same. */
function batchOf(catalog: SourceCatalog, edits: readonly Edit[]): ChangeBatch {
  const upserts = new Map<string, SourceProduct>();
  const deletes = new Set<string>();
  const collections = new Map<string, SourceCollection>();
  const goneCollections = new Set<string>();
  // What the live catalog held before the batch: only those can be deleted by it.
  const products = new Set(catalog.products.map((p) => p.handle));
  const before = new Set(catalog.collections.map((c) => c.handle));
  const live = () => catalog.products;
  const pick = (at: number) => live()[at % live().length] as SourceProduct;
  const replace = (p: SourceProduct, change: (q: SourceProduct) => void) => {
    const q = structuredClone(p);
    change(q);
    catalog.products[catalog.products.indexOf(p)] = q;
    upserts.set(q.handle, q);
  };
  for (const e of edits) {
    if (live().length < 5) break;
    switch (e.kind) {
      case "price":
        replace(pick(e.at), (q) => {
          for (const v of q.variants) v.price = Math.max(0.5, Number(v.price) * e.factor).toFixed(2);
        });
        break;
      case "title":
        replace(pick(e.at), (q) => {
          q.title = e.title;
        });
        break;
      case "tag":
        replace(pick(e.at), (q) => {
          q.tags = [...new Set([...q.tags, e.tag])].slice(0, 250);
        });
        break;
      case "vendor":
        replace(pick(e.at), (q) => {
          q.vendor = e.vendor;
        });
        break;
      case "option":
        replace(pick(e.at), (q) => {
          const o = q.options[0];
          if (!o) return;
          const old = o.values[0] as string;
          if (o.values.includes(e.value)) return;
          o.values[0] = e.value;
          for (const v of q.variants) if (v.options[o.name] === old) v.options[o.name] = e.value;
        });
        break;
      case "material":
        replace(pick(e.at), (q) => {
          if (q.options.length === 0 || q.options.length >= 3 || q.options.some((o) => o.name === "Material")) return;
          q.options.push({ name: "Material", values: [e.value] });
          for (const v of q.variants) v.options = { ...v.options, Material: e.value };
        });
        break;
      case "sold":
        replace(pick(e.at), (q) => {
          q.available = false;
          for (const v of q.variants) {
            v.available = false;
            delete v.inventory_quantity;
          }
        });
        break;
      case "new": {
        const from = pick(e.from);
        const n = ++added;
        const q = structuredClone(from);
        q.handle = `added-${n}`;
        q.id = `gid://shopify/Product/${900_000_000 + n}`;
        q.title = `${e.title} ${n % 3}`;
        q.variants.forEach((v, i) => {
          v.id = `${800_000_000 + n * 100 + i}`;
        });
        catalog.products.push(q);
        upserts.set(q.handle, q);
        break;
      }
      case "delete": {
        const p = pick(e.at);
        catalog.products.splice(catalog.products.indexOf(p), 1);
        upserts.delete(p.handle);
        if (products.has(p.handle)) deletes.add(p.handle);
        for (const c of catalog.collections) c.products = c.products.filter((h) => h !== p.handle);
        for (const c of collections.values()) c.products = c.products.filter((h) => h !== p.handle);
        break;
      }
      case "collection": {
        const products = [...new Set(e.picks.map((at) => pick(at).handle))];
        const old = catalog.collections.find((c) => c.handle === e.handle);
        // Sometimes the members before, kept in order, with the new ones after (an append).
        const members =
          old && e.picks.length % 2 === 0
            ? [...old.products, ...products.filter((h) => !old.products.includes(h))]
            : products;
        const c: SourceCollection = { handle: e.handle, title: e.title, products: members };
        if (old) catalog.collections[catalog.collections.indexOf(old)] = c;
        else catalog.collections.push(c);
        collections.set(e.handle, c);
        goneCollections.delete(e.handle);
        break;
      }
      case "uncollect": {
        const c = catalog.collections[e.at % Math.max(1, catalog.collections.length)];
        if (!c || c.handle === "frontpage") break;
        catalog.collections.splice(catalog.collections.indexOf(c), 1);
        collections.delete(c.handle);
        if (before.has(c.handle)) goneCollections.add(c.handle);
        break;
      }
    }
  }
  return {
    upsert: [...upserts.values()],
    delete: [...deletes],
    collections: {
      upsert: [...collections.values()].filter((c) => catalog.collections.includes(c)),
      delete: [...goneCollections],
    },
  };
}

interface Answer {
  status: number;
  etag: string | null;
  body: string;
}

async function get(path: string): Promise<Answer> {
  const ctx = createExecutionContext();
  const res = await app.fetch(new Request(`${API}${path}`), env, ctx);
  const body = await res.text();
  await waitOnExecutionContext(ctx);
  return { status: res.status, etag: res.headers.get("etag"), body };
}

/** Every page of a list, forwards with starting_after, then back from its end with ending_before. */
async function walk(path: string, limit: number, into: Map<string, Answer>): Promise<void> {
  const sep = path.includes("?") ? "&" : "?";
  let url = `${path}${sep}limit=${limit}`;
  const handles: string[] = [];
  for (let pages = 0; pages < 40; pages++) {
    const answer = await get(url);
    into.set(url, answer);
    if (answer.status !== 200) return;
    const body = JSON.parse(answer.body) as {
      data?: { handle: string }[];
      products?: { data: { handle: string }[]; has_more: boolean };
      has_more?: boolean;
    };
    const list = body.products ?? (body as { data: { handle: string }[]; has_more: boolean });
    handles.push(...list.data.map((d) => d.handle));
    if (!list.has_more) break;
    url = `${path}${sep}limit=${limit}&starting_after=${list.data.at(-1)?.handle}`;
  }
  const last = handles.at(-1);
  if (last) {
    const back = `${path}${sep}limit=${limit}&ending_before=${last}`;
    into.set(back, await get(back));
  }
}

/** The corpus: lists, details, variants, collections, every filter, facet and sort, searches. */
async function corpus(catalog: SourceCatalog, touched: readonly string[]): Promise<Map<string, Answer>> {
  const out = new Map<string, Answer>();
  await walk("/products", 23, out);
  await walk("/products?include=image", 60, out);
  await walk("/collections", 2, out);
  for (const c of [...catalog.collections.map((c) => c.handle), "fresh", "picks"]) {
    await walk(`/collections/${c}`, 9, out);
    await walk(`/collections/${c}?include=image&sort=price_desc`, 7, out);
    out.set(`/collections/${c}/facets`, await get(`/collections/${c}/facets`));
  }
  const handles = [...new Set([...touched, ...catalog.products.slice(0, 6).map((p) => p.handle)])];
  for (const h of handles) {
    for (const path of [
      `/products/${h}`,
      `/products/${h}?include=description,images,seo,variants`,
      `/products/${h}/variants`,
    ])
      out.set(path, await get(path));
  }
  const vendor = encodeURIComponent(catalog.products[0]?.vendor ?? "x");
  const browse = [
    "sort=price_asc",
    "sort=price_desc",
    "sort=title_asc",
    "sort=title_desc",
    "sort=newest",
    "available=true&sort=title_asc",
    "available=false",
    `vendor=${vendor}`,
    "vendor=new%20maker",
    "tag=sale&sort=price_desc",
    "tag=brand%20new",
    "option.size=M&option.size=XS",
    "option.material=wool",
    "option.size=huge",
    "price_min=20&price_max=60&sort=price_asc",
    "q=tee",
    "q=zephyr",
    "q=linen%20shirt",
    "q=ecru",
    "q=washed%20chino",
    "q=organic%20chino",
    "q=hoodie&sort=price_asc",
    "q=sal",
    "q=a",
    "q=candle%20alpine",
    "q=trousers",
  ];
  for (const query of browse) {
    await walk(`/products?${query}`, 11, out);
    const filters = query.replace(/&?sort=[a-z_]+/, "");
    const facets = `/products/facets${filters ? `?${filters}` : ""}`;
    out.set(facets, await get(facets));
  }
  return out;
}

async function equivalent(seed: number, rounds: Edit[][], shardProducts?: number, layerLimit?: number): Promise<void> {
  const catalog = baseCatalog(seed);
  const browse = d1Target(env.BROWSE, env.BROWSE_SNAPSHOTS);
  const options = { browse, ...(shardProducts ? { shardProducts } : {}) };
  await publishCatalog(env.CATALOG, structuredClone(catalog), options);
  const touched = new Set<string>();
  for (const edits of rounds) {
    const batch = batchOf(catalog, edits);
    for (const p of batch.upsert) touched.add(p.handle);
    for (const h of batch.delete) touched.add(h);
    await applyBatch(bindingTarget(env.CATALOG), structuredClone(batch), {
      browse,
      ...(layerLimit === undefined ? {} : { layerLimit }),
    });
  }
  const batched = await corpus(catalog, [...touched]);
  const batchedVariants = await variantsOf(catalog);
  await publishCatalog(env.CATALOG, structuredClone(catalog), options);
  const full = await corpus(catalog, [...touched]);
  expect([...batched.keys()]).toEqual([...full.keys()]);
  for (const [path, answer] of full) expect({ path, ...batched.get(path) }).toEqual({ path, ...answer });
  // What a cart prices a line from (the variant shards), for every variant of the catalog.
  expect(batchedVariants).toEqual(await variantsOf(catalog));
}

/** Every variant of the catalog as the live version's variant shards give it to a cart. */
async function variantsOf(catalog: SourceCatalog): Promise<Record<string, unknown>> {
  const store = new CatalogStore(env.CATALOG);
  const meta = (await store.currentMeta({ reread: true })) as { version: string };
  const ids = catalog.products.flatMap((p) => p.variants.map((v) => v.id));
  return Object.fromEntries(await store.getVariants(meta.version, ids));
}

const rounds = fc.array(fc.array(editArb, { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 3 });

/**
 * Lists longer than a block (derived.ts: 250 slots), where a batch rewrites a block's chunk and the
 * chunks before it that look ahead into it: many deletions in one block (it thins out, and the
 * chunks before must reach further), products appended across a block's end, replacements; walked
 * forwards and backwards at several page sizes, the product list and a collection of every product.
 */
async function longLists(seed: number, rounds: [from: number, deletions: number, appends: number][]): Promise<void> {
  const catalog = generateCatalog({ products: 620, seed });
  const browse = d1Target(env.BROWSE, env.BROWSE_SNAPSHOTS);
  await publishCatalog(env.CATALOG, structuredClone(catalog), { browse });
  for (const [from, deletions, appends] of rounds) {
    const edits: Edit[] = [];
    for (let i = 0; i < deletions; i++) edits.push({ kind: "delete", at: from });
    for (let i = 0; i < appends; i++) edits.push({ kind: "new", from: i, title: "Added hoodie" });
    edits.push({ kind: "price", at: from + deletions + 7, factor: 1.5 });
    await applyBatch(bindingTarget(env.CATALOG), batchOf(catalog, edits), { browse });
  }
  const pages = async () => {
    const out = new Map<string, Answer>();
    for (const limit of [1, 50, 250]) {
      await walk("/products", limit, out);
      await walk("/collections/frontpage?include=image", limit, out);
    }
    await walk("/products?include=image", 97, out);
    return out;
  };
  const batched = await pages();
  await publishCatalog(env.CATALOG, structuredClone(catalog), { browse });
  const full = await pages();
  expect([...batched.keys()]).toEqual([...full.keys()]);
  for (const [path, answer] of full) expect({ path, ...batched.get(path) }).toEqual({ path, ...answer });
}

describe("a catalog changed by batches answers as a full publish of it", () => {
  // Regression: a collection upserted without a member the same batch deleted read the deleted
  // member's record (null) to take the collection off it: a TypeError, never a version.
  it("when a batch deletes a product and empties its collections", async () => {
    await equivalent(0, [
      [
        { kind: "delete", at: 0 },
        { kind: "collection", handle: "frontpage", picks: [], title: "Picks" },
        { kind: "collection", handle: "picks", picks: [], title: "Picks" },
      ],
    ]);
  }, 120_000);

  // Regression (CI's property run, seed -270174903): a deletion leaves the collection chunks as
  // they were, so a later upsert of the collection must read the root's blocks by the root's
  // counts, not the collection's count now: it missed the last member, which kept the collection.
  it("when a batch deletes a member and a later one sets its collection's members", async () => {
    await equivalent(0, [
      [
        { kind: "delete", at: 0 },
        { kind: "price", at: 0, factor: 0.2 },
      ],
      [
        { kind: "collection", handle: "frontpage", picks: [0], title: "Picks" },
        { kind: "price", at: 0, factor: 0.2 },
      ],
    ]);
  }, 120_000);

  it("with the whole index", async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: 1000 }), rounds, (seed, r) => equivalent(seed, r)),
      { numRuns: RUNS },
    );
  }, 900_000);

  it("and pages long lists as a full publish does, however thin a block gets", async () => {
    const round = fc.tuple(fc.integer({ min: 120, max: 560 }), fc.integer({ min: 5, max: 240 }), fc.nat({ max: 30 }));
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: 1000 }), fc.array(round, { minLength: 1, maxLength: 3 }), (seed, r) =>
        longLists(seed, r),
      ),
      { numRuns: Math.max(3, Math.ceil(RUNS / 3)) },
    );
  }, 900_000);

  // Frozen layers (batch/browse.ts LAYER_LIMIT, here 1 to 4 products): a batch rebuilds only the
  // products changed since the last frozen layer; the earlier layers answer beside it, told which
  // of their products a later batch deleted or replaced.
  const layered = fc.array(fc.array(editArb, { minLength: 1, maxLength: 6 }), { minLength: 2, maxLength: 5 });
  it("when layers are frozen as they fill", async () => {
    await equivalent(
      0,
      [
        [
          { kind: "price", at: 3, factor: 2 },
          { kind: "title", at: 4, title: "Zephyr tee" },
        ],
        [
          { kind: "price", at: 3, factor: 0.5 },
          { kind: "vendor", at: 5, vendor: "New Maker" },
        ],
        [
          { kind: "delete", at: 4 },
          { kind: "collection", handle: "frontpage", picks: [3, 5, 6], title: "Frontpage" },
        ],
        [{ kind: "tag", at: 5, tag: "sale" }],
      ],
      undefined,
      1,
    );
  }, 120_000);

  // MAX_FROZEN one-product layers, then the batch that folds them all into its own.
  it("when the frozen layers are folded into one", async () => {
    const edits: Edit[][] = Array.from({ length: 10 }, (_, i) =>
      i === 4 ? [{ kind: "delete", at: 2 }] : [{ kind: "price", at: i % 6, factor: 0.3 + i / 10 }],
    );
    await equivalent(3, edits, 25, 1);
  }, 120_000);

  it("with frozen layers, whole and sharded", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: 1000 }),
        layered,
        fc.integer({ min: 1, max: 4 }),
        fc.constantFrom(undefined, 25),
        (seed, r, limit, shards) => equivalent(seed, r, shards, limit),
      ),
      { numRuns: RUNS },
    );
  }, 900_000);

  it("with the index cut into shards", async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: 1000 }), rounds, (seed, r) => equivalent(seed, r, 25)),
      { numRuns: RUNS },
    );
  }, 900_000);
});
