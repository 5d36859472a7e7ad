import {
  HandleSchema,
  inEnglish,
  MAX_WEIGHT_GRAMS,
  normaliseUrl,
  type SourceCatalog,
  SourceCatalogSchema,
  type SourceCollection,
  SourceCollectionSchema,
  type SourceImage,
  type SourceProduct,
  type SourceVariant,
} from "../../catalog/schema.ts";
import {
  DEFAULT_CURRENCY,
  fromMinor,
  MAX_UNIT_MINOR,
  minorDigits,
  SourceAmountSchema,
  sourceAmountIssue,
  toMinor,
} from "../../money.ts";
import { type ImportIssue, IssueList } from "./errors.ts";
import { describeLoss, descriptionLoss } from "../sanitize.ts";
import { deriveIds, productKey, variantKey } from "./ids.ts";
import { count } from "../../count.ts";

/**
 * What every reader (Shopify CSV, products.json) produces: products as drafts that still carry
 * where each field came from, then one assembly step shared by all formats (ids, availability,
 * vendor, collections, validation by the catalog schema), so the rules live in one place.
 */

/**
 * `shopify-csv-linked` is the classic Handle/Option1 Name layout as Shopify has written it since
 * options could be linked to metafields (2024-26: `Product Category`, `Option1 Linked To`).
 */
export type ImportFormat = "shopify-csv-classic" | "shopify-csv-linked" | "shopify-csv-current" | "shopify-json";

/**
 * Why a variant is available or sold out. Counted per rule in the report.
 */
export const STOCK_RULES = {
  explicit: "available as the file says (products.json `available`)",
  explicitSoldOut: "sold out as the file says (products.json `available: false`)",
  untracked: "inventory not tracked: available",
  continues: "continues selling when out of stock: available",
  inStock: "quantity above 0: available",
  noColumn: "stock unknown (the file has no quantity column): available",
  emptyCell: "stock unknown (empty quantity): available",
  soldOut: "quantity 0 or below with policy deny: sold out",
} as const;
export type StockRule = keyof typeof STOCK_RULES;

/** Where a field of a draft is in the source, for messages. */
export type Place = Omit<ImportIssue, "message">;

export interface DraftVariant {
  /** Kept from the file (products.json); derived from the handle and values when absent. */
  id?: string;
  /** Option values in the product's option order; empty for a Default Title product. */
  values: string[];
  price: string;
  compare_at_price: string | null;
  available: boolean;
  /** Which availability rule applied. */
  stock: StockRule;
  /** A tracked variant with a known quantity: kept as `inventory_quantity` (and its policy). */
  inventory?: { quantity: number; policy: "deny" | "continue" };
  sku: string | null;
  image: string | null;
  /** The export's `Variant Requires Shipping` / `requires_shipping`; null when it does not say (true). */
  requires_shipping: boolean | null;
  /** The export's `Variant Grams` / `grams`; null when it does not say. */
  weight_grams: number | null;
}

export interface DraftProduct {
  /** Kept from the file as digits (products.json); derived from the handle when absent. */
  id?: string;
  /** The handle as the store spells it: the key of derived ids. */
  sourceHandle: string;
  /** The handle served (the source one, or its normalised form when it breaks the handle rule). */
  handle: string;
  title: string;
  /** Empty when the source has none: the store name is used. */
  vendor: string;
  product_type: string;
  tags: string[];
  /** As spelled by the source, trimmed. */
  optionNames: string[];
  variants: DraftVariant[];
  description_html?: string;
  images: SourceImage[];
  seo?: { title?: string; description?: string };
  created_at?: string;
  /** Every line of the file the product occupies (CSV), for a report that skips it. */
  lines?: number[];
  /** Where a field is: `[]` is the product, `["variants", 2, "price"]` a variant's price. */
  locate: (path: readonly PropertyKey[]) => Place;
}

export interface SkippedProduct {
  handle: string;
  /** Every line of the file the product occupied (the first for products.json). */
  lines: number[];
  reason: string;
}

