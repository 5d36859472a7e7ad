import { Hono } from "hono";
import { CollectionListSchema, CollectionSchema, HandleParamSchema, PageQuerySchema } from "../catalog/api.ts";
import { collectionDetail, collectionListPage } from "../catalog/pages.ts";
import { catalogRead, serveCatalogRead } from "../http/catalog-read.ts";
import type { AppEnv } from "../http/app-env.ts";
import { describe } from "../openapi/describe.ts";
import { errors } from "../openapi/errors.ts";
import { CACHING, CATALOG_NOT_MODIFIED, catalogOk, IF_NONE_MATCH } from "../openapi/responses.ts";
import { SEED_EXAMPLES } from "../openapi/seed-examples.ts";

/** Anonymous collection reads, cached at the edge per catalog version (contract section 2). */
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
        200: catalogOk("A page of collections.", CollectionListSchema),
        304: CATALOG_NOT_MODIFIED,
        ...errors([400, 503], ["parameter_unknown", "parameter_invalid"]),
      },
    }),
    catalogRead(PageQuerySchema),
    (c) => serveCatalogRead(c, c.req.valid("query"), collectionListPage),
  )
  .get(
    "/:handle",
    describe({
      operationId: "getCollection",
      summary: "Get a collection",
      description: `A collection with one page of its products; each says what its product endpoint answers (\`endpoint_status\` 200, or 404 when sold out). ${CACHING}`,
      tag: "Catalog",
      auth: "none",
      params: HandleParamSchema,
      query: PageQuerySchema,
      requestHeaders: IF_NONE_MATCH,
      responses: {
        200: catalogOk("The collection and a page of its products.", CollectionSchema, {
          placeholders: { summary: "The collection of the four placeholder products", value: SEED_EXAMPLES.collection },
        }),
        304: CATALOG_NOT_MODIFIED,
        ...errors([400, 404, 503], ["parameter_invalid", "parameter_unknown", "resource_missing"]),
      },
    }),
    catalogRead(PageQuerySchema),
    (c) =>
      serveCatalogRead(c, c.req.valid("query"), (store, meta, q) => collectionDetail(store, meta, c.req.param("handle"), q)),
  );
