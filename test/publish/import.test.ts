import { describe, expect, it } from "vitest";
import { parseCatalog, type SourceCatalog, type SourceProduct } from "../../src/catalog/schema.ts";
import { generateCatalog, shopifyCsvChunks } from "../../src/publish/generate.ts";
import { deriveIds, hashId } from "../../src/publish/import/ids.ts";
import { formatReport, ImportError, type ImportIssue, importCatalog, type ImportOptions } from "../../src/publish/import/index.ts";
import classicCsv from "./fixtures/shopify-classic.csv?raw";
import currentCsv from "./fixtures/shopify-current.csv?raw";
import arrayJson from "./fixtures/products-array.json?raw";
import productsJson from "./fixtures/products.json?raw";

/**
 * The importer (contract section 5, "Importing a store's catalog") on fixtures shaped like real
 * Shopify exports: a classic-header CSV (BOM, CRLF, multi-line quoted HTML, trailing empty
 * columns, Excel-mangled barcodes), a current-header CSV, an Admin-style products.json and a
 * storefront-style bare array. What the API then answers for them is in import-api.test.ts.
 */

const STORE = "Harbor & Pine";

function run(text: string, file: string, opts: Partial<ImportOptions> = {}) {
  return importCatalog(text, { file, store: STORE, ...opts });
}

function product(catalog: SourceCatalog, handle: string): SourceProduct {
  const found = catalog.products.find((p) => p.handle === handle);
  if (!found) throw new Error(`no product ${handle}`);
  return found;
}

/** The issues of the ImportError `text` must raise. */
async function issuesOf(text: string | AsyncIterable<Uint8Array>, file = "bad.csv"): Promise<ImportIssue[]> {
  const error = await importCatalog(text, { file, store: STORE }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ImportError);
  return (error as ImportError).issues;
}

const CLASSIC_HEAD = "Handle,Title,Body (HTML),Vendor,Type,Tags,Published,Option1 Name,Option1 Value,Option2 Name,Option2 Value,Variant SKU,Variant Inventory Tracker,Variant Inventory Qty,Variant Inventory Policy,Variant Price,Variant Compare At Price,Image Src,Image Position,Image Alt Text,Status";

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
    expect(catalog.products.map((p) => p.handle)).toEqual(["oxford-shirt", "canvas-tote", "walnut-frame", "enamel-camp-mug", "sold-out-cap"]);
    expect(report).toMatchObject({ format: "shopify-csv-classic", records: 17, products: 5, variants: 10, images: 5, skippedRecords: 6, compareAtDropped: 2 });
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
    expect(shirt).toMatchObject({ title: "Classic Oxford Shirt", vendor: "Harbor & Pine", product_type: "Shirts", tags: ["cotton", "oxford", "shirts"] });
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
    expect(shirt.seo).toEqual({ title: "Oxford Shirt | Harbor & Pine", description: "A garment-washed cotton Oxford, made to last." });
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
    expect(product(catalog, "canvas-tote")).toMatchObject({ vendor: STORE, tags: [], options: [], variants: [{ options: {} }] });
    expect(report.notes).toContain(`1 product(s) had no vendor: given the store name "${STORE}"`);
    const unnamed = await importCatalog(classicCsv, { file: "exports/acme-outfitters.csv" });
    expect(product(unnamed.catalog, "canvas-tote").vendor).toBe("acme-outfitters");
    expect(unnamed.catalog.store.name).toBe("acme-outfitters");
  });

  it("makes a frontpage collection in file order, and one per type on request", async () => {
    const plain = await run(classicCsv, "shopify-classic.csv");
    expect(plain.catalog.collections).toEqual([{ handle: "frontpage", title: "Home page", products: plain.catalog.products.map((p) => p.handle) }]);
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
    for (const size of [1, 7, 64]) expect((await importCatalog(chunks(size), { file: "c.csv", store: STORE })).catalog).toEqual(whole.catalog);
    const cafe = new TextEncoder().encode(currentCsv);
    const split = async function* () {
      const at = cafe.indexOf(0xc3) + 1; // inside the two bytes of "é"
      yield cafe.subarray(0, at);
      yield cafe.subarray(at);
    };
    expect((await importCatalog(split(), { file: "d.csv", store: STORE })).catalog).toEqual((await run(currentCsv, "d.csv")).catalog);
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
    const text = ["Handle,Title,Type,Option1 Name,Option1 Value,Variant Price", "poster,Poster,Prints,,,15", "card,E-card,Gift Card,,,25"].join("\n");
    const { catalog, report } = await run(text, "tool.csv");
    expect(catalog.products).toMatchObject([{ handle: "poster", options: [], variants: [{ options: {}, price: "15", available: true }] }]);
    expect(report.skipped).toEqual([{ handle: "card", lines: [3], reason: "gift card" }]);
  });
});

