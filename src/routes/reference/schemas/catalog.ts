/**
 * The OpenAPI documentation of the schemas of src/catalog/: their component ids, descriptions and
 * examples, attached to the schemas themselves (see src/openapi/schema-docs.ts). Node side only.
 */
import { documentSchema } from "../../../openapi/schema-docs.ts";
import {
  CatalogVersionParamSchema,
  CollectionHandleParamSchema,
  CollectionListSchema,
  CollectionProductListSchema,
  ProductListSchema,
  VariantListSchema,
  CollectionListItemSchema,
  CollectionProductSchema,
  CollectionSchema,
  FeaturedImageSchema,
  ImageSchema,
  LimitSchema,
  NoQuerySchema,
  PageQuerySchema,
  ProductIdSchema,
  ProductListItemSchema,
  ProductOptionSchema,
  ProductQuerySchema,
  ProductSchema,
  SecondChanceSchema,
  SeoSchema,
  VariantQueryObject,
  VariantQuerySchema,
  VariantSchema,
} from "../../../catalog/api.ts";
import {
  HandleSchema,
  InventoryPolicySchema,
  SourceCollectionSchema,
  SourceProductSchema,
  SourceVariantSchema,
} from "../../../catalog/schema.ts";
import { ChangeBatchSchema } from "../../../catalog/changes.ts";
import {
  CatalogReleaseSchema,
  CatalogVersionSchema,
  ChangesQuerySchema,
  ReleaseRequestSchema,
  VersionNameSchema,
} from "../../../catalog/changes-api.ts";

/** The field kinds (HTML, plain text, URL), said once and placed on every field they concern. */
const PLAIN = "Plain text as the store wrote it, not HTML: escape it (set it as text) before putting it in a page.";
const URL_KIND =
  "Absolute `https:` URL (`http:` only when the catalog allows it) in WHATWG-normalised " +
  "form, with `'`, `` ` `` and `\\` percent-encoded too: never a quote, `<`, `>`, " +
  "back-tick, backslash or white space.";

// src/catalog/api.ts

documentSchema(ProductIdSchema, {
  description: "Global id: gid://shopify/Product/<digits>.",
  example: "gid://shopify/Product/8012345670100",
});

documentSchema(ImageSchema, {
  id: "Image",
  description: "A product image. The URL is the catalog's own; the API does not host or resize images.",
});

documentSchema(ImageSchema.shape.url, {
  description: URL_KIND,
  example: "https://images.northwind-threads.example/products/essential-crew-tee-black-front.jpg",
});

documentSchema(ImageSchema.shape.alt, { description: `Alternative text; null when the catalog has none. ${PLAIN}` });

documentSchema(ImageSchema.shape.width, { description: "Pixels; null when unknown." });

documentSchema(ImageSchema.shape.height, { description: "Pixels; null when unknown." });

documentSchema(FeaturedImageSchema, {
  description: "Only with `?include=image`: the product's featured (first) image, null when it has none.",
});

documentSchema(SecondChanceSchema, {
  description:
    "Only with `q`, on the second chance's matches: the product matches all of q's words but " +
    "one (q had 2-3 words and fewer than 20 products in the scope matched every word). They come " +
    "after every product matching all the words under `sort=relevance`; absent on those.",
});

documentSchema(ProductListItemSchema, {
  id: "ProductListItem",
  description: "A product in a list. `price` is the lowest variant price.",
});

documentSchema(ProductListItemSchema.shape.title, { description: PLAIN });

documentSchema(ProductOptionSchema, {
  id: "ProductOption",
  description: "An option a product's variants differ by, with the values it takes (at most 3 options).",
});

documentSchema(ProductOptionSchema.shape.name, {
  description:
    `The API name: the catalog's option name in lower case, spaces as hyphens (\`size\`, ` +
    `\`frame-style\`). Selects variants (\`?frame-style=Round\`). ${PLAIN}`,
});

documentSchema(ProductOptionSchema.shape.label, {
  description: `The option name as the catalog spells it, for display (\`Size\`, \`Frame style\`). ${PLAIN}`,
});

