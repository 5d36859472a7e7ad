import { VERSION_NAME } from "../version-name.ts";
import * as z from "zod/mini";
import { MoneySchema } from "../money.ts";
import { HandleSchema, handleWithout, VariantIdSchema } from "./fields.ts";

/**
 * Request and response schemas of the catalog endpoints. The routes validate with them, the
 * OpenAPI document is generated from them (their ids, descriptions and examples are in
 * src/routes/reference/schemas/catalog.ts), and the tests check bodies against them.
 *
 * The schemas of answers, which only the reference and the tests parse, are each built by an
 * arrow function called at once and marked `@__PURE__`: the bundler can then leave out of the
 * Worker each one no Worker code uses (docs/decisions/0009-schema-docs-out-of-the-worker.md, "Answers' schemas").
 */

export const ProductIdSchema = /* @__PURE__ */ (() => z.string())();

export const ImageSchema = /* @__PURE__ */ (() =>
  z.object({
    url: z.string(),
    alt: z.nullable(z.string()),
    width: z.nullable(z.int()),
    height: z.nullable(z.int()),
  }))();
export type Image = z.infer<typeof ImageSchema>;

export const FeaturedImageSchema = /* @__PURE__ */ (() => z.optional(z.nullable(ImageSchema)))();

/** Set on a search's second-chance matches only (browse: text.ts SECOND_CHANCE_BELOW). */
export const SecondChanceSchema = /* @__PURE__ */ (() => z.optional(z.literal("partial")))();

/** One product in `GET /products`: the price is the lowest variant price. */
export const ProductListItemSchema = /* @__PURE__ */ (() =>
  z.object({
    id: ProductIdSchema,
    handle: HandleSchema,
    title: z.string(),
    price: MoneySchema,
    available: z.boolean(),
    image: FeaturedImageSchema,
    match: SecondChanceSchema,
  }))();
export type ProductListItem = z.infer<typeof ProductListItemSchema>;

export const ProductOptionSchema = /* @__PURE__ */ (() =>
  z.object({
    name: z.string(),
    label: z.string(),
    values: z.array(z.string()),
  }))();

export const VariantSchema = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal("variant"),
    id: VariantIdSchema,
    gid: z.string(),
    product_handle: HandleSchema,
    title: z.string(),
    options: z.record(z.string(), z.string()),
    price: MoneySchema,
    available: z.boolean(),
    quantity_available: z.optional(z.nullable(z.int().check(z.minimum(0)))),
    sku: z.nullable(z.string()),
    compare_at_price: z.nullable(MoneySchema),
    image: z.nullable(z.string()),
    requires_shipping: z.boolean(),
  }))();
export type Variant = z.infer<typeof VariantSchema>;

export const SeoSchema = /* @__PURE__ */ (() =>
  z.object({
    title: z.string(),
    description: z.nullable(z.string()),
  }))();

export const ProductSchema = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal("product"),
    id: ProductIdSchema,
    handle: HandleSchema,
    title: z.string(),
    vendor: z.string(),
    product_type: z.string(),
    tags: z.array(z.string()),
    available: z.boolean(),
    price: z.object({ min: MoneySchema, max: MoneySchema }),
    variants_count: z.int().check(z.gte(1)),
    options: z.array(ProductOptionSchema),
    description_html: z.optional(z.string()),
    description_text: z.optional(z.string()),
    images: z.optional(z.array(ImageSchema)),
    seo: z.optional(SeoSchema),
    variants: z.optional(z.array(VariantSchema)),
  }))();
export type Product = z.infer<typeof ProductSchema>;

export const CollectionListItemSchema = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal("collection"),
    handle: HandleSchema,
    title: z.string(),
    products_count: z.int().check(z.gte(0)),
  }))();
export type CollectionListItem = z.infer<typeof CollectionListItemSchema>;

