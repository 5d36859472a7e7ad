/**
 * Importing a store's catalog: a Shopify
 * product CSV of either header generation, or Shopify products.json, detected from the content,
 * becomes a catalog in the project's format, valid under the same schema publish uses.
 *
 *     const { catalog, report } = await importCatalog(createReadStream(file), { file });
 *
 * A malformed file throws an ImportError listing each problem with its line and column; nothing
 * is returned, so nothing can be published from it.
 */
import type { SourceCatalog } from "../../catalog/schema.ts";
import { readShopifyCsv } from "./csv.ts";
import { ImportError } from "./errors.ts";
import { readShopifyJson } from "./json.ts";
import { assemble, type ImportFormat, type ImportReport, newReport, STOCK_RULES, type StockRule } from "./model.ts";
import { DEFAULT_CURRENCY, isCurrency } from "../../money.ts";
import { count } from "../../count.ts";

export { ImportError, type ImportIssue, formatIssue } from "./errors.ts";
export type { ImportFormat, ImportReport, SkippedProduct } from "./model.ts";

export interface ImportProgress {
  /** Bytes of the file read so far. */
  bytes: number;
  /** CSV records read so far. */
  records: number;
}

export interface ImportOptions {
  /** The file's name, for messages (and the store name when `store` is not given). */
  file: string;
  /** The store's name: the catalog's `store.name` and the vendor of products without one. */
  store?: string;
  /** Also one collection per product type. */
  collectionsByType?: boolean;
  /** Keep plain `http:` image URLs (the catalog's `allow_http_urls`); without it only `https:` is accepted. */
  allowHttp?: boolean;
  /** ISO 4217 code of the store's prices (checked by the caller; isCurrency). Absent: USD, and the report says so. */
  currency?: string;
  /** Called every 10,000 CSV records and at the end. */
  onProgress?: (progress: ImportProgress) => void;
}

export interface ImportResult {
  catalog: SourceCatalog;
  report: ImportReport;
}

/** The store name a file implies: its base name without the extension. */
export function storeNameOf(file: string): string {
  const base = file.split(/[\\/]/).pop() ?? file;
  return base.replace(/\.[^.]+$/, "").trim() || base || "Store";
}

/**
 * Text of the input with the BOM dropped and every CRLF or lone CR turned into LF (so line
 * numbers are the file's and quoted multi-line HTML keeps plain newlines). Bytes that are not
 * UTF-8 stop the import at their line: a silently mangled title would be worse.
 */
async function* textOf(
  input: string | AsyncIterable<Uint8Array | string>,
  file: string,
  counter: { bytes: number },
): AsyncGenerator<string> {
  const decoder = new TextDecoder("utf-8");
  let first = true;
  let carry = "";
  let line = 1;
  const chunks: AsyncIterable<Uint8Array | string> =
    typeof input === "string"
      ? (async function* () {
          yield input;
        })()
      : input;
  const emit = (raw: string): string => {
    let text = carry + raw;
    carry = "";
    if (first && text !== "") {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      first = false;
    }
    if (text.endsWith("\r")) {
      carry = "\r";
      text = text.slice(0, -1);
    }
    text = text.replace(/\r\n?/g, "\n");
    const bad = text.indexOf("\ufffd");
    if (bad !== -1) {
      const before = text.slice(0, bad);
      const at = line + (before.match(/\n/g)?.length ?? 0);
      throw new ImportError(file, [
        {
          line: at,
          column: bad - before.lastIndexOf("\n"),
          message: 'not UTF-8 text (Shopify exports are UTF-8: export again, or save as "CSV UTF-8")',
        },
      ]);
    }
    line += text.match(/\n/g)?.length ?? 0;
    return text;
  };
  for await (const chunk of chunks) {
    counter.bytes += typeof chunk === "string" ? chunk.length : chunk.byteLength;
    const text = emit(typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true }));
    if (text !== "") yield text;
  }
  const rest = emit(decoder.decode());
  if (rest !== "" || carry !== "") yield rest + (carry ? "\n" : "");
}

