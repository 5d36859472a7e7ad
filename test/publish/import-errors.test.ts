import { describe, expect, it } from "vitest";
import { formatReport, type ImportError, importCatalog } from "../../src/publish/import/index.ts";
import { CLASSIC_HEAD, issuesOf } from "./import-helpers.ts";

/** A malformed file names the line and the column, and nothing is imported. */

describe("a malformed file names the line and the column, and nothing is imported", () => {
  const csv = (...rows: string[]) => [CLASSIC_HEAD, ...rows].join("\r\n");
  const row = (cells: Partial<Record<string, string>>) =>
    CLASSIC_HEAD.split(",")
      .map((h) => cells[h] ?? "")
      .map((v) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v))
      .join(",");
  const shirt = (size: string, price = "20.00", extra: Partial<Record<string, string>> = {}) =>
    row({ Handle: "shirt", "Option1 Value": size, "Variant Price": price, ...extra });
  const first = (extra: Partial<Record<string, string>> = {}) =>
    shirt("S", "20.00", { Title: "Shirt", "Option1 Name": "Size", Status: "active", ...extra });

  it("a price that is not a number", async () => {
    const issues = await issuesOf(csv(first(), shirt("M", "abc")));
    expect(issues).toEqual([
      {
        line: 3,
        column: 16,
        header: "Variant Price",
        message: '"abc" is not a price (a decimal number such as 25 or 25.50)',
      },
    ]);
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
    expect(issues).toEqual([
      {
        line: 4,
        column: 9,
        header: "Option1 Value",
        message: 'duplicate option combination Size "S": line 2 has the same',
      },
    ]);
  });

  it("a handle whose rows never got a title", async () => {
    const issues = await issuesOf(
      csv(
        first(),
        row({ Handle: "ghost", "Option1 Value": "S", "Variant Price": "5" }),
        row({ Handle: "ghost", "Image Src": "https://x.example/a.jpg" }),
      ),
    );
    expect(issues).toEqual([
      { line: 3, column: 2, header: "Title", message: 'product "ghost" has no row with a title' },
    ]);
  });

  it("the right line after a quoted field that spans lines, and inside such a record", async () => {
    const body = "<p>one</p>\n<p>two</p>\n<p>three</p>";
    const issues = await issuesOf(
      csv(first({ "Body (HTML)": body, "Variant Compare At Price": "x" }), shirt("M", "oops")),
    );
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
    const issues = await issuesOf(
      csv(
        first(),
        shirt("M", "20.00", {
          "Variant Inventory Tracker": "shopify",
          "Variant Inventory Qty": "1.5E+2",
          "Variant Inventory Policy": "sometimes",
        }),
      ),
    );
    expect(issues.map((i) => [i.line, i.header, i.message])).toEqual([
      [3, "Variant Inventory Qty", '"1.5E+2" is not a whole number'],
      [3, "Variant Inventory Policy", '"sometimes" is not one of deny, continue (or FALSE, TRUE)'],
    ]);
  });

  it("an image URL that is not http(s), and a position that is not a number", async () => {
    const issues = await issuesOf(
      csv(
        first({ "Image Src": "javascript:alert(1)" }),
        row({ Handle: "shirt", "Image Src": "https://x.example/b.jpg", "Image Position": "two" }),
      ),
    );
    expect(issues.map((i) => [i.line, i.header, i.message])).toEqual([
      [2, "Image Src", 'not a URL the catalog can serve: "javascript:" URLs are not allowed: only https:'],
      [3, "Image Position", '"two" is not a whole number'],
    ]);
  });

  it("rows of one product that are not together", async () => {
    const issues = await issuesOf(csv(first(), row({ Handle: "hat", Title: "Hat", "Variant Price": "5" }), shirt("M")));
    expect(issues).toEqual([
      {
        line: 4,
        column: 1,
        header: "Handle",
        message:
          'rows of product "shirt" must be consecutive: its rows start at line 2, and other products come between',
      },
    ]);
  });

  // A product the catalog schema refuses no longer stops the whole import; it is
  // skipped and reported with its line and column, and the rest import.
  it("a product the catalog schema refuses is skipped, located: a title over 255 characters, a reserved option name", async () => {
    const text = csv(
      first({ Title: "T".repeat(256) }),
      row({ Handle: "cap", Title: "Cap", "Option1 Name": "Limit", "Option1 Value": "One", "Variant Price": "5" }),
      row({ Handle: "hat", Title: "Hat", "Variant Price": "7" }),
    );
    const { catalog, report } = await importCatalog(text, { file: "bad.csv" });
    expect(catalog.products.map((p) => p.handle)).toEqual(["hat"]);
    expect(report.skipped.map((s) => [s.handle, s.lines])).toEqual([
      ["shirt", [2]],
      ["cap", [3]],
    ]);
    expect(report.skipped[0]?.reason).toMatch(/^cannot be represented: column 2 "Title" \(line 2\): title: /);
    expect(report.skipped[1]?.reason).toMatch(
      /^cannot be represented: column 8 "Option1 Name" \(line 3\): options\.0\.name: "limit" is reserved/,
    );
    expect(formatReport(report)).toContain('line 3: "cap" skipped: cannot be represented');
  });

  it("an unclosed quote, a stray quote, a file that is not a Shopify export, an empty file", async () => {
    expect(await issuesOf(csv(first(), 'shirt,,"<p>never closed,,,,'))).toEqual([
      { line: 3, message: "a quoted field that starts in this record is never closed: the file ends inside quotes" },
    ]);
    const stray = await issuesOf(csv(first(), 'shirt,,ab"c",,'));
    expect(stray[0]).toMatchObject({
      line: 3,
      message: expect.stringMatching(/^not valid CSV: Invalid Opening Quote/),
    });
    expect(await issuesOf("Name,Price\nshirt,20\n")).toEqual([
      { line: 1, message: expect.stringMatching(/^not a Shopify product CSV/) },
    ]);
    expect(await issuesOf(" \n")).toEqual([{ line: 1, message: "the file is empty" }]);
  });

  it("a file whose products are all skipped", async () => {
    const issues = await issuesOf(csv(first({ Status: "draft" })));
    expect(issues[0]?.message).toBe(
      "no product to import: the file has 1 product(s), all skipped (not active, or gift cards)",
    );
  });

  it("bytes that are not UTF-8 (a spreadsheet's Windows-1252 save)", async () => {
    const latin1 = new Uint8Array([
      ...new TextEncoder().encode(`${CLASSIC_HEAD}\nshirt,Caf`),
      0xe9,
      ...new TextEncoder().encode(",x\n"),
    ]);
    const issues = await issuesOf(
      (async function* () {
        yield latin1;
      })(),
    );
    expect(issues).toEqual([{ line: 2, column: 10, message: expect.stringMatching(/^not UTF-8 text/) }]);
  });

  it("products.json: a bad price, a missing title and broken JSON, each with line, column and path", async () => {
    const text =
      '{"products": [\n  {"id": 1, "handle": "a", "title": "A", "variants": [{"id": 2, "price": "1,00"}]},\n  {"id": 3, "handle": "b", "variants": [{"id": 4, "price": "1"}]}\n]}\n';
    const issues = await issuesOf(text, "bad.json");
    expect(issues).toEqual([
      {
        line: 2,
        column: 74,
        path: "products[0].variants[0].price",
        message: '"1,00" is not a price (a decimal number such as 25 or 25.50)',
      },
      { line: 3, column: 3, path: "products[1].title", message: "the title is missing" },
    ]);
    const broken = await issuesOf('{"products": [\n  {"id": 1,, }\n]}\n', "broken.json");
    expect(broken).toEqual([{ line: 2, column: 12, message: expect.stringMatching(/^not valid JSON/) }]);
    expect(await issuesOf('{"items": []}', "x.json")).toEqual([
      { line: 1, column: 1, message: expect.stringContaining("not a Shopify products.json") },
    ]);
  });

  it("says where in the message an operator reads", async () => {
    const error = await importCatalog(csv(first(), shirt("M", "abc")), { file: "export.csv" }).then(
      () => null,
      (e: unknown) => e as ImportError,
    );
    expect(error?.message).toBe(
      'export.csv line 3, column 16 "Variant Price": "abc" is not a price (a decimal number such as 25 or 25.50)',
    );
  });
});