documentSchema(ProductOptionSchema.shape.values, {
  description: `The values, in the catalog's order. Each is ${PLAIN.charAt(0).toLowerCase()}${PLAIN.slice(1)}`,
});

documentSchema(VariantSchema, { id: "Variant", description: "One purchasable variant of a product." });

documentSchema(VariantSchema.shape.gid, {
  description: "gid://shopify/ProductVariant/<digits>; accepted wherever a variant id is read.",
});

documentSchema(VariantSchema.shape.title, {
  description:
    `The option values joined by \` / \` in option order (\`M / Black\`, \`Oak / Large / ` +
    `Matte\`), or \`Default Title\`. ${PLAIN}`,
});

documentSchema(VariantSchema.shape.options, {
  description:
    `Option API name to value, e.g. {"size": "M", "color": "Black"}, or {"title": "Default ` +
    `Title"} for a product without options. Names and values are plain text: escape them.`,
});

documentSchema(VariantSchema.shape.available, {
  description:
    "False when the variant or its product is sold out. For a variant whose stock is tracked it follows live stock (section 9.3): within 10 s where the change was made, within the catalog freshness bound everywhere.",
});

documentSchema(VariantSchema.shape.quantity_available, {
  description:
    'Only when the catalog says `"stock_display": "quantity"`: units left to take (live stock, minus units held by open checkouts), null when the variant\'s stock is not tracked. By default stores do not disclose counts and the field is absent.',
});

documentSchema(VariantSchema.shape.sku, {
  description: `The store's stock-keeping unit; null when it has none. ${PLAIN}`,
});

documentSchema(VariantSchema.shape.compare_at_price, {
  description:
    "The price before a reduction, for a struck-through price; only ever above `price` " +
    "(publish drops one that is not), else null.",
});

documentSchema(VariantSchema.shape.image, {
  description: `URL of the variant's own image (e.g. its colour); null when it has none. ${URL_KIND}`,
});

documentSchema(VariantSchema.shape.requires_shipping, {
  description:
    "Whether the variant is shipped (a gift card or a download is not): a cart whose lines all say false needs no destination and no shipping rate (section 10.4). The catalog's `requires_shipping`, true when it does not say.",
});

documentSchema(SeoSchema, {
  id: "Seo",
  description: "What a storefront puts in `<title>` and `<meta name=description>`.",
});

documentSchema(SeoSchema.shape.title, { description: `The catalog's SEO title, else the product title. ${PLAIN}` });

documentSchema(SeoSchema.shape.description, {
  description:
    "The catalog's SEO description (plain text as the store wrote it: escape it), else " +
    "`description_text` cut to at most 320 characters at a word boundary (ending in `…` when " +
    "cut; no `<` or `>` then); null when the product has neither.",
});

documentSchema(ProductSchema, {
  id: "Product",
  description:
    "A product of the catalog. Sold-out products answer 404 sold_out instead. The last five " +
    "fields appear only when `include` asks for them; without it the answer has exactly the " +
    "first eleven.",
});

documentSchema(ProductSchema.shape.title, { description: PLAIN });

documentSchema(ProductSchema.shape.vendor, { description: PLAIN });

documentSchema(ProductSchema.shape.product_type, { description: `May be empty. ${PLAIN}` });

documentSchema(ProductSchema.shape.tags, {
  description: `May be empty. Each tag is ${PLAIN.charAt(0).toLowerCase()}${PLAIN.slice(1)}`,
});

documentSchema(ProductSchema.shape.options, { description: "Empty for single-variant (Default Title) products." });

documentSchema(ProductSchema.shape.description_html, {
  description:
    "Only with `?include=description`. The one HTML field: sanitised when the catalog was " +
    "published, formatting tags only (p, br, headings, lists, emphasis, links, images, " +
    "tables...), no script, style, iframe, event handler, class, inline style, or " +
    "`javascript:`/`data:` URL. Empty when the product has no description.",
});

documentSchema(ProductSchema.shape.description_text, {
  description:
    "Only with `?include=description`: the description as plain text, whitespace collapsed " +
    "(for meta tags and search snippets). It never holds `<` or `>`: each is replaced by `‹` " +
    "or `›` (U+2039, U+203A), so text the store wrote as `&lt;img …&gt;` cannot become a " +
    "tag. Still escape it like any text.",
});

