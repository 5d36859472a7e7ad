import type { OperationDoc } from "../../openapi/spec.ts";
import {
  CollectionHandleParamSchema,
  CollectionListSchema,
  CollectionSchema,
  PageQuerySchema,
} from "../../catalog/api.ts";
import { BrowseQuerySchema, FacetsQuerySchema, FacetsSchema, OptionFiltersSchema } from "../../browse/api.ts";
import { BROWSE_COST, FACETS_COST } from "../browse-handlers.ts";
import { errors, QUERY_ERRORS } from "../../openapi/errors.ts";
import { CACHING, CATALOG_NOT_MODIFIED, catalogListOk, catalogOk, IF_NONE_MATCH } from "../../openapi/responses.ts";
import { SEED_EXAMPLES } from "../../openapi/seed-examples.ts";

/** The OpenAPI description of src/routes/collections.ts's operations, by operationId (never in the Worker bundle). */
export const COLLECTIONS_DOCS = {
  listCollections: {
    summary: "List collections",
    description: `Every collection in catalog order. ${CACHING}`,
    tag: "Catalog",
    auth: "none",
    query: PageQuerySchema,
    requestHeaders: IF_NONE_MATCH,
    responses: {
      200: catalogListOk("A page of collections.", CollectionListSchema),
      304: CATALOG_NOT_MODIFIED,
      ...errors(...QUERY_ERRORS, "cursor_stale", "catalog_unavailable"),
    },
  },
  getCollection: {
    summary: "Get a collection",
    description:
      `A collection with one page of its products; each says what its product endpoint answers ` +
      `(\`endpoint_status\` 200, or 404 when sold out). The products take the same q, filters ` +
      `and sort as \`GET /products\` (\`sort=catalog\` is the collection's own order; ` +
      `\`count\` is the number of matches, \`products_count\` the collection's size). ` +
      `${BROWSE_COST} ${CACHING}`,
    tag: "Catalog",
    auth: "none",
    params: CollectionHandleParamSchema,
    query: BrowseQuerySchema,
    queryPattern: { name: "option", schema: OptionFiltersSchema },
    requestHeaders: IF_NONE_MATCH,
    responses: {
      200: catalogListOk("The collection and a page of its products.", CollectionSchema, {
        placeholders: { summary: "The collection of the four placeholder products", value: SEED_EXAMPLES.collection },
      }),
      304: CATALOG_NOT_MODIFIED,
      ...errors(...QUERY_ERRORS, "resource_missing", "cursor_stale", "catalog_unavailable", "browse_unavailable"),
    },
  },
  getCollectionFacets: {
    summary: "Facet counts of a collection",
    description:
      `The facets of \`GET /products/facets\` over one collection's products. An unknown ` +
      `collection is 404 \`resource_missing\`. ${FACETS_COST} ${CACHING}`,
    tag: "Catalog",
    auth: "none",
    params: CollectionHandleParamSchema,
    query: FacetsQuerySchema,
    queryPattern: { name: "option", schema: OptionFiltersSchema },
    requestHeaders: IF_NONE_MATCH,
    responses: {
      200: catalogOk("The facet counts.", FacetsSchema),
      304: CATALOG_NOT_MODIFIED,
      ...errors(...QUERY_ERRORS, "resource_missing", "catalog_unavailable", "browse_unavailable"),
    },
  },
} satisfies Record<string, OperationDoc>;
