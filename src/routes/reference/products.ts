import type { OperationDoc } from "../../openapi/spec.ts";
import {
  HandleParamSchema,
  ProductListSchema,
  ProductQuerySchema,
  ProductSchema,
  VariantListSchema,
  VariantQuerySchema,
} from "../../catalog/api.ts";
import { BrowseQuerySchema, FacetsQuerySchema, FacetsSchema, OptionFiltersSchema } from "../../browse/api.ts";
import { BROWSE_COST, FACETS_COST } from "../browse-handlers.ts";
import { errors, QUERY_ERRORS } from "../../openapi/errors.ts";
import { CACHING, CATALOG_NOT_MODIFIED, catalogListOk, catalogOk, IF_NONE_MATCH } from "../../openapi/responses.ts";
import { SEED_EXAMPLES } from "../../openapi/seed-examples.ts";

const INCLUDE =
  "`?include=` adds fields after the default ones, comma-separated in any order (one cache " +
  "entry per set): `description` (`description_html`, sanitised at publish to an allowlist " +
  "of formatting tags and attributes, and `description_text`), `images` (`[{url, alt, " +
  "width, height}]`, the first being the featured image), `seo` (`{title, description}`, " +
  "falling back to the title and to the description text cut to 320 characters at a word " +
  "boundary), `variants` (every variant, as the variants endpoint answers them). Without " +
  "include the product has exactly its default fields. An unknown name is 400 " +
  "`parameter_invalid`. Cost: the pointer, the product's shard and, for " +
  "description/images/seo, its content shard: at most 3 KV reads whatever the catalog size.";

/** The OpenAPI description of src/routes/products.ts's operations, by operationId (never in the Worker bundle). */
export const PRODUCTS_DOCS = {
  listProducts: {
    summary: "List products",
    description:
      `Every product in catalog order, sold-out ones included (with \`available: false\`); or, ` +
      `with \`q\`, filters or \`sort\`, the matches in that order (\`count\` is the number of ` +
      `matches). ${BROWSE_COST} ${CACHING}`,
    tag: "Catalog",
    auth: "none",
    query: BrowseQuerySchema,
    queryPattern: { name: "option", schema: OptionFiltersSchema },
    requestHeaders: IF_NONE_MATCH,
    responses: {
      200: catalogListOk("A page of products.", ProductListSchema, {
        page: { summary: "The first two products", value: SEED_EXAMPLES.productList },
      }),
      304: CATALOG_NOT_MODIFIED,
      ...errors(...QUERY_ERRORS, "cursor_stale", "catalog_unavailable", "browse_unavailable"),
    },
  },
  getProductFacets: {
    summary: "Facet counts of products",
    description:
      `Counts for a category page's filters over the whole catalog: vendor, product_type, tag, ` +
      `available and every option name, plus the price range. Counts are disjunctive: each ` +
      `facet applies every active filter but its own, so a count says what choosing that value ` +
      `would give. ${FACETS_COST} ${CACHING}`,
    tag: "Catalog",
    auth: "none",
    query: FacetsQuerySchema,
    queryPattern: { name: "option", schema: OptionFiltersSchema },
    requestHeaders: IF_NONE_MATCH,
    responses: {
      200: catalogOk("The facet counts.", FacetsSchema),
      304: CATALOG_NOT_MODIFIED,
      ...errors(...QUERY_ERRORS, "catalog_unavailable", "browse_unavailable"),
    },
  },
  getProduct: {
    summary: "Get a product",
    description:
      `One product by handle. A sold-out product answers 404 \`sold_out\` (message \`Sold ` +
      `out\`), an unknown handle 404 \`resource_missing\`. ${INCLUDE} ${CACHING}`,
    tag: "Catalog",
    auth: "none",
    params: HandleParamSchema,
    query: ProductQuerySchema,
    requestHeaders: IF_NONE_MATCH,
    responses: {
      200: catalogOk("The product.", ProductSchema, {
        sized: { summary: "A sized product", value: SEED_EXAMPLES.product },
        content: { summary: "?include=description,images,seo", value: SEED_EXAMPLES.productWithContent },
      }),
      304: CATALOG_NOT_MODIFIED,
      ...errors(...QUERY_ERRORS, "resource_missing", "sold_out", "catalog_unavailable"),
    },
  },
  listProductVariants: {
    summary: "List a product's variants",
    description:
      `The variants of a product, each with its \`sku\`, \`compare_at_price\` and \`image\` ` +
      `(null when the catalog has none), filtered by selectors: every option of the product by ` +
      `its API name (\`?size=M&color=Black\`, \`?material=Oak&frame-style=Round\`; the names ` +
      `are in the product's \`options\`), and \`title\`. A parameter that is neither paging ` +
      `nor one of this product's option names (nor \`title\`) is 400 \`parameter_unknown\`; a ` +
      `value outside the option's values 400 \`parameter_invalid\`. Answers 200 for sold-out ` +
      `products too (every variant \`available: false\`), so a storefront can draw a ` +
      `greyed-out picker; an unknown product is 404 \`resource_missing\` before any selector ` +
      `is judged. ${CACHING}`,
    tag: "Catalog",
    auth: "none",
    params: HandleParamSchema,
    query: VariantQuerySchema,
    requestHeaders: IF_NONE_MATCH,
    responses: {
      200: catalogListOk("The matching variants.", VariantListSchema, {
        selected: { summary: "?size=M&color=Black", value: SEED_EXAMPLES.variantList },
      }),
      304: CATALOG_NOT_MODIFIED,
      ...errors(...QUERY_ERRORS, "resource_missing", "cursor_stale", "catalog_unavailable"),
    },
  },
} satisfies Record<string, OperationDoc>;
