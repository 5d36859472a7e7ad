import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { POINTER_KEY } from "../../src/catalog/layout.ts";
import { CatalogStore } from "../../src/catalog/store.ts";
import { catalogCacheKey } from "../../src/http/cache.ts";
import { BoundedMemo } from "../../src/memo.ts";
import { publishCatalog } from "../../src/publish/publish.ts";
import app from "../../src/index.ts";
import { countingKv } from "../helpers/counting-kv.ts";
import { publishSeedCatalog, seedCatalog } from "../helpers/catalog.ts";

const DETAIL = "https://storefront.test/api/v1/products/essential-crew-tee-black";

/** One request through the app with the catalog binding counted. */
async function read(url: string, kv: KVNamespace): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await app.fetch(new Request(url), { ...env, CATALOG: kv }, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

describe("BoundedMemo", () => {
  it("evicts the least recently used entries beyond its byte budget", () => {
    const memo = new BoundedMemo<string>(100);
    memo.set("a", "A", 20);
    memo.set("b", "B", 20);
    memo.set("c", "C", 20);
    memo.get("a");
    memo.set("d", "D", 20);
    memo.set("e", "E", 20);
    memo.set("f", "F", 20);
    expect(memo.get("b")).toBeUndefined();
    expect(memo.get("a")).toBe("A");
    expect(memo.get("f")).toBe("F");
  });

  it("does not keep a value larger than a quarter of its budget", () => {
    const memo = new BoundedMemo<string>(100);
    memo.set("big", "x", 26);
    expect(memo.get("big")).toBeUndefined();
    expect(memo.size).toBe(0);
  });
});

describe("catalog answers kept in the isolate", () => {
  beforeAll(async () => {
    await publishSeedCatalog();
  });

  it("keeps parsed shards: another request's store reads a product it already read with no KV read", async () => {
    const first = new CatalogStore(countingKv(env.CATALOG).kv);
    const meta = await first.currentMeta();
    if (!meta) throw new Error("nothing published");
    const product = await first.getProduct(meta, "essential-crew-tee-white");
    const counted = countingKv(env.CATALOG);
    const again = await new CatalogStore(counted.kv).getProduct(meta, "essential-crew-tee-white");
    expect(again).toEqual(product);
    expect(counted.reads).toEqual([]);
  });

  it("answers a repeat read from the isolate, with only the pointer read, after the edge cache dropped it", async () => {
    const counted = countingKv(env.CATALOG);
    const first = await read(DETAIL, counted.kv);
    expect(first.status).toBe(200);
    const version = first.headers.get("x-catalog-version") ?? "";
    await caches.default.delete(catalogCacheKey("https://storefront.test", version, new URL(DETAIL).pathname, {}));
    const logged: string[] = [];
    const spy = vi.spyOn(console, "log").mockImplementation((line: unknown) => void logged.push(String(line)));
    const before = counted.reads.length;
    const second = await read(DETAIL, counted.kv);
    spy.mockRestore();
    expect(counted.reads.slice(before)).toEqual([POINTER_KEY]);
    expect(logged.map((l) => JSON.parse(l) as { cache: string }).at(-1)?.cache).toBe("hit");
    expect(await second.text()).toBe(await first.text());
    expect(second.headers.get("etag")).toBe(first.headers.get("etag"));
  });

  it("shows a publish on the very next read: kept answers belong to the version they were read from", async () => {
    const counted = countingKv(env.CATALOG);
    const before = await (await read(DETAIL, counted.kv)).json<{ price: { min: { amount: string } } }>();
    const repriced = seedCatalog();
    const tee = repriced.products.find((p) => p.handle === "essential-crew-tee-black");
    if (!tee) throw new Error("seed changed");
    for (const variant of tee.variants) variant.price = "99.50";
    const { version } = await publishCatalog(env.CATALOG, repriced, { browse: null });
    const after = await read(DETAIL, counted.kv);
    expect(after.headers.get("x-catalog-version")).toBe(version);
    expect(((await after.json()) as { price: { min: { amount: string } } }).price.min.amount).toBe("99.50");
    expect(before.price.min.amount).not.toBe("99.50");
  });
});
