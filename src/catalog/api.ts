import * as z from "zod/mini";
import { MoneySchema } from "../money.ts";
import { HandleSchema, handleWithout, VariantIdSchema } from "./schema.ts";

/**
 * Request and response schemas of the catalog endpoints. The routes validate with them, the
 * OpenAPI document is generated from them, and the tests check bodies against them.
 */

/** The field kinds (HTML, plain text, URL), said once and placed on every field they concern. */
const PLAIN = "Plain text as the store wrote it, not HTML: escape it (set it as text) before putting it in a page.";
const URL_KIND =
  "Absolute `https:` URL (`http:` only when the catalog allows it) in WHATWG-normalised " +
  "form, with `'`, `` ` `` and `\\` percent-encoded too: never a quote, `<`, `>`, " +
  "back-tick, backslash or white space.";

const ProductIdSchema = z.string().register(z.globalRegistry, {
  description: "Global id: gid://shopify/Product/<digits>.",
  example: "gid://shopify/Product/8012345670100",
});

export const ImageSchema = z
  .object({
    url: z.string().register(z.globalRegistry, {
      description: URL_KIND,
      example: "https://images.northwind-threads.example/products/essential-crew-tee-black-front.jpg",
    }),
    alt: z
      .nullable(z.string())
      .register(z.globalRegistry, { description: `Alternative text; null when the catalog has none. ${PLAIN}` }),
    width: z.nullable(z.int()).register(z.globalRegistry, { description: "Pixels; null when unknown." }),
    height: z.nullable(z.int()).register(z.globalRegistry, { description: "Pixels; null when unknown." }),
  })
  .register(z.globalRegistry, {
    id: "Image",
    description: "A product image. The URL is the catalog's own; the API does not host or resize images.",
  });
export type Image = z.infer<typeof ImageSchema>;

const FeaturedImageSchema = z.optional(z.nullable(ImageSchema)).register(z.globalRegistry, {
  description: "Only with `?include=image`: the product's featured (first) image, null when it has none.",
});

/** Set on a search's second-chance matches only (browse: text.ts SECOND_CHANCE_BELOW). */
const SecondChanceSchema = z.optional(z.literal("partial")).register(z.globalRegistry, {
  description:
    "Only with `q`, on the second chance's matches: the product matches all of q's words but " +
    "one (q had 2-3 words and fewer than 20 products in the scope matched every word). They come " +
    "after every product matching all the words under `sort=relevance`; absent on those.",
});

/** One product in `GET /products`: the price is the lowest variant price. */
export const ProductListItemSchema = z
  .object({
    id: ProductIdSchema,
    handle: HandleSchema,
    title: z.string().register(z.globalRegistry, { description: PLAIN }),
    price: MoneySchema,
    available: z.boolean(),
    image: FeaturedImageSchema,
    match: SecondChanceSchema,
  })
  .register(z.globalRegistry, {
    id: "ProductListItem",
    description: "A product in a list. `price` is the lowest variant price.",
  });
export type ProductListItem = z.infer<typeof ProductListItemSchema>;

export const ProductOptionSchema = z
  .object({
    name: z.string().register(z.globalRegistry, {
      description:
        `The API name: the catalog's option name in lower case, spaces as hyphens (\`size\`, ` +
        `\`frame-style\`). Selects variants (\`?frame-style=Round\`). ${PLAIN}`,
    }),
    label: z.string().register(z.globalRegistry, {
      description: `The option name as the catalog spells it, for display (\`Size\`, \`Frame style\`). ${PLAIN}`,
    }),
    values: z.array(z.string()).register(z.globalRegistry, {
      description: `The values, in the catalog's order. Each is ${PLAIN.charAt(0).toLowerCase()}${PLAIN.slice(1)}`,
    }),
  })
  .register(z.globalRegistry, {
    id: "ProductOption",
    description: "An option a product's variants differ by, with the values it takes (at most 3 options).",
  });

