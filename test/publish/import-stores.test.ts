import { describe, expect, it } from "vitest";
import { parseCatalog } from "../../src/catalog/schema.ts";
import { formatReport, ImportError, importCatalog } from "../../src/publish/import/index.ts";
import titleJson from "./fixtures/admin-title-options.json?raw";
import currentStockCsv from "./fixtures/shopify-current-stock.csv?raw";
import jpyCsv from "./fixtures/shopify-jpy.csv?raw";
import kwdCsv from "./fixtures/shopify-kwd.csv?raw";
import linkedCsv from "./fixtures/shopify-linked-no-qty.csv?raw";
import misalignedCsv from "./fixtures/shopify-misaligned.csv?raw";
import shiftedCsv from "./fixtures/shopify-shifted.csv?raw";
import { issuesOf, product, run } from "./import-helpers.ts";

/**
 * What real stores' own exports carry. Each fixture is small and
 * written for one rule: a 2024-26 CSV without the quantity column, a current CSV with an empty
 * quantity cell, an Admin API dump with options named Title, a misaligned row, a JPY and a KWD
 * store.
 */

describe("stock that is unknown is not zero", () => {
  it("a CSV without Variant Inventory Qty: tracked variants with policy deny are available, and the report says why", async () => {
    const { catalog, report } = await run(linkedCsv, "shopify-linked-no-qty.csv");
    expect(linkedCsv.split("\n")[0]).not.toContain("Variant Inventory Qty");
    expect(catalog.products.map((p) => [p.handle, p.available, p.variants.map((v) => v.available)])).toEqual([
      ["bronze-hare", true, [true]],
      ["oak-stool", true, [true, true]],
      ["camp-stool", true, [true]],
    ]);
    expect(report.stock).toEqual({ noColumn: 2, continues: 1, untracked: 1 });
    expect(report.soldOut).toEqual([]);
    const printed = formatReport(report);
    expect(printed).toContain("  2 stock unknown (the file has no quantity column): available");
    expect(printed).toContain("Sold out: 0 of 3 products.");
  });

  it("an empty quantity cell is unknown (available); a quantity of 0 with deny is sold out, listed with its reason", async () => {
    const { catalog, report } = await run(currentStockCsv, "shopify-current-stock.csv");
    expect(catalog.products.map((p) => [p.handle, p.variants.map((v) => v.available)])).toEqual([
      ["rye-loaf", [true, false]],
      ["seeded-rolls", [true]],
      ["sourdough", [false]],
      ["focaccia", [true]],
    ]);
    expect(report.stock).toEqual({ emptyCell: 1, soldOut: 2, continues: 1, inStock: 1 });
    expect(report.soldOut).toEqual([
      { handle: "sourdough", lines: [5], reason: "every variant has quantity 0 or below with policy deny" },
    ]);
    const printed = formatReport(report);
    expect(printed).toContain("Sold out: 1 of 4 products:");
    expect(printed).toContain("  1 because every variant has quantity 0 or below with policy deny");
    expect(printed).toContain('  line 5: "sourdough" sold out: every variant has quantity 0 or below with policy deny');
    expect(printed).toContain("  1 stock unknown (empty quantity): available");
  });

  it("products.json from the Admin API: a tracked variant without inventory_quantity is available", async () => {
    const { catalog, report } = await run(titleJson, "admin.json");
    expect(product(catalog, "camp-stool").variants[0]?.available).toBe(true);
    expect(product(catalog, "coffee-subscription").variants.map((v) => v.available)).toEqual([true, true, true]);
    expect(report.stock.noColumn).toBe(2);
  });
});