export const CollectionProductSchema = /* @__PURE__ */ (() =>
  z.object({
    id: ProductIdSchema,
    handle: HandleSchema,
    title: z.string(),
    price: MoneySchema,
    available: z.boolean(),
    endpoint_status: z.union([z.literal(200), z.literal(404)]),
    url: z.string(),
    image: FeaturedImageSchema,
    match: SecondChanceSchema,
  }))();
export type CollectionProduct = z.infer<typeof CollectionProductSchema>;

/** The Stripe-style list envelope; `count` is the total matching, `data` one page of it. */
function listOf<T extends z.ZodMiniType>(item: T) {
  return z.object({
    object: z.literal("list"),
    count: z.int().check(z.gte(0)),
    data: z.array(item),
    has_more: z.boolean(),
  });
}

/** A list of products a search may answer: `strict_count` when q took the second chance. */
function productListOf<T extends z.ZodMiniType>(item: T) {
  return z.extend(listOf(item), { strict_count: z.optional(z.int().check(z.gte(0))) });
}

export const ProductListSchema = /* @__PURE__ */ productListOf(ProductListItemSchema);
export const VariantListSchema = /* @__PURE__ */ listOf(VariantSchema);
export const CollectionListSchema = /* @__PURE__ */ listOf(CollectionListItemSchema);
export const CollectionProductListSchema = /* @__PURE__ */ productListOf(CollectionProductSchema);

export const CollectionSchema = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal("collection"),
    handle: HandleSchema,
    title: z.string(),
    products_count: z.int().check(z.gte(0)),
    products: CollectionProductListSchema,
  }))();
export type Collection = z.infer<typeof CollectionSchema>;

/** The path parameter of every `/{handle}` route. */
export const HandleParamSchema = /* @__PURE__ */ (() => z.strictObject({ handle: HandleSchema }))();

/** A collection's `{handle}`: its example is a collection of the seed, so "Test Request" finds it. */
export const CollectionHandleParamSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    handle: handleWithout(),
  }))();

// Digits first (a format error, so "ten" reads as parameter_invalid), then the numeric range. The
// OpenAPI document shows the number (`integer`, 1–250, default 50) that a client writes as digits.
export const LimitSchema = z.optional(
  z.pipe(
    z.string().check(z.regex(/^\d{1,4}$/, "an integer from 1 to 250")),
    z.coerce.number<string>().check(z.int(), z.gte(1), z.lte(250)),
  ),
);

function notBoth(query: { starting_after?: string | undefined; ending_before?: string | undefined }): boolean {
  return !(query.starting_after !== undefined && query.ending_before !== undefined);
}
const NOT_BOTH = { message: "starting_after and ending_before cannot be used together", path: ["ending_before"] };

/**
 * The catalog version a client pages (the `X-Catalog-Version` of its first page). With it, a
 * cursor is bound to that version: once another version is live the page answers 409
 * cursor_stale instead of walking a different catalog.
 */
export const CatalogVersionParamSchema = z.optional(
  z.string().check(z.regex(VERSION_NAME, "a catalog version: the X-Catalog-Version of the first page")),
);

const PAGE_SHAPE = {
  limit: LimitSchema,
  catalog_version: CatalogVersionParamSchema,
  starting_after: z.optional(handleWithout()),
  ending_before: z.optional(handleWithout()),
};

/** `limit`, `starting_after`, `ending_before` (handles): every product and collection list. */
export const PageQuerySchema = z.strictObject(PAGE_SHAPE).check(z.refine(notBoth, NOT_BOTH));
export type PageQuery = z.infer<typeof PageQuerySchema>;

/** What `?include=` may name on a product detail. */
export const PRODUCT_INCLUDES = ["description", "images", "seo", "variants"] as const;
export type ProductInclude = (typeof PRODUCT_INCLUDES)[number];
/** What `?include=` may name on a list of products (`GET /products`, a collection's products). */
export const LIST_INCLUDES = ["image"] as const;
export type ListInclude = (typeof LIST_INCLUDES)[number];