export const VariantSchema = z
  .object({
    object: z.literal("variant"),
    id: VariantIdSchema,
    gid: z.string().register(z.globalRegistry, {
      description: "gid://shopify/ProductVariant/<digits>; accepted wherever a variant id is read.",
    }),
    product_handle: HandleSchema,
    title: z.string().register(z.globalRegistry, {
      description:
        `The option values joined by \` / \` in option order (\`M / Black\`, \`Oak / Large / ` +
        `Matte\`), or \`Default Title\`. ${PLAIN}`,
    }),
    options: z.record(z.string(), z.string()).register(z.globalRegistry, {
      description:
        `Option API name to value, e.g. {"size": "M", "color": "Black"}, or {"title": "Default ` +
        `Title"} for a product without options. Names and values are plain text: escape them.`,
    }),
    price: MoneySchema,
    available: z.boolean().register(z.globalRegistry, {
      description:
        "False when the variant or its product is sold out. For a variant whose stock is tracked it follows live stock (section 9.3): within 10 s where the change was made, within the catalog freshness bound everywhere.",
    }),
    quantity_available: z.optional(z.nullable(z.int().check(z.minimum(0)))).register(z.globalRegistry, {
      description:
        'Only when the catalog says `"stock_display": "quantity"`: units left to take (live stock, minus units held by open checkouts), null when the variant\'s stock is not tracked. By default stores do not disclose counts and the field is absent.',
    }),
    sku: z
      .nullable(z.string())
      .register(z.globalRegistry, { description: `The store's stock-keeping unit; null when it has none. ${PLAIN}` }),
    compare_at_price: z.nullable(MoneySchema).register(z.globalRegistry, {
      description:
        "The price before a reduction, for a struck-through price; only ever above `price` " +
        "(publish drops one that is not), else null.",
    }),
    image: z.nullable(z.string()).register(z.globalRegistry, {
      description: `URL of the variant's own image (e.g. its colour); null when it has none. ${URL_KIND}`,
    }),
    requires_shipping: z.boolean().register(z.globalRegistry, {
      description:
        "Whether the variant is shipped (a gift card or a download is not): a cart whose lines all say false needs no destination and no shipping rate (section 10.4). The catalog's `requires_shipping`, true when it does not say.",
    }),
  })
  .register(z.globalRegistry, { id: "Variant", description: "One purchasable variant of a product." });
export type Variant = z.infer<typeof VariantSchema>;

export const SeoSchema = z
  .object({
    title: z
      .string()
      .register(z.globalRegistry, { description: `The catalog's SEO title, else the product title. ${PLAIN}` }),
    description: z.nullable(z.string()).register(z.globalRegistry, {
      description:
        "The catalog's SEO description (plain text as the store wrote it: escape it), else " +
        "`description_text` cut to at most 320 characters at a word boundary (ending in `…` when " +
        "cut; no `<` or `>` then); null when the product has neither.",
    }),
  })
  .register(z.globalRegistry, {
    id: "Seo",
    description: "What a storefront puts in `<title>` and `<meta name=description>`.",
  });

export const ProductSchema = z
  .object({
    object: z.literal("product"),
    id: ProductIdSchema,
    handle: HandleSchema,
    title: z.string().register(z.globalRegistry, { description: PLAIN }),
    vendor: z.string().register(z.globalRegistry, { description: PLAIN }),
    product_type: z.string().register(z.globalRegistry, { description: `May be empty. ${PLAIN}` }),
    tags: z.array(z.string()).register(z.globalRegistry, {
      description: `May be empty. Each tag is ${PLAIN.charAt(0).toLowerCase()}${PLAIN.slice(1)}`,
    }),
    available: z.boolean(),
    price: z.object({ min: MoneySchema, max: MoneySchema }),
    variants_count: z.int().check(z.gte(1)),
    options: z
      .array(ProductOptionSchema)
      .register(z.globalRegistry, { description: "Empty for single-variant (Default Title) products." }),
    description_html: z.optional(z.string()).register(z.globalRegistry, {
      description:
        "Only with `?include=description`. The one HTML field: sanitised when the catalog was " +
        "published, formatting tags only (p, br, headings, lists, emphasis, links, images, " +
        "tables...), no script, style, iframe, event handler, class, inline style, or " +
        "`javascript:`/`data:` URL. Empty when the product has no description.",
    }),
    description_text: z.optional(z.string()).register(z.globalRegistry, {
      description:
        "Only with `?include=description`: the description as plain text, whitespace collapsed " +
        "(for meta tags and search snippets). It never holds `<` or `>`: each is replaced by `‹` " +
        "or `›` (U+2039, U+203A), so text the store wrote as `&lt;img …&gt;` cannot become a " +
        "tag. Still escape it like any text.",
    }),
    images: z.optional(z.array(ImageSchema)).register(z.globalRegistry, {
      description:
        "Only with `?include=images`: in display order, the first being the featured image; empty when there are none.",
    }),
    seo: z.optional(SeoSchema).register(z.globalRegistry, { description: "Only with `?include=seo`." }),
    variants: z.optional(z.array(VariantSchema)).register(z.globalRegistry, {
      description: "Only with `?include=variants`: every variant, as `GET /products/{handle}/variants` answers them.",
    }),
  })
  .register(z.globalRegistry, {
    id: "Product",
    description:
      "A product of the catalog. Sold-out products answer 404 sold_out instead. The last five " +
      "fields appear only when `include` asks for them; without it the answer has exactly the " +
      "first eleven.",
  });
export type Product = z.infer<typeof ProductSchema>;

