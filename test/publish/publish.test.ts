import { CatalogError } from "../../src/catalog/errors.ts";
import { fromFailure } from "../../src/http/errors.ts";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { CHUNK_STEP, type Pointer, POINTER_KEY } from "../../src/catalog/layout.ts";
import {
  bindingTarget,
  type CatalogKvTarget,
  KEEP_VERSIONS,
  publishCatalog,
  publishTo,
  rollbackCatalog,
} from "../../src/publish/publish.ts";
import { CatalogValidationError } from "../../src/catalog/schema.ts";
import { CatalogStore } from "../../src/catalog/store.ts";
import { generateCatalog } from "../../src/publish/generate.ts";
import { seedCatalog, shiftedSeed } from "../helpers/catalog.ts";

import { API as BASE } from "../helpers/worker.ts";

async function allKeys(): Promise<string[]> {
  const names: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await env.CATALOG.list(cursor ? { cursor } : {});
    names.push(...page.keys.map((k) => k.name));
    if (page.list_complete) return names.sort();
    cursor = page.cursor;
  }
}

/** Prices of the first `limit` products; a new limit each time is a new cache key, so KV is read. */
async function listPrices(limit = 250): Promise<{ version: string | null; amounts: string[] }> {
  const res = await exports.default.fetch(`${BASE}/products?limit=${limit}`);
  const body = (await res.json()) as { data: { price: { amount: string } }[] };
  return { version: res.headers.get("x-catalog-version"), amounts: body.data.map((p) => p.price.amount) };
}

/** The seed with every price moved by `cents`, so two versions differ on every product. */

