import { once } from "node:events";
import { parse } from "csv-parse";
import { IssueList, type ImportIssue } from "./errors.ts";
import {
  type DraftProduct,
  type DraftVariant,
  type ImportReport,
  isTitleOption,
  keptCompareAt,
  type Place,
  readAmount,
  readUrl,
  servedHandle,
  splitTags,
  inventoryOf,
  readGrams,
  readRequiresShipping,
  stockRule,
} from "./model.ts";
import { MAX_STOCK_LEVEL, type SourceImage } from "../../catalog/schema.ts";

/**
 * Shopify product CSVs, both header generations. A product spans the rows sharing its handle:
 * the row with the title carries the product fields, every row with an option value or a price
 * is a variant, and any row may carry an image (image-only rows have neither options nor price).
 * Columns are found by header name, in any order; every other column (barcodes, weight units,
 * Google Shopping, metafields, market prices) is ignored.
 *
 * Parsed by csv-parse as a stream: quoted fields keep commas, quotes and line breaks, and the
 * input reaches it with CRLF already turned into LF so its line count is the file's.
 */

/** The columns read, with the header each generation gives them (compared case-insensitively). */
const COLUMNS = {
  handle: ["Handle", "URL handle"],
  title: ["Title"],
  body: ["Body (HTML)", "Description"],
  vendor: ["Vendor"],
  type: ["Type"],
  customType: ["Custom Product Type"],
  tags: ["Tags"],
  published: ["Published", "Published on online store"],
  status: ["Status"],
  giftCard: ["Gift Card"],
  option1Name: ["Option1 Name"],
  option1Value: ["Option1 Value"],
  option2Name: ["Option2 Name"],
  option2Value: ["Option2 Value"],
  option3Name: ["Option3 Name"],
  option3Value: ["Option3 Value"],
  sku: ["Variant SKU", "SKU"],
  tracker: ["Variant Inventory Tracker", "Inventory tracker"],
  quantity: ["Variant Inventory Qty", "Inventory quantity"],
  policy: ["Variant Inventory Policy", "Continue selling when out of stock"],
  price: ["Variant Price", "Price"],
  compareAt: ["Variant Compare At Price", "Compare-at price"],
  imageSrc: ["Image Src", "Product image URL"],
  imagePosition: ["Image Position"],
  imageAlt: ["Image Alt Text"],
  seoTitle: ["SEO Title"],
  seoDescription: ["SEO Description"],
  variantImage: ["Variant Image", "Variant image URL"],
  grams: ["Variant Grams", "Weight value (grams)"],
  requiresShipping: ["Variant Requires Shipping", "Requires shipping"],
} as const;
type Column = keyof typeof COLUMNS;
const NAMES = Object.keys(COLUMNS) as Column[];
const INDEX = Object.fromEntries(NAMES.map((n, i) => [n, i])) as Record<Column, number>;
const OPTION_NAME = [INDEX.option1Name, INDEX.option2Name, INDEX.option3Name];
const OPTION_VALUE = [INDEX.option1Value, INDEX.option2Value, INDEX.option3Value];

/** Catalog fields to the column a schema message should point at. */
const PRODUCT_FIELD: Record<string, Column> = {
  handle: "handle",
  title: "title",
  vendor: "vendor",
  product_type: "type",
  tags: "tags",
  description_html: "body",
  seo: "seoTitle",
  options: "option1Name",
};
const VARIANT_FIELD: Record<string, Column> = {
  price: "price",
  compare_at_price: "compareAt",
  sku: "sku",
  image: "variantImage",
  options: "option1Value",
  weight_grams: "grams",
  requires_shipping: "requiresShipping",
};

/** `classic` (Handle, Option1 Name), `linked` (the same with Option1 Linked To, 2024-26), `current` (URL handle, Option1 name). */
export type CsvGeneration = "classic" | "linked" | "current";