export const CollectionListItemSchema = z
  .object({
    object: z.literal("collection"),
    handle: HandleSchema,
    title: z.string().register(z.globalRegistry, { description: PLAIN }),
    products_count: z.int().check(z.gte(0)),
  })
  .register(z.globalRegistry, { id: "CollectionListItem", description: "A collection in `GET /collections`." });
export type CollectionListItem = z.infer<typeof CollectionListItemSchema>;

export const CollectionProductSchema = z
  .object({
    id: ProductIdSchema,
    handle: HandleSchema,
    title: z.string().register(z.globalRegistry, { description: PLAIN }),
    price: MoneySchema,
    available: z.boolean(),
    endpoint_status: z
      .union([z.literal(200), z.literal(404)])
      .register(z.globalRegistry, { description: "What GET `url` answers: 404 for sold-out products." }),
    url: z.string().register(z.globalRegistry, { example: "/api/v1/products/essential-crew-tee-black" }),
    image: FeaturedImageSchema,
    match: SecondChanceSchema,
  })
  .register(z.globalRegistry, { id: "CollectionProduct", description: "A product as listed in a collection." });
export type CollectionProduct = z.infer<typeof CollectionProductSchema>;

/** The Stripe-style list envelope; `count` is the total matching, `data` one page of it. */
function listOf<T extends z.ZodMiniType>(item: T, id: string, description: string) {
  return z
    .object({
      object: z.literal("list"),
      count: z.int().check(z.gte(0)),
      data: z.array(item),
      has_more: z.boolean(),
    })
    .register(z.globalRegistry, { id, description: `${description} ${PAGING}` });
}

/** What every list envelope says about paging, the Link header included. */
const PAGING =
  'Page on with the `Link` response header: its `rel="next"` URL (and `rel="prev"`) is this ' +
  "request with the cursor and `catalog_version` filled in, absent at the end of the list.";

/** A list of products a search may answer: `strict_count` when q took the second chance. */
function productListOf<T extends z.ZodMiniType>(item: T, id: string, description: string) {
  return z
    .extend(listOf(item, id, description), {
      strict_count: z.optional(z.int().check(z.gte(0))).register(z.globalRegistry, {
        description:
          "Only when q took the second chance (2-3 words, fewer than 20 products in the scope " +
          "matching every word): how many of `count` match every word; the others carry " +
          '`match: "partial"`. Absent otherwise.',
      }),
    })
    .register(z.globalRegistry, { id, description: `${description} ${PAGING}` });
}

export const ProductListSchema = productListOf(
  ProductListItemSchema,
  "ProductList",
  "A page of products in catalog order.",
);
export const VariantListSchema = listOf(
  VariantSchema,
  "VariantList",
  "The variants of a product, filtered by the selectors.",
);
export const CollectionListSchema = listOf(
  CollectionListItemSchema,
  "CollectionList",
  "A page of collections in catalog order.",
);
export const CollectionProductListSchema = productListOf(
  CollectionProductSchema,
  "CollectionProductList",
  "A page of a collection's products.",
);

export const CollectionSchema = z
  .object({
    object: z.literal("collection"),
    handle: HandleSchema,
    title: z.string().register(z.globalRegistry, { description: PLAIN }),
    products_count: z.int().check(z.gte(0)),
    products: CollectionProductListSchema,
  })
  .register(z.globalRegistry, {
    id: "Collection",
    description: "A collection with one page of its products (paged by limit/starting_after/ending_before).",
  });
export type Collection = z.infer<typeof CollectionSchema>;

/** The path parameter of every `/{handle}` route. */
export const HandleParamSchema = z.strictObject({ handle: HandleSchema });

/** A collection's `{handle}`: its example is a collection of the seed, so "Test Request" finds it. */
export const CollectionHandleParamSchema = z.strictObject({
  handle: handleWithout({ description: "The collection's handle.", example: "frontpage" }),
});

// Digits first (a format error, so "ten" reads as parameter_invalid), then the numeric range. The
// OpenAPI document shows the number (`integer`, 1–250, default 50) that a client writes as digits.
export const LimitSchema = z
  .optional(
    z.pipe(
      z.string().check(z.regex(/^\d{1,4}$/, "an integer from 1 to 250")),
      z.coerce.number<string>().check(z.int(), z.gte(1), z.lte(250)),
    ),
  )
  .register(z.globalRegistry, { description: "Page size, 1 to 250.", default: 50 });

function notBoth(query: { starting_after?: string | undefined; ending_before?: string | undefined }): boolean {
  return !(query.starting_after !== undefined && query.ending_before !== undefined);
}
const NOT_BOTH = { message: "starting_after and ending_before cannot be used together", path: ["ending_before"] };

/**
 * The catalog version a client pages (the `X-Catalog-Version` of its first page). With it, a
 * cursor is bound to that version: once another version is live the page answers 409
 * cursor_stale instead of walking a different catalog.
 */
