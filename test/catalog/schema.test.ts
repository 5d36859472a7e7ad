import fc from "fast-check";
import * as z from "zod/mini";
import { describe, expect, it } from "vitest";
import * as api from "../../src/catalog/api.ts";
import { generateCatalog } from "../../src/publish/generate.ts";
import { CHUNK_SPAN, CHUNK_STEP, chunkCount, MAX_PAGE } from "../../src/catalog/layout.ts";
import { pageWindow } from "../../src/catalog/pages.ts";
import { CatalogValidationError, optionApiName, parseCatalog, SourceCatalogSchema } from "../../src/catalog/schema.ts";
import { seedCatalog } from "../helpers/catalog.ts";

const seed = parseCatalog(seedCatalog());
const SIZES = ["XS", "S", "M", "L", "XL", "2XL", "3XL", "4XL"];

describe("the seed catalog", () => {
  it("is valid under the worker's own schema", () => {
    expect(SourceCatalogSchema.safeParse(seedCatalog()).success).toBe(true);
  });

  it("is a realistic store of at least 24 products, some priced with one decimal", () => {
    expect(seed.products.length).toBeGreaterThanOrEqual(24);
    expect(seed.products.some((p) => p.variants.some((v) => /^\d+\.\d$/.test(v.price)))).toBe(true);
  });

  it("has one product sized XS to 4XL in Black and one sized S to 3XL in White", () => {
    const sized = (values: string[], color: string) =>
      seed.products.filter(
        (p) =>
          JSON.stringify(p.options) ===
            JSON.stringify([
              { name: "Size", values },
              { name: "Color", values: [color] },
            ]) && p.variants.length === values.length,
      );
    expect(sized(SIZES, "Black").length).toBeGreaterThanOrEqual(1);
    expect(sized(SIZES.slice(1, 7), "White").length).toBeGreaterThanOrEqual(1);
  });

  it("has several single-variant (Default Title) products", () => {
    expect(
      seed.products.filter((p) => p.options.length === 0 && p.variants.length === 1).length,
    ).toBeGreaterThanOrEqual(3);
  });

  it("has the four placeholders: store vendor, empty type, Sample Product, sold out, one variant at 100.0", () => {
    const placeholders = seed.products.filter((p) => p.tags.includes("Sample Product"));
    expect(placeholders).toHaveLength(4);
    for (const p of placeholders) {
      expect(p).toMatchObject({
        vendor: seed.store.name,
        product_type: "",
        tags: ["Sample Product"],
        available: false,
      });
      expect(p.variants).toEqual([expect.objectContaining({ price: "100.0", available: false })]);
    }
    const holder = seed.collections.find(
      (c) =>
        [...c.products].sort().join() ===
        placeholders
          .map((p) => p.handle)
          .sort()
          .join(),
    );
    expect(holder).toBeDefined();
    expect(seed.collections.some((c) => c.handle === "frontpage")).toBe(true);
  });
});

describe("the generator", () => {
  it("makes catalogs valid under the same schema, of the size asked", () => {
    const catalog = generateCatalog({ products: 2000 });
    expect(parseCatalog(catalog).products).toHaveLength(2000);
    expect(catalog.products.some((p) => p.options.length === 0)).toBe(true);
    expect(catalog.products.some((p) => !p.available)).toBe(true);
  });

  it("is deterministic for a seed and different across seeds", () => {
    expect(JSON.stringify(generateCatalog({ products: 300 }))).toBe(JSON.stringify(generateCatalog({ products: 300 })));
    expect(JSON.stringify(generateCatalog({ products: 300, seed: 1 }))).not.toBe(
      JSON.stringify(generateCatalog({ products: 300 })),
    );
  });
});

