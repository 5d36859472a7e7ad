import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { SourceCatalog } from "../../src/catalog/schema.ts";
import { CatalogStore } from "../../src/catalog/store.ts";
import { publishCatalog, rollbackCatalog } from "../../src/publish/publish.ts";
import { decideLevel, planLevels } from "../../src/stock/publish-levels.ts";
import { stockStore } from "../../src/stock/store.ts";
import { addLine, cartCall, issueToken } from "../helpers/cart.ts";
import { checkoutFrom, postCheckout } from "../helpers/checkout.ts";
import { seedCatalog } from "../helpers/catalog.ts";

/**
 * Contract 9.3 [revised, turn 5]: a publish writes a level only for a variant it newly tracks or
 * whose quantity in the file differs from what the last publish wrote (issue 42 point 2); a
 * variant it stops tracking is governed by the catalog's `available` again (point 3); a rollback
 * never changes a level.
 */

const stock = stockStore(env);
const catalogStore = new CatalogStore(env.CATALOG);

/** The seed with the crew tee's variants given `quantities` (undefined: untracked), prices raised by `cents`. */
function teeCatalog(quantities: (number | undefined)[], cents = 0): SourceCatalog {
  const catalog = seedCatalog() as SourceCatalog;
  const tee = catalog.products[0]!;
  quantities.forEach((quantity, i) => {
    const variant = tee.variants[i]!;
    if (quantity === undefined) delete variant.inventory_quantity;
    else variant.inventory_quantity = quantity;
  });
  for (const variant of tee.variants)
    variant.price = ((Math.round(Number(variant.price) * 100) + cents) / 100).toFixed(2);
  return catalog;
}

const teeIds = () => seedCatalog().products[0]!.variants.map((v) => v.id);
/** Variants the seed itself tracks (Navy S and M), in every version below and never changed. */
const SEED_TRACKED = seedCatalog()
  .products.flatMap((p) => p.variants)
  .filter((v) => "inventory_quantity" in v).length;

/** Publishes, then has every shard write the version's levels (what `npm run stock -- show` does). */
async function publishAndSync(catalog: SourceCatalog, stockMode: "keep" | "replace" = "keep") {
  const result = await publishCatalog(env.CATALOG, catalog, { browse: null, stockMode });
  const sync = await stock.coordinator().syncVersion(result.version);
  return { result, sync: sync! };
}

async function quantityOf(id: string): Promise<number> {
  return (await stock.level(id)).quantity;
}

/** Sells `units` of `id`: a checkout's hold committed, as a paid order does. */
async function sell(id: string, units: number): Promise<void> {
  const hold = `chk_sale_${crypto.randomUUID()}`;
  expect((await stock.hold(hold, [{ variant_id: id, quantity: units }])).ok).toBe(true);
  await stock.commit(hold, [{ variant_id: id, quantity: units }]);
}

describe("which levels a new version writes (src/stock/publish-levels.ts)", () => {
  it("writes a newly tracked or changed quantity, keeps an unchanged one, and untracks unless the operator started it", () => {
    const file = { quantity: 3, policy: "deny" as const };
    expect(decideLevel(file, undefined, "keep")).toEqual({ action: "write", quantity: 3, policy: "deny" });
    expect(decideLevel(file, { published: 3, operator: false }, "keep")).toEqual({
      action: "keep",
      quantity: 3,
      policy: "deny",
    });
    expect(decideLevel(file, { published: 5, operator: false }, "keep").action).toBe("write");
    // The operator's own tracking: the last version gave nothing, so the file's quantity is new.
    expect(decideLevel(file, { published: null, operator: true }, "keep").action).toBe("write");
    expect(decideLevel(file, { published: 3, operator: false }, "replace").action).toBe("write");
    expect(decideLevel(undefined, { published: 3, operator: false }, "keep")).toEqual({ action: "untrack" });
    expect(decideLevel(undefined, { published: 3, operator: true }, "keep")).toEqual({ action: "operator_only" });
    expect(decideLevel(undefined, { published: null, operator: true }, "keep")).toEqual({ action: "none" });
    expect(decideLevel(undefined, undefined, "replace")).toEqual({ action: "none" });
    const plan = planLevels(
      new Map([
        ["1", file],
        ["2", file],
      ]),
      new Map([
        ["2", { published: 3, operator: false }],
        ["3", { published: 1, operator: false }],
        ["4", { published: null, operator: true }],
      ]),
      "keep",
    );
    expect([plan.written, plan.kept, plan.untracked]).toEqual([1, 1, 1]);
    expect([...plan.decisions.keys()]).toEqual(["1", "2", "3"]);
  });
});