export const CatalogVersionParamSchema = z
  .optional(
    z.string().check(z.regex(/^[A-Za-z0-9_-]{1,64}$/, "a catalog version: the X-Catalog-Version of the first page")),
  )
  .register(z.globalRegistry, {
    description:
      "The catalog version this page belongs to: send the `X-Catalog-Version` of the first " +
      "page with every following page's cursor. When another version is live the answer is 409 " +
      "`cursor_stale`: restart from the first page without it. Without it a cursor is read " +
      "against the live version. Example: `20261124T204000Z-a1b2c3`.",
    // No example: any version written here goes stale at the next publish, and the reference's
    // "Test Request" would send it (409 cursor_stale on first use).
  });

const PAGE_SHAPE = {
  limit: LimitSchema,
  catalog_version: CatalogVersionParamSchema,
  starting_after: z.optional(handleWithout({ description: "Handle of the item the page starts after." })),
  ending_before: z.optional(handleWithout({ description: "Handle of the item the page ends before." })),
};

/** `limit`, `starting_after`, `ending_before` (handles): every product and collection list. */
export const PageQuerySchema = z
  .strictObject(PAGE_SHAPE)
  .check(z.refine(notBoth, NOT_BOTH))
  .register(z.globalRegistry, {
    id: "PageQuery",
    description: "Stripe-style cursor paging in catalog order. Unknown parameters are rejected.",
  });
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
export function includeSchema(allowed: readonly string[], description: string, example: string) {
  return z
    .optional(
      z.string().check(
        z.regex(includePattern(allowed), { error: (issue) => includeMessage(String(issue.input), allowed) }),
        z.overwrite((raw) => [...new Set(includeNames(raw))].sort().join(",")),
      ),
    )
    .register(z.globalRegistry, { description, example });
}

/** The names of a parsed (canonical) `include`; none when it is absent. */
export function included<T extends string>(include: string | undefined): T[] {
  return include === undefined ? [] : (include.split(",") as T[]);
}

/** `GET /products/{handle}`: only `include`. */
export const ProductQuerySchema = z
  .strictObject({
    include: includeSchema(
      PRODUCT_INCLUDES,
      "Comma-separated, any subset of `description` (description_html and description_text), " +
        "`images`, `seo`, `variants` (every variant), in any order, spaces allowed around a " +
        "name (the pattern); a name given twice counts once. Each adds its fields; without " +
        "include the product has exactly its default fields. Anything else (an unknown name, " +
        "an empty one) is 400 parameter_invalid, quoting the name at fault.",
      "description,images,seo",
    ),
  })
  .register(z.globalRegistry, {
    id: "ProductQuery",
    description: "Fields to add to the product. Unknown parameters are rejected.",
  });
export type ProductQuery = z.infer<typeof ProductQuerySchema>;

/** The variants endpoint's parameters that are not option selectors. */
export const VARIANT_PAGING_PARAMS = ["limit", "starting_after", "ending_before", "catalog_version"] as const;

const SelectorValueSchema = z.string().check(z.minLength(1), z.maxLength(255));

const VariantQueryObject = z
  .catchall(
    z.object({
      size: z.optional(SelectorValueSchema).register(z.globalRegistry, {
        description: "Keep variants of this size (the seed's products; one of the product's `size` values).",
      }),
      color: z.optional(SelectorValueSchema).register(z.globalRegistry, {
        description: "Keep variants of this color (the seed's products; one of the product's `color` values).",
      }),
      title: z.optional(SelectorValueSchema).register(z.globalRegistry, {
        description: "Keep the variant with this title (`Default Title`, or the values joined by ` / `).",
      }),
      limit: LimitSchema,
      starting_after: z
        .optional(VariantIdSchema)
        .register(z.globalRegistry, { description: "Variant id the page starts after." }),
      ending_before: z
        .optional(VariantIdSchema)
        .register(z.globalRegistry, { description: "Variant id the page ends before." }),
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
export const VariantQuerySchema = z
  .pipe(
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
  )
  .register(z.globalRegistry, {
    id: "VariantQuery",
    description:
      "Option selectors and paging. Every option of the product selects by its API name " +
      "(`?size=M&color=Black`, `?material=Oak&frame-style=Round`). A name that is not one of " +
      "the product's options is 400 parameter_unknown; a value outside the option's values 400 " +
      "parameter_invalid.",
  }) as unknown as typeof VariantQueryObject;
export type VariantQuery = z.infer<typeof VariantQueryObject>;

export const DEFAULT_LIMIT = 50;

/** Endpoints without query parameters still reject unknown ones (cache keys stay canonical). */
export const NoQuerySchema = z
  .strictObject({})
  .register(z.globalRegistry, { id: "NoQuery", description: "This endpoint takes no query parameters." });
