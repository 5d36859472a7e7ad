import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { parseCatalog } from "../../src/catalog/schema.ts";
import { d1Target } from "../../src/publish/browse-index.ts";
import { importCatalog } from "../../src/publish/import/index.ts";
import { publishCatalog } from "../../src/publish/publish.ts";
import { addLine, cartCall, cartFrom, issueToken } from "../helpers/cart.ts";
import { API } from "../helpers/worker.ts";
import jpyCsv from "./fixtures/shopify-jpy.csv?raw";
import kwdCsv from "./fixtures/shopify-kwd.csv?raw";

/**
 * A catalog carries one ISO 4217 currency and every Money of every answer is in it
 *: product, list, collection, browse, facets, variants and the cart, each
 * amount with the currency's own minor units (JPY 0, KWD 3).
 */

type Json = Record<string, unknown>;

async function get(path: string): Promise<{ status: number; body: Json }> {
  const res = await exports.default.fetch(`${API}${path}`);
  return { status: res.status, body: (await res.json()) as Json };
}

async function publishStore(text: string, currency: string): Promise<void> {
  const { catalog } = await importCatalog(text, { file: `${currency}.csv`, currency });
  await publishCatalog(env.CATALOG, catalog, { browse: d1Target(env.BROWSE) });
}

const yen = (amount: string) => ({ amount, currency: "JPY" });
const dinar = (amount: string) => ({ amount, currency: "KWD" });

describe("a JPY store, published", () => {
  beforeAll(() => publishStore(jpyCsv, "JPY"));

  it("answers the product, its variants, the list and the collection in JPY without decimals", async () => {
    expect((await get("/products/matcha-tin")).body).toMatchObject({ price: { min: yen("1500"), max: yen("4200") } });
    const variants = (await get("/products/matcha-tin/variants")).body.data as Json[];
    expect(variants.map((v) => [v.price, v.compare_at_price])).toEqual([
      [yen("1500"), yen("1800")],
      [yen("4200"), null],
    ]);
    expect(((await get("/products")).body.data as Json[]).map((p) => p.price)).toEqual([yen("1500"), yen("980")]);
    expect(((await get("/collections/frontpage")).body.products as Json).data).toMatchObject([
      { price: yen("1500") },
      { price: yen("980") },
    ]);
  });

  it("browses and counts facets in JPY, with price filters in yen", async () => {
    const search = await get("/products?q=matcha&sort=price_asc");
    expect(search.body.data).toMatchObject([{ handle: "matcha-tin", price: yen("1500") }]);
    const cheap = await get("/products?price_max=1000");
    expect((cheap.body.data as Json[]).map((p) => p.handle)).toEqual(["tea-bowl"]);
    const facets = await get("/products/facets");
    expect((facets.body.facets as Json[]).find((f) => f.name === "price")).toEqual({
      name: "price",
      type: "range",
      min: yen("980"),
      max: yen("1500"),
    });
    const refused = await get("/products?price_min=10.5");
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      error: {
        code: "parameter_invalid",
        param: "price_min",
        message: "Invalid price_min: JPY amounts have no decimals.",
      },
    });
  });

  it("prices a cart in JPY, empty or not", async () => {
    const { token } = await issueToken("jpy");
    const empty = await cartFrom(await cartCall(token, "/cart"));
    expect(empty.subtotal).toEqual(yen("0"));
    const variant = ((await get("/products/matcha-tin/variants")).body.data as Json[])[1]!;
    const cart = await cartFrom(await addLine(token, String(variant.id), 2));
    expect(cart.lines[0]).toMatchObject({ unit_price: yen("4200"), line_total: yen("8400") });
    expect(cart.subtotal).toEqual(yen("8400"));
  });
});

describe("a KWD store, published", () => {
  beforeAll(() => publishStore(kwdCsv, "KWD"));

  it("answers three decimals, written out whatever the source used", async () => {
    expect((await get("/products/oud-oil")).body).toMatchObject({
      price: { min: dinar("12.125"), max: dinar("40.500") },
    });
    const variants = (await get("/products/oud-oil/variants")).body.data as Json[];
    expect(variants.map((v) => [v.price, v.compare_at_price])).toEqual([
      [dinar("12.125"), dinar("15.000")],
      [dinar("40.500"), null],
    ]);
    const facets = await get("/products/facets?price_min=2.5");
    expect((facets.body.facets as Json[]).find((f) => f.name === "price")).toEqual({
      name: "price",
      type: "range",
      min: dinar("2.500"),
      max: dinar("12.125"),
    });
    expect(((await get("/products?price_min=2.501")).body.data as Json[]).map((p) => p.handle)).toEqual(["oud-oil"]);
  });
});

describe("option names in browse filters", () => {
  beforeAll(() => publishStore(jpyCsv, "USD"));

  it("option.Size and option.size filter the same option", async () => {
    const lower = await get("/products?option.size=30g");
    const upper = await get("/products?option.Size=30g");
    expect(lower.body.count).toBe(1);
    expect(upper.body).toEqual(lower.body);
    const both = await get("/products/facets?option.Size=30g&option.size=100g");
    expect((both.body.facets as Json[]).find((f) => f.name === "option.size")).toMatchObject({
      values: [
        { value: "100g", count: 1, selected: true },
        { value: "30g", count: 1, selected: true },
      ],
    });
  });
});

describe("the catalog format's currency", () => {
  it("takes any ISO 4217 code, refuses others and amounts finer than the currency's minor units", () => {
    const base = { store: { name: "S" }, collections: [] };
    const item = (price: string) => ({
      id: "gid://shopify/Product/1",
      handle: "a",
      title: "A",
      vendor: "V",
      product_type: "",
      tags: [],
      available: true,
      variants: [{ id: "2", price, available: true }],
    });
    expect(parseCatalog({ ...base, currency: "EUR", products: [item("9.99")] }).currency).toBe("EUR");
    expect(() => parseCatalog({ ...base, currency: "XYZ", products: [item("9")] })).toThrow(
      /currency: an ISO 4217 currency code/,
    );
    expect(() => parseCatalog({ ...base, currency: "JPY", products: [item("9.5")] })).toThrow(
      /variants\[0\]\.price: a whole number \(JPY has no minor units\)/,
    );
    expect(parseCatalog({ ...base, currency: "BHD", products: [item("1.255")] }).products[0]?.variants[0]?.price).toBe(
      "1.255",
    );
  });
});