/** What an import did, printed on stdout by the CLI. */
export interface ImportReport {
  file: string;
  format: ImportFormat;
  /** CSV records read (header excluded), or products in the JSON file. */
  records: number;
  products: number;
  variants: number;
  images: number;
  skipped: SkippedProduct[];
  /** Rows (CSV) or products (JSON) of the skipped products. */
  skippedRecords: number;
  /** Compare-at prices not above the price, dropped. */
  compareAtDropped: number;
  /** Derived ids that had to be hashed again to stay unique. */
  idCollisions: number;
  /** Anything else an operator should know (renamed handles, empty vendors). */
  notes: string[];
  /** The catalog's ISO 4217 currency, and whether the operator named it (else the default, USD). */
  currency: string;
  currencyGiven: boolean;
  /** Variants per availability rule applied (imported products only). */
  stock: Partial<Record<StockRule, number>>;
  /** Imported products that are sold out (every variant unavailable), with why. */
  soldOut: SkippedProduct[];
  /** Products whose option named Title was dropped (lone, one variant) or renamed `title-1`. */
  titleOptions: { dropped: number; renamed: SkippedProduct[] };
}

export interface AssembleOptions {
  file: string;
  store: string;
  collectionsByType: boolean;
  /** Plain `http:` image URLs are kept (the catalog's `allow_http_urls`); else only `https:`. */
  allowHttp?: boolean;
  /** ISO 4217, already checked. */
  currency: string;
}

// --- Field readers shared by the formats -------------------------------------------------------

/**
 * A price as the source wrote it (`25`, `25.5`, `25.50` all mean 2550 cents), or why it is not
 * one, in the catalog's currency: trailing zeros past its minor units are dropped (`1500.00` JPY
 * is 1500), any other digit there cannot be charged.
 */
export function readAmount(raw: string, currency: string = DEFAULT_CURRENCY): { amount: string } | { error: string } {
  const text = raw.trim();
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) return { error: `${JSON.stringify(raw)} is not a price (a decimal number such as 25 or 25.50)` };
  const digits = minorDigits(currency);
  let decimals = match[2];
  if (decimals !== undefined && decimals.length > digits) {
    const most =
      digits === 2
        ? "more than two decimals"
        : digits === 0
          ? `decimals, which ${currency} has none of`
          : `more than ${count(digits, "decimal")} (${currency})`;
    if (!/^0+$/.test(decimals.slice(digits)))
      return { error: `${JSON.stringify(raw)} has ${most}, so it cannot be charged exactly` };
    decimals = decimals.slice(0, digits);
  }
  const whole = (match[1] ?? "").replace(/^0+(?=\d)/, "");
  const amount = decimals === undefined || decimals === "" ? whole : `${whole}.${decimals}`;
  if (!SourceAmountSchema.safeParse(amount).success || sourceAmountIssue(amount, currency) !== null) {
    return {
      error:
        `${JSON.stringify(raw)} is above the highest price allowed ` +
        `(${fromMinor(MAX_UNIT_MINOR, currency).amount})`,
    };
  }
  return { amount };
}

/** The compare-at price to keep: none when it is not above the price (a storefront would show a "sale" that is not one). */
export function keptCompareAt(
  price: string,
  compareAt: string | null,
  currency: string = DEFAULT_CURRENCY,
): string | null {
  if (compareAt === null) return null;
  return toMinor(compareAt, currency) > toMinor(price, currency) ? compareAt : null;
}

/**
 * Inventory rule of the contract: available when not tracked, or when it sells on when out of
 * stock, or when some are in stock.
 */
export function inventoryAvailable(tracked: boolean, continueSelling: boolean, quantity: number): boolean {
  return !tracked || continueSelling || quantity > 0;
}

/**
 * The rule of the contract (sections 5 and 8) and the reason: not tracked, or continues selling,
 * or a quantity above 0; a quantity that is unknown (`null`: no column, or an empty cell) is not
 * zero, so the variant is available; only a known quantity of 0 or below with policy deny is
 * sold out.
 */
export function stockRule(
  tracked: boolean,
  continueSelling: boolean,
  quantity: number | null,
  noColumn = false,
): { available: boolean; stock: StockRule } {
  if (!tracked) return { available: true, stock: "untracked" };
  if (continueSelling) return { available: true, stock: "continues" };
  if (quantity === null) return { available: true, stock: noColumn ? "noColumn" : "emptyCell" };
  return quantity > 0 ? { available: true, stock: "inStock" } : { available: false, stock: "soldOut" };
}

/**
 * A weight in grams as an export writes it (`450`, `453.592`, or a JSON number), rounded to the
 * nearest gram; null for a blank cell or a missing field (unknown weight).
 */
