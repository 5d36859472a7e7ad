import {
  HandleSchema,
  normaliseUrl,
  type SourceCatalog,
  SourceCatalogSchema,
  type SourceCollection,
  SourceCollectionSchema,
  type SourceImage,
  type SourceProduct,
  type SourceVariant,
} from "../../catalog/schema.ts";
import { SourceAmountSchema, toMinor } from "../../money.ts";
import { type ImportIssue, IssueList } from "./errors.ts";
import { describeLoss, descriptionLoss } from "../sanitize.ts";
import { deriveIds, productKey, variantKey } from "./ids.ts";

/**
 * What every reader (Shopify CSV, products.json) produces: products as drafts that still carry
 * where each field came from, then one assembly step shared by all formats (ids, availability,
 * vendor, collections, validation by the catalog schema), so the rules live in one place.
 */

export type ImportFormat = "shopify-csv-classic" | "shopify-csv-current" | "shopify-json";

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
  sku: string | null;
  image: string | null;
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
}

export interface AssembleOptions {
  file: string;
  store: string;
  collectionsByType: boolean;
  /** Plain `http:` image URLs are kept (the catalog's `allow_http_urls`); else only `https:`. */
  allowHttp?: boolean;
}

// --- Field readers shared by the formats -------------------------------------------------------

/** A price as the source wrote it (`25`, `25.5`, `25.50` all mean 2550 cents), or why it is not one. */
export function readAmount(raw: string): { amount: string } | { error: string } {
  const text = raw.trim();
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) return { error: `${JSON.stringify(raw)} is not a price (a decimal number such as 25 or 25.50)` };
  let decimals = match[2];
  if (decimals !== undefined && decimals.length > 2) {
    if (!/^0+$/.test(decimals.slice(2))) return { error: `${JSON.stringify(raw)} has more than two decimals, so it cannot be charged exactly` };
    decimals = decimals.slice(0, 2);
  }
  const whole = (match[1] ?? "").replace(/^0+(?=\d)/, "");
  const amount = decimals === undefined ? whole : `${whole}.${decimals}`;
  if (!SourceAmountSchema.safeParse(amount).success) return { error: `${JSON.stringify(raw)} is above the highest price allowed (9999999.99)` };
  return { amount };
}

/** The compare-at price to keep: none when it is not above the price (a storefront would show a "sale" that is not one). */
export function keptCompareAt(price: string, compareAt: string | null): string | null {
  if (compareAt === null) return null;
  return toMinor(compareAt) > toMinor(price) ? compareAt : null;
}

/**
 * Inventory rule of the contract: available when not tracked, or when it sells on when out of
 * stock, or when some are in stock.
 */
export function inventoryAvailable(tracked: boolean, continueSelling: boolean, quantity: number): boolean {
  return !tracked || continueSelling || quantity > 0;
}