/** One record, reduced to the columns read. */
interface Row {
  line: number;
  /** Set when the row has more fields than the header, the extras empty: its field count. */
  fields?: number;
  /** The row's last line, when it has more fields than the header (a record may span lines). */
  last?: number;
  /** Dropped (NO_VALUES) once the product is built; line numbers stay for messages. */
  values: string[];
  /** Line of each read column, only for records spanning several lines. */
  lines?: number[];
}

const NO_VALUES: string[] = [];
/** Exports without a Gift Card column still type gift cards so. */
const GIFT_CARD_TYPE = /^gift[\s_-]?cards?$/;
const normal = (header: string) => header.trim().replace(/\s+/g, " ").toLowerCase();

/** Maps headers to the columns read; null when the header row is not a Shopify product CSV. */
function columnsOf(header: readonly string[]): { generation: CsvGeneration; at: number[] } | null {
  const position = new Map<string, number>();
  header.forEach((h, i) => {
    const key = normal(h);
    if (key !== "" && !position.has(key)) position.set(key, i);
  });
  const at = NAMES.map((name) => COLUMNS[name].map((h) => position.get(normal(h))).find((i) => i !== undefined) ?? -1);
  if (at[INDEX.handle] === -1 || at[INDEX.title] === -1) return null;
  const linked = [...position.keys()].some((key) => /^option[123] linked ?to$/.test(key));
  return { generation: position.has("handle") ? (linked ? "linked" : "classic") : "current", at };
}

function countLines(text: string): number {
  let n = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n += 1;
  return n;
}

export interface CsvReadOptions {
  file: string;
  report: ImportReport;
  onRecords?: (records: number) => void;
}

/**
 * Reads a Shopify CSV from text chunks (LF line ends, no BOM) into product drafts in file order.
 * Problems are collected with their line and column and thrown together as an ImportError.
 */
