import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { SourceCatalog, SourceProduct } from "../../src/catalog/schema.ts";
import type { KvEntry } from "../../src/publish/build.ts";
import { d1Target } from "../../src/publish/browse-index.ts";
import { generateCatalog } from "../../src/publish/generate.ts";
import { publishCatalog } from "../../src/publish/publish.ts";
import { applyChanges } from "../../src/writer/apply.ts";
import type { EntrySink } from "../../src/writer/target.ts";
import { call } from "../helpers/cart.ts";

/**
 * One invocation of a Worker may make 1,000 operations on KV, R2 and D1 on Cloudflare, a limit
 * Miniflare does not enforce, so this test counts them itself: the writer's own calls while it
 * applies a batch of 600 products (spread over a 12,000-product catalog) stay under it, its
 * entries' writes going to the writer itself in chunks (src/writer/target.ts), each chunk a new
 * invocation. Regression: the writer read and wrote one KV key per call, about 15 a product.
 */

/** `binding` with every call to storage counted (D1: each statement run and each batch; the calls still happen). */
function counted<T extends object>(binding: T, count: () => void): T {
  const statement = (stmt: D1PreparedStatement): D1PreparedStatement =>
    new Proxy(stmt, {
      get(target, prop) {
        const value: unknown = Reflect.get(target, prop);
        if (typeof value !== "function") return value;
        if (prop === "bind")
          return (...args: unknown[]) =>
            statement((value as (...a: unknown[]) => D1PreparedStatement).apply(target, args));
        if (["run", "all", "first", "raw"].includes(String(prop))) count();
        return (value as (...a: unknown[]) => unknown).bind(target);
      },
    });
  return new Proxy(binding, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop);
      if (typeof value !== "function") return value;
      if (prop === "prepare")
        return (sql: string) => statement((value as (s: string) => D1PreparedStatement).call(target, sql));
      count();
      return (value as (...a: unknown[]) => unknown).bind(target);
    },
  });
}

describe("a batch applied by the catalog writer", () => {
  it("makes fewer than 1,000 storage calls in its own invocation, however many entries it writes", async () => {
    const catalog: SourceCatalog = generateCatalog({ products: 12_000, seed: 45 });
    await publishCatalog(env.CATALOG, catalog, { browse: d1Target(env.BROWSE, env.BROWSE_SNAPSHOTS) });
    const changed = Array.from({ length: 600 }, (_, i) => {
      const product = structuredClone(catalog.products[i * 20] as SourceProduct);
      for (const variant of product.variants) variant.price = `${(i % 90) + 5}.25`;
      return product;
    });

    let calls = 0;
    let keysRead = 0;
    const forwarded = { chunks: 0, entries: 0 };
    const kv = counted(env.CATALOG, () => (calls += 1));
    const reading = new Proxy(kv, {
      get(target, prop) {
        if (prop !== "get") return Reflect.get(target, prop);
        return (key: string | string[], ...rest: unknown[]) => {
          keysRead += Array.isArray(key) ? key.length : 1;
          return (target.get as (...a: unknown[]) => unknown)(key, ...rest);
        };
      },
    });
    const sink: EntrySink = {
      putEntries: async (entries: KvEntry[]) => {
        forwarded.chunks += 1;
        forwarded.entries += entries.length;
        await env.CATALOG_WRITER.putEntries(entries);
      },
      deleteEntries: (keys: string[]) => env.CATALOG_WRITER.deleteEntries(keys),
    };
    const reply = await applyChanges(
      {
        CATALOG: reading,
        BROWSE: counted(env.BROWSE, () => (calls += 1)),
        BROWSE_SNAPSHOTS: counted(env.BROWSE_SNAPSHOTS, () => (calls += 1)),
        CATALOG_WRITER: sink,
        CATALOG_RELEASES: env.CATALOG_RELEASES,
      },
      { batch: { upsert: changed } },
    );
    expect(reply).toMatchObject({ ok: true, version: { changed: { products: 600, collections: 0 } } });
    const figures = `calls ${calls}, KV keys read ${keysRead}, forwarded ${JSON.stringify(forwarded)}`;
    // What one key a call (the tools' bindingTarget) would have cost: past the limit.
    expect(forwarded.entries + keysRead, figures).toBeGreaterThan(1_000);
    expect(forwarded.chunks, figures).toBeGreaterThan(2);
    expect(calls, figures).toBeLessThan(1_000);
    console.log(`[writer] a batch of 600 products at 12,000: ${figures}`);

    const answered = (await (await call(`/api/v1/products/${changed[7]!.handle}?include=variants`)).json()) as {
      variants: { price: { amount: string } }[];
    };
    expect(answered.variants[0]!.price.amount).toBe("12.25");
  }, 300_000);
});