/** Shopify tags: comma-separated, trimmed, empty ones and repeats dropped. */
export function splitTags(text: string): string[] {
  return [...new Set(text.split(",").map((t) => t.trim()).filter((t) => t !== ""))];
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
  const collections: SourceCollection[] = [{ handle: "frontpage", title: "Home page", products: products.map((p) => p.handle) }];
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
 * 100,000-product catalog's parsed copy alone is ~300 MB). What crosses slices is checked here:
 * ids unique over the whole catalog (handles were checked before ids were given).
 */
function validate(products: readonly SourceProduct[], collections: readonly SourceCollection[], drafts: readonly DraftProduct[], opts: AssembleOptions, issues: IssueList): void {
  const store = { name: opts.store };
  for (let start = 0; start < products.length || start === 0; start += SLICE) {
    const slice = products.slice(start, start + SLICE);
    const result = SourceCatalogSchema.safeParse({ currency: "USD", store, ...httpSetting(opts), products: slice, collections: [] });
    if (result.success) continue;
    for (const issue of result.error.issues) {
      const [list, index, ...rest] = issue.path;
      const draft = list === "products" && typeof index === "number" ? drafts[start + index] : undefined;
      const field = issue.code === "unrecognized_keys" ? [...rest, issue.keys[0] ?? ""] : rest;
      const what = (draft ? field : issue.path).map(String).join(".");
      issues.add({ ...(draft ? draft.locate(field) : {}), message: `${what ? `${what}: ` : ""}${issue.message}` });
    }
  }
  const productIds = new Map<string, number>();
  const variantIds = new Map<string, number>();
  products.forEach((p, i) => {
    const at = (path: PropertyKey[]) => drafts[i]?.locate(path) ?? {};
    const other = productIds.get(p.id);
    if (other !== undefined) issues.add({ ...at(["id"]), message: `id ${p.id} is used twice (also by "${products[other]?.handle}")` });
    productIds.set(p.id, i);
    p.variants.forEach((v, k) => {
      const owner = variantIds.get(v.id);
      if (owner !== undefined && owner !== i) issues.add({ ...at(["variants", k, "id"]), message: `variant id ${v.id} is used twice (also by "${products[owner]?.handle}")` });
      variantIds.set(v.id, i);
    });
  });
  for (const c of collections) {
    const result = SourceCollectionSchema.safeParse(c);
    if (!result.success) issues.add({ message: `collection "${c.handle}": ${result.error.issues[0]?.message ?? "invalid"}` });
  }
}

/**
 * Turns drafts into a catalog that the catalog schema accepts, or throws an ImportError naming
 * the line and column of every fault. Ids are kept when the file had them and derived otherwise.
 */
export function assemble(drafts: readonly DraftProduct[], opts: AssembleOptions, report: ImportReport): SourceCatalog {
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
          : `handle "${d.sourceHandle}" becomes "${d.handle}", which product "${other.sourceHandle}" (line ${first.line ?? "?"}) already has`,
      });
    } else byHandle.set(d.handle, d);
    if (d.handle !== d.sourceHandle) report.notes.push(`line ${d.locate([]).line ?? "?"}: handle "${d.sourceHandle}" is not lower case words and hyphens; served as "${d.handle}"`);
  }
  issues.throwIfAny(opts.file);

  const takenProducts = new Set(drafts.flatMap((d) => (d.id ? [d.id] : [])));
  const takenVariants = new Set(drafts.flatMap((d) => d.variants.flatMap((v) => (v.id ? [v.id] : []))));
  const productIds = deriveIds(drafts.filter((d) => !d.id).map((d) => productKey(d.sourceHandle)), takenProducts);
  const variantIds = deriveIds(
    drafts.flatMap((d) => d.variants.filter((v) => !v.id).map((v) => variantKey(d.sourceHandle, v.values))),
    takenVariants,
  );
  report.idCollisions = productIds.collisions + variantIds.collisions;

  let emptyVendors = 0;
  const products = drafts.map((d): SourceProduct => {
    const variants = d.variants.map((v): SourceVariant => ({
      id: v.id ?? variantIds.ids.get(variantKey(d.sourceHandle, v.values)) ?? "",
      options: Object.fromEntries(d.optionNames.map((name, o) => [name, v.values[o] ?? ""])),
      price: v.price,
      available: v.available,
      ...(v.sku !== null ? { sku: v.sku } : {}),
      ...(v.compare_at_price !== null ? { compare_at_price: v.compare_at_price } : {}),
      ...(v.image !== null ? { image: v.image } : {}),
    }));
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
      ...(d.description_html !== undefined && d.description_html.trim() !== "" ? { description_html: d.description_html } : {}),
      ...(d.images.length > 0 ? { images: d.images } : {}),
      ...(d.seo && (d.seo.title !== undefined || d.seo.description !== undefined) ? { seo: d.seo } : {}),
      ...(d.created_at !== undefined ? { created_at: d.created_at } : {}),
    };
  });
  if (emptyVendors > 0) report.notes.push(`${emptyVendors} product(s) had no vendor: given the store name "${opts.store}"`);

  if (products.length === 0) {
    issues.add({ message: `no product to import: the file has ${report.skipped.length} product(s), all skipped (not active, or gift cards)` });
    issues.throwIfAny(opts.file);
  }
  const collections = collectionsOf(products, opts.collectionsByType);
  validate(products, collections, drafts, opts, issues);
  issues.throwIfAny(opts.file);
  const valid: SourceCatalog = { currency: "USD", store: { name: opts.store }, ...httpSetting(opts), products, collections };
  noteDescriptionLoss(products, drafts, report);
  report.products = valid.products.length;
  report.variants = valid.products.reduce((n, p) => n + p.variants.length, 0);
  report.images = valid.products.reduce((n, p) => n + (p.images?.length ?? 0), 0);
  return valid;
}

/**
 * A report note for each product whose description the sanitiser will cut short (an unclosed
 * `<svg>`, `<noscript>`, `<math>`... swallows the rest of it): where it is, and what is lost.
 */
function noteDescriptionLoss(products: readonly SourceProduct[], drafts: readonly DraftProduct[], report: ImportReport): void {
  products.forEach((p, i) => {
    const loss = p.description_html === undefined ? null : descriptionLoss(p.description_html);
    if (loss === null) return;
    const at = drafts[i]?.locate(["description_html"]) ?? {};
    const where = at.line === undefined ? "" : `line ${at.line}${at.column === undefined ? "" : `, column ${at.column}`}: `;
    report.notes.push(`${where}"${p.handle}": ${describeLoss(loss)}`);
  });
}

/** An empty report for a file, filled in by the reader and assembly. */
export function newReport(file: string, format: ImportFormat): ImportReport {
  return { file, format, records: 0, products: 0, variants: 0, images: 0, skipped: [], skippedRecords: 0, compareAtDropped: 0, idCollisions: 0, notes: [] };
}