export async function readShopifyCsv(
  chunks: AsyncIterable<string>,
  opts: CsvReadOptions,
): Promise<{ generation: CsvGeneration; drafts: DraftProduct[] }> {
  const { file, report } = opts;
  const issues = new IssueList();
  // Rows whose field count is not the header's: reported alone, since every other problem of
  // such a file (empty prices, shifted values) is a symptom of them.
  const misaligned = new IssueList();
  // Rows with more fields than the header whose extras are empty are read (spreadsheets add empty
  // columns), but a stray delimiter can hide there too: every value after it shifted, and the
  // row's last columns empty. When such a row's values fail, its field count is the cause.
  const causes = new ShiftedRows(issues);
  const parser = parse({ info: true, relax_column_count: true, skip_empty_lines: false });
  const feeding = (async () => {
    try {
      for await (const chunk of chunks) if (!parser.write(chunk)) await once(parser, "drain");
      parser.end();
    } catch (error) {
      parser.destroy(error instanceof Error ? error : new Error(String(error)));
    }
  })();

  let header: string[] | null = null;
  let columns: ReturnType<typeof columnsOf> = null;
  let lastLine = 0;
  // Rows of a product are consecutive (as Shopify writes and reads them), so each product is
  // built as soon as the next one starts and its rows are let go: memory holds drafts, not rows.
  const drafts: DraftProduct[] = [];
  const done = new Map<string, number>();
  const open: { group: { handle: string; rows: Row[] } | null } = { group: null };
  const close = () => {
    const group = open.group;
    if (!group || !header || !columns) return;
    done.set(group.handle, group.rows[0]!.line);
    if (misaligned.count > 0) {
      open.group = null;
      return;
    }
    const draft = productOf(group.handle, group.rows, header, columns.at, causes.of(group.rows), report);
    if (draft) drafts.push(draft);
    for (const row of group.rows) row.values = NO_VALUES;
    open.group = null;
  };
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      let breaks = 0;
      for (const value of record) if (value.includes("\n")) breaks += countLines(value);
      const line = info.lines - breaks;
      lastLine = info.lines;
      if (header === null) {
        header = record;
        columns = columnsOf(record);
        if (!columns) {
          throw new IssueThrow({
            line,
            message:
              "not a Shopify product CSV: the header row has no Handle (classic export) or URL handle " +
              "(current export) column, or no Title column",
          });
        }
        continue;
      }
      if (record.every((v) => v.trim() === "")) continue;
      report.records += 1;
      // More fields than the header is only the trailing empty columns spreadsheets add; fewer,
      // or a value past the header's last column, means a stray or missing delimiter.
      if (record.length < header.length || record.slice(header.length).some((v) => v !== "")) {
        misaligned.add({
          line,
          message:
            `this row has ${record.length} fields but the header has ${header.length}: a comma or ` +
            `quote is missing or extra (an unquoted comma in a value?), so its values would land in ` +
            `the wrong columns`,
        });
        continue;
      }
      if (misaligned.count > 0) continue;
      if (report.records % 10_000 === 0) opts.onRecords?.(report.records);
      const at = columns!.at;
      const values = at.map((c) => (c === -1 ? "" : (record[c] ?? "")));
      const row: Row = { line, values };
      if (record.length > header.length) {
        row.fields = record.length;
        row.last = lastLine;
      }
      if (breaks > 0) {
        let running = line;
        const lineOfColumn = record.map((v) => {
          const here = running;
          running += countLines(v);
          return here;
        });
        row.lines = at.map((c) => (c === -1 ? line : (lineOfColumn[c] ?? line)));
      }
      const handle = values[INDEX.handle]!.trim();
      if (handle === "") {
        issues.add({
          ...place(row, "handle", header, at),
          message: "the handle is empty: every row of a product repeats its handle",
        });
        continue;
      }
      if (open.group?.handle === handle) {
        open.group.rows.push(row);
        continue;
      }
      close();
      const first = done.get(handle);
      if (first !== undefined) {
        issues.add({
          ...place(row, "handle", header, at),
          message:
            `rows of product "${handle}" must be consecutive: its rows start at line ${first}, and ` +
            `other products come between`,
        });
        continue;
      }
      open.group = { handle, rows: [row] };
    }
    close();
  } catch (error) {
    if (error instanceof IssueThrow) issues.add(error.issue);
    else issues.add(parserIssue(error, lastLine));
    parser.destroy();
  }
  await feeding;
  misaligned.throwIfAny(file);
  causes.report(header?.length ?? 0);
  if (header === null || columns === null) {
    if (issues.count === 0) issues.add({ line: 1, message: "the file is empty" });
    issues.throwIfAny(file);
    throw new Error("unreachable");
  }
  opts.onRecords?.(report.records);
  issues.throwIfAny(file);
  return { generation: columns.generation, drafts };
}

/**
 * Issue 33 point 5: an export whose header had 57 columns and whose rows had 58-59 fields (the
 * extras empty, every value after a stray field shifted) was reported as 70 symptoms ("price is
 * empty", "not a URL"). A problem found in a product with a row of more fields than the header is
 * kept back, and the row is reported once with both counts, as the cause; other products' problems
 * pass through.
 */
class ShiftedRows {
  readonly #issues: IssueList;
  /** The rows with a problem, by first line. */
  readonly #rows = new Map<number, Row>();
  constructor(issues: IssueList) {
    this.#issues = issues;
  }

  /**
   * The issue list productOf adds to for one product's `rows`: when some have more fields than the
   * header, a problem on one of those rows is held back as that row's symptom, and one on another
   * row of the product as a symptom of all of them.
   */
  of(rows: readonly Row[]): IssueList {
    const widened = rows.filter((r) => r.fields !== undefined);
    if (widened.length === 0) return this.#issues;
    const issues = this.#issues;
    const held = this.#rows;
    let kept = 0;
    return new (class extends IssueList {
      override add(issue: ImportIssue): void {
        const row =
          issue.line === undefined
            ? undefined
            : widened.find((r) => (issue.line as number) >= r.line && (issue.line as number) <= (r.last ?? r.line));
        // A problem on another row of the product is a symptom too (a shifted product row moves
        // its option names, which every variant row is then read against): each widened row is the cause.
        for (const r of row ? [row] : widened) held.set(r.line, r);
        kept += 1;
      }
      /** Every problem found, held back or not (productOf compares counts to know whether a row failed). */
      override get count(): number {
        return issues.count + kept;
      }
    })();
  }