/** Reads a store's export and returns the catalog and the report, or throws an ImportError. */
export async function importCatalog(
  input: string | AsyncIterable<Uint8Array | string>,
  opts: ImportOptions,
): Promise<ImportResult> {
  const counter = { bytes: 0 };
  const text = textOf(input, opts.file, counter);
  // Peek until the first character that is not white space: `{` or `[` is JSON, anything else CSV.
  const head: string[] = [];
  let kind: "json" | "csv" | null = null;
  for (;;) {
    const next = await text.next();
    if (next.done) break;
    head.push(next.value);
    const start = next.value.trimStart();
    if (start !== "") {
      kind = start[0] === "{" || start[0] === "[" ? "json" : "csv";
      break;
    }
  }
  if (kind === null) throw new ImportError(opts.file, [{ line: 1, message: "the file is empty" }]);
  const rest = async function* () {
    yield* head;
    yield* text;
  };
  const currency = opts.currency ?? DEFAULT_CURRENCY;
  if (!isCurrency(currency))
    throw new ImportError(opts.file, [
      { message: `${JSON.stringify(currency)} is not an ISO 4217 currency code (USD, EUR, JPY, KWD, ...)` },
    ]);
  const assembleOptions = {
    file: opts.file,
    store: opts.store ?? storeNameOf(opts.file),
    collectionsByType: opts.collectionsByType ?? false,
    allowHttp: opts.allowHttp ?? false,
    currency,
  };
  const given = (report: ImportReport) => {
    report.currencyGiven = opts.currency !== undefined;
    report.currency = currency;
    return report;
  };

  if (kind === "json") {
    const parts: string[] = [];
    for await (const part of rest()) parts.push(part);
    const report = given(newReport(opts.file, "shopify-json"));
    const drafts = readShopifyJson(parts.join(""), { file: opts.file, report });
    opts.onProgress?.({ bytes: counter.bytes, records: report.records });
    return { catalog: assemble(drafts, assembleOptions, report), report };
  }
  const report = given(newReport(opts.file, "shopify-csv-classic"));
  const { generation, drafts } = await readShopifyCsv(rest(), {
    file: opts.file,
    report,
    onRecords: (records) => opts.onProgress?.({ bytes: counter.bytes, records }),
  });
  report.format = (
    {
      classic: "shopify-csv-classic",
      linked: "shopify-csv-linked",
      current: "shopify-csv-current",
    } as const satisfies Record<typeof generation, ImportFormat>
  )[generation];
  return { catalog: assemble(drafts, assembleOptions, report), report };
}

const FORMAT_NAMES: Record<ImportFormat, string> = {
  "shopify-csv-classic": "Shopify product CSV (classic headers: Handle, Option1 Name)",
  "shopify-csv-linked": "Shopify product CSV (2024-26 headers: Handle, Product Category, Option1 Linked To)",
  "shopify-csv-current": "Shopify product CSV (current headers: URL handle, Option1 name)",
  "shopify-json": "Shopify products.json",
};

/** Lines of a run of numbers, shortened: `3, 4, 5, 9` -> `3-5, 9`. */
function ranges(lines: readonly number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < lines.length; i += 1) {
    const start = lines[i]!;
    let end = start;
    while (lines[i + 1] === end + 1) end = lines[++i]!;
    parts.push(end > start ? `${start}-${end}` : String(start));
  }
  return parts.join(", ");
}

/** At most 20 lines of a list, then how many more. */
function listed<T>(items: readonly T[], line: (item: T) => string): string[] {
  const out = items.slice(0, 20).map(line);
  if (items.length > 20) out.push(`  ... and ${items.length - 20} more`);
  return out;
}

/** The report the CLI prints: counts, then every skipped product with its lines and reason. */
export function formatReport(report: ImportReport): string {
  const unit = report.format === "shopify-json" ? "product" : "row";
  const out = [
    `Read ${report.file} as ${FORMAT_NAMES[report.format]}: ${count(report.records, unit)}.`,
    `Imported ${count(report.products, "product")}, ${count(report.variants, "variant")}, ${count(report.images, "image")}.`,
    `Skipped ${count(report.skipped.length, "product")} (${count(report.skippedRecords, unit)})${report.skipped.length ? ":" : "."}`,
    ...report.skipped.map(
      (s) => `  line${s.lines.length > 1 ? "s" : ""} ${ranges(s.lines)}: "${s.handle}" skipped: ${s.reason}`,
    ),
  ];
  const currency = report.currencyGiven
    ? `Prices in ${report.currency}.`
    : `Prices in ${report.currency}: the file names no currency and --currency was not given ` +
      `(pass --currency XXX for the store's ISO 4217 code).`;
  out.push(currency);
  const rules = Object.entries(report.stock) as [StockRule, number][];
  if (rules.length > 0)
    out.push(
      `Availability of the ${count(report.variants, "variant")}, by rule:`,
      ...rules.map(([rule, n]) => `  ${n} ${STOCK_RULES[rule]}`),
    );
  const reasons = new Map<string, number>();
  for (const s of report.soldOut) reasons.set(s.reason, (reasons.get(s.reason) ?? 0) + 1);
  out.push(
    `Sold out: ${report.soldOut.length} of ${count(report.products, "product")}${report.soldOut.length ? ":" : "."}`,
  );
  out.push(...[...reasons].map(([reason, n]) => `  ${n} because ${reason}`));
  out.push(...listed(report.soldOut, (s) => `  line ${ranges(s.lines)}: "${s.handle}" sold out: ${s.reason}`));
  const titles = report.titleOptions;
  if (titles.dropped > 0)
    out.push(
      `${count(titles.dropped, "single-variant product")} had a lone option named Title: imported without options.`,
    );
  if (titles.renamed.length > 0) {
    out.push(
      `${count(titles.renamed.length, "product")} ${titles.renamed.length === 1 ? "has" : "have"} a real option named Title, served as option "title-1" (label "Title"):`,
    );
    out.push(...listed(titles.renamed, (s) => `  line ${ranges(s.lines)}: "${s.handle}"`));
  }
  if (report.compareAtDropped > 0)
    out.push(`Dropped ${report.compareAtDropped} compare-at prices not above their price.`);
  if (report.idCollisions > 0) out.push(`Resolved ${report.idCollisions} derived id collisions.`);
  for (const note of report.notes) out.push(`Note: ${note}`);
  return `${out.join("\n")}\n`;
}