documentSchema(ProductSchema.shape.images, {
  description:
    "Only with `?include=images`: in display order, the first being the featured image; empty when there are none.",
});

documentSchema(ProductSchema.shape.seo, { description: "Only with `?include=seo`." });

documentSchema(ProductSchema.shape.variants, {
  description: "Only with `?include=variants`: every variant, as `GET /products/{handle}/variants` answers them.",
});

documentSchema(CollectionListItemSchema, {
  id: "CollectionListItem",
  description: "A collection in `GET /collections`.",
});

documentSchema(CollectionListItemSchema.shape.title, { description: PLAIN });

documentSchema(CollectionProductSchema, {
  id: "CollectionProduct",
  description: "A product as listed in a collection.",
});

documentSchema(CollectionProductSchema.shape.title, { description: PLAIN });

documentSchema(CollectionProductSchema.shape.endpoint_status, {
  description: "What GET `url` answers: 404 for sold-out products.",
});

documentSchema(CollectionProductSchema.shape.url, { example: "/api/v1/products/essential-crew-tee-black" });

/** What every list envelope says about paging, the Link header included. */
const PAGING =
  'Page on with the `Link` response header: its `rel="next"` URL (and `rel="prev"`) is this ' +
  "request with the cursor and `catalog_version` filled in, absent at the end of the list.";

/** A list of products a search may answer carries `strict_count` when q took the second chance. */
const STRICT_COUNT =
  "Only when q took the second chance (2-3 words, fewer than 20 products in the scope " +
  "matching every word): how many of `count` match every word; the others carry " +
  '`match: "partial"`. Absent otherwise.';

documentSchema(ProductListSchema, { id: "ProductList", description: `A page of products in catalog order. ${PAGING}` });

documentSchema(ProductListSchema.shape.strict_count, { description: STRICT_COUNT });

documentSchema(VariantListSchema, {
  id: "VariantList",
  description: `The variants of a product, filtered by the selectors. ${PAGING}`,
});

documentSchema(CollectionListSchema, {
  id: "CollectionList",
  description: `A page of collections in catalog order. ${PAGING}`,
});

documentSchema(CollectionProductListSchema, {
  id: "CollectionProductList",
  description: `A page of a collection's products. ${PAGING}`,
});

documentSchema(CollectionProductListSchema.shape.strict_count, { description: STRICT_COUNT });

documentSchema(CollectionSchema, {
  id: "Collection",
  description: "A collection with one page of its products (paged by limit/starting_after/ending_before).",
});

documentSchema(CollectionSchema.shape.title, { description: PLAIN });

documentSchema(LimitSchema, { description: "Page size, 1 to 250.", default: 50 });

documentSchema(CatalogVersionParamSchema, {
  description:
    "The catalog version this page belongs to: send the `X-Catalog-Version` of the first " +
    "page with every following page's cursor. When another version is live the answer is 409 " +
    "`cursor_stale`: restart from the first page without it. Without it a cursor is read " +
    "against the live version. Example: `20261124T204000Z-a1b2c3`.",
  // No example: any version written here goes stale at the next publish, and the reference's
  // "Test Request" would send it (409 cursor_stale on first use).
});

documentSchema(CollectionHandleParamSchema.shape.handle, {
  description: "The collection's handle.",
  example: "frontpage",
});

documentSchema(PageQuerySchema.shape.starting_after.def.innerType, {
  description: "Handle of the item the page starts after.",
});

documentSchema(PageQuerySchema.shape.ending_before.def.innerType, {
  description: "Handle of the item the page ends before.",
});

documentSchema(PageQuerySchema, {
  id: "PageQuery",
  description: "Stripe-style cursor paging in catalog order. Unknown parameters are rejected.",
});

documentSchema(ProductQuerySchema, {
  id: "ProductQuery",
  description: "Fields to add to the product. Unknown parameters are rejected.",
});

documentSchema(ProductQuerySchema.shape.include, {
  description:
    "Comma-separated, any subset of `description` (description_html and description_text), " +
    "`images`, `seo`, `variants` (every variant), in any order, spaces allowed around a " +
    "name (the pattern); a name given twice counts once. Each adds its fields; without " +
    "include the product has exactly its default fields. Anything else (an unknown name, " +
    "an empty one) is 400 parameter_invalid, quoting the name at fault.",
  example: "description,images,seo",
});

