import { Hono } from "../http/hono.ts";
import { PageQuerySchema } from "../catalog/api.ts";
import { collectionDetail, collectionListPage } from "../catalog/pages.ts";
import { parseBrowseFacets, parseBrowsePage } from "../browse/query.ts";
import { browseRead } from "../http/browse-read.ts";
import { serveBrowsePage, serveFacets } from "./browse-handlers.ts";
import { catalogRead, serveCatalogRead } from "../http/catalog-read.ts";
import type { AppEnv } from "../http/app-env.ts";
import { describe } from "../openapi/describe.ts";

/** Anonymous collection reads, cached at the edge per catalog version. */
export const collections = new Hono<AppEnv>()
  .get("/", describe("listCollections"), catalogRead(PageQuerySchema), (c) =>
    serveCatalogRead(c, c.req.valid("query"), collectionListPage, { stock: "items", paging: { cursor: "handle" } }),
  )
  .get("/:handle", describe("getCollection"), browseRead(parseBrowsePage), (c) =>
    serveBrowsePage(c, c.req.valid("query"), { collection: c.req.param("handle") }, (store, meta, q) =>
      collectionDetail(store, meta, c.req.param("handle"), q),
    ),
  )
  .get("/:handle/facets", describe("getCollectionFacets"), browseRead(parseBrowseFacets), (c) =>
    serveFacets(c, c.req.valid("query"), { collection: c.req.param("handle") }),
  );
