import { en } from "zod/locales";
import * as z from "zod/mini";
import { CurrencySchema, isCurrency, SourceAmountSchema, sourceAmountIssue } from "../money.ts";

/**
 * The source catalog format: what `seed/catalog.json` and `catalog:generate` produce and what
 * `catalog:publish` accepts. The worker, the CLI and the tests validate with these same schemas,
 * so a catalog that passes here is one the API can serve.
 */

let english: { error: z.core.$ZodErrorMap } | undefined;

/**
 * Parse options that word zod's own issues in English ("Too big: expected array to have <=3
 * items"), as classic zod did by default: operators read them (catalog:publish, catalog:import,
 * the dev server's seed check). zod/mini loads no locale, so without them every such issue says
 * "Invalid input". They are passed per parse, not set with `z.config`, so the locale stays out of
 * the Worker, which never shows zod's wording (http/validate.ts words its own answers).
 */
export function inEnglish(): { error: z.core.$ZodErrorMap } {
  english ??= { error: en().localeError };
  return english;
}

// The fields the Worker reads (handles, variant ids, option names, stock policy) live in
// fields.ts, so the Worker does not carry the whole catalog format; they are re-exported here.
export {
  HandleSchema,
  handleWithout,
  InventoryPolicySchema,
  isHandle,
  MAX_STOCK_LEVEL,
  optionApiName,
  ProductGidSchema,
  VariantIdSchema,
} from "./fields.ts";
export type { InventoryPolicy } from "./fields.ts";
import {
  HandleSchema,
  InventoryPolicySchema,
  MAX_STOCK_LEVEL,
  optionApiName,
  ProductGidSchema,
  VariantIdSchema,
} from "./fields.ts";

/** Names the variants endpoint already reads as parameters, so no option may take them. */
const RESERVED_OPTION_NAMES = new Set(["title", "limit", "starting_after", "ending_before", "include"]);

const OptionValueSchema = z.string().check(z.minLength(1), z.maxLength(255));
/** Longest URL the catalog stores, in its normalised form. */
export const URL_MAX = 2048;

