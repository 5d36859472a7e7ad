import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { STOCK_OVERLAY_KEY, type StockOverlay, stockKeyPart } from "../../src/catalog/layout.ts";
import type { SourceCatalog } from "../../src/catalog/schema.ts";
import { d1Target } from "../../src/publish/browse-index.ts";
import { publishCatalog } from "../../src/publish/publish.ts";
import { stockStore } from "../../src/stock/store.ts";
import { checkoutsFor } from "../../src/checkout/client.ts";
import { addLine, call, issueToken, operator } from "../helpers/cart.ts";
import { checkoutFrom, operatorComplete, orderFrom, postCheckout } from "../helpers/checkout.ts";
import { seedCatalog } from "../helpers/catalog.ts";

/**
 * Section 9.3: every catalog answer that shows availability follows live stock without a
 * publish: product, variants, list and collection items, browse pages, with ETags changing.
 */

const stock = stockStore(env);
let tote: string;
let navyS: string;

function get(path: string, headers: Record<string, string> = {}): Promise<Response> {
  return call(`/api/v1${path}`, { headers });
}

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

async function json(path: string): Promise<{ status: number; etag: string | null; body: Record<string, unknown> }> {
  const res = await get(path);
  return { status: res.status, etag: res.headers.get("ETag"), body: (await res.json()) as Record<string, unknown> };
}

function item(list: unknown, handle: string): Record<string, unknown> | undefined {
  return (list as { data: Record<string, unknown>[] }).data.find((i) => i.handle === handle);
}

beforeAll(async () => {
  const catalog: SourceCatalog = seedCatalog();
  const toteProduct = catalog.products.find((p) => p.handle === "canvas-market-tote")!;
  toteProduct.variants[0]!.inventory_quantity = 2;
  tote = toteProduct.variants[0]!.id;
  navyS = "44102938475614";
  await publishCatalog(env.CATALOG, catalog, { browse: d1Target(env.BROWSE, env.BROWSE_SNAPSHOTS) });
});

describe("catalog answers follow live stock", () => {
  it("a product sold out by the operator answers 404 sold_out, and is listed, collected and browsed as unavailable", async () => {
    const before = await json("/products/canvas-market-tote");
    expect(before.status).toBe(200);
    expect(item((await json("/products?limit=250")).body, "canvas-market-tote")?.available).toBe(true);
    await setLevels({ [tote]: 0 });
    await settle();
    const after = await json("/products/canvas-market-tote");
    expect(after.status).toBe(404);
    expect(after.body).toEqual({
      error: { type: "not_found_error", code: "sold_out", message: "Sold out", param: "handle" },
    });
    expect(item((await json("/products?limit=250")).body, "canvas-market-tote")?.available).toBe(false);
    const frontpage = (await json("/collections/frontpage?limit=250")).body.products;
    expect(item(frontpage, "canvas-market-tote")).toMatchObject({ available: false, endpoint_status: 404 });
    const variants = (await json("/products/canvas-market-tote/variants")).body;
    expect((variants as { data: { available: boolean }[] }).data[0]!.available).toBe(false);
    const browsed = (await json("/products?q=tote")).body;
    expect(item(browsed, "canvas-market-tote")?.available).toBe(false);
    // Restocked: sells again, with the answer it had before (same ETag: same content).
    await setLevels({ [tote]: 5 });
    await settle();
    const again = await json("/products/canvas-market-tote");
    expect(again.status).toBe(200);
    expect(again.etag).toBe(before.etag);
    expect(item((await json("/products?q=tote")).body, "canvas-market-tote")?.available).toBe(true);
  });

  it("a size restocked after the file said 0 shows available, and the ETag changes with it", async () => {
    const before = await json("/products/heavyweight-pocket-tee-navy/variants");
    const s = (before.body as { data: { id: string; available: boolean }[] }).data.find((v) => v.id === navyS)!;
    expect(s.available).toBe(false);
    await setLevels({ [navyS]: 4 });
    await settle();
    const after = await json("/products/heavyweight-pocket-tee-navy/variants");
    expect(
      (after.body as { data: { id: string; available: boolean }[] }).data.find((v) => v.id === navyS)!.available,
    ).toBe(true);
    expect(after.etag).not.toBe(before.etag);
    // Counts stay private by default.
    expect(JSON.stringify(after.body)).not.toContain("quantity_available");
    const revalidated = await get("/products/heavyweight-pocket-tee-navy/variants", { "If-None-Match": before.etag! });
    expect(revalidated.status).toBe(200);
  });

  it("units held by a checkout count: the last units held make the product sold out, released they come back", async () => {
    await setLevels({ [tote]: 1 });
    await settle();
    expect((await json("/products/canvas-market-tote")).status).toBe(200);
    const held = await stock.hold(`chk-${crypto.randomUUID()}`, [{ variant_id: tote, quantity: 1 }]);
    expect(held.ok).toBe(true);
    await settle();
    expect((await json("/products/canvas-market-tote")).status).toBe(404);
  });
});