export function readGrams(raw: unknown): { grams: number | null } | { error: string } {
  if (raw === undefined || raw === null || (typeof raw === "string" && raw.trim() === "")) return { grams: null };
  const text = typeof raw === "number" ? String(raw) : typeof raw === "string" ? raw.trim() : "";
  if (!/^\d+(\.\d+)?$/.test(text))
    return { error: `${JSON.stringify(raw)} is not a weight in grams (a number, 0 or more)` };
  const grams = Math.round(Number(text));
  if (grams > MAX_WEIGHT_GRAMS)
    return { error: `${text} grams is above the heaviest variant allowed (${MAX_WEIGHT_GRAMS})` };
  return { grams };
}

/**
 * `Variant Requires Shipping` as a CSV writes it (`TRUE`, `FALSE`, any case) or a JSON boolean;
 * null for a blank cell or a missing field, which the catalog reads as its default (true).
 */
export function readRequiresShipping(raw: unknown): { value: boolean | null } | { error: string } {
  if (typeof raw === "boolean") return { value: raw };
  if (raw === undefined || raw === null || (typeof raw === "string" && raw.trim() === "")) return { value: null };
  const text = typeof raw === "string" ? raw.trim().toLowerCase() : "";
  if (text === "true") return { value: true };
  if (text === "false") return { value: false };
  return { error: `${JSON.stringify(raw)} is not TRUE or FALSE` };
}

/** A tracked variant's known quantity, kept in the catalog (section 9.3); unknown or untracked: nothing. */
export function inventoryOf(
  tracked: boolean,
  continueSelling: boolean,
  quantity: number | null,
): { inventory: { quantity: number; policy: "deny" | "continue" } } | Record<string, never> {
  if (!tracked || quantity === null) return {};
  return { inventory: { quantity, policy: continueSelling ? "continue" : "deny" } };
}

/** Whether an option name is Shopify's `Title` (any case), which the API serves as `title-1`. */
export function isTitleOption(name: string): boolean {
  return name.trim().toLowerCase() === "title";
}

/** Shopify tags: comma-separated, trimmed, empty ones and repeats dropped. */
export function splitTags(text: string): string[] {
  return [
    ...new Set(
      text
        .split(",")
        .map((t) => t.trim())
        .filter((t) => t !== ""),
    ),
  ];
}

/**
 * An image URL in the catalog's normalised form (normaliseUrl, the schema's own rule), or why it
 * is refused; protocol-relative ones (`//cdn.shopify.com/...`, old exports) become https. Plain
 * `http:` passes here and is refused by the schema unless the import allows it (`--allow-http`).
 */
export function readUrl(raw: string): { url: string | null } | { error: string } {
  let text = raw.trim();
  if (text === "") return { url: null };
  if (text.startsWith("//")) text = `https:${text}`;
  const result = normaliseUrl(text, { allowHttp: true });
  return "error" in result ? { error: `not a URL the catalog can serve: ${result.error}` } : result;
}

/** A handle in the contract's form: accents dropped, lower case, anything else a hyphen. */
export function toHandle(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 255)
    .replace(/-+$/, "");
}

/** The served handle of a source handle: itself when it is valid, else its normalised form. */
export function servedHandle(source: string): string {
  return HandleSchema.safeParse(source).success ? source : toHandle(source);
}

// --- Assembly ----------------------------------------------------------------------------------

function collectionsOf(products: readonly SourceProduct[], byType: boolean): SourceCollection[] {
  const collections: SourceCollection[] = [
    { handle: "frontpage", title: "Home page", products: products.map((p) => p.handle) },
  ];
  if (!byType) return collections;
  const types = new Map<string, string[]>();
  for (const p of products) {
    const type = p.product_type.trim();
    if (type === "") continue;
    const list = types.get(type) ?? [];
    list.push(p.handle);
    types.set(type, list);
  }
  const taken = new Set(["frontpage"]);
  for (const [type, handles] of types) {
    const base = toHandle(type) || "type";
    let handle = base;
    for (let n = 2; taken.has(handle); n += 1) handle = `${base}-${n}`;
    taken.add(handle);
    collections.push({ handle, title: type.slice(0, 255), products: handles });
  }
  return collections;
}

function optionsOf(draft: DraftProduct): SourceProduct["options"] {
  return draft.optionNames.map((name, o) => {
    const values: string[] = [];
    const seen = new Set<string>();
    for (const v of draft.variants) {
      const value = v.values[o];
      if (value !== undefined && !seen.has(value)) {
        seen.add(value);
        values.push(value);
      }
    }
    return { name, values };
  });
}

