import { Hono } from "hono";
import { PageQuerySchema } from "../catalog/api.ts";
import { collectionDetail, collectionListPage } from "../catalog/pages.ts";
import { serveCatalogRead } from "../catalog/serve.ts";
import type { AppEnv } from "../http/app-env.ts";

/** Anonymous collection reads, cached at the edge per catalog version (contract section 2). */
export const collections = new Hono<AppEnv>()
  .get("/", (c) => serveCatalogRead(c, { query: PageQuerySchema, body: collectionListPage }))
  .get("/:handle", (c) => {
    const handle = c.req.param("handle");
    return serveCatalogRead(c, { handle, query: PageQuerySchema, body: (store, meta, q) => collectionDetail(store, meta, handle, q) });
  });
