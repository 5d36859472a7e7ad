import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import app from "../../src/index.ts";
import { browseTable } from "../../src/browse/layout.ts";
import { ChangeBatchError } from "../../src/catalog/changes.ts";
import { HISTORY_KEY, type HistoryEntry, keys, type Pointer, POINTER_KEY } from "../../src/catalog/layout.ts";
import type { SourceCatalog, SourceProduct } from "../../src/catalog/schema.ts";
import { applyBatch } from "../../src/publish/batch/apply.ts";
import { MAX_FROZEN } from "../../src/publish/batch/browse.ts";
import { d1Target } from "../../src/publish/browse-index.ts";
import { generateCatalog } from "../../src/publish/generate.ts";
import {
  bindingTarget,
  KEEP_VERSIONS,
  listHistory,
  publishCatalog,
  rollbackCatalog,
} from "../../src/publish/publish.ts";
import { stockStore } from "../../src/stock/store.ts";
import { shiftedSeed } from "../helpers/catalog.ts";
import { API } from "../helpers/worker.ts";

/**
 * Change batches (contract section 11, issue 45 points 1, 2, 4, 6): validated by the publish's
 * rules, the first mistake named by its dotted path and nothing changed; a batch that names
 * nothing changes nothing; each batch a new version in the history, rolled back by the pointer
 * and kept (with the versions it reads from) by the same cleanup; unchanged products keep their
 * ETags and a cursor from before the batch is stale; the writes grow with the change, not the
 * catalog; live stock is written only where the batch newly tracks a level or changes the file's
 * quantity, and nothing outside the catalog's versions, pointer and history is touched. Answers
 * equal to a full publish's: batch-equivalence.test.ts.
 */

const browse = () => d1Target(env.BROWSE, env.BROWSE_SNAPSHOTS);
const target = () => bindingTarget(env.CATALOG);
const pointer = async () => (await env.CATALOG.get<Pointer>(POINTER_KEY, "json")) as Pointer;
const history = async () => (await env.CATALOG.get<HistoryEntry[]>(HISTORY_KEY, "json")) ?? [];

async function get(
  path: string,
): Promise<{ status: number; etag: string | null; version: string | null; body: string }> {
  const ctx = createExecutionContext();
  const res = await app.fetch(new Request(`${API}${path}`), env, ctx);
  const body = await res.text();
  await waitOnExecutionContext(ctx);
  return { status: res.status, etag: res.headers.get("etag"), version: res.headers.get("x-catalog-version"), body };
}

async function refusal(batch: unknown): Promise<ChangeBatchError> {
  try {
    await applyBatch(target(), batch, { browse: browse() });
  } catch (error) {
    if (error instanceof ChangeBatchError) return error;
    throw error;
  }
  throw new Error("the batch was applied");
}

/** The seed with its prices shifted (each test its own catalog), typed as a catalog. */
function seedAt(cents: number): SourceCatalog {
  return shiftedSeed(cents) as unknown as SourceCatalog;
}

function priced(p: SourceProduct, price: string): SourceProduct {
  const q = structuredClone(p);
  for (const v of q.variants) v.price = price;
  return q;
}