describe("options named Title", () => {
  it("a lone Title option on one variant is no option, whatever its value; a real one is kept (served as title-1)", async () => {
    const { catalog, report } = await run(titleJson, "admin.json");
    expect(product(catalog, "camp-stool")).toMatchObject({ options: [], variants: [{ options: {} }] });
    expect(product(catalog, "canvas-hat")).toMatchObject({ options: [], available: false });
    expect(product(catalog, "enamel-mug").options).toEqual([]);
    const coffee = product(catalog, "coffee-subscription");
    expect(coffee.options).toEqual([{ name: "Title", values: ["250g", "500g", "1kg"] }]);
    expect(coffee.variants.map((v) => v.options)).toEqual([{ Title: "250g" }, { Title: "500g" }, { Title: "1kg" }]);
    expect(parseCatalog(catalog)).toBeTruthy();
    expect(report.titleOptions.dropped).toBe(2);
    expect(report.titleOptions.renamed.map((r) => r.handle)).toEqual(["coffee-subscription"]);
    const printed = formatReport(report);
    expect(printed).toContain('1 product has a real option named Title, served as option "title-1" (label "Title"):');
    expect(printed).toContain("2 single-variant products had a lone option named Title: imported without options.");
  });

  it("a product that cannot be represented is skipped with its line, and the rest import", async () => {
    const { catalog, report } = await run(titleJson, "admin.json");
    expect(catalog.products.map((p) => p.handle)).toEqual([
      "camp-stool",
      "canvas-hat",
      "coffee-subscription",
      "enamel-mug",
    ]);
    expect(report.skipped).toHaveLength(1);
    expect(report.skipped[0]).toMatchObject({ handle: "trail-socks", lines: [expect.any(Number)] });
    expect(report.skipped[0]?.reason).toMatch(/^cannot be represented: .*two options have the same name/);
    expect(formatReport(report)).toMatch(/line \d+: "trail-socks" skipped: cannot be represented/);
  });

  it("a CSV product with one row whose only option is Title has no options", async () => {
    const { catalog, report } = await run(linkedCsv, "shopify-linked-no-qty.csv");
    expect(product(catalog, "camp-stool")).toMatchObject({ options: [], variants: [{ options: {}, price: "45" }] });
    expect(report.titleOptions.dropped).toBe(1);
  });
});

describe("a misaligned CSV row", () => {
  it("is refused naming its line, its field count and the header's, and nothing else", async () => {
    const issues = await issuesOf(misalignedCsv, "misaligned.csv");
    expect(issues).toEqual([
      {
        line: 3,
        message:
          "this row has 8 fields but the header has 7: a comma or quote is missing or extra (an unquoted comma in a value?), so its values would land in the wrong columns",
      },
    ]);
  });

  it("a row with a field missing too; trailing empty columns are not a mismatch", async () => {
    const head = "Handle,Title,Option1 Name,Option1 Value,Variant Price";
    const short = await issuesOf(`${head}\nmug,Mug,Title,Default Title,12\ncap,Cap,Title,15\n`);
    expect(short).toEqual([
      { line: 3, message: expect.stringMatching(/^this row has 4 fields but the header has 5:/) },
    ]);
    const { catalog } = await run(`${head}\nmug,Mug,Title,Default Title,12,,\n`, "trailing.csv");
    expect(catalog.products.map((p) => p.handle)).toEqual(["mug"]);
  });
});

describe("a field-count mismatch hidden by empty extra fields (issue 33 point 5)", () => {
  // Shaped like the real export: a 57-column header (classic columns, then Google Shopping and
  // metafield columns, empty in most rows), and rows of 58-59 fields whose extras are empty, every
  // value after a stray unquoted comma shifted (a title, a description, a size).
  const FIELDS = (line: string) => {
    let n = 1;
    let quoted = false;
    for (const ch of line) {
      if (ch === '"') quoted = !quoted;
      else if (ch === "," && !quoted) n++;
    }
    return n;
  };

  it("reports each shifted row as the cause (file, line, both counts), not the symptoms its values show", async () => {
    const lines = shiftedCsv.split("\r\n").filter((l) => l !== "");
    expect(lines.map(FIELDS)).toEqual([57, 57, 57, 57, 58, 57, 59, 57, 58, 57]);
    const error = await importCatalog(shiftedCsv, { file: "products_export.csv", store: "Harbor & Pine" }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ImportError);
    const { issues, message } = error as ImportError;
    expect(issues).toEqual(
      [
        [5, 58],
        [7, 59],
        [9, 58],
      ].map(([line, fields]) => ({
        line,
        message: expect.stringMatching(new RegExp(`^this row has ${fields} fields but the header has 57: `)),
      })),
    );
    // The symptoms the shift causes (prices, option values, URLs) are not listed.
    expect(message).not.toMatch(/price|URL|empty, but the product has|Option/);
    expect(message).toContain("products_export.csv line 5: this row has 58 fields but the header has 57");
  });

  it("still reads a row whose empty extra fields hide nothing (its values all pass)", async () => {
    const head = `Handle,Title,Option1 Name,Option1 Value,Variant Price${",Extra".repeat(52)}`;
    expect(FIELDS(head)).toBe(57);
    const { catalog } = await run(`${head}\nmug,Mug,Title,Default Title,12${",".repeat(53)}\n`, "wide.csv");
    expect(catalog.products.map((p) => [p.handle, p.variants[0]?.price])).toEqual([["mug", "12"]]);
  });
});