/**
 * The grammar of `?include=`, for the parser and the document alike: names from `allowed`
 * joined by commas, spaces allowed around a name; a name given twice counts once.
 */
export function includePattern(allowed: readonly string[]): RegExp {
  const name = ` *(${allowed.join("|")}) *`;
  return new RegExp(`^${name}(,${name})*$`);
}

function includeNames(raw: string): string[] {
  return raw.split(",").map((n) => n.replace(/^ +| +$/g, ""));
}

/** Why a value does not match includePattern, quoting the name at fault. */
export function includeMessage(raw: string, allowed: readonly string[]): string {
  const bad = includeNames(raw).find((n) => !allowed.includes(n)) ?? raw;
  const what = bad === "" ? "an empty name" : JSON.stringify(bad);
  return `${what} cannot be included (comma-separated names from: ${allowed.join(", ")})`;
}

/**
 * `?include=a,b`: comma-separated names from `allowed`, documented as the pattern the parser
 * applies, and rewritten to its canonical form (sorted, without repeats or spaces), so
 * `seo,images` and `images, seo,seo` are one request: one cache key, one body. Read the names with `included`.
 */
export function includeSchema(allowed: readonly string[]) {
  return z.optional(
    z.string().check(
      z.regex(includePattern(allowed), { error: (issue) => includeMessage(String(issue.input), allowed) }),
      z.overwrite((raw) => [...new Set(includeNames(raw))].sort().join(",")),
    ),
  );
}

/** The names of a parsed (canonical) `include`; none when it is absent. */
export function included<T extends string>(include: string | undefined): T[] {
  return include === undefined ? [] : (include.split(",") as T[]);
}

/** `GET /products/{handle}`: only `include`. */
export const ProductQuerySchema = z.strictObject({
  include: includeSchema(PRODUCT_INCLUDES),
});
export type ProductQuery = z.infer<typeof ProductQuerySchema>;

/** The variants endpoint's parameters that are not option selectors. */
export const VARIANT_PAGING_PARAMS = ["limit", "starting_after", "ending_before", "catalog_version"] as const;

const SelectorValueSchema = z.string().check(z.minLength(1), z.maxLength(255));

export const VariantQueryObject = z
  .catchall(
    z.object({
      size: z.optional(SelectorValueSchema),
      color: z.optional(SelectorValueSchema),
      title: z.optional(SelectorValueSchema),
      limit: LimitSchema,
      starting_after: z.optional(VariantIdSchema),
      ending_before: z.optional(VariantIdSchema),
      catalog_version: CatalogVersionParamSchema,
    }),
    // Any other parameter is a selector named by an option's API name (`?material=Oak`); whether
    // the product has that option is known only once it is read (catalog/pages.ts).
    SelectorValueSchema,
  )
  .check(z.refine(notBoth, NOT_BOTH));

/**
 * Selectors and paging of `GET /products/{handle}/variants`; cursors are variant ids. zod
 * assigns catch-all keys onto a plain object, where `__proto__` would vanish instead of being
 * refused, so it is refused first. (The cast keeps the object's input type for `hc`: the
 * preprocess step changes nothing it lets through.)
 */
export const VariantQuerySchema = z.pipe(
  z.transform((input, ctx) => {
    if (typeof input === "object" && input !== null && Object.hasOwn(input, "__proto__")) {
      ctx.issues.push({
        code: "unrecognized_keys",
        keys: ["__proto__"],
        input: input as Record<string, unknown>,
        message: "Unknown parameter",
      });
    }
    return input;
  }),
  VariantQueryObject,
) as unknown as typeof VariantQueryObject;
export type VariantQuery = z.infer<typeof VariantQueryObject>;

export const DEFAULT_LIMIT = 50;

/** Endpoints without query parameters still reject unknown ones (cache keys stay canonical). */
export const NoQuerySchema = z.strictObject({});