describe("a change batch's validation", () => {
  it("refuses a mistake with its dotted path, the first one deciding param, and changes nothing", async () => {
    const catalog = seedAt(101);
    await publishCatalog(env.CATALOG, catalog, { browse: browse() });
    const before = { pointer: await pointer(), history: await history() };
    const [a, b] = catalog.products as [SourceProduct, SourceProduct];
    const other = structuredClone(b);
    other.handle = "a-new-handle";
    other.id = "gid://shopify/Product/1234567";
    const clash = { ...other, id: b.id, variants: other.variants.map((v, i) => ({ ...v, id: `99887766${i}` })) };
    const cases: [unknown, string, RegExp][] = [
      [
        { upsert: [{ ...a, variants: [{ ...a.variants[0], price: "12.345" }] }] },
        "upsert.0.variants.0.price",
        /at most two decimals/,
      ],
      [{ upsert: [a], delete: ["no-such-product"] }, "delete.0", /no product has the handle "no-such-product"/],
      [{ upsert: [a, a] }, "upsert.1.handle", /used twice/],
      [{ upsert: [other] }, "upsert.0.variants.0.id", /is used by product/],
      [{ upsert: [clash] }, "upsert.0.id", new RegExp(`is used by product "${b.handle}"`)],
      [
        { collections: { upsert: [{ handle: "x", title: "X", products: [a.handle, "nope"] }] } },
        "collections.upsert.0.products.1",
        /no product/,
      ],
      [{ collections: { delete: ["no-such-collection"] } }, "collections.delete.0", /no collection/],
      [{ upsert: [a], delete: [a.handle] }, "delete.0", /also upserted/],
      [{ upsert: "nope" }, "upsert", /./],
      [{ surprise: true }, "surprise", /unknown field/],
      [{ upsert: Array.from({ length: 1001 }, () => a) }, "upsert", /at most 1000 products/],
      [{ delete: Array.from({ length: 1001 }, (_, i) => `gone-${i}`) }, "upsert", /at most 1000 products/],
    ];
    for (const [batch, param, message] of cases) {
      const error = await refusal(batch);
      expect(error.param).toBe(param);
      expect(error.message).toMatch(message);
    }
    expect(await pointer()).toEqual(before.pointer);
    expect(await history()).toEqual(before.history);
  });

  it("applies a batch that names nothing as nothing: the live version stays", async () => {
    const { version } = await publishCatalog(env.CATALOG, shiftedSeed(102), { browse: browse() });
    const result = await applyBatch(target(), {}, { browse: browse() });
    expect(result).toMatchObject({ version, previous: version, changed: { products: 0, collections: 0 }, entries: 0 });
    expect((await pointer()).current.version).toBe(version);
    expect((await history()).at(-1)?.version).toBe(version);
  });
});

