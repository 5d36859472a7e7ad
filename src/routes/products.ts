import { Hono } from "hono";
import { NoQuerySchema, PageQuerySchema, VariantQuerySchema } from "../catalog/api.ts";
import { productDetail, productListPage, variantList } from "../catalog/pages.ts";
import { catalogRead, serveCatalogRead } from "../http/catalog-read.ts";
import type { AppEnv } from "../http/app-env.ts";

/** Anonymous product reads, cached at the edge per catalog version (contract section 2). */
export const products = new Hono<AppEnv>()
  .get("/", catalogRead(PageQuerySchema), (c) => serveCatalogRead(c, c.req.valid("query"), productListPage))
  .get("/:handle", catalogRead(NoQuerySchema), (c) =>
    serveCatalogRead(c, c.req.valid("query"), (store, meta) => productDetail(store, meta, c.req.param("handle"))),
  )
  .get("/:handle/variants", catalogRead(VariantQuerySchema), (c) =>
    serveCatalogRead(c, c.req.valid("query"), (store, meta, q) => variantList(store, meta, c.req.param("handle"), q)),
  );