describe("publishing", () => {
  it("refuses an invalid catalog, naming the product and field, and writes nothing", async () => {
    await publishCatalog(env.CATALOG, seedCatalog(), { browse: null });
    const before = await allKeys();
    const broken = seedCatalog();
    const product = broken.products[3];
    if (product?.variants[1]) product.variants[1].price = "12.345";
    const error = await publishCatalog(env.CATALOG, broken, { browse: null }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CatalogValidationError);
    expect((error as CatalogValidationError).issues).toEqual([
      `products[3] (handle "${product?.handle}").variants[1].price: a decimal string with at most two decimals`,
    ]);
    expect(await allKeys()).toEqual(before);
  });

  it.each([
    [
      "a duplicate handle",
      (c: ReturnType<typeof seedCatalog>) => {
        c.products[1]!.handle = c.products[0]!.handle;
      },
      /^products\[1\] \(handle "essential-crew-tee-black"\)\.handle: handle "essential-crew-tee-black" is used twice$/,
    ],
    [
      "an unknown field",
      (c: ReturnType<typeof seedCatalog>) => {
        (c.products[2] as Record<string, unknown>).colour = "red";
      },
      /^products\[2\] \(handle "[a-z-]+"\)\.colour: unknown field$/,
    ],
    [
      "a size outside the product's values",
      (c: ReturnType<typeof seedCatalog>) => {
        c.products[0]!.variants[0]!.options = { Size: "5XL", Color: "Black" };
      },
      /^products\[0\] \(handle "essential-crew-tee-black"\)\.variants\[0\]\.options\.Size: "5XL" is not one of the product's Size values$/,
    ],
    [
      "a collection naming a missing product",
      (c: ReturnType<typeof seedCatalog>) => {
        c.collections[0]!.products.push("ghost-product");
      },
      /^collections\[0\] \(handle "frontpage"\)\.products\[12\]: no product has handle "ghost-product"$/,
    ],
    [
      "a bad product id",
      (c: ReturnType<typeof seedCatalog>) => {
        c.products[4]!.id = "8012345670104";
      },
      /^products\[4\] \(handle "[a-z-]+"\)\.id: gid:\/\/shopify\/Product\/<digits>$/,
    ],
  ])("names %s in the error", async (_name, breakIt, expected) => {
    const catalog = seedCatalog();
    breakIt(catalog);
    const error = (await publishCatalog(env.CATALOG, catalog, { browse: null }).catch(
      (e: unknown) => e,
    )) as CatalogValidationError;
    expect(error).toBeInstanceOf(CatalogValidationError);
    expect(error.issues[0]).toMatch(expected);
  });

  it("switches readers only after every entry is written: reads between the writes see the old catalog whole", async () => {
    await publishCatalog(env.CATALOG, shiftedSeed(0), { browse: null });
    const old = await listPrices();
    const during: { seen: Awaited<ReturnType<typeof listPrices>>; limit: number }[] = [];
    const base = bindingTarget(env.CATALOG, 1);
    // A real KV target whose writes are interleaved with full reads through the worker.
    const interleaved: CatalogKvTarget = {
      ...base,
      async writeEntries(entries, onWritten) {
        for await (const entry of entries) {
          await base.writeEntries([entry], onWritten);
          const limit = 200 - during.length;
          during.push({ seen: await listPrices(limit), limit });
        }
      },
    };
    const next = await publishTo(interleaved, shiftedSeed(1), { browse: null });
    expect(during.length).toBe(next.entries);
    for (const { seen, limit } of during)
      expect(seen).toEqual({ version: old.version, amounts: old.amounts.slice(0, limit) });
    const after = await listPrices();
    expect(after.version).toBe(next.version);
    expect(after.amounts.every((amount, i) => amount !== old.amounts[i])).toBe(true);
  });

  it("keeps a reader that holds the old version consistent after the switch", async () => {
    const first = await publishCatalog(env.CATALOG, shiftedSeed(0), { browse: null });
    const store = new CatalogStore(env.CATALOG);
    const held = await store.currentMeta();
    await publishCatalog(env.CATALOG, shiftedSeed(7), { browse: null });
    // The old version is still whole: a request that read the pointer before the switch finishes on it.
    const variant = await store.getVariant(first.version, "44102938475600");
    expect(variant?.price_minor).toBe(2800);
    expect(held?.version).toBe(first.version);
  });

  it("answers 503 catalog_unavailable, not a missing product, to a reader whose version was deleted", async () => {
    await publishCatalog(env.CATALOG, shiftedSeed(40), { browse: null });
    const store = new CatalogStore(env.CATALOG);
    const stale = await store.currentMeta();
    // Cleanup keeps the last KEEP_VERSIONS (5) published versions, so it takes 5 more.
    for (const cents of [50, 60, 70, 80, 90]) await publishCatalog(env.CATALOG, shiftedSeed(cents), { browse: null });
    if (!stale) throw new Error("nothing published");
    const error = await store.getProduct(stale, "essential-crew-tee-black").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CatalogError);
    expect(error).toMatchObject({ code: "catalog_unavailable" });
    expect(fromFailure(error as CatalogError)).toMatchObject({ status: 503, body: { code: "catalog_unavailable" } });
  }, 30_000);

  it("publishes an empty catalog as empty lists", async () => {
    await publishCatalog(
      env.CATALOG,
      { currency: "USD", store: { name: "Empty" }, products: [], collections: [] },
      { browse: null },
    );
    const res = await exports.default.fetch(`${BASE}/products`);
    expect(await res.json()).toEqual({ object: "list", count: 0, data: [], has_more: false });
    const collections = await exports.default.fetch(`${BASE}/collections?limit=1`);
    expect(await collections.json()).toEqual({ object: "list", count: 0, data: [], has_more: false });
  });

  // Cleanup keeps the last 5 versions, no longer only
  // the live and the previous one, so a rollback can return to any of them.
  it("keeps the last 5 published versions, deleting older ones", async () => {
    const published: string[] = [];
    for (const cents of [10, 20, 30, 40, 50, 60, 70])
      published.push((await publishCatalog(env.CATALOG, shiftedSeed(cents), { browse: null })).version);
    const versions = new Set((await allKeys()).filter((k) => k.startsWith("v/")).map((k) => k.split("/")[1]));
    expect(versions).toEqual(new Set(published.slice(-KEEP_VERSIONS)));
  }, 30_000);

  it("rolls back with one pointer switch, and a second rollback returns", async () => {
    const a = await publishCatalog(env.CATALOG, shiftedSeed(100), { browse: null });
    const aPrices = await listPrices();
    const b = await publishCatalog(env.CATALOG, shiftedSeed(200), { browse: null });
    const bPrices = await listPrices();
    expect(bPrices.version).toBe(b.version);
    const keysBefore = await allKeys();

    expect(await rollbackCatalog(env.CATALOG)).toEqual({ version: a.version, previous: b.version });
    expect(await listPrices()).toEqual(aPrices);
    expect(await allKeys()).toEqual(keysBefore);

    await rollbackCatalog(env.CATALOG);
    expect(await listPrices()).toEqual(bPrices);
  });

  it("refuses to roll back when there is no previous version", async () => {
    const pointer = (await env.CATALOG.get<Pointer>(POINTER_KEY, "json")) as Pointer;
    await env.CATALOG.put(POINTER_KEY, JSON.stringify({ current: pointer.current, previous: null }));
    await expect(rollbackCatalog(env.CATALOG)).rejects.toThrow(/no previous catalog version/);
  });

  it("skips a catalog that is already live when asked to", async () => {
    const live = await publishCatalog(env.CATALOG, shiftedSeed(300), { browse: null });
    const again = await publishCatalog(env.CATALOG, shiftedSeed(300), { browse: null, skipIfLive: true });
    expect(again).toMatchObject({ version: live.version, skipped: true, entries: 0 });
  });

  it("reports progress up to every entry on a larger catalog", async () => {
    const seen: number[] = [];
    const result = await publishCatalog(env.CATALOG, generateCatalog({ products: 3 * CHUNK_STEP }), {
      browse: null,
      onProgress: (p) => void (p.phase === "writing" && seen.push(p.written)),
    });
    expect(seen.length).toBe(result.entries);
    expect(seen.at(-1)).toBe(result.entries);
  });
});
