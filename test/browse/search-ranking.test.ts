import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { inflections, SECOND_CHANCE_BELOW } from "../../src/browse/text.ts";
import { d1Target } from "../../src/publish/browse-index.ts";
import { publishCatalog } from "../../src/publish/publish.ts";
import type { SourceCatalog, SourceProduct } from "../../src/catalog/schema.ts";

/**
 * The ranking rules of issue 37, each on a small catalog made to show it (each test fails
 * without its rule): a completion or a typo scores with the idf of what was typed, and exact >
 * another form > completion > typo; plurals, singulars and British/American spellings folded
 * both ways; a one-character last word exact unless it is all of q; field weight and typos
 * trading off; and the second chance for 2-3-word queries. Whole and in shards.
 */

let serial = 0;
function product(handle: string, title: string, extra: Partial<SourceProduct> = {}): SourceProduct {
  serial++;
  return {
    id: `gid://shopify/Product/${9_100_000 + serial}`,
    handle,
    title,
    vendor: "Test Bakery",
    product_type: "",
    tags: [],
    available: true,
    options: [],
    variants: [{ id: String(7_100_000 + serial), options: {}, price: "10.00", available: true }],
    ...extra,
  };
}

const describe_ = (html: string) => ({ description_html: `<p>${html}</p>` });

function catalog(): SourceCatalog {
  const products: SourceProduct[] = [
    // Rule 1: eight cakes by title; one product only tagged with a rare hashtag completing "cake".
    ...["Lemon", "Carrot", "Chocolate", "Coffee", "Walnut", "Orange", "Ginger", "Vanilla"].map((f) =>
      product(`${f.toLowerCase()}-cake`, `${f} Cake`, { product_type: "Cakes" }),
    ),
    product("piping-bag-set", "Piping Bag Set", { tags: ["#CakeDecorating"] }),
    // Rule 2: plurals and spellings.
    product("crew-tee", "Crew Tee", { product_type: "Apparel" }),
    product("baker-tees", "Baker Tees", { product_type: "Apparel" }),
    product("cotton-candy", "Cotton Candy", { product_type: "Sweets" }),
    product("party-dresses", "Party Dresses for Dolls", { product_type: "Toys", tags: ["red"] }),
    product("gray-apron", "Gray Apron", { product_type: "Apparel" }),
    product("colour-sprinkles", "Colour Sprinkles", { product_type: "Decorations" }),
    // Rule 3: a one-letter word, and words starting with that letter.
    product("vitamin-e-serum", "Vitamin E Serum", { product_type: "Skincare" }),
    product("serum-essence", "Serum Essence", { product_type: "Skincare" }),
    // Rule 4: a title with the catalog's own misspelling against the word in a description only.
    product("linnen-tea-towel", "Linnen Tea Towel", { product_type: "Kitchen" }),
    product("cotton-tea-towel", "Cotton Tea Towel", {
      product_type: "Kitchen",
      ...describe_("Pairs well with our linen napkins and a long afternoon of baking with friends and family."),
    }),
    // Rule 5: linen dresses that never say summer, one summer linen dress, a summer dress; and a
    // scarf saying summer and linen twice (title and tags) and first in catalog order, which
    // outscores them all but lacks "dress", the head of the phrase.
    product("summer-linen-scarf", "Summer Linen Scarf", { product_type: "Scarves", tags: ["summer", "linen"] }),
    product("summer-linen-dress", "Summer Linen Dress", { product_type: "Dresses" }),
    product("linen-wrap-dress", "Linen Wrap Dress", { product_type: "Dresses" }),
    product("linen-shift-dress", "Linen Shift Dress", { product_type: "Dresses" }),
    product("floral-summer-dress", "Floral Summer Dress", { product_type: "Dresses" }),
    product("summer-hat", "Summer Hat", { product_type: "Hats" }),
    // Hashtag-like tags: camel case cut into words.
    product("almond-torte", "Almond Torte", { product_type: "Tortes", tags: ["#GlutenFree", "#CakeDecorating"] }),
    product("doughnut-box", "Doughnut Box", { product_type: "Pastries" }),
  ];
  return {
    currency: "USD",
    store: { name: "Test Bakery" },
    products,
    collections: [{ handle: "frontpage", title: "Home", products: products.map((p) => p.handle) }],
  };
}

type List = {
  count: number;
  strict_count?: number;
  data: { handle: string; match?: string }[];
  has_more: boolean;
};

async function list(query: string): Promise<List> {
  const response = await exports.default.fetch(`https://shop.example/api/v1/products?${query}`);
  expect(response.status).toBe(200);
  return (await response.json()) as List;
}
const handles = async (q: string, more = "") =>
  (await list(`${new URLSearchParams({ q })}${more}`)).data.map((p) => p.handle);
/** The matches of every word (second-chance ones, marked partial, left out). */
const strict = async (q: string) =>
  (await list(`${new URLSearchParams({ q })}`)).data.filter((p) => p.match === undefined).map((p) => p.handle);