describe("a change batch's version", () => {
  it("is in the history as a batch with what it changed, rolls back by the pointer, and is kept with the versions it reads from", async () => {
    const catalog = seedAt(103);
    const root = (await publishCatalog(env.CATALOG, catalog, { browse: browse() })).version;
    const [a, b, c] = catalog.products as [SourceProduct, SourceProduct, SourceProduct];
    const before = await get(`/products/${a.handle}`);
    const first = await applyBatch(target(), { upsert: [priced(a, "1.50")] }, { browse: browse(), by: "ana@shop" });
    const second = await applyBatch(
      target(),
      { delete: [b.handle], collections: { upsert: [{ handle: "picks", title: "Picks", products: [c.handle] }] } },
      { browse: browse() },
    );
    const entries = await history();
    expect(entries.slice(-2)).toMatchObject([
      { action: "batch", version: first.version, from: root, changed: { products: 1, collections: 0 }, by: "ana@shop" },
      { action: "batch", version: second.version, from: first.version, changed: { products: 1, collections: 1 } },
    ]);
    expect(entries.at(-1)?.state).toBeUndefined();
    expect(JSON.parse((await get(`/products/${a.handle}`)).body).price.min.amount).toBe("1.50");
    expect((await get(`/products/${b.handle}`)).status).toBe(404);
    // Rolled back by the pointer, twice: the first batch's catalog, then the root's.
    await rollbackCatalog(env.CATALOG);
    expect((await pointer()).current.version).toBe(first.version);
    expect((await get(`/products/${b.handle}`)).status).toBe(200);
    await rollbackCatalog(env.CATALOG, { to: root });
    expect(await get(`/products/${a.handle}`)).toEqual(before);
    // Full publishes after: the root goes, but not while a kept batch reads from it.
    await rollbackCatalog(env.CATALOG, { to: second.version });
    for (let i = 0; i < KEEP_VERSIONS - 1; i++)
      await publishCatalog(env.CATALOG, shiftedSeed(200 + i), { browse: browse() });
    const lines = await listHistory(target());
    expect(lines.find((l) => l.version === second.version)?.kept).toBe(true);
    expect(await env.CATALOG.get(keys.meta(root))).not.toBeNull();
    await rollbackCatalog(env.CATALOG, { to: second.version });
    expect(JSON.parse((await get(`/products/${a.handle}`)).body).price.min.amount).toBe("1.50");
    expect((await get("/products?sort=price_asc&limit=1")).status).toBe(200);
    expect((await get("/collections/picks")).status).toBe(200);
    // Once no kept version reads from them, the batches and their root go like any version.
    for (let i = 0; i < KEEP_VERSIONS + 1; i++)
      await publishCatalog(env.CATALOG, shiftedSeed(300 + i), { browse: browse() });
    for (const v of [root, first.version, second.version]) expect(await env.CATALOG.get(keys.meta(v))).toBeNull();
  }, 120_000);

  it("cleans up what it stops keeping by listing only those versions' keys, never every key of the catalog", async () => {
    const old = (await publishCatalog(env.CATALOG, seedAt(150), { browse: browse() })).version;
    const catalog = seedAt(151);
    await publishCatalog(env.CATALOG, catalog, { browse: browse() });
    const [a] = catalog.products as [SourceProduct];
    const listed: string[] = [];
    const plain = target();
    const counting = {
      ...plain,
      listKeys: (prefix: string) => {
        listed.push(prefix);
        return plain.listKeys(prefix);
      },
    };
    for (let i = 0; i < KEEP_VERSIONS; i++)
      await applyBatch(counting, { upsert: [priced(a, `${i + 2}.00`)] }, { browse: browse() });
    // The first publish fell out of the kept versions at a batch, and went with its browse tables.
    expect(await env.CATALOG.get(keys.meta(old))).toBeNull();
    expect(await plain.listKeys(`v/${old}/`)).toEqual([]);
    expect((await browse().tables()).filter((name) => name.startsWith(`bv_${old}_`))).toEqual([]);
    expect(listed).toContain(`v/${old}/`);
    expect(listed.filter((prefix) => !/^v\/[^/]+\/$/.test(prefix))).toEqual([]);
  }, 60_000);

  it("keeps the ETags of products it did not change, and a cursor taken before it answers 409 cursor_stale", async () => {
    const catalog = seedAt(104);
    const { version } = await publishCatalog(env.CATALOG, catalog, { browse: browse() });
    const [a, b, c] = catalog.products as [SourceProduct, SourceProduct, SourceProduct];
    const paths = [`/products/${b.handle}`, `/products/${c.handle}?include=variants`, `/products/${b.handle}/variants`];
    const etags = await Promise.all(paths.map(async (p) => (await get(p)).etag));
    const changed = await get(`/products/${a.handle}`);
    const page2 = `/products?limit=2&starting_after=${b.handle}&catalog_version=${version}`;
    expect((await get(page2)).status).toBe(200);
    const result = await applyBatch(target(), { upsert: [priced(a, "2.25")] }, { browse: browse() });
    for (const [i, p] of paths.entries()) {
      const answer = await get(p);
      expect(answer.version).toBe(result.version);
      expect(answer.etag).toBe(etags[i]);
    }
    expect((await get(`/products/${a.handle}`)).etag).not.toBe(changed.etag);
    const stale = await get(page2);
    expect(stale.status).toBe(409);
    expect(JSON.parse(stale.body).error).toMatchObject({ code: "cursor_stale", param: "catalog_version" });
    expect((await get(`/products?limit=2&starting_after=${b.handle}&catalog_version=${result.version}`)).status).toBe(
      200,
    );
  });
});