  /** Adds each held row's field-count mismatch to the issues. */
  report(headerFields: number): void {
    for (const row of this.#rows.values())
      this.#issues.add({
        line: row.line,
        message:
          `this row has ${row.fields} fields but the header has ${headerFields}: a comma or quote is ` +
          `extra (an unquoted comma in a value?), so every value after it landed in the wrong ` +
          `column (the extra fields at the end are empty, which hid the shift). Its values fail ` +
          `because of that; fix the row's delimiters first`,
      });
  }
}

/** A problem found while reading records, thrown out of the record loop. */
class IssueThrow extends Error {
  readonly issue: ImportIssue;
  constructor(issue: ImportIssue) {
    super(issue.message);
    this.issue = issue;
  }
}

/** A csv-parse error (an unclosed quote, a stray quote) as an issue with its line. */
function parserIssue(error: unknown, lastLine: number): ImportIssue {
  const e = error as { code?: string; lines?: number; message?: string };
  if (e.code === "CSV_QUOTE_NOT_CLOSED") {
    return {
      line: lastLine + 1,
      message: "a quoted field that starts in this record is never closed: the file ends inside quotes",
    };
  }
  const message = (e.message ?? String(error)).replace(/ at line \d+/, "");
  return { ...(typeof e.lines === "number" ? { line: e.lines } : {}), message: `not valid CSV: ${message}` };
}

function place(row: Row, column: Column, header: readonly string[], at: readonly number[]): Place {
  const i = INDEX[column];
  const c = at[i] ?? -1;
  if (c === -1) return { line: row.line };
  return { line: row.lines?.[i] ?? row.line, column: c + 1, header: header[c] ?? "" };
}

/** Why a product is not imported, from its product row; null when it is active. */
function skipReason(head: Row): string | null {
  const v = (c: Column) => head.values[INDEX[c]]!.trim().toLowerCase();
  if (v("giftCard") === "true" || GIFT_CARD_TYPE.test(v("type"))) return "gift card";
  const status = v("status");
  if (status !== "" && status !== "active") return `status ${status}`;
  if (v("published") === "false") return "not published";
  return null;
}