/** A read and whether the catalog served it from a cache (its log line's `cache`). */
async function cached(path: string): Promise<{ status: number; cache: string | null }> {
  const logged: string[] = [];
  const spy = vi.spyOn(console, "log").mockImplementation((line: unknown) => void logged.push(String(line)));
  try {
    const res = await get(path);
    await res.arrayBuffer();
    const line = logged.map((l) => JSON.parse(l) as { route?: string; cache?: string | null }).find((l) => l.route);
    return { status: res.status, cache: line?.cache ?? null };
  } finally {
    spy.mockRestore();
  }
}

describe("a stock change misses only the answers it changes", () => {
  it("other products and product lists stay cached; a state seen before is cached again", async () => {
    // Navy S in stock (the file said 0); the tote sold out (its last unit held, above).
    await setLevels({ [navyS]: 4 });
    await settle();
    const paths = [
      "/products/essential-crew-tee-black",
      "/products?limit=250",
      "/products/heavyweight-pocket-tee-navy/variants",
    ];
    for (const path of paths) await get(path); // now cached under today's stock
    expect((await cached(paths[0]!)).cache).toBe("hit");
    // Navy S back to the file's 0: the navy product's entries change; product availability does not.
    await setLevels({ [navyS]: 0 });
    await settle();
    expect(await cached(paths[0]!)).toEqual({ status: 200, cache: "hit" });
    expect(await cached(paths[1]!)).toEqual({ status: 200, cache: "hit" });
    // The navy product's answers follow (the file's answer, cached by an earlier read, fits again).
    const sold = (await json(paths[2]!)).body as { data: { id: string; available: boolean }[] };
    expect(sold.data.find((v) => v.id === navyS)?.available).toBe(false);
    // And in stock again: that state's answer is still cached, and right.
    await setLevels({ [navyS]: 4 });
    await settle();
    expect(await cached(paths[2]!)).toEqual({ status: 200, cache: "hit" });
    const variants = (await json(paths[2]!)).body as { data: { id: string; available: boolean }[] };
    expect(variants.data.find((v) => v.id === navyS)?.available).toBe(true);
  });

  it("an overlay write that fails is owed, logged and tried again a second later", async () => {
    const coordinator = stock.coordinator();
    const before = await env.CATALOG.get<StockOverlay>(STOCK_OVERLAY_KEY, "json");
    // The coordinator's next KV write fails, as a KV outage would.
    await runInDurableObject(coordinator, (instance) => {
      const target = instance as unknown as { env: Env };
      const real = target.env.CATALOG;
      let failures = 1;
      const failing = new Proxy(real, {
        get(kv, name) {
          if (name === "put" && failures-- > 0) return () => Promise.reject(new Error("KV is down (test)"));
          const value = Reflect.get(kv, name) as unknown;
          return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(kv) : value;
        },
      });
      target.env = { ...target.env, CATALOG: failing };
    });
    await new Promise((r) => setTimeout(r, 1100)); // so the write is due at once
    const errors: string[] = [];
    const spy = vi.spyOn(console, "error").mockImplementation((line: unknown) => void errors.push(String(line)));
    try {
      await setLevels({ [navyS]: 0 });
    } finally {
      spy.mockRestore();
    }
    expect(errors.map((e) => (JSON.parse(e) as { error: string }).error)).toContain("stock_overlay_write_failed");
    expect((await env.CATALOG.get<StockOverlay>(STOCK_OVERLAY_KEY, "json"))?.gen).toBe(before?.gen);
    const alarm = await runInDurableObject(coordinator, (_, state) => state.storage.getAlarm());
    expect(alarm).not.toBeNull();
    expect(alarm! - Date.now()).toBeLessThanOrEqual(1000);
    await runDurableObjectAlarm(coordinator);
    expect((await env.CATALOG.get<StockOverlay>(STOCK_OVERLAY_KEY, "json"))?.gen).toBeGreaterThan(before?.gen ?? 0);
    const variants = (await json("/products/heavyweight-pocket-tee-navy/variants")).body as {
      data: { id: string; available: boolean }[];
    };
    expect(variants.data.find((v) => v.id === navyS)?.available).toBe(false);
  });

  it("keys an overlay written without digests by its generation", () => {
    const old = { gen: 7, p: {}, v: { "1": [0, 0] } } as StockOverlay;
    expect(stockKeyPart(old, { product: "x" })).toBe("g7");
    expect(stockKeyPart(old, "items")).toBe("g7");
    const now: StockOverlay = { gen: 8, p: { a: 0 }, v: {}, d: "dd", pd: "pp", h: { a: "ha" } };
    expect([stockKeyPart(now, "all"), stockKeyPart(now, "items"), stockKeyPart(now, { product: "a" })]).toEqual([
      "dd",
      "pp",
      "ha",
    ]);
    expect(stockKeyPart(now, { product: "b" })).toBe("");
  });
});