documentSchema(VariantQueryObject.shape.size, {
  description: "Keep variants of this size (the seed's products; one of the product's `size` values).",
});

documentSchema(VariantQueryObject.shape.color, {
  description: "Keep variants of this color (the seed's products; one of the product's `color` values).",
});

documentSchema(VariantQueryObject.shape.title, {
  description: "Keep the variant with this title (`Default Title`, or the values joined by ` / `).",
});

documentSchema(VariantQueryObject.shape.starting_after, { description: "Variant id the page starts after." });

documentSchema(VariantQueryObject.shape.ending_before, { description: "Variant id the page ends before." });

documentSchema(VariantQuerySchema, {
  id: "VariantQuery",
  description:
    "Option selectors and paging. Every option of the product selects by its API name " +
    "(`?size=M&color=Black`, `?material=Oak&frame-style=Round`). A name that is not one of " +
    "the product's options is 400 parameter_unknown; a value outside the option's values 400 " +
    "parameter_invalid.",
});

documentSchema(NoQuerySchema, { id: "NoQuery", description: "This endpoint takes no query parameters." });

// src/catalog/schema.ts

documentSchema(HandleSchema, {
  id: "Handle",
  description: "URL slug: lower case words joined by hyphens, at most 255 characters.",
  example: "essential-crew-tee-black",
});

documentSchema(InventoryPolicySchema, {
  id: "InventoryPolicy",
  description:
    "`deny` (the default): a tracked variant is sold out once nothing is left. `continue`: it keeps selling when out of stock (Shopify's “Continue selling when out of stock”).",
});

// src/catalog/changes.ts and changes-api.ts (POST /operator/catalog/changes, contract section 11)

documentSchema(ChangeBatchSchema, {
  id: "CatalogChangeBatch",
  description:
    "A change batch: products upserted (in the catalog file's own format, `npm run catalog:publish`'s) " +
    "and deleted by handle, collections upserted and deleted. Every key is optional.",
  example: { upsert: [], delete: ["canvas-market-tote"] },
});

documentSchema(CatalogVersionSchema, {
  id: "CatalogVersion",
  description: "The catalog version a change batch made live, the one it was derived from, and what it named.",
});

documentSchema(ReleaseRequestSchema, {
  id: "CatalogReleaseRequest",
  description:
    "A version `catalog:publish --at` or `catalog:apply --at` wrote and scheduled, and the second it goes live " +
    "(ISO 8601 with its zone), as the history (`catalog:rollback --list`) records it.",
});

documentSchema(CatalogReleaseSchema, {
  id: "CatalogRelease",
  description: "The release the clock is set for: the version and the second it goes live.",
});

documentSchema(ChangesQuerySchema.shape.release_at.def.innerType, {
  description:
    "Schedule the batch: its version is written now and goes live at this second (ISO 8601 with its zone, " +
    "in the future, at most a year ahead), if the version it is derived from is still live then.",
  example: "2026-12-01T09:00:00Z",
});

documentSchema(VersionNameSchema, {
  description:
    "A kept catalog version (`npm run catalog:rollback -- --list` lists them): live, scheduled, or one a " +
    "rollback can return to. Example: `20261124T204000Z-a1b2c3`.",
});

documentSchema(SourceProductSchema, {
  id: "CatalogFileProduct",
  description:
    "A product as the catalog file holds it (seed/catalog.json; `npm run catalog:import` writes it from a " +
    "Shopify export): validated by the publish's schema and checks, its `description_html` sanitised " +
    "before it is served.",
});

documentSchema(SourceVariantSchema, {
  id: "CatalogFileVariant",
  description:
    "A variant as the catalog file holds it: `price` a decimal string in the catalog's currency, " +
    "`inventory_quantity` present when its stock is tracked.",
});

documentSchema(SourceCollectionSchema, {
  id: "CatalogFileCollection",
  description: "A collection as the catalog file holds it: its products by handle, in the order it shows them.",
});