/** The catalog's `allow_http_urls`, present only when the import allows plain http: URLs. */
function httpSetting(opts: AssembleOptions): { allow_http_urls?: true } {
  return opts.allowHttp ? { allow_http_urls: true } : {};
}

/** Products per validation slice: zod copies what it parses, and a slice's copy dies young. */
const SLICE = 2000;

/**
 * Validates with the catalog schema itself, a slice of products at a time (whole, a
 * 100,000-product catalog's parsed copy alone is ~300 MB). A product the schema refuses cannot
 * be represented (a title over 255 characters, an option named like a query parameter, two
 * options with one API name): it is left out and reported with its line and field, and the rest
 * import. Returns the positions of those products. What crosses slices is
 * checked here: ids unique over the whole catalog (handles were checked before ids were given).
 */
function validate(
  products: readonly SourceProduct[],
  drafts: readonly DraftProduct[],
  opts: AssembleOptions,
  issues: IssueList,
  report: ImportReport,
): Set<number> {
  const store = { name: opts.store };
  const refused = new Map<number, string[]>();
  for (let start = 0; start < products.length || start === 0; start += SLICE) {
    const slice = products.slice(start, start + SLICE);
    const result = SourceCatalogSchema.safeParse(
      {
        currency: opts.currency,
        store,
        ...httpSetting(opts),
        products: slice,
        collections: [],
      },
      inEnglish(),
    );
    if (result.success) continue;
    for (const issue of result.error.issues) {
      const [list, index, ...rest] = issue.path;
      const draft = list === "products" && typeof index === "number" ? drafts[start + index] : undefined;
      const field = issue.code === "unrecognized_keys" ? [...rest, issue.keys[0] ?? ""] : rest;
      const what = (draft ? field : issue.path).map(String).join(".");
      const message = `${what ? `${what}: ` : ""}${issue.message}`;
      if (!draft || typeof index !== "number") {
        issues.add({ message });
        continue;
      }
      const place = draft.locate(field);
      const where =
        place.column !== undefined
          ? `column ${place.column}${place.header !== undefined ? ` ${JSON.stringify(place.header)}` : ""}${place.line !== undefined ? ` (line ${place.line})` : ""}: `
          : place.path !== undefined
            ? `${place.path}: `
            : "";
      const reasons = refused.get(start + index) ?? [];
      reasons.push(`${where}${message}`);
      refused.set(start + index, reasons);
    }
  }
  for (const [index, reasons] of refused) {
    const draft = drafts[index];
    report.skipped.push({
      handle: products[index]?.handle ?? "",
      lines: draft?.lines ?? [draft?.locate([]).line ?? 0],
      reason: `cannot be represented: ${reasons.join("; ")}`,
    });
    report.skippedRecords += draft?.lines?.length ?? 1;
  }
  report.skipped.sort((a, b) => (a.lines[0] ?? 0) - (b.lines[0] ?? 0));
  return new Set(refused.keys());
}

/** Ids unique over the catalog, and valid collections. */
function validateAcross(
  products: readonly SourceProduct[],
  collections: readonly SourceCollection[],
  drafts: readonly DraftProduct[],
  issues: IssueList,
): void {
  const productIds = new Map<string, number>();
  const variantIds = new Map<string, number>();
  products.forEach((p, i) => {
    const at = (path: PropertyKey[]) => drafts[i]?.locate(path) ?? {};
    const other = productIds.get(p.id);
    if (other !== undefined)
      issues.add({ ...at(["id"]), message: `id ${p.id} is used twice (also by "${products[other]?.handle}")` });
    productIds.set(p.id, i);
    p.variants.forEach((v, k) => {
      const owner = variantIds.get(v.id);
      if (owner !== undefined && owner !== i)
        issues.add({
          ...at(["variants", k, "id"]),
          message: `variant id ${v.id} is used twice (also by "${products[owner]?.handle}")`,
        });
      variantIds.set(v.id, i);
    });
  });
  for (const c of collections) {
    const result = SourceCollectionSchema.safeParse(c, inEnglish());
    if (!result.success)
      issues.add({ message: `collection "${c.handle}": ${result.error.issues[0]?.message ?? "invalid"}` });
  }
}

