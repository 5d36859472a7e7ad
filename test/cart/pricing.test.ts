import { evictDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { cartFor } from "../../src/cart/cart-client.ts";
import { beforeAll, describe, expect, it } from "vitest";
import { publishCatalog } from "../../src/publish/publish.ts";
import { fromMinor, toMinor } from "../../src/money.ts";
import { cartCall, cartFrom, issueToken, seedVariants, type SeedVariants } from "../helpers/cart.ts";
import { seedCatalog } from "../helpers/catalog.ts";

let seed: SeedVariants;
beforeAll(async () => {
  seed = await seedVariants();
});

type SourceCatalog = ReturnType<typeof seedCatalog>;

/** Publishes the seed with `edit` applied, as an operator's next publish would. */
async function publishEdited(edit: (catalog: SourceCatalog) => void): Promise<void> {
  const catalog = seedCatalog();
  edit(catalog);
  await publishCatalog(env.CATALOG, catalog, { browse: null });
}

function sourceVariant(catalog: SourceCatalog, id: string) {
  const variant = catalog.products.flatMap((p) => p.variants).find((v) => v.id === id);
  if (!variant) throw new Error(`no variant ${id}`);
  return variant;
}

describe("re-pricing after a catalog publish", () => {
  it("re-prices lines, keeps a variant gone sold out with available false, and leaves it out of the subtotal", async () => {
    const { token, holder } = await issueToken();
    const products = seedCatalog().products.filter(
      (p) => p.available && p.variants.filter((v) => v.available).length >= 2,
    );
    const repriced = seed.available.find((v) => v.product_handle === products[0]!.handle)!;
    const goingSoldOut = seed.available.find((v) => v.product_handle === products[1]!.handle)!;
    const removedProduct = products[2]!;
    const removed = seed.available.find((v) => v.product_handle === removedProduct.handle)!;
    for (const v of [repriced, goingSoldOut, removed]) {
      expect(
        (await cartCall(token, "/cart/lines", { method: "POST", body: { variant_id: v.id, quantity: 2 } })).status,
      ).toBe(200);
    }
    const newPrice = "123.45";
    await publishEdited((catalog) => {
      sourceVariant(catalog, repriced.id).price = newPrice;
      sourceVariant(catalog, goingSoldOut.id).available = false;
      catalog.products = catalog.products.filter((p) => p.handle !== removedProduct.handle);
      for (const c of catalog.collections) c.products = c.products.filter((h) => h !== removedProduct.handle);
    });

    const cart = await cartFrom(await cartCall(token, "/cart"));
    const line = (id: string) => cart.lines.find((l) => l.variant_id === id)!;
    expect(cart.lines).toHaveLength(3);
    expect(line(repriced.id)).toMatchObject({
      unit_price: fromMinor(toMinor(newPrice)),
      line_total: fromMinor(toMinor(newPrice) * 2),
      available: true,
    });
    expect(line(goingSoldOut.id)).toMatchObject({ available: false, quantity: 2 });
    expect(line(removed.id)).toMatchObject({ available: false, quantity: 2 });
    expect(cart.subtotal).toEqual(fromMinor(toMinor(newPrice) * 2));
    expect(cart.total_quantity).toBe(6);

    const again = await cartCall(token, "/cart/lines", {
      method: "POST",
      body: { variant_id: goingSoldOut.id, quantity: 1 },
    });
    expect(again.status).toBe(404);
    expect(await again.json()).toMatchObject({ error: { code: "sold_out", message: "Sold out" } });
    const soldOutLine = line(goingSoldOut.id).id;
    const grow = await cartCall(token, `/cart/lines/${soldOutLine}`, { method: "PATCH", body: { quantity: 3 } });
    expect(grow.status).toBe(404);
    expect(await grow.json()).toMatchObject({ error: { code: "sold_out" } });
    const shrink = await cartFrom(
      await cartCall(token, `/cart/lines/${soldOutLine}`, { method: "PATCH", body: { quantity: 1 } }),
    );
    expect(shrink.lines.find((l) => l.id === soldOutLine)?.quantity).toBe(1);

    await publishEdited(() => {});
    const restored = await cartFrom(await cartCall(token, "/cart"));
    expect(restored.lines.every((l) => l.available)).toBe(true);
    expect(restored.lines.find((l) => l.variant_id === repriced.id)?.unit_price).toEqual(
      fromMinor(repriced.price_minor),
    );

    // The lines the object keeps in memory are the ones it stored: a new instance reads the same cart.
    const kept = await (await cartCall(token, "/cart")).text();
    await evictDurableObject(cartFor(env, holder));
    expect(await (await cartCall(token, "/cart")).text()).toBe(kept);
  });

  it("re-prices on a write as well as on a read", async () => {
    const { token } = await issueToken();
    const [a, b] = [seed.available[0]!, seed.available[10]!];
    await cartCall(token, "/cart/lines", { method: "POST", body: { variant_id: a.id, quantity: 1 } });
    await publishEdited((catalog) => {
      sourceVariant(catalog, a.id).price = "1.5";
    });
    const cart = await cartFrom(
      await cartCall(token, "/cart/lines", { method: "POST", body: { variant_id: b.id, quantity: 1 } }),
    );
    expect(cart.lines.find((l) => l.variant_id === a.id)?.unit_price).toEqual({ amount: "1.50", currency: "USD" });
    await publishEdited(() => {});
  });
});
