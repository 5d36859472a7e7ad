import * as z from "zod/mini";
import { CatalogVersionParamSchema, includeSchema, LIST_INCLUDES, LimitSchema } from "../catalog/api.ts";
import { handleWithout } from "../catalog/fields.ts";

/**
 * The browse parameters of `GET /products`, a collection's products and the facets endpoints,
 * described once: the OpenAPI document shows these schemas (api.ts) and the parser (query.ts)
 * takes its parameter names, which of them repeat, which a facets endpoint refuses, and the
 * values it checks from them.
 */

export const SORTS = ["catalog", "relevance", "price_asc", "price_desc", "title_asc", "title_desc", "newest"] as const;
export type Sort = (typeof SORTS)[number];

/** Filters whose values are matched exactly (case-insensitive), OR within one, AND across. */
export const VALUE_FILTERS = ["vendor", "product_type", "tag"] as const;
export type ValueFilter = (typeof VALUE_FILTERS)[number];

export const MAX_Q_CHARS = 100;
export const MAX_Q_WORDS = 10;
/** Filter values (vendor, product_type, tag, option.*) in all, and distinct option names. */
export const MAX_FILTER_VALUES = 40;
export const MAX_OPTION_FILTERS = 5;
export const MAX_VALUE_CHARS = 255;
export const MAX_LIMIT = 250;
export const DEFAULT_BROWSE_LIMIT = 50;

const repeatable = () => z.optional(z.array(z.string().check(z.minLength(1), z.maxLength(MAX_VALUE_CHARS))));
/** A decimal amount with up to 4 decimals (the most any ISO 4217 currency has). */
const price = z.string().check(z.regex(/^\d{1,9}(\.\d{1,4})?$/));

/** The filters and q: a page and a facets endpoint take these. */
export const FILTER_PARAMETERS = {
  q: z.optional(z.string().check(z.minLength(1), z.maxLength(MAX_Q_CHARS))),
  // Text in the URL, a boolean to a client: the document types it boolean (openapi/json-schema.ts).
  available: z.optional(
    z.pipe(
      z.pipe(
        z.enum(["true", "false"]),
        z.transform((value) => value === "true"),
      ),
      z.boolean(),
    ),
  ),
  // The VALUE_FILTERS.
  vendor: repeatable(),
  product_type: repeatable(),
  tag: repeatable(),
  price_min: z.optional(price),
  price_max: z.optional(price),
};

/** Sort, paging and include: a page takes these, a facets endpoint none of them. */
export const PAGE_PARAMETERS = {
  sort: z.optional(z.enum(SORTS)),
  // The shared limit, so the document shows an integer 1–250, not a string.
  limit: LimitSchema,
  starting_after: z.optional(handleWithout()),
  ending_before: z.optional(handleWithout()),
  include: includeSchema(LIST_INCLUDES),
  catalog_version: CatalogVersionParamSchema,
};

/** Every browse parameter by name (option.<name> aside: api.ts OptionFiltersSchema). */
export const BROWSE_PARAMETERS: Record<string, z.ZodMiniType> = { ...FILTER_PARAMETERS, ...PAGE_PARAMETERS };
