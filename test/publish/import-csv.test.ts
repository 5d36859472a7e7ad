import { describe, expect, it } from "vitest";
import { parseCatalog } from "../../src/catalog/schema.ts";
import { generateCatalog, shopifyCsvChunks } from "../../src/publish/generate.ts";
import { formatReport, importCatalog } from "../../src/publish/import/index.ts";
import classicCsv from "./fixtures/shopify-classic.csv?raw";
import currentCsv from "./fixtures/shopify-current.csv?raw";
import { product, run, STORE } from "./import-helpers.ts";

/** The importer on Shopify product CSVs of both header generations, read whole or as a stream. */

describe("a classic-header Shopify CSV", () => {
  it("is the fixture it claims to be: BOM, CRLF, quoted multi-line HTML, trailing empty columns, a mangled barcode", () => {
    expect(classicCsv.charCodeAt(0)).toBe(0xfeff);
    expect(classicCsv).toContain("\r\n");
    expect(classicCsv).toContain('"<p>Our <strong>Oxford shirt</strong>, cut from 100% cotton and ""garment-washed""');
    expect(classicCsv).toMatch(/,,\r\n/);
    expect(classicCsv).toContain("3.65E+11");
  });

  it("imports the active products in file order and reports every skipped one with its lines", async () => {
    const { catalog, report } = await run(classicCsv, "shopify-classic.csv");
    expect(catalog.products.map((p) => p.handle)).toEqual([
      "oxford-shirt",
      "canvas-tote",
      "walnut-frame",
      "enamel-camp-mug",
      "sold-out-cap",
    ]);
    expect(report).toMatchObject({
      format: "shopify-csv-classic",
      records: 17,
      products: 5,
      variants: 10,
      images: 5,
      skippedRecords: 6,
      compareAtDropped: 2,
    });
    expect(report.skipped).toEqual([
      { handle: "draft-beanie", lines: [15, 16], reason: "status draft" },
      { handle: "gift-card", lines: [17, 18], reason: "gift card" },
      { handle: "archived-scarf", lines: [19], reason: "status archived" },
      { handle: "hidden-socks", lines: [20], reason: "not published" },
    ]);
    const printed = formatReport(report);
    expect(printed).toContain("Imported 5 products, 10 variants, 5 images.");
    expect(printed).toContain('lines 15-16: "draft-beanie" skipped: status draft');
    expect(printed).toContain('line 20: "hidden-socks" skipped: not published');
    expect(parseCatalog(catalog)).toBeTruthy();
  });

  it("reads a product spread over variant rows and an image-only row, with options named as the store spells them", async () => {
    const { catalog } = await run(classicCsv, "shopify-classic.csv");
    const shirt = product(catalog, "oxford-shirt");
    expect(shirt).toMatchObject({
      title: "Classic Oxford Shirt",
      vendor: "Harbor & Pine",
      product_type: "Shirts",
      tags: ["cotton", "oxford", "shirts"],
    });
    expect(shirt.options).toEqual([
      { name: "Size", values: ["S", "M"] },
      { name: "Colour", values: ["Blue", "White"] },
    ]);
    expect(shirt.variants.map((v) => v.options)).toEqual([
      { Size: "S", Colour: "Blue" },
      { Size: "M", Colour: "Blue" },
      { Size: "S", Colour: "White" },
      { Size: "M", Colour: "White" },
    ]);
    expect(shirt.variants.map((v) => v.sku)).toEqual(["OX-S-BLU", "OX-M-BLU", "OX-S-WHT", "OX-M-WHT"]);
    expect(shirt.images?.map((i) => [i.url.replace(/^.*\//, ""), i.alt])).toEqual([
      ["oxford-blue.jpg?v=1699999999", "Oxford shirt in blue"],
      ["oxford-white.jpg?v=1699999999", "Oxford shirt in white"],
      ["oxford-collar.jpg?v=1699999999", "Collar detail"],
    ]);
    expect(shirt.variants[2]?.image).toMatch(/oxford-white\.jpg/);
    expect(shirt.description_html).toBe(
      '<p>Our <strong>Oxford shirt</strong>, cut from 100% cotton and "garment-washed" for softness.</p>\n<ul>\n  <li>Button-down collar</li>\n  <li>Chest pocket, curved hem</li>\n</ul>',
    );
    expect(shirt.seo).toEqual({
      title: "Oxford Shirt | Harbor & Pine",
      description: "A garment-washed cotton Oxford, made to last.",
    });
    expect(product(catalog, "walnut-frame").options.map((o) => o.name)).toEqual(["Frame style", "Size", "Material"]);
  });

  it("keeps prices exactly as written and drops compare-at prices not above the price", async () => {
    const { catalog } = await run(classicCsv, "shopify-classic.csv");
    const shirt = product(catalog, "oxford-shirt");
    expect(shirt.variants.map((v) => v.price)).toEqual(["68.00", "68.00", "68.5", "68"]);
    // 85.00 over 68.00 kept; 68.00 (equal) and 60.00 (below) dropped.
    expect(shirt.variants.map((v) => v.compare_at_price ?? null)).toEqual(["85.00", null, null, null]);
    expect(product(catalog, "canvas-tote").variants[0]).toMatchObject({ price: "25", compare_at_price: "30" });
    expect(product(catalog, "walnut-frame").variants.map((v) => v.price)).toEqual(["25.5", "29.90", "34"]);
  });

  it("derives availability from tracker, policy and quantity", async () => {
    const { catalog } = await run(classicCsv, "shopify-classic.csv");
    // tracked 5 deny; tracked 0 deny; tracked 0 continue; tracked -1 deny
    expect(product(catalog, "oxford-shirt").variants.map((v) => v.available)).toEqual([true, false, true, false]);
    expect(product(catalog, "oxford-shirt").available).toBe(true);
    // not tracked (empty tracker) with quantity 0: available
    expect(product(catalog, "canvas-tote")).toMatchObject({ available: true, variants: [{ available: true }] });
    // tracked, 0, deny on its only variant: the product is sold out
    expect(product(catalog, "sold-out-cap")).toMatchObject({ available: false, variants: [{ available: false }] });
  });

  it("reads Shopify's Title / Default Title as no options, and an empty vendor as the store", async () => {
    const { catalog, report } = await run(classicCsv, "shopify-classic.csv");
    expect(product(catalog, "canvas-tote")).toMatchObject({
      vendor: STORE,
      tags: [],
      options: [],
      variants: [{ options: {} }],
    });
    expect(report.notes).toContain(`1 product(s) had no vendor: given the store name "${STORE}"`);
    const unnamed = await importCatalog(classicCsv, { file: "exports/acme-outfitters.csv" });
    expect(product(unnamed.catalog, "canvas-tote").vendor).toBe("acme-outfitters");
    expect(unnamed.catalog.store.name).toBe("acme-outfitters");
  });

  it("makes a frontpage collection in file order, and one per type on request", async () => {
    const plain = await run(classicCsv, "shopify-classic.csv");
    expect(plain.catalog.collections).toEqual([
      { handle: "frontpage", title: "Home page", products: plain.catalog.products.map((p) => p.handle) },
    ]);
    const typed = await run(classicCsv, "shopify-classic.csv", { collectionsByType: true });
    expect(typed.catalog.collections.map((c) => [c.handle, c.title, c.products])).toEqual([
      ["frontpage", "Home page", ["oxford-shirt", "canvas-tote", "walnut-frame", "enamel-camp-mug", "sold-out-cap"]],
      ["shirts", "Shirts", ["oxford-shirt"]],
      ["bags", "Bags", ["canvas-tote"]],
      ["home", "Home", ["walnut-frame", "enamel-camp-mug"]],
      ["hats", "Hats", ["sold-out-cap"]],
    ]);
  });

  it("keeps a hostile description raw in the catalog (it is sanitised at publish)", async () => {
    const { catalog } = await run(classicCsv, "shopify-classic.csv");
    expect(product(catalog, "enamel-camp-mug").description_html).toContain("<script>alert('xss')</script>");
  });
});

describe("reading a stream", () => {
  it("gives the same catalog whatever the chunks, even when they split a CRLF or a UTF-8 character", async () => {
    const bytes = new TextEncoder().encode(classicCsv);
    async function* chunks(size: number) {
      for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
    }
    const whole = await run(classicCsv, "c.csv");
    for (const size of [1, 7, 64])
      expect((await importCatalog(chunks(size), { file: "c.csv", store: STORE })).catalog).toEqual(whole.catalog);
    const cafe = new TextEncoder().encode(currentCsv);
    const split = async function* () {
      const at = cafe.indexOf(0xc3) + 1; // inside the two bytes of "é"
      yield cafe.subarray(0, at);
      yield cafe.subarray(at);
    };
    expect((await importCatalog(split(), { file: "d.csv", store: STORE })).catalog).toEqual(
      (await run(currentCsv, "d.csv")).catalog,
    );
  });

  it("reports progress every 10,000 rows and at the end", async () => {
    const text = [...shopifyCsvChunks(generateCatalog({ products: 3000 }))].join("");
    const seen: number[] = [];
    const { report } = await run(text, "big.csv", { onProgress: (p) => seen.push(p.records) });
    expect(report.records).toBeGreaterThan(10_000);
    expect(seen).toEqual([10_000, report.records]);
  });
});

describe("what other tools write", () => {
  it("reads a product without options whose option columns are empty, and skips a gift card known only by its type", async () => {
    const text = [
      "Handle,Title,Type,Option1 Name,Option1 Value,Variant Price",
      "poster,Poster,Prints,,,15",
      "card,E-card,Gift Card,,,25",
    ].join("\n");
    const { catalog, report } = await run(text, "tool.csv");
    expect(catalog.products).toMatchObject([
      { handle: "poster", options: [], variants: [{ options: {}, price: "15", available: true }] },
    ]);
    expect(report.skipped).toEqual([{ handle: "card", lines: [3], reason: "gift card" }]);
  });
});

describe("a current-header Shopify CSV", () => {
  it("imports it with the same rules, whatever the column order", async () => {
    const { catalog, report } = await run(currentCsv, "shopify-current.csv");
    expect(report).toMatchObject({ format: "shopify-csv-current", records: 11, products: 4, variants: 9, images: 3 });
    expect(catalog.products.map((p) => p.handle)).toEqual([
      "linen-camp-shirt",
      "cafe-mug",
      "oak-frame",
      "merino-trail-sock",
    ]);
    expect(report.skipped).toEqual([
      { handle: "draft-anorak", lines: [13], reason: "status draft" },
      { handle: "e-gift-card", lines: [14], reason: "gift card" },
    ]);
    const shirt = product(catalog, "linen-camp-shirt");
    expect(shirt.options).toEqual([
      { name: "Size", values: ["S", "M", "L"] },
      { name: "Color", values: ["Sand"] },
    ]);
    // 3 in stock; 0 and DENY; 0 and CONTINUE
    expect(shirt.variants.map((v) => v.available)).toEqual([true, false, true]);
    // "Price / International" (61.00) is another column and is ignored.
    expect(shirt.variants.map((v) => [v.price, v.compare_at_price])).toEqual([
      ["54.00", "72.00"],
      ["54.00", "72.00"],
      ["54.00", "72.00"],
    ]);
    expect(shirt.description_html).toContain("<h2>Linen camp shirt</h2>\n<p>Breezy");
    expect(shirt.images?.map((i) => i.alt)).toEqual(["Camp shirt, front", "Camp shirt, back"]);
  });

  it("keeps Color and Colour apart, a quoted title with commas and quotes, and a handle it must normalise", async () => {
    const { catalog, report } = await run(currentCsv, "shopify-current.csv");
    expect(product(catalog, "merino-trail-sock")).toMatchObject({
      title: 'Merino Trail Sock, "Crew"',
      options: [{ name: "Colour" }, { name: "Size" }],
    });
    expect(product(catalog, "oak-frame")).toMatchObject({
      vendor: STORE,
      tags: [],
      seo: { title: "Oak Frame – Round or Square", description: "Solid oak frames." },
    });
    expect(product(catalog, "oak-frame").options).toEqual([
      { name: "Frame style", values: ["Round", "Square"] },
      { name: "Material", values: ["Oak", "Ash"] },
    ]);
    expect(product(catalog, "cafe-mug")).toMatchObject({
      title: "Café Mug",
      variants: [{ price: "12.5", options: {} }],
    });
    expect(report.notes).toContain(
      'line 7: handle "Café_Mug" is not lower case words and hyphens; served as "cafe-mug"',
    );
  });
});