describe("a current-header Shopify CSV", () => {
  it("imports it with the same rules, whatever the column order", async () => {
    const { catalog, report } = await run(currentCsv, "shopify-current.csv");
    expect(report).toMatchObject({ format: "shopify-csv-current", records: 11, products: 4, variants: 9, images: 3 });
    expect(catalog.products.map((p) => p.handle)).toEqual(["linen-camp-shirt", "cafe-mug", "oak-frame", "merino-trail-sock"]);
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
    expect(shirt.variants.map((v) => [v.price, v.compare_at_price])).toEqual([["54.00", "72.00"], ["54.00", "72.00"], ["54.00", "72.00"]]);
    expect(shirt.description_html).toContain("<h2>Linen camp shirt</h2>\n<p>Breezy");
    expect(shirt.images?.map((i) => i.alt)).toEqual(["Camp shirt, front", "Camp shirt, back"]);
  });

  it("keeps Color and Colour apart, a quoted title with commas and quotes, and a handle it must normalise", async () => {
    const { catalog, report } = await run(currentCsv, "shopify-current.csv");
    expect(product(catalog, "merino-trail-sock")).toMatchObject({ title: 'Merino Trail Sock, "Crew"', options: [{ name: "Colour" }, { name: "Size" }] });
    expect(product(catalog, "oak-frame")).toMatchObject({ vendor: STORE, tags: [], seo: { title: "Oak Frame – Round or Square", description: "Solid oak frames." } });
    expect(product(catalog, "oak-frame").options).toEqual([
      { name: "Frame style", values: ["Round", "Square"] },
      { name: "Material", values: ["Oak", "Ash"] },
    ]);
    expect(product(catalog, "cafe-mug")).toMatchObject({ title: "Café Mug", variants: [{ price: "12.5", options: {} }] });
    expect(report.notes).toContain('line 7: handle "Café_Mug" is not lower case words and hyphens; served as "cafe-mug"');
  });
});

describe("Shopify products.json", () => {
  it("keeps the ids, orders images by position and links variant images", async () => {
    const { catalog, report } = await run(productsJson, "products.json");
    expect(report).toMatchObject({ format: "shopify-json", records: 5, products: 3, variants: 5, images: 2, skippedRecords: 2, compareAtDropped: 1 });
    expect(report.skipped).toEqual([
      { handle: "prototype-vest", lines: [135], reason: "status draft" },
      { handle: "gift-card", lines: [172], reason: "gift card" },
    ]);
    const fleece = product(catalog, "alpine-fleece");
    expect(fleece.id).toBe("gid://shopify/Product/7982301937893");
    expect(fleece.variants.map((v) => v.id)).toEqual(["43811201826981", "43811201859749", "43811201892517"]);
    expect(fleece).toMatchObject({ vendor: "Ridgeline Goods", product_type: "Jackets", tags: ["fleece", "outdoor"], created_at: "2024-03-05T10:21:44-05:00" });
    expect(fleece.images).toEqual([
      { url: "https://cdn.shopify.com/s/files/1/0601/2345/products/fleece-main.jpg?v=1709652000", alt: null, width: 2048, height: 2048 },
      { url: "https://cdn.shopify.com/s/files/1/0601/2345/products/fleece-forest.jpg?v=1709652000", alt: "Fleece in forest green", width: 1600, height: 2000 },
    ]);
    expect(fleece.variants.map((v) => v.image ?? null)).toEqual([expect.stringMatching(/fleece-forest/), expect.stringMatching(/fleece-forest/), null]);
    expect(fleece.variants.map((v) => v.sku ?? null)).toEqual(["FLC-S-FOR", "FLC-M-FOR", null]);
  });

  it("derives availability from inventory fields when `available` is absent", async () => {
    const { catalog } = await run(productsJson, "products.json");
    // shopify-tracked 4 deny; 0 deny; 0 continue
    expect(product(catalog, "alpine-fleece").variants.map((v) => v.available)).toEqual([true, false, true]);
    // compare-at 120.00 over 98.00 kept; 98.00 over "98.0" dropped
    expect(product(catalog, "alpine-fleece").variants.map((v) => v.compare_at_price ?? null)).toEqual(["120.00", null, null]);
    // not tracked (inventory_management null): available at 0
    expect(product(catalog, "trail-bottle")).toMatchObject({ available: true, vendor: STORE, product_type: "", tags: [], variants: [{ price: "0", available: true }] });
  });

  it("takes a bare array in the storefront's shape, with `available` and featured images", async () => {
    const { catalog, report } = await run(arrayJson, "products-array.json");
    expect(report).toMatchObject({ format: "shopify-json", records: 2, products: 2, variants: 3, images: 1, skipped: [] });
    const frame = product(catalog, "round-frame");
    expect(frame).toMatchObject({ id: "gid://shopify/Product/8123456789012", tags: ["frames", "steel"], created_at: "2024-01-30T10:00:00-05:00" });
    expect(frame.options).toEqual([
      { name: "Frame style", values: ["Round", "Oval"] },
      { name: "Color", values: ["Black"] },
    ]);
    expect(frame.variants.map((v) => [v.id, v.available, v.compare_at_price ?? null, v.image ?? null])).toEqual([
      ["44000000000001", true, "59.00", "https://cdn.shopify.com/s/files/1/0601/2345/files/round-black.jpg?v=1"],
      ["44000000000002", false, null, null],
    ]);
    expect(product(catalog, "sold-out-print")).toMatchObject({ available: false, options: [], variants: [{ options: {}, available: false }] });
  });
});

