import { Hono } from "hono";
import { PageQuerySchema } from "../catalog/api.ts";
import { collectionDetail, collectionListPage } from "../catalog/pages.ts";
import { catalogRead, serveCatalogRead } from "../http/catalog-read.ts";
import type { AppEnv } from "../http/app-env.ts";

/** Anonymous collection reads, cached at the edge per catalog version (contract section 2). */
export const collections = new Hono<AppEnv>()
  .get("/", catalogRead(PageQuerySchema), (c) => serveCatalogRead(c, c.req.valid("query"), collectionListPage))
  .get("/:handle", catalogRead(PageQuerySchema), (c) =>
    serveCatalogRead(c, c.req.valid("query"), (store, meta, q) => collectionDetail(store, meta, c.req.param("handle"), q)),
  );
