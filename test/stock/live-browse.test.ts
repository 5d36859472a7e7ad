import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { SourceCatalog } from "../../src/catalog/schema.ts";
import { d1Target } from "../../src/publish/browse-index.ts";
import { publishCatalog } from "../../src/publish/publish.ts";
import { stockStore } from "../../src/stock/store.ts";
import { call, operator } from "../helpers/cart.ts";
import { seedCatalog } from "../helpers/catalog.ts";

/**
 * Section 9.3 (issue 35 point 5): browse's `available` and `option.*` filters and the facet
 * counts follow live stock as the items do, in one engine and in a sharded version's engines.
 */

const stock = stockStore(env);
const SAND = "washed-graphic-tee-sand";
/** washed-graphic-tee-sand's variants by size (S, M, L, XL), all tracked with 2 left. */
const sand = { S: "44102938475619", M: "44102938475620", L: "44102938475621", XL: "44102938475622" };
/** heavyweight-pocket-tee-navy's S: tracked, 0 left in the file (so not in option.size=S at publish). */
const NAVY = "heavyweight-pocket-tee-navy";
const navyS = "44102938475614";

async function setLevels(levels: Record<string, number>): Promise<void> {
  const res = await operator("/stock", {
    method: "POST",
    body: JSON.stringify({ changes: Object.entries(levels).map(([variant_id, set]) => ({ variant_id, set })) }),
  });
  expect(res.status).toBe(200);
}

/** Waits out the overlay's one-write-a-second rule and runs the coordinator's alarm (the held-back write). */
async function settle(): Promise<void> {
  await new Promise((r) => setTimeout(r, 1100));
  await runDurableObjectAlarm(stock.coordinator());
}

async function body(path: string): Promise<Record<string, unknown>> {
  const res = await call(`/api/v1${path}`, {});
  expect(res.status, path).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

async function handles(path: string): Promise<string[]> {
  const b = await body(path);
  const list = (b.products ?? b) as { data: { handle: string }[] };
  return list.data.map((i) => i.handle);
}

/** Facet name -> value -> count, of a facets answer. */
async function counts(path: string): Promise<Record<string, Record<string, number>>> {
  const b = (await body(path)) as { facets: { name: string; values?: { value: string; count: number }[] }[] };
  const out: Record<string, Record<string, number>> = {};
  for (const f of b.facets) out[f.name] = Object.fromEntries((f.values ?? []).map((v) => [v.value, v.count]));
  return out;
}

for (const shardProducts of [undefined, 10]) {
  describe(`browse filters and facet counts follow live stock${shardProducts ? " (3 browse shards)" : ""}`, () => {
    beforeAll(async () => {
      const catalog: SourceCatalog = seedCatalog();
      for (const v of catalog.products.find((p) => p.handle === SAND)!.variants) v.inventory_quantity = 2;
      await publishCatalog(env.CATALOG, catalog, {
        browse: d1Target(env.BROWSE, env.BROWSE_SNAPSHOTS),
        ...(shardProducts ? { shardProducts } : {}),
      });
      await setLevels({ ...Object.fromEntries(Object.values(sand).map((id) => [id, 2])), [navyS]: 0 });
      await settle();
    }, 60_000);

    it("a size sold out leaves option.size=M and its count; restocked, it comes back", async () => {
      expect(await handles("/products?option.size=M&limit=250")).toContain(SAND);
      const before = await counts("/products/facets");
      const sandBefore = await counts("/products/facets?option.color=Sand");
      expect(sandBefore["option.size"]?.M).toBe(1);
      await setLevels({ [sand.M]: 0 });
      await settle();
      expect(await handles("/products?option.size=M&limit=250")).not.toContain(SAND);
      expect(await handles("/products?option.size=M&option.color=Sand")).toEqual([]);
      // The product still sells in other sizes: still available, still Sand.
      expect(await handles("/products?available=true&option.color=Sand")).toEqual([SAND]);
      const after = await counts("/products/facets");
      expect(after["option.size"]?.M).toBe((before["option.size"]?.M as number) - 1);
      expect(after["option.size"]?.S).toBe(before["option.size"]?.S);
      expect(after.available).toEqual(before.available);
      expect((await counts("/products/facets?option.color=Sand"))["option.size"]?.M).toBeUndefined();
      // Disjunctive counts under a filter on the facet itself move too.
      const chosen = await counts("/products/facets?option.size=M");
      expect(chosen["option.size"]?.M).toBe(after["option.size"]?.M);
      expect(chosen["option.color"]?.Sand).toBeUndefined();
      await setLevels({ [sand.M]: 2 });
      await settle();
      expect(await handles("/products?option.size=M&limit=250")).toContain(SAND);
      expect(await counts("/products/facets")).toEqual(before);
    });

    it("a product sold out leaves available=true, its count and its option values; restocked, it comes back", async () => {
      const before = await counts("/products/facets");
      const inCollection = await counts("/collections/tees-and-tops/facets");
      expect(await handles("/products?available=true&limit=250")).toContain(SAND);
      await setLevels(Object.fromEntries(Object.values(sand).map((id) => [id, 0])));
      await settle();
      expect(await handles("/products?available=true&limit=250")).not.toContain(SAND);
      expect(await handles("/products?available=false&limit=250")).toContain(SAND);
      expect(await handles("/collections/tees-and-tops?available=true&limit=250")).not.toContain(SAND);
      expect(await handles("/products?option.color=Sand")).toEqual([]);
      const after = await counts("/products/facets");
      expect(after.available?.true).toBe((before.available?.true as number) - 1);
      expect(after.available?.false).toBe((before.available?.false as number) + 1);
      expect(after["option.color"]?.Sand).toBeUndefined();
      expect(after["option.size"]?.XL).toBe((before["option.size"]?.XL as number) - 1);
      const collected = await counts("/collections/tees-and-tops/facets?available=true");
      expect(collected.available?.true).toBe((inCollection.available?.true as number) - 1);
      await setLevels(Object.fromEntries(Object.values(sand).map((id) => [id, 2])));
      await settle();
      expect(await handles("/products?available=true&option.color=Sand")).toEqual([SAND]);
      expect(await counts("/products/facets")).toEqual(before);
      expect(await counts("/collections/tees-and-tops/facets")).toEqual(inCollection);
    });

    it("a size the file had sold out, restocked, joins its option value's filter and count", async () => {
      expect(await handles("/products?option.size=S&option.color=Navy")).toEqual([]);
      const before = await counts("/products/facets");
      await setLevels({ [navyS]: 4 });
      await settle();
      expect(await handles("/products?option.size=S&option.color=Navy")).toEqual([NAVY]);
      expect((await counts("/products/facets"))["option.size"]?.S).toBe((before["option.size"]?.S as number) + 1);
      await setLevels({ [navyS]: 0 });
      await settle();
      expect(await handles("/products?option.size=S&option.color=Navy")).toEqual([]);
      expect(await counts("/products/facets")).toEqual(before);
    });
  });
}