/** The records of CSV text, each with its line end: a line break ends one only outside quotes. */
function records(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '"') quoted = !quoted;
    else if (text[i] === "\n" && !quoted) {
      out.push(text.slice(start, i + 1));
      start = i + 1;
    }
  }
  return out;
}

describe("ids", () => {
  it("are the same on a second import of the same file", async () => {
    for (const [text, file] of [[classicCsv, "a.csv"], [currentCsv, "b.csv"], [productsJson, "c.json"]] as const) {
      const first = await run(text, file);
      const second = await run(text, file);
      expect(second.catalog).toEqual(first.catalog);
    }
  });

  it("are derived from the handle and option values, so reordered products and rows keep them", async () => {
    const catalog = generateCatalog({ products: 60, seed: 7 });
    const chunks = [...shopifyCsvChunks(catalog)];
    const [header, ...products] = chunks;
    // Products in reverse order, and each product's rows reversed (the title row last).
    const reordered = [header, ...products.reverse().map((chunk) => records(chunk).reverse().join(""))].join("");
    const idsOf = (c: SourceCatalog) => Object.fromEntries(c.products.flatMap((p) => [[p.handle, p.id], ...p.variants.map((v) => [`${p.handle} ${Object.values(v.options).join("/")}`, v.id])]));
    const a = await run(chunks.join(""), "a.csv");
    const b = await run(reordered, "b.csv");
    expect(b.catalog.products.map((p) => p.handle)).toEqual(a.catalog.products.map((p) => p.handle).reverse());
    expect(idsOf(b.catalog)).toEqual(idsOf(a.catalog));
    const all = Object.values(idsOf(a.catalog));
    expect(new Set(all).size).toBe(all.length);
    for (const p of a.catalog.products) expect(p.id).toMatch(/^gid:\/\/shopify\/Product\/[1-9]\d{15}$/);
  });

  it("never collide: a derived id that is taken is hashed again, whatever the order of the keys", () => {
    const keys = ["product\u0000a", "product\u0000b", "product\u0000c"];
    const taken = new Set([hashId("product\u0000b", 0)]);
    const { ids, collisions } = deriveIds(keys, taken);
    expect(collisions).toBe(1);
    expect(ids.get("product\u0000b")).toBe(hashId("product\u0000b", 1));
    expect(new Set(ids.values()).size).toBe(3);
    expect(deriveIds([...keys].reverse(), taken).ids).toEqual(ids);
  });

  it("derive only what products.json lacks, never equal to an id it has", async () => {
    const text = JSON.stringify([
      { id: 11, handle: "kept", title: "Kept", variants: [{ id: 12, price: "1.00" }] },
      { handle: "derived", title: "Derived", variants: [{ price: "2.00" }] },
    ]);
    const { catalog } = await run(text, "mixed.json");
    expect(catalog.products[0]).toMatchObject({ id: "gid://shopify/Product/11", variants: [{ id: "12" }] });
    expect(catalog.products[1]?.id).toMatch(/^gid:\/\/shopify\/Product\/\d{16}$/);
    expect(catalog.products[1]?.variants[0]?.id).toMatch(/^\d{16}$/);
  });
});