/**
 * Turns drafts into a catalog that the catalog schema accepts, or throws an ImportError naming
 * the line and column of every fault. Ids are kept when the file had them and derived otherwise.
 */
export function assemble(drafts: readonly DraftProduct[], opts: AssembleOptions, report: ImportReport): SourceCatalog {
  report.currency = opts.currency;
  const issues = new IssueList();
  const byHandle = new Map<string, DraftProduct>();
  for (const d of drafts) {
    const other = byHandle.get(d.handle);
    if (other) {
      const first = other.locate([]);
      const same = other.sourceHandle === d.sourceHandle;
      issues.add({
        ...d.locate(["handle"]),
        message: same
          ? `handle "${d.sourceHandle}" is used by two products (the other at line ${first.line ?? "?"})`
          : `handle "${d.sourceHandle}" becomes "${d.handle}", which product "${other.sourceHandle}" ` +
            `(line ${first.line ?? "?"}) already has`,
      });
    } else byHandle.set(d.handle, d);
    if (d.handle !== d.sourceHandle)
      report.notes.push(
        `line ${d.locate([]).line ?? "?"}: handle "${d.sourceHandle}" is not lower case words ` +
          `and hyphens; served as "${d.handle}"`,
      );
  }
  issues.throwIfAny(opts.file);

  const takenProducts = new Set(drafts.flatMap((d) => (d.id ? [d.id] : [])));
  const takenVariants = new Set(drafts.flatMap((d) => d.variants.flatMap((v) => (v.id ? [v.id] : []))));
  const productIds = deriveIds(
    drafts.filter((d) => !d.id).map((d) => productKey(d.sourceHandle)),
    takenProducts,
  );
  const variantIds = deriveIds(
    drafts.flatMap((d) => d.variants.filter((v) => !v.id).map((v) => variantKey(d.sourceHandle, v.values))),
    takenVariants,
  );
  report.idCollisions = productIds.collisions + variantIds.collisions;

  let emptyVendors = 0;
  /** Variants whose id the import derived (a CSV has none): any one means the ids are not the store's. */
  let derivedVariantIds = 0;
  const stock: Partial<Record<StockRule, number>>[] = [];
  const soldOut: (string | null)[] = [];
  const built = drafts.map((d): SourceProduct => {
    const counts: Partial<Record<StockRule, number>> = {};
    for (const v of d.variants) {
      counts[v.stock] = (counts[v.stock] ?? 0) + 1;
      if (v.id === undefined) derivedVariantIds += 1;
    }
    stock.push(counts);
    soldOut.push(d.variants.some((v) => v.available) ? null : soldOutReason(counts));
    if (d.optionNames.some(isTitleOption)) {
      const at = d.locate(["options", d.optionNames.findIndex(isTitleOption), "name"]);
      report.titleOptions.renamed.push({
        handle: d.handle,
        lines: [at.line ?? 0],
        reason: 'an option named Title is served as option "title-1" (label "Title")',
      });
    }
    const variants = d.variants.map(
      (v): SourceVariant => ({
        id: v.id ?? variantIds.ids.get(variantKey(d.sourceHandle, v.values)) ?? "",
        options: Object.fromEntries(d.optionNames.map((name, o) => [name, v.values[o] ?? ""])),
        price: v.price,
        available: v.available,
        ...(v.inventory
          ? {
              inventory_quantity: v.inventory.quantity,
              ...(v.inventory.policy === "continue" ? { inventory_policy: "continue" as const } : {}),
            }
          : {}),
        ...(v.sku !== null ? { sku: v.sku } : {}),
        ...(v.compare_at_price !== null ? { compare_at_price: v.compare_at_price } : {}),
        ...(v.image !== null ? { image: v.image } : {}),
        ...(v.requires_shipping === false ? { requires_shipping: false } : {}),
        ...(v.weight_grams !== null ? { weight_grams: v.weight_grams } : {}),
      }),
    );
    if (d.vendor === "") emptyVendors += 1;
    const options = optionsOf(d);
    d.variants = []; // built; only `locate` is needed from here on
    return {
      id: `gid://shopify/Product/${d.id ?? productIds.ids.get(productKey(d.sourceHandle)) ?? ""}`,
      handle: d.handle,
      title: d.title,
      vendor: d.vendor || opts.store,
      product_type: d.product_type,
      tags: d.tags,
      available: variants.some((v) => v.available),
      options,
      variants,
      ...(d.description_html !== undefined && d.description_html.trim() !== ""
        ? { description_html: d.description_html }
        : {}),
      ...(d.images.length > 0 ? { images: d.images } : {}),
      ...(d.seo && (d.seo.title !== undefined || d.seo.description !== undefined) ? { seo: d.seo } : {}),
      ...(d.created_at !== undefined ? { created_at: d.created_at } : {}),
    };
  });
  if (emptyVendors > 0)
    report.notes.push(`${emptyVendors} product(s) had no vendor: given the store name "${opts.store}"`);

  const refused = validate(built, drafts, opts, issues, report);
  const kept = built.flatMap((_product, i) => (refused.has(i) ? [] : [i]));
  const products = kept.map((i) => built[i]!);
  const keptDrafts = kept.map((i) => drafts[i]!);
  report.titleOptions.renamed = report.titleOptions.renamed.filter(
    (r) => !refused.has(built.findIndex((p) => p.handle === r.handle)),
  );
  for (const i of kept) {
    for (const [rule, n] of Object.entries(stock[i] ?? {}) as [StockRule, number][])
      report.stock[rule] = (report.stock[rule] ?? 0) + n;
    const reason = soldOut[i];
    if (reason) report.soldOut.push({ handle: built[i]!.handle, lines: [drafts[i]?.locate([]).line ?? 0], reason });
  }

  if (products.length === 0) {
    issues.add({
      message:
        `no product to import: the file has ${report.skipped.length} product(s), all skipped ` +
        `(${report.skipped.some((k) => k.reason.startsWith("cannot be represented")) ? "not active, gift cards, or not representable" : "not active, or gift cards"})`,
    });
    issues.throwIfAny(opts.file);
  }
  const collections = collectionsOf(products, opts.collectionsByType);
  validateAcross(products, collections, keptDrafts, issues);
  issues.throwIfAny(opts.file);
  const valid: SourceCatalog = {
    currency: opts.currency,
    store: { name: opts.store },
    ...httpSetting(opts),
    // Where the variant ids came from: only the store's own ids make a Shopify cart permalink.
    variant_ids: derivedVariantIds === 0 ? "store" : "derived",
    products,
    collections,
  };
  noteDescriptionLoss(products, keptDrafts, report);
  report.products = valid.products.length;
  report.variants = valid.products.reduce((n, p) => n + p.variants.length, 0);
  report.images = valid.products.reduce((n, p) => n + (p.images?.length ?? 0), 0);
  return valid;
}