function productOf(
  handle: string,
  rows: Row[],
  header: readonly string[],
  at: readonly number[],
  issues: IssueList,
  report: ImportReport,
): DraftProduct | null {
  const get = (row: Row, c: Column) => row.values[INDEX[c]]!.trim();
  const where = (row: Row, c: Column) => place(row, c, header, at);
  const head = rows.find((r) => get(r, "title") !== "");
  if (!head) {
    issues.add({ ...where(rows[0]!, "title"), message: `product "${handle}" has no row with a title` });
    return null;
  }
  const reason = skipReason(head);
  if (reason) {
    report.skipped.push({ handle, lines: rows.map((r) => r.line), reason });
    report.skippedRecords += rows.length;
    return null;
  }

  const names = OPTION_NAME.map((i) => head.values[i]!.trim());
  const variantRows = rows.filter(
    (r) => OPTION_VALUE.some((i) => r.values[i]!.trim() !== "") || get(r, "price") !== "" || get(r, "sku") !== "",
  );
  if (variantRows.length === 0) {
    issues.add({
      ...where(head, "price"),
      message: `product "${handle}" has no variant: no row has an option value or a price`,
    });
    return null;
  }
  // Shopify writes a product without options as Option1 Name "Title", Option1 Value "Default
  // Title"; some tools leave both empty, or the name only. A lone option named Title on a single
  // variant is no option either, whatever its value ("Camp Stool").
  const onlyTitle = (isTitleOption(names[0]!) || names[0] === "") && names[1] === "" && names[2] === "";
  const emptyBeyondFirst = variantRows.every((r) =>
    OPTION_VALUE.every((i, o) => o === 0 || r.values[i]!.trim() === ""),
  );
  const allDefault = variantRows.every((r) => ["", "Default Title"].includes(r.values[OPTION_VALUE[0]!]!.trim()));
  const loneTitle = variantRows.length === 1 && isTitleOption(names[0]!) && !allDefault;
  const defaultTitle = onlyTitle && emptyBeyondFirst && (allDefault || loneTitle);
  if (defaultTitle && loneTitle) report.titleOptions.dropped += 1;
  const used = defaultTitle ? [] : [0, 1, 2].filter((o) => names[o] !== "");
  const optionColumns: Column[] = ["option1Value", "option2Value", "option3Value"];

  const variants: DraftVariant[] = [];
  const combos = new Map<string, number>();
  const problems = issues.count;
  for (const row of variantRows) {
    const values: string[] = [];
    for (let o = 0; o < 3; o += 1) {
      const value = row.values[OPTION_VALUE[o]!]!.trim();
      if (used.includes(o)) {
        if (value === "")
          issues.add({
            ...where(row, optionColumns[o]!),
            message: `empty, but the product has the option "${names[o]}"`,
          });
        values.push(value);
      } else if (value !== "" && !defaultTitle) {
        issues.add({
          ...where(row, optionColumns[o]!),
          message: `a value for option ${o + 1}, but the product row (line ${head.line}) names no Option${o + 1} Name`,
        });
      }
    }
    const key = values.join("\u0000");
    const first = combos.get(key);
    if (first !== undefined) {
      const label = used.map((o, k) => `${names[o]} "${values[k]}"`).join(", ") || "Default Title";
      issues.add({
        ...where(row, used.length ? optionColumns[used[0]!]! : "price"),
        message: `duplicate option combination ${label}: line ${first} has the same`,
      });
    } else combos.set(key, row.line);

    const priceText = get(row, "price");
    const price = priceText === "" ? { error: "the price is empty" } : readAmount(priceText, report.currency);
    if ("error" in price) issues.add({ ...where(row, "price"), message: price.error });
    const compareText = get(row, "compareAt");
    let compareAt: string | null = null;
    if (compareText !== "") {
      const read = readAmount(compareText, report.currency);
      if ("error" in read) issues.add({ ...where(row, "compareAt"), message: read.error });
      else compareAt = read.amount;
    }
    const tracked = get(row, "tracker") !== "";
    const policy = get(row, "policy").toLowerCase();
    if (!["", "deny", "continue", "true", "false"].includes(policy)) {
      issues.add({
        ...where(row, "policy"),
        message: `${JSON.stringify(get(row, "policy"))} is not one of deny, continue (or FALSE, TRUE)`,
      });
    }
    // No quantity column, or an empty cell: the stock is unknown, which is not zero.
    let quantity: number | null = null;
    const quantityText = get(row, "quantity");
    if (tracked && quantityText !== "") {
      if (!/^-?\d+(\.0+)?$/.test(quantityText))
        issues.add({ ...where(row, "quantity"), message: `${JSON.stringify(quantityText)} is not a whole number` });
      else if (Math.abs(Number.parseInt(quantityText, 10)) > MAX_STOCK_LEVEL)
        issues.add({
          ...where(row, "quantity"),
          message: `${quantityText} is out of range (at most ${MAX_STOCK_LEVEL} either way)`,
        });
      else quantity = Number.parseInt(quantityText, 10);
    }
    const image = readUrl(get(row, "variantImage"));
    if ("error" in image) issues.add({ ...where(row, "variantImage"), message: image.error });
    // No column or a blank cell: the catalog's defaults (shipped, weight unknown).
    const grams = readGrams(get(row, "grams"));
    if ("error" in grams) issues.add({ ...where(row, "grams"), message: grams.error });
    const shipped = readRequiresShipping(get(row, "requiresShipping"));
    if ("error" in shipped) issues.add({ ...where(row, "requiresShipping"), message: shipped.error });
    if ("error" in price || "error" in grams || "error" in shipped || issues.count > problems) continue;
    const kept = keptCompareAt(price.amount, compareAt, report.currency);
    if (compareAt !== null && kept === null) report.compareAtDropped += 1;
    variants.push({
      values,
      price: price.amount,
      compare_at_price: kept,
      ...stockRule(tracked, policy === "continue" || policy === "true", quantity, at[INDEX.quantity] === -1),
      ...inventoryOf(tracked, policy === "continue" || policy === "true", quantity),
      sku: get(row, "sku") || null,
      image: "url" in image ? image.url : null,
      requires_shipping: shipped.value,
      weight_grams: grams.grams,
    });
  }

  const { images, sources: imageRows } = imagesOf(rows, get, where, issues);
  if (issues.count > problems) return null;
  const seoTitle = get(head, "seoTitle");
  const seoDescription = get(head, "seoDescription");
  const body = head.values[INDEX.body]!;
  return {
    sourceHandle: handle,
    handle: servedHandle(handle),
    lines: rows.map((r) => r.line),
    title: get(head, "title"),
    vendor: get(head, "vendor"),
    product_type: get(head, "type") || get(head, "customType"),
    tags: splitTags(get(head, "tags")),
    optionNames: used.map((o) => names[o]!),
    variants,
    ...(body.trim() !== "" ? { description_html: body } : {}),
    images,
    ...(seoTitle || seoDescription
      ? {
          seo: { ...(seoTitle ? { title: seoTitle } : {}), ...(seoDescription ? { description: seoDescription } : {}) },
        }
      : {}),
    locate(path) {
      const [field, index, sub] = path;
      if (field === "variants" && typeof index === "number") {
        const row = variantRows[index] ?? head;
        const column = VARIANT_FIELD[String(sub)];
        return column ? where(row, column) : { line: row.line };
      }
      if (field === "images" && typeof index === "number")
        return where(imageRows[index] ?? head, sub === "alt" ? "imageAlt" : "imageSrc");
      if (field === "options" && typeof index === "number") {
        const o = used[index] ?? 0;
        return where(
          head,
          sub === "name" ? (["option1Name", "option2Name", "option3Name"] as const)[o]! : optionColumns[o]!,
        );
      }
      if (field === "seo" && index === "description") return where(head, "seoDescription");
      const column = PRODUCT_FIELD[String(field)];
      return column ? where(head, column) : { line: head.line };
    },
  };
}