describe("a generated catalog written as a Shopify CSV", () => {
  it("imports back to the same products (ids, image sizes and collections aside)", async () => {
    const generated = generateCatalog({ products: 300, seed: 3 });
    const { catalog } = await run([...shopifyCsvChunks(generated)].join(""), "generated.csv", { store: generated.store.name });
    const strip = (p: SourceProduct) => ({
      ...p,
      id: "",
      created_at: undefined,
      variants: p.variants.map((v) => ({ ...v, id: "" })),
      images: p.images?.map((i) => ({ url: i.url, alt: i.alt ?? null })),
    });
    expect(catalog.products.map(strip)).toEqual(generated.products.map(strip));
  });
});

describe("a malformed file names the line and the column, and nothing is imported", () => {
  const csv = (...rows: string[]) => [CLASSIC_HEAD, ...rows].join("\r\n");
  const row = (cells: Partial<Record<string, string>>) => CLASSIC_HEAD.split(",").map((h) => cells[h] ?? "").map((v) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v)).join(",");
  const shirt = (size: string, price = "20.00", extra: Partial<Record<string, string>> = {}) =>
    row({ Handle: "shirt", "Option1 Value": size, "Variant Price": price, ...extra });
  const first = (extra: Partial<Record<string, string>> = {}) => shirt("S", "20.00", { Title: "Shirt", "Option1 Name": "Size", Status: "active", ...extra });

  it("a price that is not a number", async () => {
    const issues = await issuesOf(csv(first(), shirt("M", "abc")));
    expect(issues).toEqual([{ line: 3, column: 16, header: "Variant Price", message: '"abc" is not a price (a decimal number such as 25 or 25.50)' }]);
  });

  it("a price with more than two decimals, a European decimal comma, an empty price", async () => {
    const issues = await issuesOf(csv(first(), shirt("M", "20.005"), shirt("L", "20,50"), shirt("XL", "")));
    expect(issues.map((i) => [i.line, i.header, i.message])).toEqual([
      [3, "Variant Price", '"20.005" has more than two decimals, so it cannot be charged exactly'],
      [4, "Variant Price", '"20,50" is not a price (a decimal number such as 25 or 25.50)'],
      [5, "Variant Price", "the price is empty"],
    ]);
  });

  it("a duplicate option combination", async () => {
    const issues = await issuesOf(csv(first(), shirt("M"), shirt("S")));
    expect(issues).toEqual([{ line: 4, column: 9, header: "Option1 Value", message: 'duplicate option combination Size "S": line 2 has the same' }]);
  });

  it("a handle whose rows never got a title", async () => {
    const issues = await issuesOf(csv(first(), row({ Handle: "ghost", "Option1 Value": "S", "Variant Price": "5" }), row({ Handle: "ghost", "Image Src": "https://x.example/a.jpg" })));
    expect(issues).toEqual([{ line: 3, column: 2, header: "Title", message: 'product "ghost" has no row with a title' }]);
  });

  it("the right line after a quoted field that spans lines, and inside such a record", async () => {
    const body = "<p>one</p>\n<p>two</p>\n<p>three</p>";
    const issues = await issuesOf(csv(first({ "Body (HTML)": body, "Variant Compare At Price": "x" }), shirt("M", "oops")));
    // The first record spans lines 2-4; its compare-at column comes after the body, on line 4.
    expect(issues.map((i) => [i.line, i.column, i.header])).toEqual([
      [4, 17, "Variant Compare At Price"],
      [5, 16, "Variant Price"],
    ]);
  });

  it("a missing option value, and a value for an option the product does not name", async () => {
    const issues = await issuesOf(csv(first(), shirt(""), shirt("L", "20.00", { "Option2 Value": "Red" })));
    expect(issues.map((i) => [i.line, i.header, i.message])).toEqual([
      [3, "Option1 Value", 'empty, but the product has the option "Size"'],
      [4, "Option2 Value", "a value for option 2, but the product row (line 2) names no Option2 Name"],
    ]);
  });

  it("inventory that is not a whole number and a policy that is neither deny nor continue", async () => {
    const issues = await issuesOf(csv(first(), shirt("M", "20.00", { "Variant Inventory Tracker": "shopify", "Variant Inventory Qty": "1.5E+2", "Variant Inventory Policy": "sometimes" })));
    expect(issues.map((i) => [i.line, i.header, i.message])).toEqual([
      [3, "Variant Inventory Qty", '"1.5E+2" is not a whole number'],
      [3, "Variant Inventory Policy", '"sometimes" is not one of deny, continue (or FALSE, TRUE)'],
    ]);
  });

  it("an image URL that is not http(s), and a position that is not a number", async () => {
    const issues = await issuesOf(csv(first({ "Image Src": "javascript:alert(1)" }), row({ Handle: "shirt", "Image Src": "https://x.example/b.jpg", "Image Position": "two" })));
    expect(issues.map((i) => [i.line, i.header, i.message])).toEqual([
      [2, "Image Src", '"javascript:alert(1)" is not an http(s) URL'],
      [3, "Image Position", '"two" is not a whole number'],
    ]);
  });

  it("rows of one product that are not together", async () => {
    const issues = await issuesOf(csv(first(), row({ Handle: "hat", Title: "Hat", "Variant Price": "5" }), shirt("M")));
    expect(issues).toEqual([{ line: 4, column: 1, header: "Handle", message: 'rows of product "shirt" must be consecutive: its rows start at line 2, and other products come between' }]);
  });

  it("a field the catalog schema refuses is still located: a title over 255 characters, a reserved option name", async () => {
    const issues = await issuesOf(csv(first({ Title: "T".repeat(256) }), row({ Handle: "cap", Title: "Cap", "Option1 Name": "Limit", "Option1 Value": "One", "Variant Price": "5" })));
    expect(issues.map((i) => [i.line, i.header])).toEqual([
      [2, "Title"],
      [3, "Option1 Name"],
    ]);
    expect(issues[1]?.message).toContain('"limit" is reserved');
  });

  it("an unclosed quote, a stray quote, a file that is not a Shopify export, an empty file", async () => {
    expect(await issuesOf(csv(first(), 'shirt,,"<p>never closed,,,,')))
      .toEqual([{ line: 3, message: "a quoted field that starts in this record is never closed: the file ends inside quotes" }]);
    const stray = await issuesOf(csv(first(), 'shirt,,ab"c",,'));
    expect(stray[0]).toMatchObject({ line: 3, message: expect.stringMatching(/^not valid CSV: Invalid Opening Quote/) });
    expect(await issuesOf("Name,Price\nshirt,20\n")).toEqual([{ line: 1, message: expect.stringMatching(/^not a Shopify product CSV/) }]);
    expect(await issuesOf(" \n")).toEqual([{ line: 1, message: "the file is empty" }]);
  });

  it("a file whose products are all skipped", async () => {
    const issues = await issuesOf(csv(first({ Status: "draft" })));
    expect(issues[0]?.message).toBe("no product to import: the file has 1 product(s), all skipped (not active, or gift cards)");
  });

  it("bytes that are not UTF-8 (a spreadsheet's Windows-1252 save)", async () => {
    const latin1 = new Uint8Array([...new TextEncoder().encode(`${CLASSIC_HEAD}\nshirt,Caf`), 0xe9, ...new TextEncoder().encode(",x\n")]);
    const issues = await issuesOf((async function* () { yield latin1; })());
    expect(issues).toEqual([{ line: 2, column: 10, message: expect.stringMatching(/^not UTF-8 text/) }]);
  });

  it("products.json: a bad price, a missing title and broken JSON, each with line, column and path", async () => {
    const text = '{"products": [\n  {"id": 1, "handle": "a", "title": "A", "variants": [{"id": 2, "price": "1,00"}]},\n  {"id": 3, "handle": "b", "variants": [{"id": 4, "price": "1"}]}\n]}\n';
    const issues = await issuesOf(text, "bad.json");
    expect(issues).toEqual([
      { line: 2, column: 74, path: "products[0].variants[0].price", message: '"1,00" is not a price (a decimal number such as 25 or 25.50)' },
      { line: 3, column: 3, path: "products[1].title", message: "the title is missing" },
    ]);
    const broken = await issuesOf('{"products": [\n  {"id": 1,, }\n]}\n', "broken.json");
    expect(broken).toEqual([{ line: 2, column: 12, message: expect.stringMatching(/^not valid JSON/) }]);
    expect(await issuesOf('{"items": []}', "x.json")).toEqual([{ line: 1, column: 1, message: expect.stringContaining("not a Shopify products.json") }]);
  });

  it("says where in the message an operator reads", async () => {
    const error = await importCatalog(csv(first(), shirt("M", "abc")), { file: "export.csv" }).then(
      () => null,
      (e: unknown) => e as ImportError,
    );
    expect(error?.message).toBe('export.csv line 3, column 16 "Variant Price": "abc" is not a price (a decimal number such as 25 or 25.50)');
  });
});