/** A host a URL may name once the WHATWG parser has lower-cased and punycoded it: a DNS name or an IP literal. */
const SAFE_HOST = /^(?:[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?|\[[0-9a-f:.]+\])$/;

/**
 * A catalog URL (an image, a variant image) as it is stored and served, or why it is refused
 *. Parsed by the WHATWG URL parser (what browsers use), it
 * must be absolute `https:`, or `http:` when `allowHttp`, with no user name or password and a
 * host of letters, digits, `-`, `_` and `.` (or an IP literal). The answer is the parser's
 * serialisation (`new URL(raw).href`: scheme and host lower case, punycode, dot segments
 * resolved, spaces, `"`, `<`, `>` and non-ASCII percent-encoded), with `'`, `` ` `` and `\` also
 * percent-encoded, which the serialiser leaves as they are in a path, query or fragment. So a served URL
 * never holds a quote, angle bracket, back-tick, white space or control character, and cannot
 * leave an HTML attribute or start a tag however a client pastes it. Normalising twice changes
 * nothing.
 */
export function normaliseUrl(raw: string, opts: { allowHttp: boolean }): { url: string } | { error: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { error: `${JSON.stringify(raw.slice(0, 200))} is not an absolute URL` };
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    return { error: `${JSON.stringify(url.protocol)} URLs are not allowed: only https:` };
  if (url.protocol === "http:" && !opts.allowHttp)
    return { error: "an http: URL; only https: is allowed unless the catalog sets allow_http_urls" };
  if (url.username !== "" || url.password !== "") return { error: "a URL with a user name or password" };
  if (!SAFE_HOST.test(url.hostname))
    return { error: `the host ${JSON.stringify(url.hostname)} is not a domain name or IP address` };
  const href = url.href.replace(/'/g, "%27").replace(/`/g, "%60").replace(/\\/g, "%5C");
  if (href.length > URL_MAX) return { error: `longer than ${URL_MAX} characters once normalised` };
  return { url: href };
}

/**
 * Any http(s) URL, normalised by normaliseUrl; whether `http:` is allowed is the catalog's
 * `allow_http_urls`, checked with the other cross-record rules (checkUrls).
 */
const UrlSchema = z.string().check(z.maxLength(URL_MAX * 2), (ctx) => {
  // One parse: refused, or replaced by its normalised form (what `.overwrite` does, without a second parse).
  const result = normaliseUrl(ctx.value, { allowHttp: true });
  if ("error" in result) ctx.issues.push({ code: "custom", message: result.error, input: ctx.value });
  else ctx.value = result.url;
});

export const SourceOptionSchema = z.strictObject({
  /** As the source spells it (`Size`, `Frame style`); the API name is derived by optionApiName. */
  name: z.string().check(z.trim(), z.minLength(1), z.maxLength(255)),
  values: z.array(OptionValueSchema).check(z.minLength(1), z.maxLength(2048)),
});
export type SourceOption = z.infer<typeof SourceOptionSchema>;

/** The heaviest variant a catalog may say (1,000 t): a full cart's weight stays far below 2^53 grams. */
export const MAX_WEIGHT_GRAMS = 1_000_000_000;

/** Whether the API shows stock counts (`quantity_available`) or only availability (the default). */
export const StockDisplaySchema = z.enum(["availability", "quantity"]);
export type StockDisplay = z.infer<typeof StockDisplaySchema>;

export const SourceVariantSchema = z.strictObject({
  id: VariantIdSchema,
  /** Option name (as the product spells it) to value; empty for a single-variant (`Default Title`) product. */
  options: z._default(z.record(z.string(), OptionValueSchema), {}),
  price: SourceAmountSchema,
  available: z.boolean(),
  sku: z.optional(z.nullable(z.string().check(z.maxLength(255)))),
  /** Dropped at publish when not above `price`. */
  compare_at_price: z.optional(z.nullable(SourceAmountSchema)),
  image: z.optional(z.nullable(UrlSchema)),
  /**
   * Units in stock: a variant with a quantity is tracked, and its level lives in the Stock
   * objects from the publish on (src/stock). Absent: untracked (unknown stock is not zero).
   */
  inventory_quantity: z.optional(z.int().check(z.minimum(-MAX_STOCK_LEVEL), z.maximum(MAX_STOCK_LEVEL))),
  /** Only meaningful with `inventory_quantity`; `deny` when absent. */
  inventory_policy: z.optional(InventoryPolicySchema),
  /**
   * Whether the variant is shipped (contract 10.4): false for a gift card or a download, which
   * needs no destination and no shipping rate. Absent: true.
   */
  requires_shipping: z.optional(z.boolean()),
  /** The shipping weight in grams, for rates by weight (10.4). Absent: unknown (counts as 0). */
  weight_grams: z.optional(z.int().check(z.minimum(0), z.maximum(MAX_WEIGHT_GRAMS))),
});
export type SourceVariant = z.infer<typeof SourceVariantSchema>;

/**
 * Whether a variant sells by the file: a tracked `deny` variant while its quantity is above 0
 * (its `available` is derived, section 9.3), any other as its `available` says.
 */
export function variantSells(v: SourceVariant): boolean {
  if (v.inventory_quantity !== undefined && v.inventory_policy !== "continue") return v.inventory_quantity > 0;
  return v.available;
}

/**
 * Whether a product sells by the file: one with a tracked variant when any variant sells (stock
 * decides, section 9.3); any other as its `available` says.
 */
export function productSells(p: SourceProduct): boolean {
  if (p.variants.some((v) => v.inventory_quantity !== undefined)) return p.variants.some(variantSells);
  return p.available;
}

export const SourceImageSchema = z.strictObject({
  url: UrlSchema,
  alt: z.optional(z.nullable(z.string().check(z.maxLength(512)))),
  width: z.optional(z.nullable(z.int().check(z.positive()))),
  height: z.optional(z.nullable(z.int().check(z.positive()))),
});
export type SourceImage = z.infer<typeof SourceImageSchema>;

export const SourceProductSchema = z.strictObject({
  id: ProductGidSchema,
  handle: HandleSchema,
  title: z.string().check(z.minLength(1), z.maxLength(255)),
  vendor: z.string().check(z.minLength(1), z.maxLength(255)),
  product_type: z.string().check(z.maxLength(255)),
  tags: z.array(z.string().check(z.minLength(1), z.maxLength(255))).check(z.maxLength(250)),
  available: z.boolean(),
  options: z._default(z.array(SourceOptionSchema).check(z.maxLength(3)), []),
  variants: z.array(SourceVariantSchema).check(z.minLength(1), z.maxLength(2048)),
  /** As the store wrote it: sanitised at publish, never served raw. */
  description_html: z.optional(z.string().check(z.maxLength(512 * 1024))),
  /** In display order; the first is the featured image. */
  images: z.optional(z.array(SourceImageSchema).check(z.maxLength(250))),
  seo: z.optional(
    z.strictObject({
      title: z.optional(z.string().check(z.maxLength(255))),
      description: z.optional(z.string().check(z.maxLength(1024))),
    }),
  ),
  created_at: z.optional(z.iso.datetime({ offset: true })),
});
export type SourceProduct = z.infer<typeof SourceProductSchema>;

export const SourceCollectionSchema = z.strictObject({
  handle: HandleSchema,
  title: z.string().check(z.minLength(1), z.maxLength(255)),
  /** Product handles, in the order the collection shows them. */
  products: z.array(HandleSchema),
});
export type SourceCollection = z.infer<typeof SourceCollectionSchema>;

/** Product handles a route takes for itself: `GET /products/facets` answers facet counts. */
const RESERVED_PRODUCT_HANDLES = new Set(["facets"]);

/** `http:` URLs of a product, refused unless the catalog sets `allow_http_urls` (they are normalised already). */
function checkUrls(
  product: SourceProduct,
  at: (...path: (string | number)[]) => (string | number)[],
  ctx: z.core.$RefinementCtx,
): void {
  const message = "an http: URL; only https: is allowed unless the catalog sets allow_http_urls";
  product.images?.forEach((image, i) => {
    if (image.url.startsWith("http:")) ctx.addIssue({ code: "custom", path: at("images", i, "url"), message });
  });
  product.variants.forEach((variant, v) => {
    if (variant.image?.startsWith("http:")) ctx.addIssue({ code: "custom", path: at("variants", v, "image"), message });
  });
}

function checkProduct(
  product: SourceProduct,
  index: number,
  ctx: z.core.$RefinementCtx,
  variantIds: Set<string>,
  allowHttp: boolean,
): void {
  if (RESERVED_PRODUCT_HANDLES.has(product.handle)) {
    ctx.addIssue({
      code: "custom",
      path: ["products", index, "handle"],
      message: `"${product.handle}" is reserved: GET /products/${product.handle} answers facet counts`,
    });
  }
  const at = (...path: (string | number)[]) => ["products", index, ...path];
  if (!allowHttp) checkUrls(product, at, ctx);
  const names = product.options.map((o) => o.name);
  const apiNames = names.map(optionApiName);
  if (new Set(apiNames).size !== apiNames.length)
    ctx.addIssue({
      code: "custom",
      path: at("options"),
      message: "two options have the same name (case and spaces aside)",
    });
  apiNames.forEach((name, o) => {
    if (RESERVED_OPTION_NAMES.has(name))
      ctx.addIssue({
        code: "custom",
        path: at("options", o, "name"),
        message: `"${name}" is reserved (a query parameter of the variants endpoint)`,
      });
  });
  product.options.forEach((option, o) => {
    if (new Set(option.values).size !== option.values.length) {
      ctx.addIssue({ code: "custom", path: at("options", o, "values"), message: "a value appears twice" });
    }
  });
  if (names.length === 0 && product.variants.length !== 1) {
    ctx.addIssue({
      code: "custom",
      path: at("variants"),
      message: "a product without options has exactly one variant (Default Title)",
    });
  }
  const combos = new Set<string>();
  product.variants.forEach((variant, v) => {
    if (variantIds.has(variant.id))
      ctx.addIssue({
        code: "custom",
        path: at("variants", v, "id"),
        message: `variant id ${variant.id} is used twice`,
      });
    variantIds.add(variant.id);
    const keys = Object.keys(variant.options).sort();
    if (keys.join() !== [...names].sort().join()) {
      ctx.addIssue({
        code: "custom",
        path: at("variants", v, "options"),
        message: `must give exactly the product's options (${names.join(", ") || "none"})`,
      });
      return;
    }
    for (const option of product.options) {
      const value = variant.options[option.name];
      if (value !== undefined && !option.values.includes(value)) {
        ctx.addIssue({
          code: "custom",
          path: at("variants", v, "options", option.name),
          message: `"${value}" is not one of the product's ${option.name} values`,
        });
      }
    }
    const combo = names.map((n) => variant.options[n]).join("\u0000");
    if (combos.has(combo))
      ctx.addIssue({
        code: "custom",
        path: at("variants", v, "options"),
        message: "two variants have the same options",
      });
    combos.add(combo);
  });
  if (product.available && !product.variants.some(variantSells)) {
    ctx.addIssue({
      code: "custom",
      path: at("available"),
      message: "an available product needs at least one available variant",
    });
  }
}

/** Prices in the catalog's currency: no more decimals than its minor units, at most the cap. */
function checkPrices(product: SourceProduct, index: number, currency: string, ctx: z.core.$RefinementCtx): void {
  if (!isCurrency(currency)) return; // the currency field's own issue says why
  product.variants.forEach((variant, v) => {
    for (const field of ["price", "compare_at_price"] as const) {
      const amount = variant[field];
      const issue = amount == null ? null : sourceAmountIssue(amount, currency);
      if (issue) ctx.addIssue({ code: "custom", path: ["products", index, "variants", v, field], message: issue });
    }
  });
}

/**
 * Cross-record rules, a product at a time: unique ids and handles, known and unrepeated collection
 * members. What checkCatalog applies to a whole catalog, for a reader that never holds every
 * product (src/cli/catalog-stream.ts); it keeps the ids and handles seen, not the products.
 */
export class CatalogChecks {
  readonly #handles = new Set<string>();
  readonly #ids = new Set<string>();
  readonly #variantIds = new Set<string>();
  readonly #currency: string;
  readonly #allowHttp: boolean;
  readonly #ctx: z.core.$RefinementCtx;

  constructor(head: { currency: string; allow_http_urls?: boolean | undefined }, ctx: z.core.$RefinementCtx) {
    this.#currency = head.currency;
    this.#allowHttp = head.allow_http_urls === true;
    this.#ctx = ctx;
  }

  product(product: SourceProduct, index: number): void {
    const ctx = this.#ctx;
    if (this.#handles.has(product.handle))
      ctx.addIssue({
        code: "custom",
        path: ["products", index, "handle"],
        message: `handle "${product.handle}" is used twice`,
      });
    if (this.#ids.has(product.id))
      ctx.addIssue({ code: "custom", path: ["products", index, "id"], message: `id ${product.id} is used twice` });
    this.#handles.add(product.handle);
    this.#ids.add(product.id);
    checkProduct(product, index, ctx, this.#variantIds, this.#allowHttp);
    checkPrices(product, index, this.#currency, ctx);
  }

  /** After every product: the collections' members must be products' handles. */
  collections(collections: readonly SourceCollection[]): void {
    const ctx = this.#ctx;
    const collectionHandles = new Set<string>();
    collections.forEach((collection, index) => {
      if (collectionHandles.has(collection.handle)) {
        ctx.addIssue({
          code: "custom",
          path: ["collections", index, "handle"],
          message: `handle "${collection.handle}" is used twice`,
        });
      }
      collectionHandles.add(collection.handle);
      const members = new Set<string>();
      collection.products.forEach((handle, p) => {
        if (!this.#handles.has(handle))
          ctx.addIssue({
            code: "custom",
            path: ["collections", index, "products", p],
            message: `no product has handle "${handle}"`,
          });
        if (members.has(handle))
          ctx.addIssue({
            code: "custom",
            path: ["collections", index, "products", p],
            message: `"${handle}" is listed twice`,
          });
        members.add(handle);
      });
    });
  }
}

/** Cross-record rules: unique ids and handles, known and unrepeated collection members. */
function checkCatalog(
  catalog: {
    currency: string;
    products: readonly SourceProduct[];
    collections: readonly SourceCollection[];
    allow_http_urls?: boolean | undefined;
  },
  ctx: z.core.$RefinementCtx,
): void {
  const checks = new CatalogChecks(catalog, ctx);
  catalog.products.forEach((product, index) => checks.product(product, index));
  checks.collections(catalog.collections);
}

/** One search word (browse-text.ts searchWords): letters and digits, anything else ends it. */
const SearchWordText = z.string().check(z.minLength(1), z.maxLength(100));

/**
 * The catalog's search settings, applied at publish to the browse index (src/publish/browse-index.ts):
 * each synonym group lists words or phrases that mean the same (`["tee", "t-shirt"]`: a product
 * saying either is found by both); stop words are never indexed and are left out of q.
 */
export const SearchSettingsSchema = z.strictObject({
  synonyms: z.optional(
    z
      .array(
        z
          .array(SearchWordText.check(z.regex(/[\p{L}\p{N}]/u, "needs a letter or digit")))
          .check(z.minLength(2), z.maxLength(20)),
      )
      .check(z.maxLength(1000)),
  ),
  stop_words: z.optional(
    z
      .array(SearchWordText.check(z.regex(/^[\p{L}\p{N}]+$/u, "one word of letters and digits")))
      .check(z.maxLength(500)),
  ),
});
export type SearchSettings = z.infer<typeof SearchSettingsSchema>;

const CATALOG_SHAPE = {
  /** ISO 4217; every price of the catalog is in it. */
  currency: CurrencySchema,
  store: z.strictObject({ name: z.string().check(z.minLength(1), z.maxLength(255)) }),
  /** Image URLs may be plain `http:` (else only `https:`); `catalog:import --allow-http` sets it. */
  allow_http_urls: z.optional(z.boolean()),
  products: z.array(SourceProductSchema),
  collections: z._default(z.array(SourceCollectionSchema), []),
  search: z.optional(SearchSettingsSchema),
  /** `quantity`: variants answer `quantity_available`; by default (`availability`) counts stay private. */
  stock_display: z.optional(StockDisplaySchema),
  /**
   * Where the variant ids came from: `store` (the store's own Shopify ids: a products.json or
   * Admin JSON import), `derived` (computed by a CSV import). Absent: not known. Only `store`
   * ids make a Shopify cart permalink for a checkout's hand-off.
   */
  variant_ids: z.optional(z.enum(["store", "derived"])),
};

/** A whole catalog. Cross-record rules (unique ids and handles, known members) live here too. */
export const SourceCatalogSchema = z.strictObject(CATALOG_SHAPE).check(z.superRefine(checkCatalog));
export type SourceCatalog = z.infer<typeof SourceCatalogSchema>;

/** A catalog that failed validation; `issues` name the product (by index and handle) and field. */
export class CatalogValidationError extends Error {
  readonly issues: string[];
  constructor(issues: string[]) {
    super(`The catalog is invalid:\n  ${issues.join("\n  ")}`);
    this.name = "CatalogValidationError";
    this.issues = issues;
  }
}

function handleOf(input: unknown, list: string, index: number): string | undefined {
  if (typeof input !== "object" || input === null) return undefined;
  const items = (input as Record<string, unknown>)[list];
  if (!Array.isArray(items)) return undefined;
  const item: unknown = items[index];
  if (typeof item !== "object" || item === null) return undefined;
  const handle = (item as Record<string, unknown>).handle;
  return typeof handle === "string" ? handle : undefined;
}

/** `products[3] (handle "black-tee").variants[1].price`: where an operator should look. */
export function describePath(input: unknown, path: readonly PropertyKey[]): string {
  let text = "";
  path.forEach((part, i) => {
    if (typeof part === "number") {
      text += `[${part}]`;
      const list = path[i - 1];
      if (i === 1 && (list === "products" || list === "collections")) {
        const handle = handleOf(input, list, part);
        if (handle !== undefined) text += ` (handle ${JSON.stringify(handle)})`;
      }
    } else {
      text += text ? `.${String(part)}` : String(part);
    }
  });
  return text || "(catalog)";
}

/** The catalog with its products left unparsed, for parseByProduct. */
const CatalogShellSchema = z.strictObject({ ...CATALOG_SHAPE, products: z.array(z.unknown()) });

/** Whether zod's output for a valid product equals the product itself (no default filled in, no name trimmed, no URL normalised). */
function isCanonical(raw: unknown, parsed: SourceProduct): boolean {
  const product = raw as {
    options?: { name: string }[];
    variants: { options?: unknown; image?: unknown }[];
    images?: { url: unknown }[];
  };
  return (
    product.options !== undefined &&
    parsed.options.every((o, i) => o.name === product.options?.[i]?.name) &&
    product.variants.every((v, i) => v.options !== undefined && v.image === parsed.variants[i]?.image) &&
    (parsed.images ?? []).every((image, i) => image.url === product.images?.[i]?.url)
  );
}

/**
 * The catalog if it is valid, validated a product at a time; null at the first fault. A valid
 * product that zod would only copy is kept as given, so a valid catalog is not held twice: on
 * 100,000 generated products (Node 24) the whole-catalog parse grew the heap by ~190 MiB and RSS
 * from 484 to 693 MiB; this way by ~70 MiB of garbage, RSS to 560 MiB, in about the same 2.2 s.
 */
function parseByProduct(input: unknown): SourceCatalog | null {
  const shell = CatalogShellSchema.safeParse(input);
  if (!shell.success) return null;
  const products: SourceProduct[] = [];
  for (const raw of shell.data.products) {
    const result = SourceProductSchema.safeParse(raw);
    if (!result.success) return null;
    products.push(isCanonical(raw, result.data) ? (raw as SourceProduct) : result.data);
  }
  const catalog: SourceCatalog = { ...shell.data, products };
  let valid = true;
  checkCatalog(catalog, { addIssue: () => (valid = false) } as unknown as z.core.$RefinementCtx);
  return valid ? catalog : null;
}

/** An issue as an operator reads it: `products[3] (handle "black-tee").title: ...`. */
function issueLine(input: unknown, issue: z.core.$ZodIssue): string {
  const path = issue.code === "unrecognized_keys" ? [...issue.path, issue.keys[0] ?? ""] : issue.path;
  const message = issue.code === "unrecognized_keys" ? "unknown field" : issue.message;
  return `${describePath(input, path)}: ${message}`;
}

/** At most 20 issue lines, then how many more. */
function cappedIssues(lines: readonly string[], total = lines.length): string[] {
  const shown = lines.slice(0, 20);
  if (total > 20) shown.push(`... and ${total - 20} more`);
  return shown;
}

/** Validates a source catalog or throws a CatalogValidationError naming each fault. */
export function parseCatalog(input: unknown): SourceCatalog {
  const valid = parseByProduct(input);
  if (valid) return valid;
  // Something is wrong: the whole-catalog schema names every fault, in its order.
  const result = SourceCatalogSchema.safeParse(input, inEnglish());
  if (result.success) return result.data;
  const issues = result.error.issues.slice(0, 20).map((issue) => issueLine(input, issue));
  throw new CatalogValidationError(cappedIssues(issues, result.error.issues.length));
}

/**
 * The same rules as parseCatalog for a catalog that arrives a product at a time (a file read as a
 * stream, src/cli/catalog-stream.ts): `product` validates one and returns it as parseCatalog
 * would keep it (null if it is invalid), `finish` checks the rest of the catalog once every
 * product was seen and throws a CatalogValidationError naming the first faults. Only ids and
 * handles are kept, never the products. The catalog's `currency` and `allow_http_urls` must be
 * known before its first product (`head`): a file that gives them later is checked whole instead.
 */
export class CatalogStreamCheck {
  /** Faults of the schemas, then of the cross-record rules: as in parseCatalog, the second are told only without the first. */
  readonly #schema = { lines: [] as string[], total: 0 };
  readonly #cross = { lines: [] as string[], total: 0 };
  readonly #checks: CatalogChecks;
  #count = 0;
  /** The product the cross-record issues being added are about, for their `(handle ...)`. */
  #pending: unknown;

  constructor(head: { currency?: unknown; allow_http_urls?: unknown }) {
    this.#checks = new CatalogChecks(
      {
        currency: typeof head.currency === "string" ? head.currency : "",
        allow_http_urls: head.allow_http_urls === true,
      },
      {
        addIssue: (issue: z.core.$ZodIssue) => this.#add(this.#cross, this.#pending, issue),
      } as unknown as z.core.$RefinementCtx,
    );
  }

  #add(to: { lines: string[]; total: number }, raw: unknown, issue: z.core.$ZodIssue): void {
    to.total++;
    if (to.lines.length >= 20) return;
    // describePath finds a product's handle at products[index]: a sparse list holding just it.
    const index = issue.path[1];
    if (issue.path[0] !== "products" || typeof index !== "number") return void to.lines.push(issueLine(raw, issue));
    const products: unknown[] = [];
    products[index] = raw;
    to.lines.push(issueLine({ products }, issue));
  }

  /** Whether any fault was found so far. */
  get failed(): boolean {
    return this.#schema.total + this.#cross.total > 0;
  }

  product(raw: unknown): SourceProduct | null {
    const index = this.#count++;
    const result = SourceProductSchema.safeParse(raw, inEnglish());
    if (!result.success) {
      for (const issue of result.error.issues)
        this.#add(this.#schema, raw, { ...issue, path: ["products", index, ...issue.path] } as z.core.$ZodIssue);
      return null;
    }
    const product = isCanonical(raw, result.data) ? (raw as SourceProduct) : result.data;
    this.#pending = raw;
    this.#checks.product(product, index);
    return product;
  }

  /**
   * The rest of the catalog once every product was seen (`head`: every field, `products` as an
   * empty list if they were given): the same schema as parseCatalog's, the collections' members;
   * throws a CatalogValidationError if anything (a product included) was wrong.
   */
  finish(head: Record<string, unknown>): Omit<SourceCatalog, "products"> {
    const shell = CatalogShellSchema.safeParse(head, inEnglish());
    // The catalog's own fields first; faults of the schemas hide the cross-record ones, as in parseCatalog.
    const own = { lines: [] as string[], total: 0 };
    if (!shell.success) for (const issue of shell.error.issues) this.#add(own, head, issue);
    if (!shell.success || this.#schema.total > 0)
      throw new CatalogValidationError(
        cappedIssues([...own.lines, ...this.#schema.lines], own.total + this.#schema.total),
      );
    this.#pending = head;
    this.#checks.collections(shell.data.collections);
    if (this.#cross.total > 0) throw new CatalogValidationError(cappedIssues(this.#cross.lines, this.#cross.total));
    const { products: _, ...rest } = shell.data;
    return rest;
  }
}