describe("the grown catalog format", () => {
  const frame = () => ({
    currency: "USD",
    store: { name: "Oak & Co" },
    collections: [],
    products: [
      {
        id: "gid://shopify/Product/1",
        handle: "round-mirror",
        title: "Round Mirror",
        vendor: "Oak & Co",
        product_type: "",
        tags: [],
        available: true,
        options: [
          { name: "Material", values: ["Oak", "Ash"] },
          { name: "Frame style", values: ["Round"] },
          { name: "Finish", values: ["Matte"] },
        ],
        variants: [
          {
            id: "11",
            options: { Material: "Oak", "Frame style": "Round", Finish: "Matte" },
            price: "0",
            available: true,
            sku: "MIR-OAK",
            compare_at_price: "10.5",
            image: "https://cdn.example/oak.jpg",
          },
          {
            id: "12",
            options: { Material: "Ash", "Frame style": "Round", Finish: "Matte" },
            price: "25.5",
            available: false,
            sku: null,
            compare_at_price: null,
            image: null,
          },
        ],
        description_html: "<p>Solid <b>oak</b>.</p>",
        images: [
          { url: "https://cdn.example/oak.jpg", alt: "Oak mirror", width: 800, height: 800 },
          { url: "https://cdn.example/ash.jpg" },
        ],
        seo: { title: "Round Mirror | Oak & Co" },
        created_at: "2024-03-01T10:00:00-05:00",
      },
    ],
  });

  it("accepts three options with any names, empty tags, a zero price and every content field", () => {
    expect(parseCatalog(frame()).products[0]?.options.map((o) => optionApiName(o.name))).toEqual([
      "material",
      "frame-style",
      "finish",
    ]);
  });

  it("derives API option names in lower case with spaces as hyphens, keeping Color and Colour apart", () => {
    expect(["Frame style", "  Size ", "Color", "Colour", "Frame  Style"].map(optionApiName)).toEqual([
      "frame-style",
      "size",
      "color",
      "colour",
      "frame-style",
    ]);
  });

  it.each([
    [
      "a fourth option",
      (p: ReturnType<typeof frame>["products"][0]) => {
        p.options.push({ name: "Edge", values: ["Flat"] });
      },
      /options: Too big/i,
    ],
    [
      "two options with one API name",
      (p: ReturnType<typeof frame>["products"][0]) => {
        p.options[2]!.name = "frame Style";
      },
      /two options have the same name/,
    ],
    [
      "an option named like a query parameter",
      (p: ReturnType<typeof frame>["products"][0]) => {
        p.options[2]!.name = "Limit";
      },
      /"limit" is reserved/,
    ],
    [
      "an image that is not an http(s) URL",
      (p: ReturnType<typeof frame>["products"][0]) => {
        p.images[1]!.url = "javascript:alert(1)";
      },
      /images\[1\]\.url: "javascript:" URLs are not allowed: only https:/,
    ],
    [
      "a created_at that is not ISO 8601",
      (p: ReturnType<typeof frame>["products"][0]) => {
        p.created_at = "yesterday";
      },
      /created_at/,
    ],
    [
      "the handle facets, which GET /products/facets answers",
      (p: ReturnType<typeof frame>["products"][0]) => {
        p.handle = "facets";
      },
      /handle: "facets" is reserved/,
    ],
  ])("refuses %s, naming the field", (_name, breakIt, expected) => {
    const catalog = frame();
    breakIt(catalog.products[0]!);
    const error = (() => {
      try {
        parseCatalog(catalog);
      } catch (e) {
        return e;
      }
    })() as CatalogValidationError;
    expect(error).toBeInstanceOf(CatalogValidationError);
    expect(error.issues.join("\n")).toMatch(expected);
  });
});