/** The product's images from every row, by Image Position (rows without one after, in row order), each URL once. */
function imagesOf(
  rows: readonly Row[],
  get: (row: Row, c: Column) => string,
  where: (row: Row, c: Column) => Place,
  issues: IssueList,
): { images: SourceImage[]; sources: Row[] } {
  const found: { url: string; alt: string; position: number; row: Row }[] = [];
  for (const row of rows) {
    const read = readUrl(get(row, "imageSrc"));
    if ("error" in read) {
      issues.add({ ...where(row, "imageSrc"), message: read.error });
      continue;
    }
    if (read.url === null) continue;
    const positionText = get(row, "imagePosition");
    let position = Number.POSITIVE_INFINITY;
    if (positionText !== "") {
      if (/^\d+$/.test(positionText)) position = Number(positionText);
      else
        issues.add({
          ...where(row, "imagePosition"),
          message: `${JSON.stringify(positionText)} is not a whole number`,
        });
    }
    found.push({ url: read.url, alt: get(row, "imageAlt"), position, row });
  }
  found.sort((a, b) => a.position - b.position);
  const seen = new Set<string>();
  const images: SourceImage[] = [];
  const sources: Row[] = [];
  for (const image of found) {
    if (seen.has(image.url)) continue;
    seen.add(image.url);
    images.push({ url: image.url, alt: image.alt || null });
    sources.push(image.row);
  }
  return { images, sources };
}