describe("a change batch's cost", () => {
  /** The same batch (a few price changes, a deletion, a new product) on a catalog of `size` products. */
  async function costAt(size: number): Promise<{ entries: number; bytes: number; published: number }> {
    const catalog: SourceCatalog = generateCatalog({ products: size, seed: 5 });
    const published = await publishCatalog(env.CATALOG, catalog, { browse: browse() });
    const at = (i: number) => catalog.products[Math.floor((i * size) / 7)] as SourceProduct;
    const fresh = structuredClone(at(1));
    fresh.handle = `cost-new-${size}`;
    fresh.id = `gid://shopify/Product/${700_000 + size}`;
    fresh.variants.forEach((v, i) => {
      v.id = `${600_000_000 + size * 10 + i}`;
    });
    const batch = {
      upsert: [priced(at(2), "3.00"), priced(at(3), "4.00"), priced(at(4), "5.00"), fresh],
      delete: [at(5).handle],
    };
    const result = await applyBatch(target(), batch, { browse: browse() });
    return { entries: result.entries, bytes: result.bytes, published: published.entries };
  }

  it("writes as many entries and bytes for the same change at four times the catalog", async () => {
    const small = await costAt(3_000);
    const large = await costAt(12_000);
    // A full publish's entries grow with the catalog; a batch's stay those its products touch
    // (their shards and the map blocks naming them; a batch that rewrote the catalog would grow 4x).
    const figures = `batch of 5 products: 3000 -> ${JSON.stringify(small)}, 12000 -> ${JSON.stringify(large)}`;
    expect(large.published, figures).toBeGreaterThan(small.published * 3);
    expect(large.entries, figures).toBeLessThan(small.entries * 2);
    expect(large.bytes, figures).toBeLessThan(small.bytes * 2);
    expect(large.entries * 10, figures).toBeLessThan(large.published);
  }, 300_000);

  it("writes no list chunk for the products it changes: its version's lists come from its browse index", async () => {
    const catalog = seedAt(13);
    await publishCatalog(env.CATALOG, catalog, { browse: browse() });
    const collection = catalog.collections[0] as SourceCatalog["collections"][number];
    const member = catalog.products.find((p) => p.handle === collection.products[0]) as SourceProduct;
    const gone = catalog.products.find((p) => p.handle === collection.products[1]) as SourceProduct;
    const result = await applyBatch(
      target(),
      { upsert: [priced(member, "2.25")], delete: [gone.handle] },
      { browse: browse() },
    );
    const written = (await env.CATALOG.list({ prefix: `v/${result.version}/` })).keys.map((k) => k.name);
    // The product list's chunks (pl, pli) and the collection's (c, ci) are what a change rewrote
    // before: hundreds of lines each, twice, for one line changed.
    expect(
      written.filter((k) => /\/(pl|pli|c|ci)\//.test(k)),
      written.join(" "),
    ).toEqual([]);
    expect(
      written.some((k) => k.includes("/ps/")),
      written.join(" "),
    ).toBe(true);
    for (const path of [
      "/products?limit=250",
      "/products?limit=250&include=image",
      `/collections/${collection.handle}?limit=250`,
    ]) {
      const answer = await get(path);
      expect(answer.version, path).toBe(result.version);
      const items = JSON.parse(answer.body) as { data?: unknown[]; products?: { data: unknown[] } };
      const data = (items.data ?? items.products?.data ?? []) as { handle: string; price: { amount: string } }[];
      expect(data.find((p) => p.handle === member.handle)?.price.amount, path).toBe("2.25");
      expect(
        data.some((p) => p.handle === gone.handle),
        path,
      ).toBe(false);
    }
    const page = JSON.parse((await get(`/collections/${collection.handle}`)).body) as { products_count: number };
    expect(page.products_count).toBe(collection.products.length - 1);
  });
});

describe("a change batch's browse layer", () => {
  /** The products of a version's browse layer (its `p` rows, in D1). */
  async function layerProducts(version: string): Promise<string[]> {
    const { results } = await env.BROWSE.prepare(`SELECT handle FROM ${browseTable(version, "p")} ORDER BY id`).all<{
      handle: string;
    }>();
    return results.map((r) => r.handle);
  }

  it("is rebuilt from the products changed since the last frozen layer only, the frozen ones answering beside it", async () => {
    const catalog = seedAt(17);
    await publishCatalog(env.CATALOG, catalog, { browse: browse() });
    const [a, b, c, d] = catalog.products as [SourceProduct, SourceProduct, SourceProduct, SourceProduct];
    const apply = (batch: unknown) => applyBatch(target(), batch, { browse: browse(), layerLimit: 2 });
    const first = await apply({ upsert: [priced(a, "2.10"), priced(b, "2.20")] });
    const second = await apply({ upsert: [priced(c, "2.30")] });
    const third = await apply({ upsert: [priced(a, "2.40")], delete: [d.handle] });
    // The first layer filled (2 products) and was frozen: the later ones hold their own products.
    expect(await layerProducts(first.version)).toEqual([a.handle, b.handle]);
    expect(await layerProducts(second.version)).toEqual([c.handle]);
    expect(await layerProducts(third.version)).toEqual([a.handle, c.handle]);
    const live = (await pointer()).current.browse_overlay;
    expect(live).toEqual({ root: expect.any(String), shards: 1, layer: third.version, frozen: [first.version] });
    // Answered from the root, the frozen layer (its `a` taken out) and the top one.
    const list = JSON.parse((await get("/products?sort=price_asc&limit=3")).body) as {
      data: { handle: string; price: { amount: string } }[];
    };
    expect(list.data.map((p) => [p.handle, p.price.amount])).toEqual([
      [b.handle, "2.20"],
      [c.handle, "2.30"],
      [a.handle, "2.40"],
    ]);
    expect((await get(`/products/${d.handle}`)).status).toBe(404);
  });

  it("folds its frozen layers into one new layer when MAX_FROZEN of them would answer beside it", async () => {
    const catalog = seedAt(19);
    await publishCatalog(env.CATALOG, catalog, { browse: browse() });
    const products = catalog.products.slice(0, MAX_FROZEN + 1);
    const versions: string[] = [];
    for (const [i, p] of products.entries()) {
      const price = `1.${String(10 + i)}`;
      versions.push(
        (await applyBatch(target(), { upsert: [priced(p, price)] }, { browse: browse(), layerLimit: 1 })).version,
      );
    }
    const overlay = async (version: string) =>
      (await env.CATALOG.get<{ browse_overlay: unknown }>(keys.meta(version), "json"))?.browse_overlay;
    // Each one-product layer was frozen: the last version before the fold answers with MAX_FROZEN - 1 beside its own.
    expect(await overlay(versions[MAX_FROZEN - 1] as string)).toMatchObject({
      frozen: versions.slice(0, MAX_FROZEN - 1),
      layer: versions[MAX_FROZEN - 1],
    });
    const last = versions.at(-1) as string;
    expect(await overlay(last)).toEqual({ root: expect.any(String), shards: 1, layer: last });
    expect(await layerProducts(last)).toEqual(products.map((p) => p.handle));
    const list = JSON.parse((await get(`/products?sort=price_asc&limit=${products.length}`)).body) as {
      data: { handle: string; price: { amount: string } }[];
    };
    expect(list.data.map((p) => p.handle)).toEqual(products.map((p) => p.handle));
  });
});

describe("a change batch and live stock", () => {
  it("carries only the levels of what it changed, and counts by the publish's rule the ones it writes", async () => {
    const catalog = seedAt(105);
    const tracked = catalog.products.find((p) =>
      p.variants.some((v) => v.inventory_quantity !== undefined),
    ) as SourceProduct;
    const untracked = catalog.products.find((p) =>
      p.variants.every((v) => v.inventory_quantity === undefined),
    ) as SourceProduct;
    const { version } = await publishCatalog(env.CATALOG, catalog, { browse: browse() });
    const outside = async () => (await env.CATALOG.list()).keys.map((k) => k.name).filter((k) => !k.startsWith("v/"));
    const keysBefore = await outside();
    // A price edit of a tracked product: its quantities as before, so the rule writes no level.
    const price = await applyBatch(target(), { upsert: [priced(tracked, "7.00")] }, { browse: browse() });
    expect(price.levels).toBe(0);
    const meta = (await pointer()).current;
    expect(meta).toMatchObject({ stock_delta: true, stock_seq: (await history()).at(-1)?.seq });
    expect(meta.stock_tracked).toBe(
      (await env.CATALOG.get<{ stock_tracked?: number }>(keys.meta(version), "json"))?.stock_tracked,
    );
    // Newly tracked, and a changed quantity: those two written; the product's other levels carried to be kept.
    const newly = structuredClone(untracked);
    newly.variants[0]!.inventory_quantity = 5;
    const more = structuredClone(tracked);
    const counted = more.variants.find((v) => v.inventory_quantity !== undefined)!;
    counted.inventory_quantity = (counted.inventory_quantity ?? 0) + 3;
    // One variant stops being tracked: its line says so.
    const stopped = more.variants.find((v) => v.inventory_quantity !== undefined && v !== counted);
    if (stopped) delete stopped.inventory_quantity;
    const result = await applyBatch(target(), { upsert: [newly, more] }, { browse: browse() });
    expect(result.levels).toBe(2);
    const lines = ((await env.CATALOG.get(keys.stockChunk(result.version, 0))) ?? "").split("\n").sort();
    const expected = [newly, more]
      .flatMap((p) => p.variants)
      .filter((v) => v.inventory_quantity !== undefined)
      .map((v) => `${v.id}\t${v.inventory_quantity}\t${v.inventory_policy ?? "deny"}`);
    if (stopped) expected.push(`${stopped.id}\t-`);
    expect(lines).toEqual(expected.sort());
    // Outside the versions: only the pointer and the history (no rules document, no stock overlay).
    expect(new Set(await outside())).toEqual(new Set([...keysBefore, POINTER_KEY, HISTORY_KEY]));
  });

  it("reaches the Stock shards by the publish's rule: what it changed, the version before's levels first", async () => {
    const catalog = seedAt(107);
    const [edited, other, untracked] = catalog.products as [SourceProduct, SourceProduct, SourceProduct];
    for (const [i, v] of [...edited.variants, ...other.variants].entries()) v.inventory_quantity = 10 + i;
    for (const v of untracked.variants) delete v.inventory_quantity;
    await publishCatalog(env.CATALOG, catalog, { browse: browse() });
    const stock = stockStore(env);
    const sold = edited.variants.find((v) => v.inventory_quantity !== undefined)!;
    const elsewhere = other.variants.find((v) => v.inventory_quantity !== undefined)!;
    // No shard has synced the published version yet: the batch's sync brings it first.
    const newly = structuredClone(untracked);
    newly.variants[0]!.inventory_quantity = 9;
    const first = await applyBatch(target(), { upsert: [priced(edited, "3.00"), newly] }, { browse: browse() });
    await stock.coordinator().syncVersion(first.version);
    expect(await stock.level(elsewhere.id)).toMatchObject({ tracked: true, quantity: elsewhere.inventory_quantity });
    expect(await stock.level(newly.variants[0]!.id)).toMatchObject({ tracked: true, quantity: 9 });
    // Units sold since: a batch that gives the same file quantity keeps the live level.
    await stock.apply(`op:${crypto.randomUUID()}`, "fp", "operator", [
      { index: 0, variantId: sold.id, op: "set", value: 1 },
    ]);
    const second = await applyBatch(target(), { upsert: [priced(edited, "4.00")] }, { browse: browse() });
    await stock.coordinator().syncVersion(second.version);
    expect(await stock.level(sold.id)).toMatchObject({ tracked: true, quantity: 1 });
    // Regression: a batch's chunks read as a whole file would stop tracking every other variant.
    expect(await stock.level(elsewhere.id)).toMatchObject({ tracked: true, quantity: elsewhere.inventory_quantity });
    expect(await stock.level(newly.variants[0]!.id)).toMatchObject({ tracked: true, quantity: 9 });
    // A changed file quantity is written; a deleted product's levels stop being tracked.
    const restocked = structuredClone(edited);
    restocked.variants.find((v) => v.id === sold.id)!.inventory_quantity = 40;
    const third = await applyBatch(target(), { upsert: [restocked], delete: [other.handle] }, { browse: browse() });
    await stock.coordinator().syncVersion(third.version);
    expect(await stock.level(sold.id)).toMatchObject({ tracked: true, quantity: 40 });
    expect((await stock.level(elsewhere.id)).tracked).toBe(false);
  }, 60_000);
});