for (const shardProducts of [undefined, 6]) {
  describe(`search ranking rules${shardProducts ? " (in shards of 6 products)" : ""}`, () => {
    beforeAll(async () => {
      await publishCatalog(env.CATALOG, catalog(), {
        browse: d1Target(env.BROWSE, env.BROWSE_SNAPSHOTS),
        shardProducts,
      });
    }, 60_000);

    it("scores a completion with the idf of the word typed, so a rare hashtag never outranks the word on titles", async () => {
      // Regression (issue 37, 1): "cakedecorating" (1 product) scored with its own idf, far above
      // "cake" (8 titles), so the piping bag came first for q=cake.
      const got = await handles("cake");
      expect(got.slice(0, 8).sort()).toEqual(
        ["carrot", "chocolate", "coffee", "ginger", "lemon", "orange", "vanilla", "walnut"].map((f) => `${f}-cake`),
      );
      expect(got[8]).toBe("piping-bag-set");
    });

    it("folds plurals and singulars both ways in every field, the exact form first", async () => {
      // A four-letter plural has no typo budget: "tees" reached "Tee" by no rule before.
      expect(await handles("tees")).toEqual(["baker-tees", "crew-tee"]);
      expect(await handles("tee")).toEqual(["crew-tee", "baker-tees"]);
      // -ies/-y, and -es on a word that is not the last (no prefix to fall back on).
      expect(await handles("candies")).toEqual(["cotton-candy"]);
      expect(await strict("dress red")).toEqual(["party-dresses"]);
      // "cakes" reaches the eight titles saying "Cake", and "cake" of the two "#CakeDecorating" tags.
      expect((await list("q=cakes&limit=1")).count).toBe(10);
      expect(await strict("partydress")).toEqual([]);
      expect(await strict("toy")).toEqual(["party-dresses"]);
    });

    it("folds British and American spellings both ways", async () => {
      expect(await strict("grey apron")).toEqual(["gray-apron"]);
      expect(await strict("color sprinkles")).toEqual(["colour-sprinkles"]);
      expect(inflections("colour")).toContain("color");
      expect(inflections("moisturiser")).toContain("moisturizer");
      expect(inflections("four")).not.toContain("for");
      // The other spelling of the singular: "donuts" -> "doughnut".
      expect(await strict("donuts")).toEqual(["doughnut-box"]);
    });

    it("matches a one-character last word exactly, unless it is the whole q", async () => {
      // Regression (issue 37, 3): "e" completed to every word starting with e ("essence").
      expect(await strict("serum e")).toEqual(["vitamin-e-serum"]);
      // Alone it is still a prefix, for type-ahead.
      expect(await handles("e", "&sort=catalog")).toContain("serum-essence");
    });

    it("trades field weight against typos: a title one typo away beats a description-only exact match", async () => {
      // Regression (issue 37, 4): every product with the exact word ranked above any typo match.
      expect(await strict("linen towel")).toEqual(["linnen-tea-towel", "cotton-tea-towel"]);
    });

    it("gives a 2-3-word q with few strict matches a second chance, ranked below and marked partial", async () => {
      const answer = await list("q=linen+summer+dress");
      expect(answer.data[0]).toEqual(expect.objectContaining({ handle: "summer-linen-dress" }));
      expect(answer.data[0]?.match).toBeUndefined();
      expect(answer.strict_count).toBe(1);
      // All words but one: the linen dresses, the floral summer dress (having "dress", the head of
      // the phrase), then the summer linen scarf (without it); not the summer hat (one word).
      expect(
        answer.data
          .slice(1, 4)
          .map((p) => [p.handle, p.match])
          .sort(),
      ).toEqual([
        ["floral-summer-dress", "partial"],
        ["linen-shift-dress", "partial"],
        ["linen-wrap-dress", "partial"],
      ]);
      expect(answer.data[4]).toEqual(expect.objectContaining({ handle: "summer-linen-scarf", match: "partial" }));
      expect(answer.count).toBe(5);
      expect(answer.data.map((p) => p.handle)).not.toContain("summer-hat");
      // The facets count the same matches.
      const facets = (await (
        await exports.default.fetch("https://shop.example/api/v1/products/facets?q=linen+summer+dress")
      ).json()) as { count: number };
      expect(facets.count).toBe(5);
      // Pages after a partial match continue in the same order.
      const second = await list("q=linen+summer+dress&limit=2");
      const rest = await list(`q=linen+summer+dress&limit=10&starting_after=${second.data[1]?.handle}`);
      expect([...second.data, ...rest.data].map((p) => p.handle)).toEqual(answer.data.map((p) => p.handle));
    });

    it("cuts camel-case tags into words (#GlutenFree, #CakeDecorating)", async () => {
      expect(await strict("gluten free")).toEqual(["almond-torte"]);
      expect((await strict("cake decorating")).sort()).toEqual(["almond-torte", "piping-bag-set"]);
    });

    it("lets a one-character word of two go in the second chance, never stand alone", async () => {
      // "linen d": "d" is no word of the catalog, yet the linen products answer (typed halfway).
      const answer = await list("q=linen+d");
      expect(answer.strict_count).toBe(0);
      expect(answer.data.map((p) => p.match)).toEqual(answer.data.map(() => "partial"));
      expect(answer.data.map((p) => p.handle)).toContain("linen-wrap-dress");
      // "dress e": only the dresses, never every product with a word "e" ("Vitamin E Serum").
      expect(await handles("dress e")).not.toContain("vitamin-e-serum");
    });

    it("keeps an empty answer when nothing fits, and a strict answer when there are enough strict matches", async () => {
      expect((await list("q=chocolate+bicycle")).count).toBe(0);
      expect((await list("q=bicycle+helmet")).count).toBe(0);
      // A quoted word never goes: no second chance.
      expect(await handles('"linen" "summer" dress')).toEqual(["summer-linen-dress"]);
      // One word: no second chance to take.
      expect((await list("q=linen")).strict_count).toBeUndefined();
      expect(SECOND_CHANCE_BELOW).toBeGreaterThan(4);
    });
  });
}
