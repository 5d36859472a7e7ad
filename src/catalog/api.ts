import * as z from "zod";
import { MoneySchema } from "../money.ts";
import { HandleSchema, VariantIdSchema } from "./schema.ts";

/**
 * Request and response schemas of the catalog endpoints. The routes validate with them, the
 * OpenAPI document is generated from them, and the tests check bodies against them.
 */

const ProductIdSchema = z.string().meta({ description: "Global id: gid://shopify/Product/<digits>.", example: "gid://shopify/Product/8012345670100" });

/** One product in `GET /products`: the price is the lowest variant price. */
export const ProductListItemSchema = z
  .object({
    id: ProductIdSchema,
    handle: HandleSchema,
    title: z.string(),
    price: MoneySchema,
    available: z.boolean(),
  })
  .meta({ id: "ProductListItem", description: "A product in a list. `price` is the lowest variant price." });
export type ProductListItem = z.infer<typeof ProductListItemSchema>;

export const ProductOptionSchema = z
  .object({
    name: z.string().meta({ description: "The API name: the catalog's option name in lower case, spaces as hyphens (`size`, `frame-style`). Selects variants (`?frame-style=Round`)." }),
    label: z.string().meta({ description: "The option name as the catalog spells it, for display (`Size`, `Frame style`)." }),
    values: z.array(z.string()),
  })
  .meta({ id: "ProductOption", description: "An option a product's variants differ by, with the values it takes (at most 3 options)." });

export const ProductSchema = z
  .object({
    object: z.literal("product"),
    id: ProductIdSchema,
    handle: HandleSchema,
    title: z.string(),
    vendor: z.string(),
    product_type: z.string().meta({ description: "May be empty." }),
    tags: z.array(z.string()),
    available: z.boolean(),
    price: z.object({ min: MoneySchema, max: MoneySchema }),
    variants_count: z.int().min(1),
    options: z.array(ProductOptionSchema).meta({ description: "Empty for single-variant (Default Title) products." }),
  })
  .meta({
    id: "Product",
    description: "A product of the catalog. Sold-out products answer 404 sold_out instead.",
  });
export type Product = z.infer<typeof ProductSchema>;

export const VariantSchema = z
  .object({
    object: z.literal("variant"),
    id: VariantIdSchema,
    gid: z.string().meta({ description: "gid://shopify/ProductVariant/<digits>; accepted wherever a variant id is read." }),
    product_handle: HandleSchema,
    title: z.string().meta({ description: "`<size> / <color>` for sized products, `Default Title` otherwise." }),
    options: z.record(z.string(), z.string()).meta({ description: 'e.g. {"size": "M", "color": "Black"} or {"title": "Default Title"}.' }),
    price: MoneySchema,
    available: z.boolean().meta({ description: "False when the variant or its product is sold out." }),
  })
  .meta({ id: "Variant", description: "One purchasable variant of a product." });
export type Variant = z.infer<typeof VariantSchema>;

export const CollectionListItemSchema = z
  .object({
    object: z.literal("collection"),
    handle: HandleSchema,
    title: z.string(),
    products_count: z.int().min(0),
  })
  .meta({ id: "CollectionListItem", description: "A collection in `GET /collections`." });
export type CollectionListItem = z.infer<typeof CollectionListItemSchema>;

export const CollectionProductSchema = z
  .object({
    id: ProductIdSchema,
    handle: HandleSchema,
    title: z.string(),
    price: MoneySchema,
    available: z.boolean(),
    endpoint_status: z.union([z.literal(200), z.literal(404)]).meta({ description: "What GET `url` answers: 404 for sold-out products." }),
    url: z.string().meta({ example: "/api/v1/products/essential-crew-tee-black" }),
  })
  .meta({ id: "CollectionProduct", description: "A product as listed in a collection." });
export type CollectionProduct = z.infer<typeof CollectionProductSchema>;