describe("the header generation", () => {
  it("names a 2024-26 export (Product Category, Option1 Linked To) for what it is, and reads its extra columns", async () => {
    const { catalog, report } = await run(linkedCsv, "shopify-linked-no-qty.csv");
    expect(report.format).toBe("shopify-csv-linked");
    expect(formatReport(report)).toContain(
      "as Shopify product CSV (2024-26 headers: Handle, Product Category, Option1 Linked To): 4 rows.",
    );
    expect(product(catalog, "oak-stool").options).toEqual([{ name: "Finish", values: ["Natural", "Smoked"] }]);
  });
});

describe("the store's currency", () => {
  it("without --currency: USD, and the report says the file named none", async () => {
    const { catalog, report } = await run(linkedCsv, "x.csv");
    expect(catalog.currency).toBe("USD");
    expect(formatReport(report)).toContain("Prices in USD: the file names no currency and --currency was not given");
  });

  it("JPY: amounts with no decimals, kept as the store wrote them", async () => {
    const { catalog, report } = await importCatalog(jpyCsv, { file: "jpy.csv", currency: "JPY" });
    expect(catalog.currency).toBe("JPY");
    expect(product(catalog, "matcha-tin").variants.map((v) => [v.price, v.compare_at_price ?? null])).toEqual([
      ["1500", "1800"],
      ["4200", null],
    ]);
    expect(formatReport(report)).toContain("Prices in JPY.");
    expect(parseCatalog(catalog).currency).toBe("JPY");
    await expect(
      importCatalog(jpyCsv.replace("1500", "1500.50"), { file: "jpy.csv", currency: "JPY" }),
    ).rejects.toThrow(
      /jpy\.csv line 2, column 15 "Variant Price": "1500\.50" has decimals, which JPY has none of, so it cannot be charged exactly/,
    );
    // Trailing zeros past the minor units are only how a spreadsheet wrote the number.
    const { catalog: zeros } = await importCatalog(jpyCsv.replace("1500", "1500.00"), {
      file: "jpy.csv",
      currency: "JPY",
    });
    expect(product(zeros, "matcha-tin").variants[0]?.price).toBe("1500");
  });

  it("KWD: three decimals; the same file as USD is refused at its line", async () => {
    const { catalog } = await importCatalog(kwdCsv, { file: "kwd.csv", currency: "KWD" });
    expect(catalog.products.map((p) => p.variants.map((v) => v.price))).toEqual([["12.125", "40.5"], ["2.500"]]);
    expect(product(catalog, "oud-oil").variants[0]?.compare_at_price).toBe("15.000");
    const issues = await issuesOf(kwdCsv, "kwd.csv");
    expect(issues[0]).toMatchObject({
      line: 2,
      header: "Variant Price",
      message: '"12.125" has more than two decimals, so it cannot be charged exactly',
    });
  });

  it("an unknown code is refused before anything is read", async () => {
    await expect(importCatalog(jpyCsv, { file: "jpy.csv", currency: "YEN" })).rejects.toThrow(
      /"YEN" is not an ISO 4217 currency code/,
    );
  });
});
