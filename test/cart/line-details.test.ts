import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { CartSchema } from "../../src/cart/api.ts";
import { cartFor } from "../../src/cart/cart-client.ts";
import type { Cart } from "../../src/cart/cart-object.ts";
import { publishCatalog } from "../../src/publish/publish.ts";
import { cartCall, issueToken } from "../helpers/cart.ts";
import { publishSeedCatalog, seedCatalog } from "../helpers/catalog.ts";

/**
 * Issue 42 point 16: a cart line carries what a cart drawer shows (product and variant titles,
 * selected options, image, SKU, compare-at price, the product's path) and whether it ships, from
 * the catalog's variant record, through the same re-pricing path as its price.
 */

const M_BLACK = "44102938475602";
const GIFT_CARD = "44102938475687";
const JACKET = "field-chore-jacket-olive";

async function add(token: string, variantId: string, quantity = 1) {
  const res = await cartCall(token, "/cart/lines", { method: "POST", body: { variant_id: variantId, quantity } });
  expect(res.status).toBe(200);
  return CartSchema.parse(await res.json());
}

async function read(token: string) {
  return CartSchema.parse(await (await cartCall(token, "/cart")).json());
}

describe("a cart line a cart drawer can use", () => {
  beforeAll(async () => {
    await publishSeedCatalog();
  });

  it("carries the titles, the selected options, the SKU, the featured image and the product's path", async () => {
    const { token } = await issueToken();
    const line = (await add(token, M_BLACK, 2)).lines[0];
    expect(line).toMatchObject({
      handle: "essential-crew-tee-black",
      title: "Essential Crew Tee - Black",
      variant_title: "M / Black",
      options: { size: "M", color: "Black" },
      sku: "NW-ECT-BLK-M",
      image: {
        url: "https://images.northwind-threads.example/products/essential-crew-tee-black-front.jpg",
        alt: "Essential Crew Tee - Black, front",
        width: 1600,
        height: 2000,
      },
      url: "/api/v1/products/essential-crew-tee-black",
      compare_at_price: null,
      requires_shipping: true,
    });
  });

  it("shows a variant's own image and its compare-at price per unit; a gift card does not require shipping", async () => {
    const { token } = await issueToken();
    const jacket = seedCatalog().products.find((p) => p.handle === JACKET)!;
    const variant = jacket.variants.find((v) => v.available && "compare_at_price" in v)!;
    await add(token, variant.id, 3);
    const cart = await add(token, GIFT_CARD);
    const [coat, gift] = cart.lines;
    expect(coat).toMatchObject({
      image: { url: (variant as { image?: string }).image, alt: "Field Chore Jacket - Olive, front" },
      compare_at_price: {
        amount: Number((variant as { compare_at_price?: string }).compare_at_price).toFixed(2),
        currency: "USD",
      },
      line_total: { amount: (Number(variant.price) * 3).toFixed(2), currency: "USD" },
    });
    expect(gift).toMatchObject({
      requires_shipping: false,
      options: { title: "Default Title" },
      sku: null,
      image: null,
    });
  });

  it("follows the catalog after a publish, as the price does", async () => {
    const { token } = await issueToken();
    await add(token, M_BLACK);
    const changed = seedCatalog() as unknown as {
      products: { handle: string; variants: Record<string, unknown>[] }[];
    };
    const tee = changed.products.find((p) => p.handle === "essential-crew-tee-black")!;
    const v = tee.variants.find((x) => x.id === M_BLACK)!;
    Object.assign(v, {
      sku: "NEW-SKU",
      compare_at_price: "35.00",
      image: "https://images.example/m-black.jpg",
      requires_shipping: false,
    });
    await publishCatalog(env.CATALOG, changed, { browse: null });
    try {
      expect((await read(token)).lines[0]).toMatchObject({
        sku: "NEW-SKU",
        compare_at_price: { amount: "35.00", currency: "USD" },
        image: { url: "https://images.example/m-black.jpg", alt: null },
        requires_shipping: false,
      });
    } finally {
      await publishCatalog(env.CATALOG, seedCatalog(), { browse: null });
    }
  });

  it("a line stored before these fields existed is filled from the catalog on the next read (migration 4)", async () => {
    const issued = await issueToken();
    await add(issued.token, M_BLACK);
    const stub = cartFor(env, issued.holder);
    // Back to schema 3: the columns migration 4 adds are dropped, as a cart written before it has none.
    await runInDurableObject(stub, (_instance: Cart, state) => {
      const sql = state.storage.sql;
      for (const column of [
        "options",
        "sku",
        "image",
        "compare_at_minor",
        "requires_shipping",
        "weight_grams",
        "collections",
      ])
        sql.exec(`ALTER TABLE cart_lines DROP COLUMN ${column}`);
      for (const column of ["buyer", "shipping_option", "discount_codes"])
        sql.exec(`ALTER TABLE cart DROP COLUMN ${column}`);
      sql.exec("UPDATE schema_version SET version = 3");
    });
    await evictDurableObject(stub);
    const line = (await read(issued.token)).lines[0];
    expect(line).toMatchObject({
      options: { size: "M", color: "Black" },
      sku: "NW-ECT-BLK-M",
      requires_shipping: true,
    });
    expect(line?.image?.url).toMatch(/essential-crew-tee-black-front\.jpg$/);
  });
});