/**
 * A report note for each product whose description the sanitiser will cut short (an unclosed
 * `<svg>`, `<noscript>`, `<math>`... swallows the rest of it): where it is, and what is lost.
 */
function noteDescriptionLoss(
  products: readonly SourceProduct[],
  drafts: readonly DraftProduct[],
  report: ImportReport,
): void {
  products.forEach((p, i) => {
    const loss = p.description_html === undefined ? null : descriptionLoss(p.description_html);
    if (loss === null) return;
    const at = drafts[i]?.locate(["description_html"]) ?? {};
    const where =
      at.line === undefined ? "" : `line ${at.line}${at.column === undefined ? "" : `, column ${at.column}`}: `;
    report.notes.push(`${where}"${p.handle}": ${describeLoss(loss)}`);
  });
}

/** An empty report for a file, filled in by the reader and assembly. */
export function newReport(file: string, format: ImportFormat): ImportReport {
  return {
    file,
    format,
    records: 0,
    products: 0,
    variants: 0,
    images: 0,
    skipped: [],
    skippedRecords: 0,
    compareAtDropped: 0,
    idCollisions: 0,
    notes: [],
    currency: "USD",
    currencyGiven: false,
    stock: {},
    soldOut: [],
    titleOptions: { dropped: 0, renamed: [] },
  };
}

/** Why a product none of whose variants is available is sold out, from its variants' rules. */
function soldOutReason(counts: Partial<Record<StockRule, number>>): string {
  const rules = Object.keys(counts) as StockRule[];
  if (rules.length === 1 && rules[0] === "explicitSoldOut") return "the file says available: false for every variant";
  if (rules.length === 1 && rules[0] === "soldOut") return "every variant has quantity 0 or below with policy deny";
  return `every variant is sold out (${rules.map((r) => STOCK_RULES[r]).join("; ")})`;
}