describe("a publish and live stock", () => {
  it("keeps a live level a republish does not change: units sold stay sold (regression: issue 42 point 2)", async () => {
    // On main every publish set every level to the file's: set 3, sell 1, republish for a price
    // edit, and the level was 3 again (a `publish set +1` in the log).
    const [a, b] = teeIds() as [string, string];
    await publishAndSync(teeCatalog([3, 8]));
    await sell(a, 1);
    expect(await quantityOf(a)).toBe(2);
    const { result, sync } = await publishAndSync(teeCatalog([3, 9], 100));
    expect(await quantityOf(a)).toBe(2);
    expect(await quantityOf(b)).toBe(9); // its quantity in the file changed: written
    expect(result.stock_plan).toEqual({ written: 1, kept: 1 + SEED_TRACKED, untracked: 0 });
    expect(sync).toMatchObject({ written: 1, kept: 1 + SEED_TRACKED, untracked: 0 });
    const log = await stock.movements(a);
    expect(log.at(-1)).toMatchObject({ source: "checkout", kind: "commit" });
  });

  it("writes every level of the file with --stock replace", async () => {
    const [a, b] = teeIds() as [string, string];
    await publishAndSync(teeCatalog([4, 4]));
    await sell(a, 3);
    const { result } = await publishAndSync(teeCatalog([4, 4], 200), "replace");
    expect(result.stock_plan).toEqual({ written: 2 + SEED_TRACKED, kept: 0, untracked: 0 });
    expect([await quantityOf(a), await quantityOf(b)]).toEqual([4, 4]);
  });

  it("never changes a level on a rollback, even to a version no shard wrote", async () => {
    const [a] = teeIds() as [string];
    // v1 is published and never written (no stock call before v2 replaced it).
    await publishCatalog(env.CATALOG, teeCatalog([5]), { browse: null });
    await publishAndSync(teeCatalog([9], 300));
    await sell(a, 1);
    await rollbackCatalog(env.CATALOG);
    const v1 = (await catalogStore.currentMeta())!;
    const sync = await stock.coordinator().syncVersion(v1.version);
    expect(sync).toMatchObject({ written: 0, kept: 0, untracked: 0 });
    expect(await quantityOf(a)).toBe(8);
  });

  it("drops the level of a variant it stops tracking: the catalog's available decides everywhere again (regression: issue 42 point 3)", async () => {
    // On main the stale level kept governing: shown sold out, added (200), refused at checkout
    // (409), and the operator's batch refused it as untracked.
    const ids = teeIds();
    const gone = ids[2]!;
    await publishAndSync(teeCatalog([5, 5, 5]));
    const set = await stock.apply(`op:${crypto.randomUUID()}`, "fp", "operator", [
      { index: 0, variantId: gone, op: "set", value: 0 },
    ]);
    expect(set.ok).toBe(true);
    const { sync } = await publishAndSync(teeCatalog([5, 5, undefined], 400));
    expect(sync).toMatchObject({ untracked: 1 });
    expect(await stock.level(gone)).toMatchObject({ tracked: false });
    const { token } = await issueToken();
    expect((await addLine(token, gone, 2)).status).toBe(200);
    const checkout = await checkoutFrom(await postCheckout(token));
    expect(checkout.lines.map((l) => [l.variant_id, l.quantity])).toEqual([[gone, 2]]);
    // The overlay entry went with the level: catalog answers show the file's available again.
    await new Promise((r) => setTimeout(r, 1100));
    await runDurableObjectAlarm(stock.coordinator());
    await new Promise((r) => setTimeout(r, 1100));
    const handle = seedCatalog().products[0]!.handle;
    const res = await cartCall(token, `/products/${handle}/variants`);
    const variants = (await res.json()) as { data: { id: string; available: boolean }[] };
    expect(variants.data.find((v) => v.id === gone)).toMatchObject({ available: true });
  }, 30_000);
});