/** The Stripe-style list envelope; `count` is the total matching, `data` one page of it. */
function listOf<T extends z.ZodType>(item: T, id: string, description: string) {
  return z
    .object({
      object: z.literal("list"),
      count: z.int().min(0),
      data: z.array(item),
      has_more: z.boolean(),
    })
    .meta({ id, description });
}

export const ProductListSchema = listOf(ProductListItemSchema, "ProductList", "A page of products in catalog order.");
export const VariantListSchema = listOf(VariantSchema, "VariantList", "The variants of a product, filtered by the selectors.");
export const CollectionListSchema = listOf(CollectionListItemSchema, "CollectionList", "A page of collections in catalog order.");
export const CollectionProductListSchema = listOf(CollectionProductSchema, "CollectionProductList", "A page of a collection's products.");

export const CollectionSchema = z
  .object({
    object: z.literal("collection"),
    handle: HandleSchema,
    title: z.string(),
    products_count: z.int().min(0),
    products: CollectionProductListSchema,
  })
  .meta({ id: "Collection", description: "A collection with one page of its products (paged by limit/starting_after/ending_before)." });
export type Collection = z.infer<typeof CollectionSchema>;

/** The path parameter of every `/{handle}` route. */
export const HandleParamSchema = z.strictObject({ handle: HandleSchema });

// Digits first (a format error, so "ten" reads as parameter_invalid), then the numeric range. The
// OpenAPI document shows the number (`integer`, 1–250, default 50) that a client writes as digits.
export const LimitSchema = z
  .string()
  .regex(/^\d{1,4}$/, "an integer from 1 to 250")
  .pipe(z.coerce.number<string>().int().min(1).max(250))
  .optional()
  .meta({ description: "Page size, 1 to 250.", default: 50 });

function notBoth(query: { starting_after?: string | undefined; ending_before?: string | undefined }): boolean {
  return !(query.starting_after !== undefined && query.ending_before !== undefined);
}
const NOT_BOTH = { message: "starting_after and ending_before cannot be used together", path: ["ending_before"] };

/** `limit`, `starting_after`, `ending_before` (handles): every product and collection list. */
export const PageQuerySchema = z
  .strictObject({
    limit: LimitSchema,
    starting_after: HandleSchema.optional().meta({ description: "Handle of the item the page starts after." }),
    ending_before: HandleSchema.optional().meta({ description: "Handle of the item the page ends before." }),
  })
  .refine(notBoth, NOT_BOTH)
  .meta({ id: "PageQuery", description: "Stripe-style cursor paging in catalog order. Unknown parameters are rejected." });
export type PageQuery = z.infer<typeof PageQuerySchema>;

/** Selectors and paging of `GET /products/{handle}/variants`; cursors are variant ids. */
export const VariantQuerySchema = z
  .strictObject({
    size: z.string().min(1).max(64).optional().meta({ description: "Keep variants of this size (one of the product's size values)." }),
    color: z.string().min(1).max(64).optional().meta({ description: "Keep variants of this color (one of the product's color values)." }),
    title: z.string().min(1).max(200).optional().meta({ description: "Keep the variant with this title (`Default Title`, or `<size> / <color>`)." }),
    limit: LimitSchema,
    starting_after: VariantIdSchema.optional().meta({ description: "Variant id the page starts after." }),
    ending_before: VariantIdSchema.optional().meta({ description: "Variant id the page ends before." }),
  })
  .refine(notBoth, NOT_BOTH)
  .meta({ id: "VariantQuery", description: "Option selectors and paging. A selector value outside the product's values is 400 parameter_invalid." });
export type VariantQuery = z.infer<typeof VariantQuerySchema>;

export const DEFAULT_LIMIT = 50;

/** Endpoints without query parameters still reject unknown ones (cache keys stay canonical). */
export const NoQuerySchema = z.strictObject({}).meta({ id: "NoQuery", description: "This endpoint takes no query parameters." });
