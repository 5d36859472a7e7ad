import { Hono } from "hono";
import { NoQuerySchema, PageQuerySchema, VariantQuerySchema } from "../catalog/api.ts";
import { productDetail, productListPage, variantList } from "../catalog/pages.ts";
import { serveCatalogRead } from "../catalog/serve.ts";
import type { AppEnv } from "../http/app-env.ts";

/** Anonymous product reads, cached at the edge per catalog version (contract section 2). */
export const products = new Hono<AppEnv>()
  .get("/", (c) => serveCatalogRead(c, { query: PageQuerySchema, body: productListPage }))
  .get("/:handle", (c) => {
    const handle = c.req.param("handle");
    return serveCatalogRead(c, { handle, query: NoQuerySchema, body: (store, meta) => productDetail(store, meta, handle) });
  })
  .get("/:handle/variants", (c) => {
    const handle = c.req.param("handle");
    return serveCatalogRead(c, { handle, query: VariantQuerySchema, body: (store, meta, q) => variantList(store, meta, handle, q) });
  });