describe('"stock_display": "quantity"', () => {
  it("adds quantity_available to variants, live, and null for untracked ones", async () => {
    const catalog: SourceCatalog = seedCatalog();
    catalog.stock_display = "quantity";
    await publishCatalog(env.CATALOG, catalog, { browse: null });
    await setLevels({ "44102938475615": 7 });
    await settle();
    const variants = (await json("/products/heavyweight-pocket-tee-navy/variants")).body as {
      data: { id: string; quantity_available: number | null }[];
    };
    const byId = Object.fromEntries(variants.data.map((v) => [v.id, v.quantity_available]));
    expect(byId["44102938475615"]).toBe(7);
    expect(byId["44102938475616"]).toBeNull();
    const detail = (await json("/products/heavyweight-pocket-tee-navy?include=variants")).body as {
      variants: { id: string; quantity_available: number | null }[];
    };
    expect(detail.variants.find((v) => v.id === "44102938475615")?.quantity_available).toBe(7);
  });

  it("shows the count of a variant the operator started tracking, and never a count below 0 after a late completion", async () => {
    const catalog: SourceCatalog = seedCatalog();
    catalog.stock_display = "quantity";
    catalog.products[0]!.variants[0]!.price = "19.99";
    await publishCatalog(env.CATALOG, catalog, { browse: null });
    // Tracked by the operator alone: its level decides its answers too (issue 42 points 1 and 4).
    await setLevels({ "44102938475616": 4 });
    // A checkout paid after it expired commits its units even though another shopper bought them:
    // the on-hand level goes below 0, what shoppers are shown stays at 0.
    await setLevels({ "44102938475615": 1 });
    const late = await issueToken();
    expect((await addLine(late.token, "44102938475615", 1)).status).toBe(200);
    const expired = await checkoutFrom(await postCheckout(late.token));
    const stub = checkoutsFor(env, late.holder);
    await runInDurableObject(stub, async (_i, state) => {
      state.storage.sql.exec("UPDATE checkouts SET expires_at = ? WHERE id = ?", Date.now() - 1, expired.id);
      await state.storage.setAlarm(Date.now() - 1);
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const buyer = await issueToken();
    expect((await addLine(buyer.token, "44102938475615", 1)).status).toBe(200);
    await orderFrom(await operatorComplete(await checkoutFrom(await postCheckout(buyer.token))));
    expect((await orderFrom(await operatorComplete(expired))).oversold).toBe(true);
    expect(await stock.level("44102938475615")).toMatchObject({ quantity: -1, available_quantity: 0, in_stock: false });
    await settle();
    await new Promise((r) => setTimeout(r, 1100));
    const variants = (await json("/products/heavyweight-pocket-tee-navy/variants")).body as {
      data: { id: string; quantity_available: number | null; available: boolean }[];
    };
    const byId = Object.fromEntries(variants.data.map((v) => [v.id, v]));
    expect(byId["44102938475615"]).toMatchObject({ quantity_available: 0, available: false });
    expect(byId["44102938475616"]).toMatchObject({ quantity_available: 4, available: true });
    const third = await issueToken();
    const refused = await addLine(third.token, "44102938475615", 1);
    expect(refused.status).toBe(404);
    expect(await refused.json()).toMatchObject({ error: { code: "sold_out" } });
  }, 30_000);
});
