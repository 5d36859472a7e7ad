import { Hono } from "hono";
import {
  CollectionHandleParamSchema,
  CollectionListSchema,
  CollectionSchema,
  PageQuerySchema,
} from "../catalog/api.ts";
import { collectionDetail, collectionListPage } from "../catalog/pages.ts";
import { BrowseQuerySchema, FacetsQuerySchema, FacetsSchema, OptionFiltersSchema } from "../browse/api.ts";
import { parseBrowseFacets, parseBrowsePage } from "../browse/query.ts";
import { browseRead } from "../http/browse-read.ts";
import { BROWSE_COST, FACETS_COST, serveBrowsePage, serveFacets } from "./browse-handlers.ts";
import { catalogRead, serveCatalogRead } from "../http/catalog-read.ts";
import type { AppEnv } from "../http/app-env.ts";
import { describe } from "../openapi/describe.ts";
import { errors, QUERY_ERRORS } from "../openapi/errors.ts";
import { CACHING, CATALOG_NOT_MODIFIED, catalogListOk, catalogOk, IF_NONE_MATCH } from "../openapi/responses.ts";
import { SEED_EXAMPLES } from "../openapi/seed-examples.ts";

/** Anonymous collection reads, cached at the edge per catalog version. */
export const collections = new Hono<AppEnv>()
  .get(
    "/",
    describe({
      operationId: "listCollections",
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
    }),
    catalogRead(PageQuerySchema),
    (c) => serveCatalogRead(c, c.req.valid("query"), collectionListPage, { cursor: "handle" }),
  )
  .get(
    "/:handle",
    describe({
      operationId: "getCollection",
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
    }),
    browseRead(parseBrowsePage),
    (c) =>
      serveBrowsePage(c, c.req.valid("query"), { collection: c.req.param("handle") }, (store, meta, q) =>
        collectionDetail(store, meta, c.req.param("handle"), q),
      ),
  )
  .get(
    "/:handle/facets",
    describe({
      operationId: "getCollectionFacets",
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
    }),
    browseRead(parseBrowseFacets),
    (c) => serveFacets(c, c.req.valid("query"), { collection: c.req.param("handle") }),
  );