describe("parseCatalog, a product at a time", () => {
  it("keeps a valid product as given (no second copy of the catalog) and fills defaults in a copy", () => {
    const catalog = generateCatalog({ products: 50 });
    const bare = structuredClone(catalog.products[1]!) as Record<string, unknown>;
    delete bare.options;
    (bare.variants as Record<string, unknown>[]).forEach((v) => delete v.options);
    bare.variants = (bare.variants as unknown[]).slice(0, 1);
    catalog.products[1] = bare as never;
    const parsed = parseCatalog(catalog);
    expect(parsed.products[0]).toBe(catalog.products[0]);
    expect(parsed.products[1]).not.toBe(catalog.products[1]);
    expect(parsed.products[1]).toMatchObject({ options: [], variants: [{ options: {} }] });
  });

  it("accepts exactly what the whole-catalog schema accepts, and names the same faults", () => {
    const breakers: ((c: ReturnType<typeof generateCatalog>) => void)[] = [
      () => {},
      (c) => {
        c.products[3]!.handle = c.products[2]!.handle;
      },
      (c) => {
        c.products[4]!.variants[0]!.id = c.products[5]!.variants[0]!.id;
      },
      (c) => {
        c.products[1]!.variants[0]!.price = "1.234";
      },
      (c) => {
        (c.products[2] as Record<string, unknown>).colour = "red";
      },
      (c) => {
        if (c.products[6]!.options[0]) c.products[6]!.options[0].name = ` ${c.products[6]!.options[0].name} `;
      },
      (c) => {
        c.collections[0]?.products.push("ghost");
      },
      (c) => {
        c.collections[0]?.products.push(c.collections[0].products[0] ?? "ghost");
      },
      (c) => {
        c.products[7]!.available = true;
        for (const v of c.products[7]!.variants) v.available = false;
      },
      (c) => {
        (c as Record<string, unknown>).currency = "EUR";
      },
    ];
    fc.assert(
      fc.property(fc.subarray(breakers.map((_, i) => i)), (chosen) => {
        const catalog = generateCatalog({ products: 12 });
        for (const i of chosen) breakers[i]!(catalog);
        const whole = SourceCatalogSchema.safeParse(structuredClone(catalog));
        const error = (() => {
          try {
            parseCatalog(catalog);
            return null;
          } catch (e) {
            return e as CatalogValidationError;
          }
        })();
        expect(error === null).toBe(whole.success);
        if (!whole.success)
          expect(error?.issues.length).toBe(
            Math.min(whole.error.issues.length, 20) + (whole.error.issues.length > 20 ? 1 : 0),
          );
      }),
      { numRuns: 60 },
    );
  });
});

describe("paging windows", () => {
  it("always fit inside the one chunk they name, whatever the count, limit and cursor", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200_000 }),
        fc.integer({ min: 1, max: MAX_PAGE }),
        fc.nat(),
        fc.boolean(),
        (count, limit, seedPos, after) => {
          const pos = seedPos % count;
          const w = after ? pageWindow(count, limit, pos) : pageWindow(count, limit, undefined, pos);
          expect(w.chunk).toBeLessThan(chunkCount(count));
          expect(w.start).toBeGreaterThanOrEqual(w.chunk * CHUNK_STEP);
          expect(w.end).toBeLessThanOrEqual(w.chunk * CHUNK_STEP + CHUNK_SPAN);
          expect(w.end - w.start).toBeLessThanOrEqual(limit);
        },
      ),
    );
  });
});

describe("the API schemas", () => {
  it("all convert to JSON Schema for the OpenAPI document", () => {
    for (const [name, schema] of Object.entries(api)) {
      if (!(schema instanceof z.ZodMiniType)) continue;
      expect(() => z.toJSONSchema(schema, { io: "input" }), name).not.toThrow();
      expect(() => z.toJSONSchema(schema), name).not.toThrow();
    }
  });
});

describe("the catalog's search settings", () => {
  const withSearch = (search: unknown) => ({ ...seedCatalog(), search });

  it("accepts synonym groups and stop words, and no section at all", () => {
    expect(
      parseCatalog(
        withSearch({
          synonyms: [
            ["tee", "t-shirt"],
            ["hoodie", "hooded sweatshirt"],
          ],
          stop_words: ["the", "and"],
        }),
      ).search?.synonyms,
    ).toHaveLength(2);
    expect(parseCatalog(withSearch({})).search).toEqual({});
    expect(parseCatalog(seedCatalog()).search).toBeUndefined();
  });

  it("names the faulty entry: a one-member group, a stop word of two words, an unknown field", () => {
    const issues = (search: unknown) => {
      try {
        parseCatalog(withSearch(search));
      } catch (error) {
        if (error instanceof CatalogValidationError) return error.issues.join("\n");
      }
      return "valid";
    };
    expect(issues({ synonyms: [["tee"]] })).toMatch(/^search\.synonyms\[0\]: /);
    expect(issues({ stop_words: ["the end"] })).toMatch(/^search\.stop_words\[0\]: one word of letters and digits/);
    expect(issues({ synonyms: [["tee", "--"]] })).toMatch(/^search\.synonyms\[0\]\[1\]: needs a letter or digit/);
    expect(issues({ synonym: [] })).toMatch(/^search\.synonym: unknown field/);
  });
});
